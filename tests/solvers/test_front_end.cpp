// Argument checks of the solver front ends: each bad argument is named in the exception.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "solvers/lu.hpp"

using namespace hetlu;

namespace {
template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no exception";
}
}  // namespace

TEST(FrontEnd, NegativeSizesAreNamed) {
  std::vector<double> A(4);
  std::vector<int> ipiv(2);
  EXPECT_EQ(message_of([&] { solvers::getrf(Plan{}, -1, 2, A.data(), 2, ipiv.data()); }), "m = -1 must be >= 0");
  EXPECT_EQ(message_of([&] { solvers::getrf(Plan{}, 2, -3, A.data(), 2, ipiv.data()); }), "n = -3 must be >= 0");
}

TEST(FrontEnd, LeadingDimensionIsChecked) {
  std::vector<double> A(25);
  std::vector<int> ipiv(5);
  EXPECT_EQ(message_of([&] { solvers::getrf(Plan{}, 5, 5, A.data(), 3, ipiv.data()); }),
            "lda = 3 must be >= max(1, m) = 5");
  std::vector<double> B(5);
  EXPECT_EQ(message_of([&] { solvers::gesv(Plan{}, 5, 1, A.data(), 5, ipiv.data(), B.data(), 2); }),
            "ldb = 2 must be >= max(1, n) = 5");
}

TEST(FrontEnd, NanAndInfAreRejectedBeforeAnyWork) {
  std::vector<double> A = {1, 2, 3, 4};
  const auto original = A;
  std::vector<int> ipiv(2);
  A[3] = std::nan("");
  EXPECT_EQ(message_of([&] { solvers::getrf(Plan{}, 2, 2, A.data(), 2, ipiv.data()); }),
            "A(2,2) is NaN; the input must be finite");
  A[3] = 4;
  A[1] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(message_of([&] { solvers::getrf(Plan{}, 2, 2, A.data(), 2, ipiv.data()); }),
            "A(2,1) is Inf; the input must be finite");
  A[1] = 2;
  std::vector<double> B = {1, -std::numeric_limits<double>::infinity()};
  EXPECT_EQ(message_of([&] { solvers::gesv(Plan{}, 2, 1, A.data(), 2, ipiv.data(), B.data(), 2); }),
            "B(2,1) is -Inf; the input must be finite");
  EXPECT_EQ(A, original);  // nothing was factored
}

TEST(FrontEnd, TheFirstBadEntryIsNamedInALargeMatrix) {  // the parallel check
  const int n = 400;
  std::vector<double> A(static_cast<size_t>(n) * n, 1.0);
  std::vector<int> ipiv(n);
  A[399 + 300 * n] = std::nan("");
  A[5 + 301 * n] = std::numeric_limits<double>::infinity();
  A[7 + 250 * n] = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(message_of([&] { solvers::getrf(Plan{}, n, n, A.data(), n, ipiv.data()); }),
            "A(8,251) is -Inf; the input must be finite");
  A[7 + 250 * n] = 1;
  EXPECT_EQ(message_of([&] { solvers::getrf(Plan{}, n, n, A.data(), n, ipiv.data()); }),
            "A(400,301) is NaN; the input must be finite");
}

TEST(FrontEnd, PlanMustMatchThePrecision) {
  std::vector<float> A = {1, 2, 3, 4};
  std::vector<int> ipiv(2);
  EXPECT_EQ(message_of([&] { solvers::getrf(Plan{}, 2, 2, A.data(), 2, ipiv.data()); }),
            "plan.precision is double but the matrix is single");
}

TEST(FrontEnd, BadPanelWidthIsNamed) {
  std::vector<double> A = {1, 2, 3, 4};
  std::vector<int> ipiv(2);
  Plan p;
  p.nb = 0;
  EXPECT_EQ(message_of([&] { solvers::getrf(p, 2, 2, A.data(), 2, ipiv.data()); }), "plan.nb = 0 must be >= 1");
}

TEST(FrontEnd, EmptyMatricesAreFine) {
  std::vector<int> ipiv(1);
  EXPECT_EQ(solvers::getrf<double>(Plan{}, 0, 0, nullptr, 1, nullptr), 0);
  EXPECT_EQ(solvers::getrf<double>(Plan{}, 0, 5, nullptr, 1, nullptr), 0);
}

TEST(FrontEnd, HybridPlanWithNegativeCpuShareIsRejected) {
  std::vector<double> A = {1, 2, 3, 4};
  std::vector<int> ipiv(2);
  Plan p;
  p.target = Target::hybrid;
  p.devices = BackendKind::host;
  p.cpu_block_columns = -1;
  try {
    solvers::getrf(p, 2, 2, A.data(), 2, ipiv.data());
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("plan.cpu_block_columns"), std::string::npos) << e.what();
  }
}

TEST(FrontEnd, PrbtHasNoGetrf) {
  std::vector<double> A = {1, 2, 3, 4};
  std::vector<int> ipiv(2);
  Plan p;
  p.solver = Solver::prbt;
  EXPECT_THROW(solvers::getrf(p, 2, 2, A.data(), 2, ipiv.data()), InvalidArgument);
}

// Pivots out of [1, n] once made getrs read and write outside B: each class is named.
TEST(FrontEnd, OutOfRangePivotsAreNamed) {
  std::vector<double> LU = {2, 0.5, 1, 3}, B = {1, 1};
  for (int bad : {0, -1, 3, 1 << 30, std::numeric_limits<int>::min()}) {
    std::vector<int> ipiv = {1, bad};
    EXPECT_EQ(message_of([&] { solvers::getrs(Plan{}, Transpose::no, 2, 1, LU.data(), 2, ipiv.data(), B.data(), 2); }),
              "ipiv(2) = " + std::to_string(bad) + " is not a row number in [1, 2]");
  }
  EXPECT_EQ(B, (std::vector<double>{1, 1}));  // nothing was touched
}
