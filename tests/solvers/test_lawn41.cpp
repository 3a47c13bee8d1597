// GEPP, CALU and PRBT on LAPACK's 11 test-matrix types at n = 512 (and 509, not a multiple of the
// block sizes nor of PRBT's 4), with 1 and 2 threads: after refinement the componentwise backward
// error is at most (n + 1) eps (1e-12 for condition 0.1/eps and near underflow); the singular types
// give LAPACK's info from every solver (randomization must not hide a zero column; tournament
// pivoting must not stop at it); GEPP's and CALU's factorizations, complete even then, have ||PA - LU|| / (n ||A|| eps)
// < 30. The same for the hybrid target on every backend this machine has (host always; cuda with a GPU), the panel on
// the CPUs and on the device.
#include <gtest/gtest.h>
#include <omp.h>

#include <cctype>
#include <map>
#include <random>
#include <tuple>

#include "lawn41.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/backend.hpp"
#include "solvers/lu.hpp"

using namespace hetlu;

namespace {

Plan plan_for(Solver solver) {
  Plan p;
  p.solver = solver;
  p.nb = 100;  // 512 and 509 are not multiples of it
  p.ib = 24;
  p.panel_threads = 2;
  p.refinement = Refinement::working;
  return p;
}

// One matrix per (type, n), generated once: QR-based generation is the slow part.
const std::vector<double>& matrix(int type, int n) {
  static std::map<std::pair<int, int>, std::vector<double>> cache;
  auto& A = cache[{type, n}];
  if (A.empty()) A = test_support::lawn41_matrix(type, n);
  return A;
}

// Solves A x = b for LAWN 41's type `type` with the plan on `threads` threads, and checks the
// result: rejected if singular, else omega within the bound and (GEPP, CALU) a small residual.
void check_solves_or_rejects(const Plan& plan, int type, int n, int threads) {
  const Solver solver = plan.solver;
  omp_set_num_threads(threads);
  const auto& A = matrix(type, n);
  std::mt19937_64 rng(type);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x_true(n), b(n, 0.0);
  for (auto& x : x_true) x = u(rng);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) b[i] += A[i + static_cast<size_t>(j) * n] * x_true[j];

  auto LU = A;
  auto x = b;
  std::vector<int> ipiv(n);
  SolveDetails details;
  const int info = solvers::gesv(plan, n, 1, LU.data(), n, ipiv.data(), x.data(), n, InputCheck::finite, &details);
  omp_set_num_threads(omp_get_num_procs());

  if (test_support::lawn41_singular(type)) {
    EXPECT_EQ(info, test_support::lawn41_zero_column(type, n)) << "a singular matrix was not rejected";
    // LAPACK's contract: with info > 0 the factorization is still complete.
    if (solver != Solver::prbt && info > 0) {
      EXPECT_LT(accuracy::factorization_residual(n, n, A.data(), n, LU.data(), n, ipiv.data()), 30.0);
    }
    return;
  }
  ASSERT_EQ(info, 0);
  const double omega = accuracy::backward_error(n, 1, A.data(), n, x.data(), n, b.data(), n);
  const double bound = (type == 9 || type == 10) ? 1e-12 : (n + 1) * accuracy::unit_roundoff<double>();
  EXPECT_LE(omega, bound) << "refinement steps " << details.refinement_steps
                          << (details.fell_back_to_gepp ? ", fell back: " + details.note : "");
  EXPECT_LE(details.refinement_steps, 5);
  if (solver != Solver::prbt) {
    EXPECT_LT(accuracy::factorization_residual(n, n, A.data(), n, LU.data(), n, ipiv.data()), 30.0);
  }
}

using Case = std::tuple<int, Solver, int, int>;  // type, solver, n, threads

class Lawn41 : public ::testing::TestWithParam<Case> {};

TEST_P(Lawn41, SolvesOrRejects) {
  const auto [type, solver, n, threads] = GetParam();
  check_solves_or_rejects(plan_for(solver), type, n, threads);
}

std::string case_name(const ::testing::TestParamInfo<Case>& param) {
  const int type = std::get<0>(param.param);
  std::string name = test_support::lawn41_name(type);
  for (auto& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return "type" + std::to_string(type) + "_" + name + "_" + to_string(std::get<1>(param.param)) + "_n" +
         std::to_string(std::get<2>(param.param)) + "_t" + std::to_string(std::get<3>(param.param));
}

INSTANTIATE_TEST_SUITE_P(AllTypes, Lawn41,
                         ::testing::Combine(::testing::Range(1, 12),
                                            ::testing::Values(Solver::gepp, Solver::calu, Solver::prbt),
                                            ::testing::Values(512, 509), ::testing::Values(1, 2)),
                         case_name);

using HybridCase = std::tuple<int, Solver, BackendKind, int>;  // type, solver, backend, d

class HybridLawn41 : public ::testing::TestWithParam<HybridCase> {
 protected:
  void SetUp() override {
    std::string why;
    if (!backends::available(std::get<2>(GetParam()), &why)) GTEST_SKIP() << why;
  }
};

// n = 509 with nb = 100: 6 block columns; d = 0 puts the panel on the device, d = 2 on the CPUs.
TEST_P(HybridLawn41, SolvesOrRejects) {
  const auto [type, solver, backend, d] = GetParam();
  Plan plan = plan_for(solver);
  plan.target = Target::hybrid;
  plan.devices = backend;
  plan.cpu_block_columns = d;
  check_solves_or_rejects(plan, type, 509, 2);
}

std::string hybrid_case_name(const ::testing::TestParamInfo<HybridCase>& param) {
  const auto [type, solver, backend, d] = param.param;
  return "type" + std::to_string(type) + "_" + to_string(solver) + "_" + to_string(backend) + "_d" + std::to_string(d);
}

INSTANTIATE_TEST_SUITE_P(AllTypes, HybridLawn41,
                         ::testing::Combine(::testing::Range(1, 12),
                                            ::testing::Values(Solver::gepp, Solver::calu, Solver::prbt),
                                            ::testing::Values(BackendKind::host, BackendKind::cuda),
                                            ::testing::Values(0, 2)),
                         hybrid_case_name);

}  // namespace
