// Thin overloads of the BLAS routines the solvers use, for float, double, complex<float> and
// complex<double>, so that the algorithms are written once as templates. Column-major throughout.
#pragma once

#include <complex>

#include "hetlu/types.hpp"

namespace hetlu::blas {

enum class Side { left, right };
enum class Uplo { lower, upper };
// conj_trans is A^H; for real types it is the same as trans.
enum class Op { no_trans, trans, conj_trans };

// The BLAS operation that applies A, A^T or A^H as a front end's Transpose asks.
inline Op op_of(Transpose trans) {
  return trans == Transpose::no ? Op::no_trans : trans == Transpose::yes ? Op::trans : Op::conj_trans;
}
enum class Diag { unit, non_unit };

// trsm of one column (side left, alpha 1) from this order is solved in blocks of rows, a threaded
// GEMV beside trsv on each diagonal block (the library's trsv runs on one thread): hetlu_?getrs
// against OpenBLAS's ?getrs_ with one right-hand side on the dev machine's 2 cores, 0.96-1.06x at
// 1024 and 1536, 1.01-1.21x at 2048, 1.3-1.6x at 4096 (bench_one_column_getrs).
inline constexpr int blocked_one_column_order = 2048;

using complex_float = std::complex<float>;
using complex_double = std::complex<double>;

// C = alpha op(A) op(B) + beta C
#define HETLU_BLAS_GEMM(T)                                                                                      \
  void gemm(Op ta, Op tb, int m, int n, int k, T alpha, const T* A, int lda, const T* B, int ldb, T beta, T* C, \
            int ldc);
// The same by the library's ?gemm alone, even for one column (which gemm gives to ?gemv): where the
// rounding must be the GEMM's, as in LAPACK's dsgesv and zcgesv, whose residual is a ZGEMM.
#define HETLU_BLAS_GEMM_ONLY(T)                                                                                      \
  void gemm_only(Op ta, Op tb, int m, int n, int k, T alpha, const T* A, int lda, const T* B, int ldb, T beta, T* C, \
                 int ldc);
// B = alpha op(A)^-1 B (left) or alpha B op(A)^-1 (right), A triangular
#define HETLU_BLAS_TRSM(T) \
  void trsm(Side side, Uplo uplo, Op op, Diag diag, int m, int n, T alpha, const T* A, int lda, T* B, int ldb);
// 0-based index of the first entry of largest magnitude (|re| + |im| for complex, as i?amax)
#define HETLU_BLAS_IAMAX(T) int iamax(int n, const T* x, int incx);
#define HETLU_BLAS_SCAL(T) void scal(int n, T alpha, T* x, int incx);
// y = alpha x + y, and x^H y (x^T y for real types), unit strides
#define HETLU_BLAS_AXPY(T) void axpy(int n, T alpha, const T* x, T* y);
#define HETLU_BLAS_DOTC(T) T dotc(int n, const T* x, const T* y);
#define HETLU_BLAS_ALL(T)                                                                              \
  HETLU_BLAS_GEMM(T)                                                                                   \
  HETLU_BLAS_GEMM_ONLY(T) HETLU_BLAS_TRSM(T) HETLU_BLAS_IAMAX(T) HETLU_BLAS_SCAL(T) HETLU_BLAS_AXPY(T) \
      HETLU_BLAS_DOTC(T)

HETLU_BLAS_ALL(float)
HETLU_BLAS_ALL(double)
HETLU_BLAS_ALL(complex_float)
HETLU_BLAS_ALL(complex_double)

#undef HETLU_BLAS_ALL
#undef HETLU_BLAS_DOTC
#undef HETLU_BLAS_AXPY
#undef HETLU_BLAS_SCAL
#undef HETLU_BLAS_IAMAX
#undef HETLU_BLAS_TRSM
#undef HETLU_BLAS_GEMM_ONLY
#undef HETLU_BLAS_GEMM

}  // namespace hetlu::blas
