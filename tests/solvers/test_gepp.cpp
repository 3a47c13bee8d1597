// GEPP accuracy the LAPACK way: ||PA - LU|| / (n ||A|| eps) < 30, on random and structured matrices
// of awkward sizes, square and rectangular, several panel widths, both precisions.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "matrices.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/gepp_kernels.hpp"
#include "solvers/lu.hpp"

using namespace hetlu;
using test_support::Kind;

namespace {

template <class T>
Plan plan_for(int nb) {
  Plan p;
  p.precision = sizeof(T) == sizeof(double) ? Precision::double_ : Precision::single;
  p.nb = nb;
  return p;
}

template <class T>
void check_factorization(Kind kind, int m, int n, int nb) {
  SCOPED_TRACE(test_support::name(kind) + " " + std::to_string(m) + "x" + std::to_string(n) +
               " nb=" + std::to_string(nb));
  const auto A = test_support::make_matrix<T>(kind, m, n);
  auto LU = A;
  std::vector<int> ipiv(std::max(1, std::min(m, n)));
  const int lda = std::max(1, m);
  const int info = solvers::getrf(plan_for<T>(nb), m, n, LU.data(), lda, ipiv.data());
  EXPECT_EQ(info, 0);
  for (int i = 0; i < std::min(m, n); ++i) {
    EXPECT_GE(ipiv[i], i + 1);
    EXPECT_LE(ipiv[i], m);
  }
  EXPECT_LT(accuracy::factorization_residual(m, n, A.data(), lda, LU.data(), lda, ipiv.data()), 30.0);
}

}  // namespace

using Case = std::tuple<Kind, int, int>;  // kind, n, nb

class GeppSquare : public ::testing::TestWithParam<Case> {};

TEST_P(GeppSquare, DoubleResidualBelow30) {
  auto [kind, n, nb] = GetParam();
  check_factorization<double>(kind, n, n, nb);
}

TEST_P(GeppSquare, SingleResidualBelow30) {
  auto [kind, n, nb] = GetParam();
  check_factorization<float>(kind, n, n, nb);
}

INSTANTIATE_TEST_SUITE_P(AwkwardSizes, GeppSquare,
                         ::testing::Combine(::testing::Values(Kind::random, Kind::diagonal, Kind::upper, Kind::lower,
                                                              Kind::permutation, Kind::diagonally_dominant,
                                                              Kind::graded, Kind::ill_conditioned),
                                            ::testing::Values(1, 7, 100, 513), ::testing::Values(1, 32, 128)),
                         [](const auto& test) {
                           return test_support::name(std::get<0>(test.param)) + "_n" +
                                  std::to_string(std::get<1>(test.param)) + "_nb" +
                                  std::to_string(std::get<2>(test.param));
                         });

TEST(GeppRectangular, TallAndWide) {
  for (int nb : {1, 16, 64, 600}) {
    check_factorization<double>(Kind::random, 513, 100, nb);
    check_factorization<double>(Kind::random, 100, 513, nb);
    check_factorization<float>(Kind::random, 1000, 7, nb);
    check_factorization<double>(Kind::graded, 7, 1000, nb);
  }
}

// The look-ahead's update tasks take several block columns each, grouped by the thread count:
// other counts than ctest's two group them otherwise.
TEST(GeppRectangular, TallAndWideOnOtherThreadCounts) {
  const int saved = omp_get_max_threads();
  for (int threads : {1, 3, 4, 8}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    omp_set_num_threads(threads);
    for (int nb : {1, 7, 64}) {
      check_factorization<double>(Kind::random, 700, 300, nb);
      check_factorization<float>(Kind::random, 300, 700, nb);
      check_factorization<double>(Kind::graded, 513, 513, nb);
    }
  }
  omp_set_num_threads(saved);
}

// The row interchanges run row by row over blocks of columns: every column must still get its
// swaps in order, for widths below, at and past a block, serial or in parallel, and
// laswp_reverse must undo them.
// A leading dimension of 512 doubles (4 KiB a column: 8-column blocks, which one L1 set holds)
// takes the narrow blocks; 303 the usual ones.
TEST(Laswp, EveryColumnGetsItsSwapsInOrderAndReverseUndoesThem) {
  const int m = 300, k1 = 7, k2 = 290;
  std::mt19937 generator(11);
  std::vector<int> ipiv(k2);
  for (int i = 0; i < k2; ++i) ipiv[i] = std::uniform_int_distribution<int>(i + 1, m)(generator);
  for (int lda : {303, 512})
    for (int ncols : {1, 5, 7, 8, 9, 31, 32, 33, 70, 257}) {
      SCOPED_TRACE("lda=" + std::to_string(lda) + ", ncols=" + std::to_string(ncols));
      std::vector<double> A(static_cast<size_t>(lda) * ncols);
      for (auto& a : A) a = std::uniform_real_distribution<double>(-1, 1)(generator);
      auto expected = A;
      for (int j = 0; j < ncols; ++j)
        for (int i = k1; i < k2; ++i) std::swap(expected[i + j * lda], expected[ipiv[i] - 1 + j * lda]);
      auto swapped = A;
      kernels::laswp(ncols, swapped.data(), lda, k1, k2, ipiv.data());
      EXPECT_EQ(swapped, expected);
      kernels::laswp_reverse(ncols, swapped.data(), lda, k1, k2, ipiv.data());
      EXPECT_EQ(swapped, A);
    }
}

TEST(GeppRectangular, LeadingDimensionLargerThanM) {
  const int m = 37, n = 29, lda = 50;
  auto dense = test_support::make_matrix<double>(Kind::random, m, n);
  std::vector<double> A(static_cast<size_t>(lda) * n, -99.0);  // padding must stay untouched
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) A[i + j * lda] = dense[i + j * m];
  auto LU = A;
  std::vector<int> ipiv(n);
  EXPECT_EQ(solvers::getrf(plan_for<double>(8), m, n, LU.data(), lda, ipiv.data()), 0);
  EXPECT_LT(accuracy::factorization_residual(m, n, A.data(), lda, LU.data(), lda, ipiv.data()), 30.0);
  for (int j = 0; j < n; ++j)
    for (int i = m; i < lda; ++i) EXPECT_EQ(LU[i + j * lda], -99.0);
}

TEST(GeppSingular, ZeroColumnGivesInfoOfThatColumn) {
  for (int nb : {1, 4, 32}) {
    const int n = 20;
    auto A = test_support::make_matrix<double>(Kind::random, n, n);
    for (int i = 0; i < n; ++i) A[i + 12 * n] = 0;  // column 13 (1-based) is zero
    std::vector<int> ipiv(n);
    EXPECT_EQ(solvers::getrf(plan_for<double>(nb), n, n, A.data(), n, ipiv.data()), 13) << "nb=" << nb;
  }
}

TEST(GeppSingular, FirstZeroPivotIsReportedAndFactorizationCompletes) {
  // Rank 1: the second pivot is exactly zero.
  const int n = 6;
  std::vector<double> A(n * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) A[i + j * n] = (i + 1.0) * (j == 0 ? 1 : 2);
  auto LU = A;
  std::vector<int> ipiv(n);
  EXPECT_EQ(solvers::getrf(plan_for<double>(2), n, n, LU.data(), n, ipiv.data()), 2);
  EXPECT_LT(accuracy::factorization_residual(n, n, A.data(), n, LU.data(), n, ipiv.data()), 30.0);
}

TEST(GeppSolve, BackwardErrorAtRoundoffLevel) {
  for (int n : {1, 7, 100, 513}) {
    const int nrhs = 3;
    const auto A = test_support::make_matrix<double>(Kind::random, n, n, 11);
    const auto B = test_support::make_matrix<double>(Kind::random, n, nrhs, 12);
    auto LU = A;
    auto X = B;
    std::vector<int> ipiv(n);
    ASSERT_EQ(solvers::gesv(plan_for<double>(32), n, nrhs, LU.data(), n, ipiv.data(), X.data(), n), 0);
    // GEPP is backward stable: omega is a modest multiple of the unit roundoff.
    EXPECT_LT(accuracy::backward_error(n, nrhs, A.data(), n, X.data(), n, B.data(), n),
              (n + 1) * 64 * accuracy::unit_roundoff<double>())
        << "n=" << n;
  }
}

TEST(GeppSolve, GetrsReusesTheFactors) {
  const int n = 50;
  const auto A = test_support::make_matrix<float>(Kind::random, n, n, 3);
  auto LU = A;
  std::vector<int> ipiv(n);
  ASSERT_EQ(solvers::getrf(plan_for<float>(16), n, n, LU.data(), n, ipiv.data()), 0);
  for (unsigned seed : {1u, 2u}) {
    const auto b = test_support::make_matrix<float>(Kind::random, n, 1, seed);
    auto x = b;
    solvers::getrs(plan_for<float>(16), Transpose::no, n, 1, LU.data(), n, ipiv.data(), x.data(), n);
    EXPECT_LT(accuracy::backward_error(n, 1, A.data(), n, x.data(), n, b.data(), n),
              (n + 1) * 64 * accuracy::unit_roundoff<float>());
  }
}

TEST(GeppSolve, TransposedSolve) {
  for (int n : {1, 9, 130}) {
    const auto A = test_support::make_matrix<double>(Kind::random, n, n, 5);
    std::vector<double> At(A.size());
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) At[j + i * n] = A[i + j * n];
    auto LU = A;
    std::vector<int> ipiv(n);
    ASSERT_EQ(solvers::getrf(plan_for<double>(8), n, n, LU.data(), n, ipiv.data()), 0);
    const auto B = test_support::make_matrix<double>(Kind::random, n, 2, 6);
    auto X = B;
    solvers::getrs(plan_for<double>(8), Transpose::yes, n, 2, LU.data(), n, ipiv.data(), X.data(), n);
    EXPECT_LT(accuracy::backward_error(n, 2, At.data(), n, X.data(), n, B.data(), n),
              (n + 1) * 64 * accuracy::unit_roundoff<double>())
        << "n=" << n;
  }
}

TEST(GeppSolve, UncheckedInputPropagatesNanLikeLapack) {
  std::vector<double> A = {1, 2, 3, std::nan("")};
  std::vector<int> ipiv(2);
  EXPECT_NO_THROW(solvers::getrf(plan_for<double>(2), 2, 2, A.data(), 2, ipiv.data(), InputCheck::none));
  EXPECT_TRUE(std::isnan(A[3]));
}
