// Accuracy measures as LAPACK's testers compute them.
#pragma once

namespace hetlu::accuracy {

// LAPACK's relative machine precision (dlamch('E')): half the gap between 1 and the next number.
template <class T>
double unit_roundoff();

// The componentwise backward error omega that refinement aims at, and that a mixed-precision
// answer must reach (#15.4): (n + 1) u, what a backward stable solve gives.
template <class T>
double refinement_target(int n) {
  return (n + 1.0) * unit_roundoff<T>();
}

// The componentwise backward error omega above which hetlu calls a solution of order n inaccurate:
// 30 (n + 1) u (30 is LAPACK's test threshold). hetlu::accuracy_tolerance is this.
template <class T>
double tolerance(int n) {
  return 30.0 * refinement_target<T>(n);
}

// ||P A - L U||_1 / (n ||A||_1 eps) for the factors of getrf; below 30 passes (LAPACK dget01).
template <class T>
double factorization_residual(int m, int n, const T* A, int lda, const T* LU, int ldlu, const int* ipiv);

// Componentwise backward error max_i |B - A X|_i / (|A| |X| + |B|)_i over all right-hand sides.
// a_stored_transposed: the array holds A^T column-major (A row-major), as a C-ordered NumPy array.
template <class T>
double backward_error(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B, int ldb,
                      bool a_stored_transposed = false);

// The same omega in one parallel pass over A that also leaves the residual B - A X in R (n x nrhs,
// leading dimension ldr), as iterative refinement needs both, and, when row_shares is given, each
// row's share of omega (row_omega.hpp), computed in double: a denominator that overflows T cannot
// hide a large residual. Sums run in double, row by row in a fixed order: the result does not
// depend on the number of threads. R may be B itself.
template <class T>
double residual_and_backward_error(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B, int ldb, T* R,
                                   int ldr, T* row_shares = nullptr, int ldw = 0);

// Normwise backward error (Rigal and Gaches) max over right-hand sides of
// ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf), in double; a NaN counts as infinity. What GEPP
// keeps small whenever its pivot growth is modest (it is not componentwise stable: a sparse A with
// B = A gave omega 1.0 for an x right to 1e-16). a_stored_transposed: as for backward_error.
template <class T>
double normwise_backward_error(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B, int ldb,
                               bool a_stored_transposed = false);

// omega from the rows' shares (as the device computes them): their largest; a NaN counts as infinity.
template <class T>
double largest_row_omega(int n, int nrhs, const T* row_shares, int ldw);

}  // namespace hetlu::accuracy
