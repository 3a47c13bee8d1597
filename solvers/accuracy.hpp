// Accuracy measures as LAPACK's testers compute them.
#pragma once

namespace hetlu::accuracy {

// LAPACK's relative machine precision (dlamch('E')): half the gap between 1 and the next number.
template <class T>
double unit_roundoff();

// ||P A - L U||_1 / (n ||A||_1 eps) for the factors of getrf; below 30 passes (LAPACK dget01).
template <class T>
double factorization_residual(int m, int n, const T* A, int lda, const T* LU, int ldlu, const int* ipiv);

// Componentwise backward error max_i |B - A X|_i / (|A| |X| + |B|)_i over all right-hand sides.
// a_stored_transposed: the array holds A^T column-major (A row-major), as a C-ordered NumPy array.
template <class T>
double backward_error(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B, int ldb,
                      bool a_stored_transposed = false);

// The same omega in one parallel pass over A that also leaves the residual B - A X in R (n x nrhs,
// leading dimension ldr), as iterative refinement needs both, and, when S is given, omega's
// denominator |B| + |A| |X| in S. Sums run in double, row by row in a fixed order: the result does
// not depend on the number of threads. R may be B itself.
template <class T>
double residual_and_backward_error(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B, int ldb, T* R,
                                   int ldr, T* S = nullptr, int lds = 0);

// omega = max_i |R_i| / S_i from a residual R and its denominator S (as the device computes them):
// 0 / 0 counts as 0; r / 0, a NaN and inf / inf as infinity.
template <class T>
double backward_error_of_residual(int n, int nrhs, const T* R, int ldr, const T* S, int lds);

}  // namespace hetlu::accuracy
