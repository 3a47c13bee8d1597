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

}  // namespace hetlu::accuracy
