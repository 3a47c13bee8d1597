// Thin overloads of the BLAS routines the solvers use, for float and double, so that the
// algorithms are written once as templates. Column-major throughout.
#pragma once

namespace hetlu::blas {

enum class Side { left, right };
enum class Uplo { lower, upper };
enum class Op { no_trans, trans };
enum class Diag { unit, non_unit };

// C = alpha op(A) op(B) + beta C
void gemm(Op ta, Op tb, int m, int n, int k, double alpha, const double* A, int lda, const double* B, int ldb,
          double beta, double* C, int ldc);
void gemm(Op ta, Op tb, int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
          float* C, int ldc);

// B = alpha op(A)^-1 B (left) or alpha B op(A)^-1 (right), A triangular
void trsm(Side side, Uplo uplo, Op op, Diag diag, int m, int n, double alpha, const double* A, int lda, double* B,
          int ldb);
void trsm(Side side, Uplo uplo, Op op, Diag diag, int m, int n, float alpha, const float* A, int lda, float* B,
          int ldb);

// 0-based index of the first entry of largest magnitude
int iamax(int n, const double* x, int incx);
int iamax(int n, const float* x, int incx);

void scal(int n, double alpha, double* x, int incx);
void scal(int n, float alpha, float* x, int incx);

}  // namespace hetlu::blas
