#include "solvers/blas.hpp"
#include "solvers/gepp_kernels.hpp"
#include "solvers/variants.hpp"

namespace hetlu::variants {

using blas::Diag;
using blas::Op;
using blas::Side;
using blas::Uplo;

template <class T>
void lu_getrs(int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb) {
  kernels::laswp(nrhs, B, ldb, 0, n, ipiv);
  blas::trsm(Side::left, Uplo::lower, Op::no_trans, Diag::unit, n, nrhs, T(1), LU, lda, B, ldb);
  blas::trsm(Side::left, Uplo::upper, Op::no_trans, Diag::non_unit, n, nrhs, T(1), LU, lda, B, ldb);
}

template void lu_getrs<float>(int, int, const float*, int, const int*, float*, int);
template void lu_getrs<double>(int, int, const double*, int, const int*, double*, int);

}  // namespace hetlu::variants
