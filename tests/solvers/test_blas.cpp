// solvers/blas.cpp: the thin BLAS overloads the solvers are written against.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
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
