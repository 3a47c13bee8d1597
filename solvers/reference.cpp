// The reference every benchmark and calibration compares with: the LAPACK of the BLAS library
// (OpenBLAS) through LAPACKE.
#include <lapacke.h>

#include <vector>

#include "solvers/lu.hpp"

namespace hetlu::solvers {

int reference_getrf(int m, int n, double* A, int lda, int* ipiv) {
  static_assert(sizeof(lapack_int) == sizeof(int), "LAPACKE built with 32-bit integers expected");
  return LAPACKE_dgetrf(LAPACK_COL_MAJOR, m, n, A, lda, reinterpret_cast<lapack_int*>(ipiv));
}

}  // namespace hetlu::solvers
