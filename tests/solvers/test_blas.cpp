// solvers/blas.cpp: the thin BLAS overloads the solvers are written against.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "solvers/blas.hpp"
#include "solvers/scalar.hpp"

using namespace hetlu;

namespace {

// re + i im for a complex T, re for a real one.
template <class T>
T make(double re, double im) {
  if constexpr (scalar::is_complex_v<T>)
    return T(re, im);
  else
    return T(re);
}

// blas::gemm of one column goes through GEMV (#15.4: the library's GEMM packed all of A for a
// residual): every op of A and B, k = 0 (C scaled by beta, as GEMM does), a row of B read with
// stride ldb, against the plain triple loop.
template <class T>
void one_column_gemm_matches_the_loop() {
  const int m = 7, k = 5, lda = 9, ldb = 6;
  std::vector<T> A(static_cast<size_t>(lda) * 9), B(static_cast<size_t>(ldb) * 6), C0(m);
  for (size_t i = 0; i < A.size(); ++i) A[i] = make<T>(std::sin(1.0 + i), std::cos(3.0 * i));
  for (size_t i = 0; i < B.size(); ++i) B[i] = make<T>(std::cos(2.0 + i), std::sin(5.0 * i));
  for (int i = 0; i < m; ++i) C0[i] = make<T>(0.5 * i - 1, 0.25 * i);
  const T alpha = make<T>(-1.5, 0.5), beta = make<T>(0.25, -0.75);
  for (blas::Op ta : {blas::Op::no_trans, blas::Op::trans, blas::Op::conj_trans})
    for (blas::Op tb : {blas::Op::no_trans, blas::Op::trans, blas::Op::conj_trans})
      for (int kk : {k, 0}) {
        std::vector<T> C = C0, expected = C0;
        for (int i = 0; i < m; ++i) {
          T sum = T(0);
          for (int p = 0; p < kk; ++p) {
            T a = ta == blas::Op::no_trans ? A[i + static_cast<size_t>(p) * lda] : A[p + static_cast<size_t>(i) * lda];
            T b = tb == blas::Op::no_trans ? B[p] : B[static_cast<size_t>(p) * ldb];
            if constexpr (scalar::is_complex_v<T>) {
              if (ta == blas::Op::conj_trans) a = std::conj(a);
              if (tb == blas::Op::conj_trans) b = std::conj(b);
            }
            sum += a * b;
          }
          expected[i] = alpha * sum + beta * C0[i];
        }
        blas::gemm(ta, tb, m, 1, kk, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), m);
        for (int i = 0; i < m; ++i)
          EXPECT_NEAR(std::abs(C[i] - expected[i]), 0, 1e-5) << "ta " << int(ta) << " tb " << int(tb) << " k " << kk;
      }
}
}  // namespace

TEST(Blas, OneColumnGemmMatchesTheLoopForEveryOpAndType) {
  one_column_gemm_matches_the_loop<float>();
  one_column_gemm_matches_the_loop<double>();
  one_column_gemm_matches_the_loop<std::complex<float>>();
  one_column_gemm_matches_the_loop<std::complex<double>>();
}

namespace {
// blas::trsm of one column of a large order solves in blocks of rows (trsv on each diagonal block,
// GEMV for the rest): every uplo, op and diag, with lda > m, against x from the product A x = b,
// to the accuracy of a triangular solve.
template <class T>
void one_column_blocked_solve_matches_the_product() {
  using Real = scalar::real_t<T>;
  const int m = 2100, lda = 2103;  // past the blocked order (2048), a last block of 52 rows
  std::vector<T> A(static_cast<size_t>(lda) * m);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < lda; ++i)
      A[i + static_cast<size_t>(j) * lda] =
          i == j ? make<T>(2.0 + std::sin(1.0 * i), 0.5)
                 : make<T>(0.5 * std::sin(1.3 * i + 0.7 * j) / m, std::cos(0.9 * i * j) / m);
  std::vector<T> x(m);
  for (int i = 0; i < m; ++i) x[i] = make<T>(std::cos(0.37 * i), std::sin(0.11 * i));
  for (blas::Uplo uplo : {blas::Uplo::lower, blas::Uplo::upper})
    for (blas::Op op : {blas::Op::no_trans, blas::Op::trans, blas::Op::conj_trans})
      for (blas::Diag diag : {blas::Diag::unit, blas::Diag::non_unit}) {
        // b = op(A) x from the triangle alone, by the loop.
        std::vector<T> b(m, T(0));
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < m; ++j) {
            const int r = op == blas::Op::no_trans ? i : j, c = op == blas::Op::no_trans ? j : i;
            const bool in = uplo == blas::Uplo::lower ? r >= c : r <= c;
            if (!in) continue;
            T a = r == c && diag == blas::Diag::unit ? T(1) : A[r + static_cast<size_t>(c) * lda];
            if (op == blas::Op::conj_trans) a = scalar::conj(a);
            b[i] += a * x[j];
          }
        blas::trsm(blas::Side::left, uplo, op, diag, m, 1, T(1), A.data(), lda, b.data(), m);
        double err = 0;
        for (int i = 0; i < m; ++i) err = std::max(err, double(std::abs(b[i] - x[i])));
        EXPECT_LT(err, 100 * std::numeric_limits<Real>::epsilon())
            << "uplo " << int(uplo) << " op " << int(op) << " diag " << int(diag);
      }
}
}  // namespace

TEST(Blas, OneColumnOfALargeOrderSolvesInBlocksForEveryCase) {
  one_column_blocked_solve_matches_the_product<double>();
  one_column_blocked_solve_matches_the_product<float>();
  one_column_blocked_solve_matches_the_product<std::complex<double>>();
  one_column_blocked_solve_matches_the_product<std::complex<float>>();
}
