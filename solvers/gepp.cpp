// GEPP on the CPU: blocked right-looking LU with partial pivoting (LAPACK getrf semantics).
//
// lookahead = 0: one panel at a time; every BLAS call uses all threads.
// lookahead = 1: while the trailing matrix is updated, the next panel is already factored
//   (MAGMA's and LAPACK-with-look-ahead's schedule, async-calu §2.2). At step K, thread 0 updates
//   block column K+1 and factors it as panel K+1; the other threads, and thread 0 once it is done,
//   update the block columns right of it, claimed one at a time. BLAS calls inside the parallel
//   region run single-threaded (OpenBLAS's OpenMP build does so inside a parallel region).
// Row interchanges left of each panel are applied once, at the end, in parallel.
#include <omp.h>

#include <algorithm>
#include <atomic>

#include "solvers/blas.hpp"
#include "solvers/gepp_kernels.hpp"
#include "solvers/variants.hpp"

namespace hetlu::variants {
namespace {

using blas::Diag;
using blas::Op;
using blas::Side;
using blas::Uplo;

template <class T>
struct Matrix {
  int m, n, lda;
  T* data;
  T* at(int i, int j) const { return data + i + static_cast<long long>(j) * lda; }
};

// Factors the panel of columns [j, j + jb): returns its info, shifted to the whole matrix.
template <class T>
int factor_panel(const Matrix<T>& A, int j, int jb, int* ipiv) {
  int info = kernels::getrf_recursive(A.m - j, jb, A.at(j, j), A.lda, ipiv + j);
  for (int i = j; i < j + jb; ++i) ipiv[i] += j;
  return info > 0 ? info + j : 0;
}

// Applies panel [j, j + jb)'s interchanges, block row of U and trailing GEMM to columns [c, c + w).
template <class T>
void update_columns(const Matrix<T>& A, int j, int jb, int c, int w, const int* ipiv) {
  if (w <= 0) return;
  kernels::laswp(w, A.at(0, c), A.lda, j, j + jb, ipiv);
  blas::trsm(Side::left, Uplo::lower, Op::no_trans, Diag::unit, jb, w, T(1), A.at(j, j), A.lda, A.at(j, c), A.lda);
  blas::gemm(Op::no_trans, Op::no_trans, A.m - j - jb, w, jb, T(-1), A.at(j + jb, j), A.lda, A.at(j, c), A.lda, T(1),
             A.at(j + jb, c), A.lda);
}

// The interchanges of every panel applied to the columns left of it.
template <class T>
void swap_left_columns(const Matrix<T>& A, int k, int nb, const int* ipiv) {
  const int blocks = (k + nb - 1) / nb;
#pragma omp parallel for schedule(dynamic, 1)
  for (int b = 0; b < blocks - 1; ++b) {
    const int c = b * nb, w = std::min(nb, k - c);
    // Column block b needs the interchanges of every later panel, in order.
    for (int j = c + w; j < k; j += nb) kernels::laswp(w, A.at(0, c), A.lda, j, std::min(k, j + nb), ipiv);
  }
}

template <class T>
int getrf_no_lookahead(const Matrix<T>& A, int nb, int* ipiv) {
  const int k = std::min(A.m, A.n);
  int info = 0;
  for (int j = 0; j < k; j += nb) {
    const int jb = std::min(k - j, nb);
    const int panel = factor_panel(A, j, jb, ipiv);
    if (info == 0) info = panel;
    update_columns(A, j, jb, j + jb, A.n - j - jb, ipiv);
  }
  swap_left_columns(A, k, nb, ipiv);
  return info;
}

template <class T>
int getrf_lookahead(const Matrix<T>& A, int nb, int* ipiv) {
  const int k = std::min(A.m, A.n);
  int info = factor_panel(A, 0, std::min(k, nb), ipiv);
  for (int j = 0; j < k; j += nb) {
    const int jb = std::min(k - j, nb);
    const int next = j + jb;  // first column of the next panel
    const int next_width = std::min(nb, k - next);
    const int rest = next + std::max(0, next_width);  // first column no panel of this step touches
    std::atomic<int> next_column{rest};
    int next_info = 0;
#pragma omp parallel
    {
      const int threads = omp_get_num_threads();
      if (omp_get_thread_num() == 0 && next_width > 0) {
        update_columns(A, j, jb, next, next_width, ipiv);
        next_info = factor_panel(A, next, next_width, ipiv);
      }
      // Everyone, thread 0 after its panel, claims column chunks of the rest: large ones first (wide
      // GEMMs run faster), down to one block column at the end so that all finish together.
      while (true) {
        int c = next_column.load();
        int w = 0;
        do {
          const int blocks_left = (A.n - c + nb - 1) / nb;
          w = nb * std::max(1, blocks_left / (2 * threads));
        } while (c < A.n && !next_column.compare_exchange_weak(c, c + w));
        if (c >= A.n) break;
        update_columns(A, j, jb, c, std::min(w, A.n - c), ipiv);
      }
    }
    if (info == 0) info = next_info;
  }
  swap_left_columns(A, k, nb, ipiv);
  return info;
}

}  // namespace

template <class T>
int gepp_cpu_getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv) {
  const Matrix<T> matrix{m, n, lda, A};
  const int nb = std::max(1, plan.nb);
  if (std::min(m, n) == 0) return 0;
  // Look-ahead needs a second thread to overlap with.
  if (plan.lookahead > 0 && omp_get_max_threads() > 1) return getrf_lookahead(matrix, nb, ipiv);
  return getrf_no_lookahead(matrix, nb, ipiv);
}

template int gepp_cpu_getrf<float>(const Plan&, int, int, float*, int, int*);
template int gepp_cpu_getrf<double>(const Plan&, int, int, double*, int, int*);

}  // namespace hetlu::variants
