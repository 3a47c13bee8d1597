// Butterflies: the packed O(n^2) applications agree with the dense matrices they stand for.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "matrices.hpp"
#include "solvers/butterfly.hpp"
#include "solvers/condition.hpp"
#include "solvers/lu.hpp"

using namespace hetlu;

namespace {
// The dense W (n x n) by applying W to the identity's columns.
std::vector<double> dense(const kernels::Butterfly<double>& W) {
  const int n = W.n;
  std::vector<double> I(static_cast<size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) I[i + static_cast<size_t>(i) * n] = 1;
  kernels::apply_left(W, n, I.data(), n);
  return I;
}
}  // namespace

TEST(Butterfly, TransposeLeftAndRightMatchTheDenseProducts) {
  const int n = 12;
  const auto W = kernels::Butterfly<double>::random(n, 5);
  const auto D = dense(W);
  std::vector<double> A(n * n);
  for (int i = 0; i < n * n; ++i) A[i] = std::sin(1.0 + i);
  auto left = A, right = A;
  kernels::apply_transpose_left(W, n, left.data(), n);  // W^T A
  kernels::apply_right(W, n, right.data(), n);          // A W
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double wta = 0, aw = 0;
      for (int k = 0; k < n; ++k) {
        wta += D[k + i * n] * A[k + j * n];
        aw += A[i + k * n] * D[k + j * n];
      }
      EXPECT_NEAR(left[i + j * n], wta, 1e-13);
      EXPECT_NEAR(right[i + j * n], aw, 1e-13);
    }
}

TEST(Butterfly, IsWellConditionedAndDeterministic) {
  const auto W = kernels::Butterfly<double>::random(16, 9);
  EXPECT_EQ(W.values, kernels::Butterfly<double>::random(16, 9).values);
  for (double v : W.values) {
    EXPECT_GE(v, std::exp(-0.05));
    EXPECT_LE(v, std::exp(0.05));
  }
  EXPECT_THROW(kernels::Butterfly<double>::random(10, 1), std::invalid_argument);
}

namespace {
// diag(A, s I): the a x a A padded to n x n as PRBT pads it (s = padding_value, a power of two).
std::vector<double> padded(int a, const std::vector<double>& A, int n) {
  const double s = kernels::padding_value(a, A.data(), a);
  std::vector<double> P(static_cast<size_t>(n) * n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) P[i + j * n] = i < a && j < a ? A[i + j * a] : (i == j ? s : 0.0);
  return P;
}
}  // namespace

TEST(Butterfly, OnePassRandomizationMatchesTheSeparateProducts) {
  for (int a : {20, 17, 18, 19}) {  // padded by 0, 3, 2 and 1 rows and columns of the identity
    const int n = (a + 3) / 4 * 4;
    const auto U = kernels::Butterfly<double>::random(n, 3), V = kernels::Butterfly<double>::random(n, 4);
    std::vector<double> A(static_cast<size_t>(a) * a);
    for (size_t i = 0; i < A.size(); ++i) A[i] = std::cos(0.3 + i);
    auto expected = padded(a, A, n);
    kernels::apply_transpose_left(U, n, expected.data(), n);
    kernels::apply_right(V, n, expected.data(), n);
    std::vector<double> Ar(static_cast<size_t>(n + 2) * n, -7.0);  // ldar = n + 2: the gap stays untouched
    ASSERT_TRUE(kernels::randomize_two_sided(U, V, a, A.data(), a, Ar.data(), n + 2));
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i)
        EXPECT_NEAR(Ar[i + j * (n + 2)], expected[i + j * n], 1e-14) << a << " " << i << " " << j;
      EXPECT_EQ(Ar[n + j * (n + 2)], -7.0);
    }
    if (a == n) {  // in place
      auto B = A;
      ASSERT_TRUE(kernels::randomize_two_sided(U, V, a, B.data(), a, B.data(), a));
      for (int i = 0; i < n * n; ++i) EXPECT_NEAR(B[i], expected[i], 1e-14);
    }
  }
}

// PRBT's scan on one device (kernels::LineScan), each column as the upload packs it: the columns
// in reverse, as threads may give them.
bool line_scan(int a, const double* A, int lda, double* a_norm1 = nullptr) {
  kernels::LineScan<double> scan(a, a);
  for (int j = a - 1; j >= 0; --j) scan.column(j, A + static_cast<size_t>(j) * lda);
  if (a_norm1) *a_norm1 = scan.norm_1();
  return scan.nonsingular_lines();
}

TEST(Butterfly, OnePassRandomizationFindsZeroRowsAndColumns) {
  const int a = 13, n = 16;
  const auto U = kernels::Butterfly<double>::random(n, 3), V = kernels::Butterfly<double>::random(n, 4);
  std::vector<double> Ar(static_cast<size_t>(n) * n);
  for (int line = 0; line < a; ++line) {
    std::vector<double> zero_row(a * a, 1.5), zero_column(a * a, 1.5);
    for (int k = 0; k < a; ++k) zero_row[line + k * a] = 0, zero_column[k + line * a] = 0;
    EXPECT_FALSE(kernels::randomize_two_sided(U, V, a, zero_row.data(), a, Ar.data(), n)) << "row " << line;
    EXPECT_FALSE(kernels::randomize_two_sided(U, V, a, zero_column.data(), a, Ar.data(), n)) << "column " << line;
    EXPECT_FALSE(line_scan(a, zero_row.data(), a)) << "row " << line;
    EXPECT_FALSE(line_scan(a, zero_column.data(), a)) << "column " << line;
  }
  EXPECT_THROW(kernels::randomize_two_sided(U, V, 17, Ar.data(), 17, Ar.data() + 1, 17), std::invalid_argument);
}

// Every pass that reads A for PRBT gives ||A||_1 as kernels::norm1 does, to the last bit (the
// largest column sum; the padding's identity columns do not count): the randomization and the scan
// of the upload (PRBT on a device).
TEST(Butterfly, EveryPassGivesTheOneNormOfA) {
  for (int a : {1, 13, 64, 203}) {
    const int n = (a + 3) / 4 * 4, lda = a + 2;
    auto A = test_support::make_matrix<double>(test_support::Kind::random, lda, a, 5);
    A[3 % a + static_cast<size_t>(a / 2) * lda] = -1e3;  // one column's sum stands out
    const double exact = kernels::norm1(a, a, A.data(), lda);
    const auto U = kernels::Butterfly<double>::random(n, 3), V = kernels::Butterfly<double>::random(n, 4);
    std::vector<double> Ar(static_cast<size_t>(n) * n);
    double randomized = -1, scanned = -1;
    EXPECT_TRUE(kernels::randomize_two_sided(U, V, a, A.data(), lda, Ar.data(), n, &randomized));
    EXPECT_TRUE(line_scan(a, A.data(), lda, &scanned));
    EXPECT_EQ(randomized, exact) << a;
    EXPECT_EQ(scanned, exact) << a;
  }
}

// n + 3 overflowed int at the model's largest sizes (UBSan in Predict.TheLargestSizesTerminate):
// the padded order stops at the largest multiple of 4, and PRBT refuses an n beyond it.
TEST(Butterfly, ThePaddedOrderOfTheLargestSizesIsAnInt) {
  EXPECT_EQ(hetlu::detail::prbt_padded_order(1), 4);
  EXPECT_EQ(hetlu::detail::prbt_padded_order(5), 8);
  EXPECT_EQ(hetlu::detail::prbt_padded_order(hetlu::detail::prbt_largest_order), 2147483644);
  EXPECT_EQ(hetlu::detail::prbt_padded_order(std::numeric_limits<int>::max()), 2147483644);
  hetlu::Plan plan;
  plan.solver = hetlu::Solver::prbt;
  double a = 1, b = 1;
  int ipiv = 0;
  EXPECT_THROW(hetlu::solvers::gesv(plan, std::numeric_limits<int>::max(), 1, &a, std::numeric_limits<int>::max(),
                                    &ipiv, &b, std::numeric_limits<int>::max(), hetlu::InputCheck::none),
               hetlu::InvalidArgument);
}
