// Sequential building blocks of GEPP: row interchanges and the recursive panel factorization.
#pragma once

#include <cmath>
#include <limits>

#include "solvers/blas.hpp"
#include "solvers/scalar.hpp"

namespace hetlu::kernels {

// x[0..count) /= pivot: one multiplication by 1 / pivot, or, when that reciprocal would overflow
// (a subnormal pivot), a division each.
template <class T>
void divide_by_pivot(int count, T pivot, T* x) {
  if (std::abs(pivot) >= scalar::safe_minimum<T>()) {
    blas::scal(count, scalar::divide(T(1), pivot), x, 1);
  } else {
    for (int i = 0; i < count; ++i) x[i] /= pivot;
  }
}

// Applies the interchanges ipiv[k1..k2) (1-based row numbers, LAPACK style) to the rows of an
// ncols-wide column-major block, in order.
template <class T>
void laswp(int ncols, T* A, int lda, int k1, int k2, const int* ipiv);

// Same interchanges in reverse order: undoes laswp.
template <class T>
void laswp_reverse(int ncols, T* A, int lda, int k1, int k2, const int* ipiv);

// Recursive LU with partial pivoting of an m x n panel (Toledo's algorithm, as LAPACK's getrf2):
// most of its flops are in GEMM, so a tall panel runs near Level-3 speed. ipiv is relative to the
// panel (1-based). Returns 0, or the 1-based column of the first exactly-zero pivot.
template <class T>
int getrf_recursive(int m, int n, T* A, int lda, int* ipiv);

// LU without pivoting (GENP), recursive. Returns 0, or the 1-based column of the first exactly-zero
// pivot; without pivoting, the factors right of that column are then meaningless.
template <class T>
int getrf_nopivot_recursive(int m, int n, T* A, int lda);

// TSLU panel of CALU: tournament pivoting over at least `panel_threads` row blocks, each small
// enough for its GEPP to run in cache (binary tree, `panel_threads` threads outside a task graph),
// the winning rows moved to the top (ipiv, 1-based, LAPACK style), then LU without pivoting.
// Returns 0, or the 1-based column of the first exactly-zero pivot.
template <class T>
int tslu_panel(int m, int width, T* A, int lda, int* ipiv, int panel_threads);

// CALU's B-wide panel: factored recursively (most updates are wide GEMMs) down to leaves of
// width `inner` (b), each a TSLU over `panel_threads` row blocks. Same conventions as above.
template <class T>
int calu_panel(int m, int n, T* A, int lda, int* ipiv, int inner, int panel_threads);

}  // namespace hetlu::kernels
