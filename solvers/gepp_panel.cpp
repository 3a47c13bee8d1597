#include <omp.h>

#include <algorithm>
#include <utility>

#include "solvers/blas.hpp"
#include "solvers/gepp_kernels.hpp"

namespace hetlu::kernels {

using blas::Diag;
using blas::Op;
using blas::Side;
using blas::Uplo;

namespace {

// Columns per block of the row interchanges. Within a block the swaps go row by row: the random
// pivot rows of 32 columns are fetched together, and a block (32 columns of 4000 doubles: 1 MB)
// stays in cache across all its swaps. Measured 25 % faster than column by column on a 4000 x 256
// float block (and the same at 16-64); column by column, each column's random rows wait on the
// few misses a core keeps in flight.
constexpr int kSwapBlockColumns = 32;

// The block's width for a leading dimension: where lda's bytes are a multiple of 4 KiB (n = 1024,
// 2048 ...) a row's entries in successive columns all fall in one set of a 4 KiB-way L1 cache, and
// 32 of them overflow its 8 ways on every swap: 8 columns, which one set holds.
template <class T>
int swap_block_columns(int lda) {
  const long long row_stride = static_cast<long long>(lda) * static_cast<long long>(sizeof(T));
  return row_stride % 4096 == 0 ? 8 : kSwapBlockColumns;
}

// ipiv[i] - 1 for every i in `order` (k1 up to k2, or back down), applied to columns [j0, j1).
template <class T, class Rows>
void swap_rows(T* A, int lda, int j0, int j1, const int* ipiv, Rows order) {
  order([&](int i) {
    const int p = ipiv[i] - 1;
    if (p == i) return;
    T* column = A + static_cast<long long>(j0) * lda;
    for (int j = j0; j < j1; ++j, column += lda) std::swap(column[i], column[p]);
  });
}

template <class T, class Rows>
void swap_blocks(int ncols, T* A, int lda, long long swaps, const int* ipiv, Rows order) {
  // Narrower blocks where fewer than two per thread would be left (getrs's few right-hand sides).
  const bool parallel = swaps * ncols > 65536 && !omp_in_parallel();
  const int threads = parallel ? omp_get_max_threads() : 1;
  const int width = std::clamp((ncols + 2 * threads - 1) / (2 * threads), 1, swap_block_columns<T>(lda));
  const int blocks = (ncols + width - 1) / width;
#pragma omp parallel for schedule(static) if (parallel && blocks > 1)
  for (int b = 0; b < blocks; ++b) {
    const int j0 = b * width;
    swap_rows(A, lda, j0, std::min(ncols, j0 + width), ipiv, order);
  }
}

}  // namespace

template <class T>
void laswp(int ncols, T* A, int lda, int k1, int k2, const int* ipiv) {
  swap_blocks(ncols, A, lda, k2 - k1, ipiv, [&](auto&& swap) {
    for (int i = k1; i < k2; ++i) swap(i);
  });
}

template <class T>
void laswp_reverse(int ncols, T* A, int lda, int k1, int k2, const int* ipiv) {
  swap_blocks(ncols, A, lda, k2 - k1, ipiv, [&](auto&& swap) {
    for (int i = k2 - 1; i >= k1; --i) swap(i);
  });
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
