// Complex precisions (#15.1): GEPP and CALU factorizations with ||PA - LU|| / (n ||A|| eps) < 30 on
// awkward sizes and panel widths; GEPP, CALU and PRBT solves of LAWN 41's types in complex
// (zlatms-style), refined to omega <= (n + 1) eps (LAPACK's |re| + |im| measure) or rejected with
// LAPACK's info when singular; getrs with A^T and A^H; on the CPUs and on the hybrid target's host
// backend, the panel on either side.
#include <gtest/gtest.h>

#include <complex>
#include <random>
#include <tuple>

#include "lawn41.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/backend.hpp"
#include "solvers/lu.hpp"
#include "solvers/variants.hpp"
#include "solvers/vendor_lapack.hpp"

using namespace hetlu;

namespace {

using Z = std::complex<double>;
using C = std::complex<float>;

template <class T>
constexpr Precision precision_of() {
  return std::is_same_v<T, Z> ? Precision::double_ : Precision::single;
}

template <class T>
Plan plan_for(Solver solver, int nb, int d = -1, BackendKind kind = BackendKind::host) {
  Plan p;
  p.precision = precision_of<T>();
  p.solver = solver;
  p.nb = nb;
  p.ib = std::max(1, nb / 4);
  p.panel_threads = 2;
  p.refinement = Refinement::working;
  if (d >= 0) {
    p.target = Target::hybrid;
    p.devices = kind;
    p.cpu_block_columns = d;
  }
  return p;
}

template <class T>
std::vector<T> random_complex(int m, int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> A(static_cast<size_t>(std::max(1, m)) * n);
  for (auto& a : A) a = T(u(rng), u(rng));
  return A;
}

template <class T>
double unit_roundoff() {
  return accuracy::unit_roundoff<T>();
}

// ---- factorizations ------------------------------------------------------------------------------

using FactorCase = std::tuple<Solver, int, int, int, int>;  // solver, m, n, nb, d (-1: CPU target)

class ComplexGetrf : public ::testing::TestWithParam<FactorCase> {};

template <class T>
void check_getrf(const FactorCase& c, BackendKind kind = BackendKind::host) {
  const auto [solver, m, n, nb, d] = c;
  const auto A = random_complex<T>(m, n, 11u + m + 7u * n);
  auto LU = A;
  std::vector<int> ipiv(std::max(1, std::min(m, n)));
  const int lda = std::max(1, m);
  const int info = solvers::getrf(plan_for<T>(solver, nb, d, kind), m, n, LU.data(), lda, ipiv.data());
  EXPECT_EQ(info, 0);
  EXPECT_LT(accuracy::factorization_residual(m, n, A.data(), lda, LU.data(), lda, ipiv.data()), 30.0);
}

TEST_P(ComplexGetrf, DoubleResidualBelow30) {
  check_getrf<Z>(GetParam());
}
TEST_P(ComplexGetrf, SingleResidualBelow30) {
  check_getrf<C>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    CpuAndHost, ComplexGetrf,
    ::testing::Values(FactorCase{Solver::gepp, 1, 1, 8, -1}, FactorCase{Solver::gepp, 0, 5, 8, -1},
                      FactorCase{Solver::gepp, 97, 97, 16, -1}, FactorCase{Solver::gepp, 130, 61, 24, -1},
                      FactorCase{Solver::gepp, 61, 130, 24, -1}, FactorCase{Solver::calu, 97, 97, 16, -1},
                      FactorCase{Solver::calu, 301, 301, 64, -1}, FactorCase{Solver::calu, 130, 61, 24, -1},
                      FactorCase{Solver::gepp, 211, 211, 32, 0}, FactorCase{Solver::gepp, 211, 211, 32, 2},
                      FactorCase{Solver::calu, 211, 211, 32, 0}, FactorCase{Solver::calu, 211, 211, 32, 2}));

// ---- solves of LAWN 41's types -----------------------------------------------------------------

using SolveCase = std::tuple<int, Solver, int>;  // type, solver, d (-1: CPU target)

class ComplexLawn41 : public ::testing::TestWithParam<SolveCase> {};

template <class T>
void check_solve(const SolveCase& c, BackendKind kind = BackendKind::host) {
  const auto [type, solver, d] = c;
  const int n = 131;  // not a multiple of nb = 24 nor of PRBT's 4
  const double eps = unit_roundoff<T>();
  const double safe_min = std::numeric_limits<typename T::value_type>::min();
  const auto Aw = test_support::lawn41_complex_matrix(type, n, eps, safe_min);
  std::vector<T> A(Aw.begin(), Aw.end());
  std::mt19937_64 rng(type);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Z> x_true(n), bw(n, Z(0));
  for (auto& x : x_true) x = {u(rng), u(rng)};
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) bw[i] += Z(A[i + static_cast<size_t>(j) * n]) * x_true[j];
  std::vector<T> b(bw.begin(), bw.end());
  auto LU = A;
  auto x = b;
  std::vector<int> ipiv(n);
  SolveDetails details;
  const int info = solvers::gesv(plan_for<T>(solver, 24, d, kind), n, 1, LU.data(), n, ipiv.data(), x.data(), n,
                                 InputCheck::finite, &details);
  if (test_support::lawn41_singular(type)) {
    EXPECT_EQ(info, test_support::lawn41_zero_column(type, n));
    return;
  }
  ASSERT_EQ(info, 0);
  const double omega = accuracy::backward_error(n, 1, A.data(), n, x.data(), n, b.data(), n);
  const double bound = (type == 9 || type == 10) ? 1000 * (n + 1) * eps : (n + 1) * eps;
  EXPECT_LE(omega, bound) << "steps " << details.refinement_steps
                          << (details.fell_back_to_gepp ? ", fell back: " + details.note : "");
  if (solver != Solver::prbt) {
    EXPECT_LT(accuracy::factorization_residual(n, n, A.data(), n, LU.data(), n, ipiv.data()), 30.0);
  }
}

TEST_P(ComplexLawn41, DoubleSolvesOrRejects) {
  check_solve<Z>(GetParam());
}
TEST_P(ComplexLawn41, SingleSolvesOrRejects) {
  check_solve<C>(GetParam());
}

std::string solve_case_name(const ::testing::TestParamInfo<SolveCase>& p) {
  const auto [type, solver, d] = p.param;
  return "type" + std::to_string(type) + "_" + to_string(solver) + (d < 0 ? "_cpu" : "_host_d" + std::to_string(d));
}

INSTANTIATE_TEST_SUITE_P(Cpu, ComplexLawn41,
                         ::testing::Combine(::testing::Range(1, 12),
                                            ::testing::Values(Solver::gepp, Solver::calu, Solver::prbt),
                                            ::testing::Values(-1)),
                         solve_case_name);
INSTANTIATE_TEST_SUITE_P(HostBackend, ComplexLawn41,
                         ::testing::Combine(::testing::Values(4, 5, 8), ::testing::Values(Solver::gepp, Solver::prbt),
                                            ::testing::Values(0, 2)),
                         solve_case_name);

// ---- the hybrid target on every backend --------------------------------------------------------

// The hybrid target's complex factorizations and solves on each backend this machine has (the cuda
// backend on cuBLAS's and cuSOLVER's C and Z routines where a GPU is), the panel on either side.
class ComplexOnEveryBackend : public ::testing::TestWithParam<BackendKind> {
 protected:
  void SetUp() override {
    std::string why;
    if (!backends::available(GetParam(), &why)) GTEST_SKIP() << why;
  }
};

TEST_P(ComplexOnEveryBackend, FactorsAndSolvesLawn41sTypes) {
  for (int d : {0, 2})
    for (Solver solver : {Solver::gepp, Solver::calu}) {
      SCOPED_TRACE(to_string(solver) + " d=" + std::to_string(d));
      check_getrf<Z>(FactorCase{solver, 211, 211, 32, d}, GetParam());
      check_getrf<C>(FactorCase{solver, 211, 211, 32, d}, GetParam());
      check_getrf<Z>(FactorCase{solver, 150, 97, 32, d}, GetParam());  // tall
    }
  for (int type : {4, 5, 8, 9})
    for (Solver solver : {Solver::gepp, Solver::prbt})
      for (int d : {0, 2}) {
        SCOPED_TRACE("type " + std::to_string(type) + " " + to_string(solver) + " d=" + std::to_string(d));
        check_solve<Z>(SolveCase{type, solver, d}, GetParam());
        check_solve<C>(SolveCase{type, solver, d}, GetParam());
      }
}

INSTANTIATE_TEST_SUITE_P(Kinds, ComplexOnEveryBackend, ::testing::Values(BackendKind::host, BackendKind::cuda),
                         [](const auto& param_info) { return to_string(param_info.param); });

// ---- getrs with A^T and A^H -------------------------------------------------------------------

template <class T>
void check_transposed_solves() {
  const int n = 77, nrhs = 3;
  const auto A = random_complex<T>(n, n, 5);
  auto LU = A;
  std::vector<int> ipiv(n);
  ASSERT_EQ(solvers::getrf(plan_for<T>(Solver::gepp, 16), n, n, LU.data(), n, ipiv.data()), 0);
  for (Transpose trans : {Transpose::no, Transpose::yes, Transpose::conjugate}) {
    const auto B = random_complex<T>(n, nrhs, 9);
    auto X = B;
    solvers::getrs(plan_for<T>(Solver::gepp, 16), trans, n, nrhs, LU.data(), n, ipiv.data(), X.data(), n);
    // op(A) explicitly, then omega of op(A) X = B.
    std::vector<T> opA(A.size());
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const T a = A[j + static_cast<size_t>(i) * n];
        opA[i + static_cast<size_t>(j) * n] = trans == Transpose::no    ? A[i + static_cast<size_t>(j) * n]
                                              : trans == Transpose::yes ? a
                                                                        : std::conj(a);
      }
    EXPECT_LE(accuracy::backward_error(n, nrhs, opA.data(), n, X.data(), n, B.data(), n),
              30 * (n + 1) * unit_roundoff<T>())
        << "trans " << static_cast<int>(trans);
  }
}

TEST(ComplexGetrs, TransposedAndConjugateTransposedDouble) {
  check_transposed_solves<Z>();
}
TEST(ComplexGetrs, TransposedAndConjugateTransposedSingle) {
  check_transposed_solves<C>();
}

// A plan must name the real precision of the complex data: complex double with a single plan is refused.
TEST(ComplexFrontEnd, PlanOfTheOtherPrecisionIsRefused) {
  std::vector<Z> A(4, Z(1)), B(2, Z(1));
  std::vector<int> ipiv(2);
  try {
    solvers::gesv(plan_for<C>(Solver::gepp, 8), 2, 1, A.data(), 2, ipiv.data(), B.data(), 2);
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("complex double"), std::string::npos) << e.what();
  }
}

// A NaN in the imaginary part is caught by the finiteness check, named as LAPACK's indices.
TEST(ComplexFrontEnd, NanInTheImaginaryPartIsNamed) {
  std::vector<Z> A(4, Z(1)), B(2, Z(1));
  A[3] = Z(1, std::nan(""));
  std::vector<int> ipiv(2);
  try {
    solvers::gesv(plan_for<Z>(Solver::gepp, 8), 2, 1, A.data(), 2, ipiv.data(), B.data(), 2);
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("A(2,2) is NaN"), std::string::npos) << e.what();
  }
}

// Pivots whose parts both exceed max / 2: complex division as LAPACK is built (Smith's) forms
// |c| + |d| r, which overflows, and 1 / (1e308 + 1e308i) came out 0: X = 0 with info 0 for a
// system of condition 1 (a hostile tester's, through the C API). These paths divide such a pivot
// right: hetlu's own loops (n = 2), the BLAS library's LU and solves (declined: n = 100), hetlu's
// GEPP and CALU (n = 300), one right-hand side and several. (PRBT's and the host backend's U solves
// still go through the BLAS's trsm: reached only where growth brings a pivot there after
// equilibration.)
TEST(ComplexPivots, BeyondComplexDivisionAreDividedRight) {
  for (int n : {2, 100, 300}) {
    std::mt19937_64 rng(n);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<Z> A(static_cast<size_t>(n) * n), x_true(2 * static_cast<size_t>(n)), b(x_true.size());
    for (int j = 0; j < n; ++j)  // (1 + i) 1e308 (I + 0.1 G / n): no growth, kappa near 1
      for (int i = 0; i < n; ++i)
        A[i + static_cast<size_t>(j) * n] = Z(1e308, 1e308) * ((i == j ? 1.0 : 0.0) + 0.1 * u(rng) / n);
    for (auto& x : x_true) x = Z(1e-10 * u(rng), 1e-10 * u(rng));
    for (int c = 0; c < 2; ++c)  // b = A x in long double, where |re| + |im| of A's entries is finite
      for (int i = 0; i < n; ++i) {
        std::complex<long double> sum = 0;
        for (int j = 0; j < n; ++j)
          sum += std::complex<long double>(A[i + static_cast<size_t>(j) * n]) *
                 std::complex<long double>(x_true[j + static_cast<size_t>(c) * n]);
        b[i + static_cast<size_t>(c) * n] = Z(double(sum.real()), double(sum.imag()));
      }
    auto check = [&](const std::vector<Z>& x, int nrhs, const std::string& path) {
      for (int k = 0; k < n * nrhs; ++k)
        ASSERT_LT(std::abs(x[k] - x_true[k]), 1e-10 * 1e-12) << path << ", n = " << n << ", entry " << k;
    };
    for (int nrhs : {1, 2}) {
      auto LU = A;
      std::vector<int> ipiv(n);
      int info = -1;
      if (vendor::getrf(n, n, LU.data(), n, ipiv.data(), &info)) {  // declined where the library would fail
        ASSERT_EQ(info, 0);
        auto x = b;
        variants::lu_getrs(Transpose::no, n, nrhs, LU.data(), n, ipiv.data(), x.data(), n);
        check(x, nrhs, "the small-matrix path, nrhs " + std::to_string(nrhs));
      }
      for (Solver solver : {Solver::gepp, Solver::calu}) {
        LU = A;
        ASSERT_EQ(solvers::getrf(plan_for<Z>(solver, 32), n, n, LU.data(), n, ipiv.data()), 0);
        auto x = b;
        variants::lu_getrs(Transpose::no, n, nrhs, LU.data(), n, ipiv.data(), x.data(), n);
        check(x, nrhs, to_string(solver) + ", nrhs " + std::to_string(nrhs));
      }
    }
  }
}

// The U solve every path shares (PRBT's, the refinement's factors, the host backend's trsm_upper):
// a pivot beyond complex division is divided, not multiplied by the BLAS's reciprocal (0).
TEST(ComplexPivots, TheSharedUpperSolveDividesThem) {
  const int n = 3;
  std::vector<Z> U = {{1e308, 1e308}, {0, 0}, {0, 0}, {1, 0}, {2, 0}, {0, 0}, {0, 1}, {1, 0}, {1e308, -1e308}};
  for (Transpose trans : {Transpose::no, Transpose::yes, Transpose::conjugate}) {
    std::vector<Z> x_true = {{1e-10, 2e-10}, {3, -1}, {-2e-10, 1e-10}}, b(n, Z(0));
    for (int i = 0; i < n; ++i)  // b = op(U) x
      for (int j = 0; j < n; ++j) {
        const Z u = trans == Transpose::no ? U[i + j * n] : U[j + i * n];
        b[i] += (trans == Transpose::conjugate ? std::conj(u) : u) * x_true[j];
      }
    variants::solve_upper(trans, n, 1, U.data(), n, b.data(), n);
    for (int i = 0; i < n; ++i)
      EXPECT_LT(std::abs(b[i] - x_true[i]), 1e-15 * std::abs(x_true[i])) << static_cast<int>(trans) << " entry " << i;
  }
}

}  // namespace
