#include <algorithm>
#include <utility>

#include "solvers/blas.hpp"
#include "solvers/gepp_kernels.hpp"

namespace hetlu::kernels {

using blas::Diag;
using blas::Op;
using blas::Side;
using blas::Uplo;

template <class T>
void laswp(int ncols, T* A, int lda, int k1, int k2, const int* ipiv) {
  // Columns outermost: the swaps of one column touch one contiguous column.
#pragma omp parallel for schedule(static) if (static_cast <long long>(ncols) * (k2 - k1) > 65536)
  for (int j = 0; j < ncols; ++j) {
    T* column = A + static_cast<long long>(j) * lda;
    for (int i = k1; i < k2; ++i) {
      int p = ipiv[i] - 1;
      if (p != i) std::swap(column[i], column[p]);
    }
  }
}

template <class T>
void laswp_reverse(int ncols, T* A, int lda, int k1, int k2, const int* ipiv) {
#pragma omp parallel for schedule(static) if (static_cast <long long>(ncols) * (k2 - k1) > 65536)
  for (int j = 0; j < ncols; ++j) {
    T* column = A + static_cast<long long>(j) * lda;
    for (int i = k2 - 1; i >= k1; --i) {
      int p = ipiv[i] - 1;
      if (p != i) std::swap(column[i], column[p]);
    }
  }
}

template <class T>
int getrf_recursive(int m, int n, T* A, int lda, int* ipiv) {
  if (m == 0 || n == 0) return 0;
  if (m == 1) {
    ipiv[0] = 1;
    return A[0] == T(0) ? 1 : 0;
  }
  if (n == 1) {
    int p = blas::iamax(m, A, 1);
    ipiv[0] = p + 1;
    if (A[p] == T(0)) return 1;  // exactly singular column: leave it, as LAPACK does
    if (p != 0) std::swap(A[0], A[p]);
    divide_by_pivot(m - 1, A[0], A + 1);
    return 0;
  }

  const int n1 = std::min(m, n) / 2;
  const int n2 = n - n1;
  T* A12 = A + static_cast<long long>(n1) * lda;
  T* A21 = A + n1;
  T* A22 = A12 + n1;

  int info = getrf_recursive(m, n1, A, lda, ipiv);
  laswp(n2, A12, lda, 0, n1, ipiv);
  blas::trsm(Side::left, Uplo::lower, Op::no_trans, Diag::unit, n1, n2, T(1), A, lda, A12, lda);
  blas::gemm(Op::no_trans, Op::no_trans, m - n1, n2, n1, T(-1), A21, lda, A12, lda, T(1), A22, lda);

  int info2 = getrf_recursive(m - n1, n2, A22, lda, ipiv + n1);
  if (info == 0 && info2 > 0) info = info2 + n1;
  const int k = std::min(m, n);
  for (int i = n1; i < k; ++i) ipiv[i] += n1;
  laswp(n1, A, lda, n1, k, ipiv);
  return info;
}

template void laswp<float>(int, float*, int, int, int, const int*);
template void laswp<double>(int, double*, int, int, int, const int*);
template void laswp<std::complex<double>>(int, std::complex<double>*, int, int, int, const int*);
template void laswp<std::complex<float>>(int, std::complex<float>*, int, int, int, const int*);
template void laswp_reverse<float>(int, float*, int, int, int, const int*);
template void laswp_reverse<double>(int, double*, int, int, int, const int*);
template void laswp_reverse<std::complex<double>>(int, std::complex<double>*, int, int, int, const int*);
template void laswp_reverse<std::complex<float>>(int, std::complex<float>*, int, int, int, const int*);
template int getrf_recursive<float>(int, int, float*, int, int*);
template int getrf_recursive<double>(int, int, double*, int, int*);
template int getrf_recursive<std::complex<double>>(int, int, std::complex<double>*, int, int*);
template int getrf_recursive<std::complex<float>>(int, int, std::complex<float>*, int, int*);

}  // namespace hetlu::kernels
