// The hybrid algorithms on every backend this machine has (host always; cuda with a GPU):
// GEPP, CALU and PRBT for every CPU share d from 0 (panel on the device) to N block columns and
// beyond, odd and rectangular sizes, 1 and 2 CPU threads, both precisions, several right-hand sides.
#include <gtest/gtest.h>
#include <omp.h>

#include <string>
#include <tuple>

#include "matrices.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/backend.hpp"
#include "solvers/lu.hpp"

using namespace hetlu;
using test_support::Kind;

namespace {

template <class T>
Plan hybrid_plan(Solver solver, BackendKind backend, int nb, int d) {
  Plan p;
  p.solver = solver;
  p.precision = sizeof(T) == sizeof(double) ? Precision::double_ : Precision::single;
  p.target = Target::hybrid;
  p.backend = backend;
  p.nb = nb;
  p.ib = std::max(1, nb / 4);
  p.panel_threads = 2;
  p.cpu_block_columns = d;
  p.panel_location = d == 0 ? PanelLocation::device : PanelLocation::cpu;
  return p;
}

// Restores the OpenMP thread count a test changed.
struct Threads {
  int saved = omp_get_max_threads();
  explicit Threads(int t) { omp_set_num_threads(t); }
  ~Threads() { omp_set_num_threads(saved); }
};

template <class T>
void check_getrf(const Plan& plan, Kind kind, int m, int n) {
  SCOPED_TRACE(to_string(plan.solver) + " " + to_string(plan.backend) + " " + std::to_string(m) + "x" +
               std::to_string(n) + " nb=" + std::to_string(plan.nb) + " d=" + std::to_string(plan.cpu_block_columns));
  const auto A = test_support::make_matrix<T>(kind, m, n);
  auto LU = A;
  std::vector<int> ipiv(std::max(1, std::min(m, n)));
  const int lda = std::max(1, m);
  ASSERT_EQ(solvers::getrf(plan, m, n, LU.data(), lda, ipiv.data()), 0);
  for (int i = 0; i < std::min(m, n); ++i) {
    ASSERT_GE(ipiv[i], i + 1);
    ASSERT_LE(ipiv[i], m);
  }
  EXPECT_LT(accuracy::factorization_residual(m, n, A.data(), lda, LU.data(), lda, ipiv.data()), 30.0);
}

template <class T>
void check_gesv(const Plan& plan, int n, int nrhs) {
  SCOPED_TRACE(to_string(plan.solver) + " " + to_string(plan.backend) + " n=" + std::to_string(n) +
               " nb=" + std::to_string(plan.nb) + " d=" + std::to_string(plan.cpu_block_columns));
  const auto A = test_support::make_matrix<T>(Kind::random, n, n, 11);
  const auto B = test_support::make_matrix<T>(Kind::random, n, nrhs, 12);
  auto LU = A;
  auto X = B;
  std::vector<int> ipiv(n);
  SolveDetails details;
  Plan refined = plan;
  refined.refinement = Refinement::working;
  ASSERT_EQ(solvers::gesv(refined, n, nrhs, LU.data(), n, ipiv.data(), X.data(), n, InputCheck::finite, &details), 0);
  EXPECT_FALSE(details.fell_back_to_gepp) << details.note;
  EXPECT_LE(accuracy::backward_error(n, nrhs, A.data(), n, X.data(), n, B.data(), n),
            (n + 1) * accuracy::unit_roundoff<T>());
}

using Case = std::tuple<BackendKind, Solver, int>;  // backend, solver, d
class HybridEveryD : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    std::string why;
    if (!backends::available(std::get<0>(GetParam()), &why)) GTEST_SKIP() << why;
  }
};

// n = 157 with nb = 32: N = 5 block columns, the last one 29 wide.
TEST_P(HybridEveryD, SquareOddSizeDoubleOneAndTwoThreads) {
  auto [backend, solver, d] = GetParam();
  for (int threads : {1, 2}) {
    Threads t(threads);
    SCOPED_TRACE("threads=" + std::to_string(threads));
    if (solver == Solver::prbt)
      check_gesv<double>(hybrid_plan<double>(solver, backend, 32, d), 157, 3);
    else
      check_getrf<double>(hybrid_plan<double>(solver, backend, 32, d), Kind::random, 157, 157);
  }
}

TEST_P(HybridEveryD, SquareSingle) {
  auto [backend, solver, d] = GetParam();
  if (solver == Solver::prbt)
    check_gesv<float>(hybrid_plan<float>(solver, backend, 32, d), 130, 2);
  else
    check_getrf<float>(hybrid_plan<float>(solver, backend, 32, d), Kind::random, 130, 130);
}

TEST_P(HybridEveryD, TallAndWide) {
  auto [backend, solver, d] = GetParam();
  if (solver == Solver::prbt) GTEST_SKIP() << "PRBT solves square systems";
  check_getrf<double>(hybrid_plan<double>(solver, backend, 24, d), Kind::random, 203, 77);
  check_getrf<double>(hybrid_plan<double>(solver, backend, 24, d), Kind::random, 77, 203);
  check_getrf<double>(hybrid_plan<double>(solver, backend, 24, d), Kind::graded, 100, 130);
}

TEST_P(HybridEveryD, SeveralRightHandSides) {
  auto [backend, solver, d] = GetParam();
  check_gesv<double>(hybrid_plan<double>(solver, backend, 16, d), 101, 4);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  auto [backend, solver, d] = info.param;
  return to_string(backend) + "_" + to_string(solver) + "_d" + std::to_string(d);
}

INSTANTIATE_TEST_SUITE_P(Backends, HybridEveryD,
                         ::testing::Combine(::testing::Values(BackendKind::host, BackendKind::cuda),
                                            ::testing::Values(Solver::gepp, Solver::calu, Solver::prbt),
                                            ::testing::Values(0, 1, 2, 3, 4, 5, 9)),
                         case_name);

TEST(Hybrid, SingularMatrixGivesLapackInfo) {
  Plan plan = hybrid_plan<double>(Solver::gepp, BackendKind::host, 16, 2);
  for (int d : {0, 1, 2}) {
    plan.cpu_block_columns = d;
    plan.panel_location = d == 0 ? PanelLocation::device : PanelLocation::cpu;
    auto A = test_support::make_matrix<double>(Kind::random, 50, 50);
    for (int i = 0; i < 50; ++i) A[i + 37 * 50] = 0;  // column 38 is zero
    std::vector<int> ipiv(50);
    EXPECT_EQ(solvers::getrf(plan, 50, 50, A.data(), 50, ipiv.data()), 38) << "d=" << d;
  }
}

TEST(Hybrid, PrbtZeroColumnIsRejected) {
  Plan plan = hybrid_plan<double>(Solver::prbt, BackendKind::host, 16, 2);
  auto A = test_support::make_matrix<double>(Kind::random, 40, 40);
  for (int i = 0; i < 40; ++i) A[i + 5 * 40] = 0;
  std::vector<double> B(40, 1.0);
  std::vector<int> ipiv(40);
  EXPECT_GT(solvers::gesv(plan, 40, 1, A.data(), 40, ipiv.data(), B.data(), 40), 0);
}

TEST(Hybrid, UnavailableBackendIsAClearError) {
  std::string why;
  if (backends::available(BackendKind::cuda, &why)) GTEST_SKIP() << "this machine has a GPU";
  Plan plan = hybrid_plan<double>(Solver::gepp, BackendKind::cuda, 16, 1);
  std::vector<double> A(16, 1.0);
  std::vector<int> ipiv(4);
  try {
    solvers::getrf(plan, 4, 4, A.data(), 4, ipiv.data());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("backend 'cuda' is not available"), std::string::npos) << e.what();
  }
}

}  // namespace
