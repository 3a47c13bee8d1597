// The hybrid algorithms on every backend this machine has (host always; cuda with a GPU):
// GEPP, CALU and PRBT for every CPU share d from 0 (panel on the device) to N block columns and
// beyond, odd and rectangular sizes, 1 and 2 CPU threads, both precisions, several right-hand sides.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "matrices.hpp"
#include "refined_solve.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/backend.hpp"
#include "solvers/butterfly.hpp"
#include "solvers/hybrid_lu.hpp"
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
  p.devices = backend;
  p.nb = nb;
  p.ib = std::max(1, nb / 4);
  p.panel_threads = 2;
  p.cpu_block_columns = d;
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
  SCOPED_TRACE(to_string(plan.solver) + " " + to_string(plan.devices) + " " + std::to_string(m) + "x" +
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
  SCOPED_TRACE(to_string(plan.solver) + " " + to_string(plan.devices) + " n=" + std::to_string(n) +
               " nb=" + std::to_string(plan.nb) + " d=" + std::to_string(plan.cpu_block_columns));
  SolveDetails details;
  test_support::expect_refined_solve<T>(plan, n, nrhs, &details);
  if (::testing::Test::HasFatalFailure()) return;
  // PRBT on one device that the plan's d deals block columns (of its padded order); a d that
  // deals none runs as on the CPU target: the device would only randomize and solve.
  const bool on_device =
      plan.devices.size() == 1 && detail::prbt_devices_take_block_columns(n, plan.nb, plan.cpu_block_columns);
  if (plan.solver == Solver::prbt && on_device) {
    EXPECT_EQ(details.note, "") << "PRBT solves and refines on the device";
    ASSERT_EQ(details.phase_seconds.size(), 4u);  // the upload scans A: no pass of its own
    EXPECT_EQ(details.phase_seconds[0].first, "upload and randomization");
    EXPECT_EQ(details.phase_seconds[2].first, "condition estimate");
  } else if (plan.solver == Solver::prbt) {
    ASSERT_FALSE(details.phase_seconds.empty());
    EXPECT_EQ(details.phase_seconds[0].first, "randomization");
    if (!detail::prbt_devices_take_block_columns(n, plan.nb, plan.cpu_block_columns)) {
      EXPECT_NE(details.note.find("PRBT ran as on the CPU target"), std::string::npos) << details.note;
    }
  }
}

// A square n x n problem: the factorization, or for PRBT (which has no getrf) its solve.
template <class T>
void check_square(const Plan& plan, int n, int nrhs) {
  if (plan.solver == Solver::prbt)
    check_gesv<T>(plan, n, nrhs);
  else
    check_getrf<T>(plan, Kind::random, n, n);
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
    check_square<double>(hybrid_plan<double>(solver, backend, 32, d), 157, 3);
  }
}

TEST_P(HybridEveryD, SquareSingle) {
  auto [backend, solver, d] = GetParam();
  check_square<float>(hybrid_plan<float>(solver, backend, 32, d), 130, 2);
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

// The panel on the device (d = 0) says where the device's time went: the upload, the factorization
// and the download left after it, each timed in its queue; other plans have no phases.
TEST(Hybrid, ThePanelOnTheDeviceReportsItsPhases) {
  const int n = 301;
  const auto A = test_support::make_matrix<double>(Kind::random, n, n, 22);
  for (int d : {0, 2}) {
    auto LU = A;
    std::vector<int> ipiv(n);
    LoadBalance balance;
    ASSERT_EQ(solvers::getrf(hybrid_plan<double>(Solver::gepp, BackendKind::host, 32, d), n, n, LU.data(), n,
                             ipiv.data(), InputCheck::finite, &balance),
              0);
    if (d > 0) {
      EXPECT_TRUE(balance.phases.empty());
      continue;
    }
    ASSERT_EQ(balance.phases.size(), 5u);
    EXPECT_EQ(balance.phases[0].first, "host: memory and slots before the first copy");
    EXPECT_EQ(balance.phases[1].first, "upload, beside the first steps");
    EXPECT_EQ(balance.phases[2].first, "factorization");
    EXPECT_EQ(balance.phases[3].first, "download after it");
    EXPECT_EQ(balance.phases[4].first, "host: unpacking the last slots");
    for (const auto& [phase, seconds] : balance.phases) {
      EXPECT_GE(seconds, 0) << phase;
      EXPECT_LE(seconds, balance.seconds) << phase;
    }
    EXPECT_GT(balance.phases[2].second, 0);
    EXPECT_LT(accuracy::factorization_residual(n, n, A.data(), n, LU.data(), n, ipiv.data()), 30.0);
  }
}

// HETLU_TIME_KERNELS=1 adds each kind of device work's summed time to those phases (the GPU run's
// data for the model's GEPP price); the factors are the same.
TEST(Hybrid, TimingTheKernelsAddsTheirSumsAndChangesNothing) {
  const int n = 301;
  const auto A = test_support::make_matrix<double>(Kind::random, n, n, 23);
  const auto plan = hybrid_plan<double>(Solver::gepp, BackendKind::host, 32, 0);
  auto plain = A;
  std::vector<int> plain_ipiv(n);
  ASSERT_EQ(solvers::getrf(plan, n, n, plain.data(), n, plain_ipiv.data(), InputCheck::finite, nullptr), 0);
  ::setenv("HETLU_TIME_KERNELS", "1", 1);
  auto LU = A;
  std::vector<int> ipiv(n);
  LoadBalance balance;
  const int info = solvers::getrf(plan, n, n, LU.data(), n, ipiv.data(), InputCheck::finite, &balance);
  ::unsetenv("HETLU_TIME_KERNELS");
  ASSERT_EQ(info, 0);
  EXPECT_EQ(LU, plain);
  EXPECT_EQ(ipiv, plain_ipiv);
  std::vector<std::string> names;
  for (const auto& [phase, seconds] : balance.phases) {
    names.push_back(phase);
    EXPECT_GE(seconds, 0) << phase;
  }
  for (const char* kind : {"of which: panels", "of which: interchanges", "of which: TRSM", "of which: GEMM"})
    EXPECT_NE(std::find(names.begin(), names.end(), kind), names.end()) << kind;
}

// With the panel on the device the matrix goes up beside the first steps, a few block columns a
// step: with narrow panels most block columns go up after some panels are factored and catch up
// with them left-looking (interchanges, TRSM, GEMM). Square, tall and wide; GEPP and CALU; a
// wide matrix's block columns right of the last panel too. The CPU's GEPP gives the same pivots.
TEST(Hybrid, BlockColumnsThatGoUpLateCatchUpWithThePanelsBefore) {
  for (Solver solver : {Solver::gepp, Solver::calu})
    for (auto [m, n] : {std::pair{301, 301}, std::pair{301, 150}, std::pair{150, 301}, std::pair{16, 301},
                        std::pair{7, 40}}) {  // m = 16, 7: block columns still up after the last panel
      check_getrf<double>(hybrid_plan<double>(solver, BackendKind::host, 8, 0), Kind::random, m, n);
      check_getrf<float>(hybrid_plan<float>(solver, BackendKind::host, 5, 0), Kind::random, m, n);
    }
  const int n = 203;
  const auto A = test_support::make_matrix<double>(Kind::random, n, n, 23);
  auto hybrid = A, cpu = A;
  std::vector<int> hybrid_pivots(n), cpu_pivots(n);
  ASSERT_EQ(solvers::getrf(hybrid_plan<double>(Solver::gepp, BackendKind::host, 8, 0), n, n, hybrid.data(), n,
                           hybrid_pivots.data()),
            0);
  Plan plan;
  plan.nb = 8;
  ASSERT_EQ(solvers::getrf(plan, n, n, cpu.data(), n, cpu_pivots.data()), 0);
  EXPECT_EQ(hybrid_pivots, cpu_pivots);
}

// HETLU_L_STRIPS=1: L comes back by row blocks during the steps (hybrid_lu.hpp's device_panels)
// rather than after them: the same factors and pivots to the bit, square, tall and wide, GEPP and
// CALU, checked (early downloads held back until the last column is up) or not, single and double;
// and a NaN met on the upload still leaves A and ipiv as they were.
TEST(Hybrid, LByRowBlocksDuringTheStepsGivesTheSameFactors) {
  struct Strips {
    Strips() { ::setenv("HETLU_L_STRIPS", "1", 1); }
    ~Strips() { ::unsetenv("HETLU_L_STRIPS"); }
  };
  auto factor = [](const Plan& plan, int m, int n, std::vector<double> A, InputCheck check, bool strips) {
    std::optional<Strips> on;
    if (strips) on.emplace();
    std::vector<int> ipiv(std::min(m, n), -7);
    const int info = solvers::getrf(plan, m, n, A.data(), m, ipiv.data(), check);
    return std::tuple{info, A, ipiv};
  };
  for (Solver solver : {Solver::gepp, Solver::calu})
    for (auto [m, n] : {std::pair{203, 203}, std::pair{301, 150}, std::pair{150, 301}, std::pair{16, 301}})
      for (InputCheck check : {InputCheck::finite, InputCheck::none}) {
        SCOPED_TRACE(to_string(solver) + " " + std::to_string(m) + " x " + std::to_string(n) +
                     (check == InputCheck::finite ? " checked" : ""));
        const Plan plan = hybrid_plan<double>(solver, BackendKind::host, 8, 0);
        const auto A = test_support::make_matrix<double>(Kind::random, m, n, 43);
        const auto whole = factor(plan, m, n, A, check, false), strips = factor(plan, m, n, A, check, true);
        EXPECT_EQ(std::get<0>(strips), std::get<0>(whole));
        EXPECT_EQ(std::get<2>(strips), std::get<2>(whole));
        EXPECT_EQ(std::memcmp(std::get<1>(strips).data(), std::get<1>(whole).data(), sizeof(double) * A.size()), 0);
      }
  const Strips on;
  check_getrf<float>(hybrid_plan<float>(Solver::gepp, BackendKind::host, 5, 0), Kind::random, 211, 211);
  const int n = 203;
  auto A = test_support::make_matrix<double>(Kind::random, n, n, 47);
  A[9 + static_cast<size_t>(190) * n] = std::nan("");
  const auto given = A;
  std::vector<int> ipiv(n, -7);
  EXPECT_THROW(
      solvers::getrf(hybrid_plan<double>(Solver::gepp, BackendKind::host, 8, 0), n, n, A.data(), n, ipiv.data()),
      InvalidArgument);
  EXPECT_EQ(std::memcmp(A.data(), given.data(), sizeof(double) * A.size()), 0) << "A changed";
  EXPECT_EQ(ipiv, std::vector<int>(n, -7));
}

// With the panel on the device (d = 0) A's finiteness is tested as its block columns are packed for
// the upload beside the steps (HybridLu::check_input), not by a pass of its own. An entry that is
// not finite in the first batch, in the last, or in a column that goes up after the early downloads
// could have begun: the same error as the CPUs' check, A and ipiv untouched, for getrf and gesv.
// With d > 0 (and for a rectangular A with block columns right of the panels) the check comes
// before any work, as it always did.
TEST(Hybrid, TheUploadChecksThatAIsFinite) {
  const int n = 203, nb = 8;  // 26 block columns: 7 batches of 4 go up, the last well after step 0
  const auto A = test_support::make_matrix<double>(Kind::random, n, n, 31);
  auto error_of = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const InvalidArgument& e) {
      return e.what();
    }
    return "no error";
  };
  for (Solver solver : {Solver::gepp, Solver::calu})
    for (int d : {0, 2})
      for (auto [i, j, bad] : {std::tuple{4, 0, std::nan("")}, std::tuple{200, 202, HUGE_VAL},
                               std::tuple{0, 150, -HUGE_VAL}, std::tuple{100, 33, std::nan("")}}) {
        SCOPED_TRACE(to_string(solver) + " d=" + std::to_string(d) + " A(" + std::to_string(i + 1) + "," +
                     std::to_string(j + 1) + ")");
        const Plan plan = hybrid_plan<double>(solver, BackendKind::host, nb, d);
        auto LU = A;
        LU[i + static_cast<size_t>(j) * n] = bad;
        const auto given = LU;
        std::vector<int> ipiv(n, -7);
        const std::string expected = "A(" + std::to_string(i + 1) + "," + std::to_string(j + 1) + ") is " +
                                     (std::isnan(bad) ? "NaN"
                                      : bad > 0       ? "Inf"
                                                      : "-Inf") +
                                     "; the input must be finite";
        EXPECT_EQ(error_of([&] { solvers::getrf(plan, n, n, LU.data(), n, ipiv.data()); }), expected);
        EXPECT_EQ(std::memcmp(LU.data(), given.data(), sizeof(double) * LU.size()), 0) << "A changed";
        EXPECT_EQ(ipiv, std::vector<int>(n, -7));
        std::vector<double> B(n, 1.0);
        EXPECT_EQ(error_of([&] { solvers::gesv(plan, n, 1, LU.data(), n, ipiv.data(), B.data(), n); }), expected);
        EXPECT_EQ(std::memcmp(LU.data(), given.data(), sizeof(double) * LU.size()), 0) << "A changed";
        EXPECT_EQ(B, std::vector<double>(n, 1.0));
        // Told not to check (the drop-in's LAPACK semantics), the factorization runs through.
        EXPECT_EQ(error_of([&] { solvers::getrf(plan, n, n, LU.data(), n, ipiv.data(), InputCheck::none); }),
                  "no error");
      }
  // A finite A: the same factors as without the check.
  const Plan plan = hybrid_plan<double>(Solver::gepp, BackendKind::host, nb, 0);
  auto checked = A, unchecked = A;
  std::vector<int> checked_pivots(n), unchecked_pivots(n);
  ASSERT_EQ(solvers::getrf(plan, n, n, checked.data(), n, checked_pivots.data()), 0);
  ASSERT_EQ(solvers::getrf(plan, n, n, unchecked.data(), n, unchecked_pivots.data(), InputCheck::none), 0);
  EXPECT_EQ(checked_pivots, unchecked_pivots);
  EXPECT_EQ(std::memcmp(checked.data(), unchecked.data(), sizeof(double) * checked.size()), 0);
  // A wide A: its block columns right of the last panel go up last, and are checked too.
  const int m = 40;
  auto wide = test_support::make_matrix<double>(Kind::random, m, n, 37);
  wide[3 + static_cast<size_t>(190) * m] = std::nan("");
  std::vector<int> wide_pivots(m);
  EXPECT_EQ(error_of([&] { solvers::getrf(plan, m, n, wide.data(), m, wide_pivots.data()); }),
            "A(4,191) is NaN; the input must be finite");
  // Wider still (m = 16: two panels): block columns 16 to 25 go up after the steps, in one batch,
  // which the check reads too.
  const int short_m = 16;
  auto wider = test_support::make_matrix<double>(Kind::random, short_m, n, 41);
  const auto wider_given = wider;
  wider[5 + static_cast<size_t>(200) * short_m] = -HUGE_VAL;
  auto wider_bad = wider;
  std::vector<int> wider_pivots(short_m, -7);
  EXPECT_EQ(error_of([&] { solvers::getrf(plan, short_m, n, wider_bad.data(), short_m, wider_pivots.data()); }),
            "A(6,201) is -Inf; the input must be finite");
  EXPECT_EQ(std::memcmp(wider_bad.data(), wider.data(), sizeof(double) * wider.size()), 0) << "A changed";
  EXPECT_EQ(wider_pivots, std::vector<int>(short_m, -7));
  auto wider_good = wider_given;  // and without the Inf, the factors of the CPUs' GEPP
  ASSERT_EQ(solvers::getrf(plan, short_m, n, wider_good.data(), short_m, wider_pivots.data()), 0);
  EXPECT_LT(accuracy::factorization_residual(short_m, n, wider_given.data(), short_m, wider_good.data(), short_m,
                                             wider_pivots.data()),
            30.0);
}

// PRBT tests A's finiteness from the pass it makes over A anyway (its column sums; on the CPUs the
// randomization, on the device the scan before the upload), not in a pass of its own: the same
// error as the front end's, A and B untouched; a finite A whose column sums overflow is solved.
TEST(Hybrid, PrbtsPassOverAChecksThatItIsFinite) {
  const int n = 150;
  const auto A = test_support::make_matrix<double>(Kind::random, n, n, 37);
  Plan cpu;
  cpu.solver = Solver::prbt;
  cpu.nb = 16;
  Plan several = hybrid_plan<double>(Solver::prbt, BackendKind::host, 16, 2);  // the CPUs randomize
  several.devices = from_string<DeviceSet>("host:1,host:1");
  for (const Plan& plan : {cpu, hybrid_plan<double>(Solver::prbt, BackendKind::host, 16, 0),
                           hybrid_plan<double>(Solver::prbt, BackendKind::host, 16, 3), several})
    for (auto [i, j, bad] :
         {std::tuple{4, 0, std::nan("")}, std::tuple{149, 149, HUGE_VAL}, std::tuple{0, 101, -HUGE_VAL}}) {
      SCOPED_TRACE(to_string(plan.target) + " " + to_string(plan.devices) +
                   " d=" + std::to_string(plan.cpu_block_columns) + " A(" + std::to_string(i + 1) + "," +
                   std::to_string(j + 1) + ")");
      auto given = A;
      given[i + static_cast<size_t>(j) * n] = bad;
      auto a = given;
      std::vector<double> B(n, 1.0);
      std::vector<int> ipiv(n, -7);
      std::string error = "no error";
      try {
        solvers::gesv(plan, n, 1, a.data(), n, ipiv.data(), B.data(), n);
      } catch (const InvalidArgument& e) {
        error = e.what();
      }
      EXPECT_EQ(error, "A(" + std::to_string(i + 1) + "," + std::to_string(j + 1) + ") is " +
                           (std::isnan(bad) ? "NaN"
                            : bad > 0       ? "Inf"
                                            : "-Inf") +
                           "; the input must be finite");
      EXPECT_EQ(std::memcmp(a.data(), given.data(), sizeof(double) * a.size()), 0) << "A changed";
      EXPECT_EQ(B, std::vector<double>(n, 1.0));
      EXPECT_EQ(ipiv, std::vector<int>(n, -7));
    }
  // Column sums past the largest double, every entry finite: a system like any other.
  auto huge = A;
  for (int i = 0; i < n; ++i) huge[i + static_cast<size_t>(7) * n] = 1e308 * (i % 2 ? 1 : -1);
  std::vector<double> x(n), b(n, 1.0);
  std::vector<int> ipiv(n);
  for (const Plan& plan : {cpu, hybrid_plan<double>(Solver::prbt, BackendKind::host, 16, 0)}) {
    auto a = huge;
    x = b;
    EXPECT_NO_THROW(solvers::gesv(plan, n, 1, a.data(), n, ipiv.data(), x.data(), n)) << to_string(plan.target);
  }
}

// PRBT pads A to a multiple of 4 with s I: s is a power of two near A's magnitude. With s = 1, a
// well-conditioned A of entries near 1e-20 (or 1e-36) and n = 49..51 fell back to GEPP (refinement
// did not converge, or GENP met a zero pivot on the hybrid target); n = 48 and 52 did not.
TEST(Hybrid, PrbtsPaddingFollowsTheMatricesScale) {
  for (int n : {49, 50, 51})
    for (double scale : {1e-20, 1e-36, 1e30})
      for (bool hybrid : {false, true})
        for (bool hollow : {false, true}) {  // hollow: diagonal and anti-diagonal zero
          SCOPED_TRACE("n = " + std::to_string(n) + ", scale " + std::to_string(scale) + (hybrid ? ", hybrid" : "") +
                       (hollow ? ", hollow" : ""));
          auto A = test_support::make_matrix<double>(Kind::random, n, n, 31);
          for (auto& a : A) a *= scale;
          if (hollow)
            for (int i = 0; i < n; ++i)
              A[i + static_cast<size_t>(i) * n] = A[i + static_cast<size_t>(n - 1 - i) * n] = 0;
          const auto B = test_support::make_matrix<double>(Kind::random, n, 1, 32);
          auto LU = A;
          auto X = B;
          std::vector<int> ipiv(n);
          Plan plan = hybrid ? hybrid_plan<double>(Solver::prbt, BackendKind::host, 16, 0) : Plan{};
          plan.solver = Solver::prbt;
          plan.refinement = Refinement::working;
          SolveDetails details;
          ASSERT_EQ(solvers::gesv(plan, n, 1, LU.data(), n, ipiv.data(), X.data(), n, InputCheck::finite, &details), 0);
          EXPECT_FALSE(details.fell_back_to_gepp) << details.note;
          EXPECT_LE(accuracy::backward_error(n, 1, A.data(), n, X.data(), n, B.data(), n),
                    (n + 1) * accuracy::unit_roundoff<double>());
        }
  // The mean binary exponent of the nonzero entries sampled: 3e-20 = 1.1 2^-65, 1e-21 = 1.2 2^-70.
  EXPECT_EQ(kernels::padding_value(2, std::vector<double>{3e-20, 0, 0, 1e-21}.data(), 2), std::ldexp(1.0, -68));
  EXPECT_EQ(kernels::padding_value(2, std::vector<double>(4, 0.0).data(), 2), 1.0);
  std::vector<double> hollow(64, 1e-30), spiked(64, 1.0);  // 8 x 8
  for (int i = 0; i < 8; ++i) hollow[i + 8 * i] = hollow[i + 8 * (7 - i)] = 0;
  EXPECT_EQ(kernels::padding_value(8, hollow.data(), 8), std::ldexp(1.0, -100));  // 1e-30 = 1.3 2^-100
  spiked[7 * 8] = 1e20;  // one huge corner entry does not set the scale
  EXPECT_LE(kernels::padding_value(8, spiked.data(), 8), 4.0);
  EXPECT_EQ(kernels::padding_value(1, std::vector<float>{1e38f}.data(), 1), std::ldexp(1.0f, 126));
}

// Factors left on the device (for a solve there) equal those that come back to the host, for
// every d, with pivoting (GEPP) and without (PRBT's GENP).
TEST(Hybrid, FactorsLeftOnTheDeviceEqualTheHostFactors) {
  const int n = 157, nb = 32;
  auto& device = backends::backend<double>(BackendKind::host);
  const auto A = test_support::make_matrix<double>(Kind::random, n, n, 21);
  for (bool pivoting : {true, false}) {
    for (int d : {0, 1, 2, 4, 5, 9}) {
      SCOPED_TRACE("pivoting=" + std::to_string(pivoting) + " d=" + std::to_string(d));
      auto run = [&](std::vector<double>& LU, std::vector<int>& ipiv, bool keep) {
        auto panel = [pivoting](int rows, int width, double* P, int ld, int* piv) {
          return pivoting ? kernels::getrf_recursive(rows, width, P, ld, piv)
                          : variants::genp_panel<double>(rows, width, P, ld, piv);
        };
        variants::HybridLu<double, decltype(panel)> lu(device, variants::Matrix<double>{n, n, n, LU.data()}, nb, d,
                                                       ipiv.data(), pivoting, panel);
        if (keep) lu.leave_factors_on_device();
        ASSERT_EQ(lu.run(), 0);
        if (!keep) return;
        const auto& dLU = lu.device_factors();
        device.copy_to_host(backends::Queue::to_host, n, n, dLU.data(), dLU.ld, LU.data(), n);
        device.synchronize();
      };
      std::vector<double> on_host = A, on_device = A;
      std::vector<int> host_ipiv(n), device_ipiv(n);
      run(on_host, host_ipiv, false);
      run(on_device, device_ipiv, true);
      EXPECT_EQ(device_ipiv, host_ipiv);
      double difference = 0;
      for (int i = 0; i < n * n; ++i) difference = std::max(difference, std::abs(on_device[i] - on_host[i]));
      EXPECT_LT(difference, 1e-12);
      EXPECT_LT(accuracy::factorization_residual(n, n, A.data(), n, on_device.data(), n, device_ipiv.data()), 30.0);
    }
  }
}

// Device memory for one copy of the matrix but not two: PRBT factors on the device, brings the
// factors back and solves on the CPUs, and says so.
TEST(Hybrid, PrbtSolvesOnTheCpusWhenTheDeviceHoldsOneCopy) {
  const int n = 400;  // 1.28 MB a copy, 2 MiB of device memory
  ::setenv("HETLU_HOST_BACKEND_MEMORY_MIB", "2", 1);
  struct Unset {
    ~Unset() { ::unsetenv("HETLU_HOST_BACKEND_MEMORY_MIB"); }
  } unset;
  const auto A = test_support::make_matrix<double>(Kind::random, n, n, 31);
  const auto B = test_support::make_matrix<double>(Kind::random, n, 2, 32);
  for (int d : {0, 2}) {
    SCOPED_TRACE("d=" + std::to_string(d));
    auto LU = A;
    auto X = B;
    std::vector<int> ipiv(n);
    SolveDetails details;
    Plan plan = hybrid_plan<double>(Solver::prbt, BackendKind::host, 64, d);
    ASSERT_EQ(solvers::gesv(plan, n, 2, LU.data(), n, ipiv.data(), X.data(), n, InputCheck::finite, &details), 0);
    EXPECT_FALSE(details.fell_back_to_gepp);
    EXPECT_NE(details.note.find("solve and refinement on the CPUs: host backend: out of memory"), std::string::npos)
        << details.note;
    EXPECT_LE(accuracy::backward_error(n, 2, A.data(), n, X.data(), n, B.data(), n),
              (n + 1) * accuracy::unit_roundoff<double>());
  }
  {
    // Two copies of A exactly (n = 1024, 16 MiB) but not the solves' buffers beside them: known
    // before the factorization, not after it (the 1024 x 1 buffer ran out once the device had
    // factored A, and the CPUs started over: a review's finding).
    ::setenv("HETLU_HOST_BACKEND_MEMORY_MIB", "16", 1);
    const int order = 1024;
    auto LU = test_support::make_matrix<double>(Kind::random, order, order, 33);
    const auto A0 = LU;
    auto X = test_support::make_matrix<double>(Kind::random, order, 1, 34);
    const auto B0 = X;
    std::vector<int> ipiv(order);
    SolveDetails details;
    ASSERT_EQ(solvers::gesv(hybrid_plan<double>(Solver::prbt, BackendKind::host, 128, 2), order, 1, LU.data(), order,
                            ipiv.data(), X.data(), order, InputCheck::finite, &details),
              0);
    EXPECT_NE(details.note.find("solve and refinement on the CPUs: host backend: out of memory"), std::string::npos)
        << details.note;
    EXPECT_LE(accuracy::backward_error(order, 1, A0.data(), order, X.data(), order, B0.data(), order),
              (order + 1) * accuracy::unit_roundoff<double>());
  }
  // Not even one copy: a clear error.
  ::setenv("HETLU_HOST_BACKEND_MEMORY_MIB", "1", 1);
  auto LU = A;
  auto X = B;
  std::vector<int> ipiv(n);
  try {
    solvers::gesv(hybrid_plan<double>(Solver::prbt, BackendKind::host, 64, 2), n, 1, LU.data(), n, ipiv.data(),
                  X.data(), n);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
  }
}

// Systems smaller than one panel, and PRBT's padding of 1 to 3 rows, for each placement.
TEST(Hybrid, TinySystems) {
  for (Solver solver : {Solver::gepp, Solver::calu, Solver::prbt})
    for (int n = 1; n <= 9; ++n)
      for (int d : {0, 1, 3}) check_gesv<double>(hybrid_plan<double>(solver, BackendKind::host, 4, d), n, 2);
}

// PRBT whose d keeps every one of A's block columns on the CPUs, where the padded order has one
// more (n = 1001, nb = 77: 13 block columns of A, 14 of 1004): it runs as on the CPU target (a
// review found the device given the block column of padding, and A uploaded and randomized there).
TEST(Hybrid, PrbtWhoseDKeepsEveryColumnOfARunsOnTheCpus) {
  check_gesv<double>(hybrid_plan<double>(Solver::prbt, BackendKind::host, 77, 13), 1001, 1);
  check_gesv<double>(hybrid_plan<double>(Solver::prbt, BackendKind::host, 77, 12), 1001, 1);
}

// d = 0 with nb >= n: the device factors the whole matrix as one panel (cuSOLVER getrf on a GPU).
TEST(Hybrid, OnePanelOnTheDevice) {
  for (Solver solver : {Solver::gepp, Solver::calu, Solver::prbt}) {
    check_gesv<double>(hybrid_plan<double>(solver, BackendKind::host, 160, 0), 157, 3);
    if (solver != Solver::prbt)
      check_getrf<double>(hybrid_plan<double>(solver, BackendKind::host, 400, 0), Kind::random, 203, 77);
  }
}

// #17: the caller's matrix is never page-locked; every copy goes through staging slots of one
// block column (PRBT's: of its padded order) where block columns cross every step (d >= 1), and of
// at most 32 MiB for the bulk copies of d = 0, and the answers stay right.
TEST(Hybrid, NothingLargerThanABlockColumnIsPageLocked) {
  auto& device = backends::backend<double>(BackendKind::host);
  const int n = 301, nb = 24;
  for (Solver solver : {Solver::gepp, Solver::calu, Solver::prbt})
    for (int d : {1, 3, 20}) {
      device.reset_pinned_statistics();
      check_gesv<double>(hybrid_plan<double>(solver, BackendKind::host, nb, d), n, 2);
      const int rows = solver == Solver::prbt ? (n + 3) / 4 * 4 : n;
      // d = 20 > 13 block columns: every one stays on the CPUs, and nothing moves (PRBT runs as on
      // the CPU target).
      if (d < 13)
        EXPECT_GT(device.largest_pinned_bytes(), 0u) << to_string(solver) << " d=" << d;
      else
        EXPECT_EQ(device.largest_pinned_bytes(), 0u) << to_string(solver) << " d=" << d;
      EXPECT_LE(device.largest_pinned_bytes(), sizeof(double) * rows * nb) << to_string(solver) << " d=" << d;
    }
  // d = 0 on a matrix larger than a bulk slot (2100^2 doubles: 34 MB), one panel (nb >= n) included.
  const int large = 2100;
  for (int panel : {128, large}) {
    device.reset_pinned_statistics();
    check_getrf<double>(hybrid_plan<double>(Solver::gepp, BackendKind::host, panel, 0), Kind::random, large, large);
    EXPECT_LE(device.largest_pinned_bytes(), detail::bulk_staging_slot_bytes) << "nb=" << panel;
    EXPECT_GE(device.largest_pinned_bytes(), detail::bulk_staging_slot_bytes - sizeof(double) * large);
  }
}

TEST(Hybrid, SingularMatrixGivesLapackInfo) {
  Plan plan = hybrid_plan<double>(Solver::gepp, BackendKind::host, 16, 2);
  for (int d : {0, 1, 2}) {
    plan.cpu_block_columns = d;
    auto A = test_support::make_matrix<double>(Kind::random, 50, 50);
    for (int i = 0; i < 50; ++i) A[i + 37 * 50] = 0;  // column 38 is zero
    std::vector<int> ipiv(50);
    EXPECT_EQ(solvers::getrf(plan, 50, 50, A.data(), 50, ipiv.data()), 38) << "d=" << d;
    // Two zero columns in different panels: LAPACK's info is the first (the device's panel infos
    // come back at the end, in panel order).
    A = test_support::make_matrix<double>(Kind::random, 50, 50);
    for (int i = 0; i < 50; ++i) A[i + 40 * 50] = A[i + 20 * 50] = 0;
    EXPECT_EQ(solvers::getrf(plan, 50, 50, A.data(), 50, ipiv.data()), 21) << "d=" << d;
    for (int i = 0; i < 50; ++i) EXPECT_TRUE(ipiv[i] >= i + 1 && ipiv[i] <= 50) << i;
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

// The host backend's variables are parsed strictly and bounded: garbage, a fraction, a negative
// or zero count, an overflow and a size past the limits are one-line errors naming the variable.
TEST(Hybrid, HostBackendVariablesAreCheckedStrictly) {
  struct Restore {
    ~Restore() {
      ::unsetenv("HETLU_HOST_BACKEND_MEMORY_MIB");
      ::unsetenv("HETLU_HOST_BACKEND_THREADS");
    }
  } restore;
  for (const char* bad :
       {"", "garbage", "1e3", "-1", "0", "12abc", " 4", "+5", "17592186044416", "99999999999999999999"}) {
    ::setenv("HETLU_HOST_BACKEND_MEMORY_MIB", bad, 1);
    try {
      backends::host_backend_memory_limit();
      ADD_FAILURE() << "accepted HETLU_HOST_BACKEND_MEMORY_MIB='" << bad << "'";
    } catch (const InvalidArgument& e) {
      EXPECT_EQ(std::string(e.what()), std::string("HETLU_HOST_BACKEND_MEMORY_MIB = '") + bad +
                                           "' must be a whole number in [1, 1099511627776]");
    }
  }
  ::setenv("HETLU_HOST_BACKEND_MEMORY_MIB", "1099511627776", 1);  // 2^40 MiB, the most: 2^60 bytes, no overflow
  EXPECT_EQ(backends::host_backend_memory_limit(), std::size_t(1) << 60);
  ::setenv("HETLU_HOST_BACKEND_MEMORY_MIB", "3", 1);
  EXPECT_EQ(backends::host_backend_memory_limit(), std::size_t(3) << 20);
  for (const char* bad : {"100000", "1025", "0", "-2", "two", "1.5"}) {
    ::setenv("HETLU_HOST_BACKEND_THREADS", bad, 1);
    EXPECT_THROW(backends::host_backend_threads(), InvalidArgument) << bad;
  }
  ::setenv("HETLU_HOST_BACKEND_THREADS", "3", 1);
  EXPECT_EQ(backends::host_backend_threads(), 3);
}
