#include "solvers/blas.hpp"

#include <cblas.h>
#include <omp.h>

#include <algorithm>

#include "solvers/blas_threads.hpp"

namespace hetlu::blas {
namespace {
CBLAS_TRANSPOSE cblas(Op op) {
  return op == Op::no_trans ? CblasNoTrans : op == Op::trans ? CblasTrans : CblasConjTrans;
}
CBLAS_SIDE cblas(Side s) {
  return s == Side::left ? CblasLeft : CblasRight;
}
CBLAS_UPLO cblas(Uplo u) {
  return u == Uplo::lower ? CblasLower : CblasUpper;
}
CBLAS_DIAG cblas(Diag d) {
  return d == Diag::unit ? CblasUnit : CblasNonUnit;
}
// Real BLAS routines take no conjugation: A^H is A^T.
Op real(Op op) {
  return op == Op::conj_trans ? Op::trans : op;
}
// op(A) times one column as GEMV: the BLAS library's GEMM packs all of A first even for one column
// (OpenBLAS 0.3.21: a refinement step's residual at n = 4000 copied 128 MB each time). Where op(B)
// is a column that needs no conjugation (a row of B read with stride ldb is one too), x and its
// stride for GEMV; else null.
// (k = 0 stays GEMM's: GEMV returns before scaling y by beta when op(A) has no columns.)
template <class T>
const T* column_of(Op tb, int n, int k, const T* B, int ldb, int& incx) {
  if (n != 1 || k == 0 || tb == Op::conj_trans) return nullptr;
  incx = tb == Op::no_trans ? 1 : ldb;
  return B;
}
// GEMV's rows and columns: A's as stored, m x k, or k x m when op(A) transposes it.
struct GemvShape {
  int rows, cols;
};
GemvShape gemv_shape(Op ta, int m, int k) {
  return ta == Op::no_trans ? GemvShape{m, k} : GemvShape{k, m};
}
// OpenBLAS's threaded calls made safe from here (kernels::keep_openmp_team_within_limits): outside
// an active region, where they may thread.
void safe_openblas_team() {
  if (!omp_in_parallel()) kernels::keep_openmp_team_within_limits();
}
}  // namespace

void gemm(Op ta, Op tb, int m, int n, int k, double alpha, const double* A, int lda, const double* B, int ldb,
          double beta, double* C, int ldc) {
  if (m == 0 || n == 0) return;
  safe_openblas_team();
  int incx = 1;
  if (const double* x = column_of(real(tb), n, k, B, ldb, incx)) {
    const GemvShape shape = gemv_shape(real(ta), m, k);
    return cblas_dgemv(CblasColMajor, cblas(real(ta)), shape.rows, shape.cols, alpha, A, lda, x, incx, beta, C, 1);
  }
  gemm_only(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
void gemm_only(Op ta, Op tb, int m, int n, int k, double alpha, const double* A, int lda, const double* B, int ldb,
               double beta, double* C, int ldc) {
  if (m == 0 || n == 0) return;
  safe_openblas_team();
  cblas_dgemm(CblasColMajor, cblas(real(ta)), cblas(real(tb)), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
void gemm(Op ta, Op tb, int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
          float* C, int ldc) {
  if (m == 0 || n == 0) return;
  safe_openblas_team();
  int incx = 1;
  if (const float* x = column_of(real(tb), n, k, B, ldb, incx)) {
    const GemvShape shape = gemv_shape(real(ta), m, k);
    return cblas_sgemv(CblasColMajor, cblas(real(ta)), shape.rows, shape.cols, alpha, A, lda, x, incx, beta, C, 1);
  }
  gemm_only(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
void gemm_only(Op ta, Op tb, int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb,
               float beta, float* C, int ldc) {
  if (m == 0 || n == 0) return;
  safe_openblas_team();
  cblas_sgemm(CblasColMajor, cblas(real(ta)), cblas(real(tb)), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
void gemm(Op ta, Op tb, int m, int n, int k, complex_double alpha, const complex_double* A, int lda,
          const complex_double* B, int ldb, complex_double beta, complex_double* C, int ldc) {
  if (m == 0 || n == 0) return;
  safe_openblas_team();
  int incx = 1;
  if (const complex_double* x = column_of(tb, n, k, B, ldb, incx)) {
    const GemvShape shape = gemv_shape(ta, m, k);
    return cblas_zgemv(CblasColMajor, cblas(ta), shape.rows, shape.cols, &alpha, A, lda, x, incx, &beta, C, 1);
  }
  gemm_only(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
void gemm_only(Op ta, Op tb, int m, int n, int k, complex_double alpha, const complex_double* A, int lda,
               const complex_double* B, int ldb, complex_double beta, complex_double* C, int ldc) {
  if (m == 0 || n == 0) return;
  safe_openblas_team();
  cblas_zgemm(CblasColMajor, cblas(ta), cblas(tb), m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}
void gemm(Op ta, Op tb, int m, int n, int k, complex_float alpha, const complex_float* A, int lda,
          const complex_float* B, int ldb, complex_float beta, complex_float* C, int ldc) {
  if (m == 0 || n == 0) return;
  safe_openblas_team();
  int incx = 1;
  if (const complex_float* x = column_of(tb, n, k, B, ldb, incx)) {
    const GemvShape shape = gemv_shape(ta, m, k);
    return cblas_cgemv(CblasColMajor, cblas(ta), shape.rows, shape.cols, &alpha, A, lda, x, incx, &beta, C, 1);
  }
  gemm_only(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
void gemm_only(Op ta, Op tb, int m, int n, int k, complex_float alpha, const complex_float* A, int lda,
               const complex_float* B, int ldb, complex_float beta, complex_float* C, int ldc) {
  if (m == 0 || n == 0) return;
  safe_openblas_team();
  cblas_cgemm(CblasColMajor, cblas(ta), cblas(tb), m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
}

namespace {
// One right-hand side of a large order, in blocks of rows: OpenBLAS 0.3.21's trsv runs on one
// thread (the L and U pair at n = 8000 in single took 0.019 s on the dev machine's 2 cores with 1
// thread or 2, a GEMV over the same bytes 0.008; on the H100 machine's 16 cores a mixed solve at
// 16384 spent most of its 1.5 s in them). Each diagonal block goes to trsv, the rest of its block
// column (no_trans: below or above it, updating the rest of x) or block row (trans: reading the part
// of x already solved) to one threaded GEMV.
constexpr int one_column_block = 256;

template <class T>
void trsv_in_blocks(Uplo uplo, Op op, Diag diag, int m, const T* A, int lda, T* x) {
  auto at = [&](int i, int j) { return A + i + static_cast<long long>(j) * lda; };
  auto solve_block = [&](int k0, int kb) {
    trsm(Side::left, uplo, op, diag, kb, 1, T(1), at(k0, k0), lda, x + k0, kb);
  };
  auto update = [&](Op how, int rows, int k, const T* block, const T* from, T* into) {
    gemm(how, Op::no_trans, rows, 1, k, T(-1), block, lda, from, std::max(1, k), T(1), into, std::max(1, rows));
  };
  const bool forward = (uplo == Uplo::lower) == (op == Op::no_trans);
  const int blocks = (m + one_column_block - 1) / one_column_block;
  for (int b = 0; b < blocks; ++b) {
    const int k0 = (forward ? b : blocks - 1 - b) * one_column_block, kb = std::min(one_column_block, m - k0);
    if (op == Op::no_trans) {  // x[k] solved, then the rest of its block column out of what is left
      solve_block(k0, kb);
      if (uplo == Uplo::lower)
        update(op, m - k0 - kb, kb, at(k0 + kb, k0), x + k0, x + k0 + kb);
      else
        update(op, k0, kb, at(0, k0), x + k0, x);
    } else {  // x[k] less its block row times the part solved, then solved
      if (uplo == Uplo::upper)
        update(op, kb, k0, at(0, k0), x, x + k0);
      else
        update(op, kb, m - k0 - kb, at(k0 + kb, k0), x + k0 + kb, x + k0);
      solve_block(k0, kb);
    }
  }
}

// trsm of one column from the left with alpha 1 (true: done): the library's trsv, about 1.7x faster
// than its trsm there, or from blocked_one_column_order trsv_in_blocks.
template <class T, class Trsv>
bool one_column(Side side, Uplo uplo, Op op, Diag diag, int m, int n, T alpha, const T* A, int lda, T* B, Trsv&& trsv) {
  if (side != Side::left || n != 1 || alpha != T(1)) return false;
  if (m >= blocked_one_column_order)
    trsv_in_blocks(uplo, op, diag, m, A, lda, B);
  else
    trsv();
  return true;
}

}  // namespace

void trsm(Side side, Uplo uplo, Op op, Diag diag, int m, int n, double alpha, const double* A, int lda, double* B,
          int ldb) {
  if (m == 0 || n == 0) return;
  safe_openblas_team();
  if (one_column(side, uplo, op, diag, m, n, alpha, A, lda, B,
                 [&] { cblas_dtrsv(CblasColMajor, cblas(uplo), cblas(real(op)), cblas(diag), m, A, lda, B, 1); }))
    return;
  cblas_dtrsm(CblasColMajor, cblas(side), cblas(uplo), cblas(real(op)), cblas(diag), m, n, alpha, A, lda, B, ldb);
}
void trsm(Side side, Uplo uplo, Op op, Diag diag, int m, int n, float alpha, const float* A, int lda, float* B,
          int ldb) {
  if (m == 0 || n == 0) return;
  safe_openblas_team();
  if (one_column(side, uplo, op, diag, m, n, alpha, A, lda, B,
                 [&] { cblas_strsv(CblasColMajor, cblas(uplo), cblas(real(op)), cblas(diag), m, A, lda, B, 1); }))
    return;
  cblas_strsm(CblasColMajor, cblas(side), cblas(uplo), cblas(real(op)), cblas(diag), m, n, alpha, A, lda, B, ldb);
}
void trsm(Side side, Uplo uplo, Op op, Diag diag, int m, int n, complex_double alpha, const complex_double* A, int lda,
          complex_double* B, int ldb) {
  if (m == 0 || n == 0) return;
  safe_openblas_team();
  if (one_column(side, uplo, op, diag, m, n, alpha, A, lda, B,
                 [&] { cblas_ztrsv(CblasColMajor, cblas(uplo), cblas(op), cblas(diag), m, A, lda, B, 1); }))
    return;
  cblas_ztrsm(CblasColMajor, cblas(side), cblas(uplo), cblas(op), cblas(diag), m, n, &alpha, A, lda, B, ldb);
}
void trsm(Side side, Uplo uplo, Op op, Diag diag, int m, int n, complex_float alpha, const complex_float* A, int lda,
          complex_float* B, int ldb) {
  if (m == 0 || n == 0) return;
  safe_openblas_team();
  if (one_column(side, uplo, op, diag, m, n, alpha, A, lda, B,
                 [&] { cblas_ctrsv(CblasColMajor, cblas(uplo), cblas(op), cblas(diag), m, A, lda, B, 1); }))
    return;
  cblas_ctrsm(CblasColMajor, cblas(side), cblas(uplo), cblas(op), cblas(diag), m, n, &alpha, A, lda, B, ldb);
}

int iamax(int n, const double* x, int incx) {
  return n > 0 ? static_cast<int>(cblas_idamax(n, x, incx)) : 0;
}
int iamax(int n, const float* x, int incx) {
  return n > 0 ? static_cast<int>(cblas_isamax(n, x, incx)) : 0;
}
int iamax(int n, const complex_double* x, int incx) {
  return n > 0 ? static_cast<int>(cblas_izamax(n, x, incx)) : 0;
}
int iamax(int n, const complex_float* x, int incx) {
  return n > 0 ? static_cast<int>(cblas_icamax(n, x, incx)) : 0;
}

void scal(int n, double alpha, double* x, int incx) {
  if (n > 0) cblas_dscal(n, alpha, x, incx);
}
void scal(int n, float alpha, float* x, int incx) {
  if (n > 0) cblas_sscal(n, alpha, x, incx);
}
void scal(int n, complex_double alpha, complex_double* x, int incx) {
  if (n > 0) cblas_zscal(n, &alpha, x, incx);
}
void scal(int n, complex_float alpha, complex_float* x, int incx) {
  if (n > 0) cblas_cscal(n, &alpha, x, incx);
}

void axpy(int n, double alpha, const double* x, double* y) {
  if (n > 0) cblas_daxpy(n, alpha, x, 1, y, 1);
}
void axpy(int n, float alpha, const float* x, float* y) {
  if (n > 0) cblas_saxpy(n, alpha, x, 1, y, 1);
}
void axpy(int n, complex_double alpha, const complex_double* x, complex_double* y) {
  if (n > 0) cblas_zaxpy(n, &alpha, x, 1, y, 1);
}
void axpy(int n, complex_float alpha, const complex_float* x, complex_float* y) {
  if (n > 0) cblas_caxpy(n, &alpha, x, 1, y, 1);
}

double dotc(int n, const double* x, const double* y) {
  return n > 0 ? cblas_ddot(n, x, 1, y, 1) : 0.0;
}
float dotc(int n, const float* x, const float* y) {
  return n > 0 ? cblas_sdot(n, x, 1, y, 1) : 0.0f;
}
complex_double dotc(int n, const complex_double* x, const complex_double* y) {
  complex_double result = 0;
  if (n > 0) cblas_zdotc_sub(n, x, 1, y, 1, &result);
  return result;
}
complex_float dotc(int n, const complex_float* x, const complex_float* y) {
  complex_float result = 0;
  if (n > 0) cblas_cdotc_sub(n, x, 1, y, 1, &result);
  return result;
}

}  // namespace hetlu::blas
