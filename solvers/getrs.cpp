#include <complex>

#include "solvers/blas.hpp"
#include "solvers/gepp_kernels.hpp"
#include "solvers/tiny_lu.hpp"
#include "solvers/variants.hpp"
#include "solvers/vendor_lapack.hpp"

namespace hetlu::variants {

using blas::Diag;
using blas::Op;
using blas::Side;
using blas::Uplo;

template <class T>
void solve_upper(Transpose trans, int n, int nrhs, const T* LU, int lda, T* B, int ldb) {
  if (n == 0 || nrhs == 0) return;
  if (kernels::pivots_have_reciprocals(n, LU, lda))
    blas::trsm(Side::left, Uplo::upper, blas::op_of(trans), Diag::non_unit, n, nrhs, T(1), LU, lda, B, ldb);
  else
    kernels::solve_upper_dividing(trans, n, nrhs, LU, lda, B, ldb);
}

template <class T>
void lu_getrs(Transpose trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb) {
  if (n == 0 || nrhs == 0) return;
  // One column below blas.hpp's blocked order: the library's own getrs, whose trsv runs as ours
  // would, without our laswp and two calls (the C API's getrs took 1.17x OpenBLAS's dgetrs_ at
  // n = 512 through them). Where it declines (its X not finite), U is solved by the loops below,
  // dividing: OpenBLAS's complex trsv overflowed where LAPACK's does not.
  const bool one_column = nrhs == 1 && n < blas::blocked_one_column_order;
  if (one_column && vendor::getrs(trans, n, nrhs, LU, lda, ipiv, B, ldb, /*own_loops=*/false)) return;
  // U: as solve_upper solves it (the BLAS's trsm multiplies by U's reciprocal pivots: with one
  // below 1 / max x = Inf where it is 1e10 in OpenBLAS's, NRHS > 1); after the library declined one
  // column, by hetlu's loops, dividing.
  auto upper = [&] {
    if (one_column)
      kernels::solve_upper_dividing(trans, n, nrhs, LU, lda, B, ldb);
    else
      solve_upper(trans, n, nrhs, LU, lda, B, ldb);
  };
  if (trans == Transpose::no) {
    // A = P^T L U: X = U^-1 L^-1 P B
    kernels::laswp(nrhs, B, ldb, 0, n, ipiv);
    blas::trsm(Side::left, Uplo::lower, Op::no_trans, Diag::unit, n, nrhs, T(1), LU, lda, B, ldb);
    upper();
  } else {
    // A^T = U^T L^T P: X = P^T L^-T U^-T B (A^H: the same with conjugates)
    upper();
    blas::trsm(Side::left, Uplo::lower, blas::op_of(trans), Diag::unit, n, nrhs, T(1), LU, lda, B, ldb);
    kernels::laswp_reverse(nrhs, B, ldb, 0, n, ipiv);
  }
}

template void solve_upper<float>(Transpose, int, int, const float*, int, float*, int);
template void solve_upper<double>(Transpose, int, int, const double*, int, double*, int);
template void solve_upper<std::complex<double>>(Transpose, int, int, const std::complex<double>*, int,
                                                std::complex<double>*, int);
template void solve_upper<std::complex<float>>(Transpose, int, int, const std::complex<float>*, int,
                                               std::complex<float>*, int);
template void lu_getrs<float>(Transpose, int, int, const float*, int, const int*, float*, int);
template void lu_getrs<double>(Transpose, int, int, const double*, int, const int*, double*, int);
template void lu_getrs<std::complex<double>>(Transpose, int, int, const std::complex<double>*, int, const int*,
                                             std::complex<double>*, int);
template void lu_getrs<std::complex<float>>(Transpose, int, int, const std::complex<float>*, int, const int*,
                                            std::complex<float>*, int);

}  // namespace hetlu::variants
