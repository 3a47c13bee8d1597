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
// leading dimension ldr), as iterative refinement needs both. Sums run in double, row by row in a
// fixed order: the result does not depend on the number of threads.
template <class T>
double residual_and_backward_error(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B, int ldb, T* R,
                                   int ldr);

}  // namespace hetlu::accuracy
