// The blocked right-looking LU driver that GEPP, CALU and GENP share; they differ only in how a
// panel is factored (partial pivoting, tournament pivoting, no pivoting).
//
// lookahead = 0: one panel at a time; every BLAS call uses all threads.
// lookahead = 1: a task graph (PLASMA's schedule). Each panel and each block column's update by
//   each panel is an OpenMP task over sequential kernels, ordered only by depend clauses on one
//   token per block column; BLAS calls inside tasks run single-threaded (OpenBLAS's OpenMP build
//   does so inside a parallel region). Step K's update of block column K+1 and panel K+1 are one
//   task, so the next panel is factored while step K's other updates run (look-ahead, async-calu
//   §2.2), and no step waits for the previous one to finish. Measured against the earlier
//   hand-scheduled look-ahead (one parallel region per step, threads claiming column chunks): the
//   same at n = 4000 and 8000, 5-7 % faster at n = 2000 (2-core dev machine).
// Row interchanges left of each panel are applied once, at the end, in parallel.
#pragma once

#include <omp.h>

#include <algorithm>
#include <vector>

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

// The panel width a driver runs with: at least 1, and a width past the matrix is the whole matrix,
// so that no block arithmetic (j + nb) can overflow whatever a caller's plan asks.
inline int panel_width_within(int nb, int m, int n) {
  return std::clamp(nb, 1, std::max({1, m, n}));
}

// Factors the panel of columns [j, j + jb) with `panel` (see BlockedLu); returns its info and
// leaves its interchanges in ipiv, both shifted to the whole matrix.
template <class T, class PanelFactor>
int factor_panel(const Matrix<T>& A, int* ipiv, int j, int jb, PanelFactor& panel) {
  const int info = panel(A.m - j, jb, A.at(j, j), A.lda, ipiv + j);
  for (int i = j; i < j + std::min(jb, A.m - j); ++i) ipiv[i] += j;
  return info > 0 ? info + j : 0;
}

// GENP's panel (PRBT) in the PanelFactor form below: LU without pivoting, the identity as its
// interchanges. (GEPP's is kernels::getrf_recursive itself.)
template <class T>
int genp_panel(int rows, int width, T* A, int lda, int* ipiv) {
  for (int i = 0; i < std::min(rows, width); ++i) ipiv[i] = i + 1;
  return kernels::getrf_nopivot_recursive(rows, width, A, lda);
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
// it: in parallel over block columns (disjoint), each taking all later panels' in one pass, so
// that a column is swapped from cache rather than fetched once per later panel (measured: the
// swaps were 10 % of a single-precision LU at n = 4000 when each panel went over the columns).
template <class T>
void swap_left_columns(const Matrix<T>& A, int k, int nb, const int* ipiv) {
  const int blocks = static_cast<int>((k + nb - 1LL) / nb);
#pragma omp parallel for schedule(dynamic, 1)
  for (int b = 0; b < blocks - 1; ++b) {
    const int c = b * nb, w = std::min(nb, k - c);
    kernels::laswp(w, A.at(0, c), A.lda, c + w, k, ipiv);
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
    const int info = lookahead && omp_get_max_threads() > 1 ? with_task_graph() : without_lookahead();
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

  // Block columns one update task takes, of the `remaining` right of the next panel's: wide
  // enough that GEMM's packing of L is paid once per kMinUpdateColumns columns, narrow enough to
  // leave a task per thread. Measured with nb = 192-384 at n = 4000 and 8000 (2-core dev
  // machine): 2-6 % faster than one task per block column, in single and double.
  int update_group(int remaining, int threads) const {
    constexpr int kMinUpdateColumns = 512;
    const int wide_enough = static_cast<int>((kMinUpdateColumns + nb_ - 1LL) / nb_);
    return std::clamp(remaining / threads, 1, wide_enough);
  }

  // The task graph (see the top of this file). The critical task carries priority(1); libgomp
  // honours it only under OMP_MAX_TASK_PRIORITY >= 1, and measured no faster with it.
  int with_task_graph() {
    const int k = std::min(A_.m, A_.n);
    // Block columns: the panels' (the last may be narrower), then those right of min(m, n).
    const int panels = static_cast<int>((k + nb_ - 1LL) / nb_);
    const int block_columns = panels + static_cast<int>((A_.n - k + nb_ - 1LL) / nb_);
    auto first_column = [&](int J) { return J < panels ? J * nb_ : k + (J - panels) * nb_; };
    auto width = [&](int J) {  // in 64 bits: first_column + nb_ may pass INT_MAX for a 1 x 2^30 matrix
      return static_cast<int>(std::min<long long>(J < panels ? k : A_.n, first_column(J) + 0LL + nb_) -
                              first_column(J));
    };
    std::vector<int> panel_info(panels, 0);
    std::vector<char> tokens(block_columns);
    char* column = tokens.data();
    panel_info[0] = factor_panel(0, width(0));  // on all threads: nothing else can run yet
    const int threads = omp_get_max_threads();
#pragma omp parallel
#pragma omp single
    for (int K = 0; K < panels; ++K) {
      const int j = first_column(K), jb = width(K);
      for (int J = K + 1; J < block_columns;) {
        const int c = first_column(J);
        if (J < panels && J == K + 1) {
          const int w = width(J);
#pragma omp task depend(in : column[K]) depend(inout : column[J]) priority(1)
          {
            update_columns(j, jb, c, w);
            panel_info[J] = factor_panel(c, w);
          }
          ++J;
        } else {
          // Block columns [J, last] in one task, so that GEMM packs this panel's L once for all
          // of them; the next panel's own block column alone, so that it waits for nothing more.
          const int group = J == K + 2 ? 1 : update_group(block_columns - J, threads);
          const int last = std::min(block_columns, J + group) - 1;
          const int w = first_column(last) + width(last) - c;
#pragma omp task depend(in : column[K]) depend(iterator(b = J : last + 1), inout : column[b])
          update_columns(j, jb, c, w);
          J = last + 1;
        }
      }
    }
    for (int info : panel_info)
      if (info) return info;
    return 0;
  }

  Matrix<T> A_;
  int nb_;
  int* ipiv_;
  PanelFactor panel_;
};

template <class T, class PanelFactor>
int blocked_lu(int m, int n, T* A, int lda, int* ipiv, int nb, bool lookahead, PanelFactor panel) {
  return BlockedLu<T, PanelFactor>(Matrix<T>{m, n, lda, A}, panel_width_within(nb, m, n), ipiv, panel).run(lookahead);
}

}  // namespace hetlu::variants
