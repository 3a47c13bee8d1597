// The blocked right-looking LU driver that GEPP, CALU and GENP share; they differ only in how a
// panel is factored (partial pivoting, tournament pivoting, no pivoting).
//
// lookahead = 0: one panel at a time; every BLAS call uses all threads.
// lookahead = 1: while the trailing matrix is updated, the next panel is already factored
//   (MAGMA's and LAPACK-with-look-ahead's schedule, async-calu §2.2). At step K, thread 0 updates
//   block column K+1 and factors it as panel K+1; the other threads, and thread 0 once it is done,
//   update the block columns right of it, claiming column chunks. BLAS calls inside the parallel
//   region run single-threaded (OpenBLAS's OpenMP build does so inside a parallel region).
// Row interchanges left of each panel are applied once, at the end, in parallel.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>

#include "solvers/blas.hpp"
#include "solvers/gepp_kernels.hpp"

namespace hetlu::variants {

template <class T>
struct Matrix {
  int m, n, lda;
  T* data;
  T* at(int i, int j) const { return data + i + static_cast<long long>(j) * lda; }
};

// The steps every blocked LU driver shares (this one and hybrid_lu.hpp's CPU side).

// Factors the panel of columns [j, j + jb) with `panel` (see BlockedLu); returns its info and
// leaves its interchanges in ipiv, both shifted to the whole matrix.
template <class T, class PanelFactor>
int factor_panel(const Matrix<T>& A, int* ipiv, int j, int jb, PanelFactor& panel) {
  const int info = panel(A.m - j, jb, A.at(j, j), A.lda, ipiv + j);
  for (int i = j; i < j + std::min(jb, A.m - j); ++i) ipiv[i] += j;
  return info > 0 ? info + j : 0;
}

// Applies the panel [j, j + jb)'s interchanges, block row of U and trailing GEMM to columns [c, c + w).
template <class T>
void update_columns(const Matrix<T>& A, const int* ipiv, int j, int jb, int c, int w) {
  if (w <= 0) return;
  using namespace blas;
  kernels::laswp(w, A.at(0, c), A.lda, j, j + jb, ipiv);
  trsm(Side::left, Uplo::lower, Op::no_trans, Diag::unit, jb, w, T(1), A.at(j, j), A.lda, A.at(j, c), A.lda);
  gemm(Op::no_trans, Op::no_trans, A.m - j - jb, w, jb, T(-1), A.at(j + jb, j), A.lda, A.at(j, c), A.lda, T(1),
       A.at(j + jb, c), A.lda);
}

// The interchanges of every nb-wide panel of the first k columns applied to the columns left of
// it: in parallel over block columns (disjoint), each taking the later panels' in order.
template <class T>
void swap_left_columns(const Matrix<T>& A, int k, int nb, const int* ipiv) {
  const int blocks = (k + nb - 1) / nb;
#pragma omp parallel for schedule(dynamic, 1)
  for (int b = 0; b < blocks - 1; ++b) {
    const int c = b * nb, w = std::min(nb, k - c);
    for (int j = c + w; j < k; j += nb) kernels::laswp(w, A.at(0, c), A.lda, j, std::min(k, j + nb), ipiv);
  }
}

// PanelFactor: int(int rows, int width, T* A, int lda, int* ipiv), ipiv relative to the panel,
// returns 0 or the panel-relative 1-based column of the first zero pivot.
template <class T, class PanelFactor>
class BlockedLu {
 public:
  BlockedLu(const Matrix<T>& A, int nb, int* ipiv, PanelFactor panel) : A_(A), nb_(nb), ipiv_(ipiv), panel_(panel) {}

  int run(bool lookahead) {
    if (std::min(A_.m, A_.n) == 0) return 0;
    const int info = lookahead && omp_get_max_threads() > 1 ? with_lookahead() : without_lookahead();
    swap_left_columns(A_, std::min(A_.m, A_.n), nb_, ipiv_);
    return info;
  }

 private:
  // Factors the panel of columns [j, j + jb): returns its info, shifted to the whole matrix.
  int factor_panel(int j, int jb) { return variants::factor_panel(A_, ipiv_, j, jb, panel_); }

  void update_columns(int j, int jb, int c, int w) { variants::update_columns(A_, ipiv_, j, jb, c, w); }

  int without_lookahead() {
    const int k = std::min(A_.m, A_.n);
    int info = 0;
    for (int j = 0; j < k; j += nb_) {
      const int jb = std::min(k - j, nb_);
      const int panel = factor_panel(j, jb);
      if (info == 0) info = panel;
      update_columns(j, jb, j + jb, A_.n - j - jb);
    }
    return info;
  }

  int with_lookahead() {
    const int k = std::min(A_.m, A_.n);
    int info = factor_panel(0, std::min(k, nb_));
    for (int j = 0; j < k; j += nb_) {
      const int jb = std::min(k - j, nb_);
      const int next = j + jb;  // first column of the next panel
      const int next_width = std::min(nb_, k - next);
      const int rest = next + std::max(0, next_width);  // first column no panel of this step touches
      std::atomic<int> next_column{rest};
      int next_info = 0;
#pragma omp parallel
      {
        const int threads = omp_get_num_threads();
        if (omp_get_thread_num() == 0 && next_width > 0) {
          update_columns(j, jb, next, next_width);
          next_info = factor_panel(next, next_width);
        }
        // Everyone, thread 0 after its panel, claims column chunks of the rest: large ones first
        // (wide GEMMs run faster), down to one block column at the end so that all finish together.
        while (true) {
          int c = next_column.load();
          int w = 0;
          do {
            const int blocks_left = (A_.n - c + nb_ - 1) / nb_;
            w = nb_ * std::max(1, blocks_left / (2 * threads));
          } while (c < A_.n && !next_column.compare_exchange_weak(c, c + w));
          if (c >= A_.n) break;
          update_columns(j, jb, c, std::min(w, A_.n - c));
        }
      }
      if (info == 0) info = next_info;
    }
    return info;
  }

  Matrix<T> A_;
  int nb_;
  int* ipiv_;
  PanelFactor panel_;
};

template <class T, class PanelFactor>
int blocked_lu(int m, int n, T* A, int lda, int* ipiv, int nb, bool lookahead, PanelFactor panel) {
  return BlockedLu<T, PanelFactor>(Matrix<T>{m, n, lda, A}, std::max(1, nb), ipiv, panel).run(lookahead);
}

}  // namespace hetlu::variants
