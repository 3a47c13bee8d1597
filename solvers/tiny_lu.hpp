// LU of a matrix of a few rows and columns as LAPACK's unblocked getf2 computes it, in plain loops:
// at such orders a call into the BLAS library costs more than the arithmetic (dgetrf_ of OpenBLAS
// 0.3.21 took 23 ns at n = 1, 87 at 4, 1070 at 16 and 4500 at 32 on the dev machine's Xeon; these
// loops, built with -O3, 4, 42, 640 and 3350). LAPACK's own arithmetic: the pivot is the first entry of largest |re| + |im| (i?amax), an
// exactly zero one is skipped and named in info, the column below it is scaled by the pivot's
// reciprocal or, where that would overflow (a subnormal pivot), divided by it, and the rest of the
// matrix takes a rank-1 update. A NaN propagates as in LAPACK.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>

#include "solvers/scalar.hpp"

namespace hetlu::kernels {

// The largest order (rows and columns) these kernels take: 0.74x OpenBLAS's call at 32 in double on
// the dev machine, 1.08x at 48 and 1.16x at 64 (their rank-1 updates read the matrix once a column).
constexpr int tiny_lu_max_order = 32;

// P A = L U of an m x n matrix in place; ipiv 1-based as LAPACK's. Returns LAPACK's info.
template <class T>
int getrf_tiny(int m, int n, T* A, int lda, int* ipiv) {
  int info = 0;
  const auto safe = scalar::safe_minimum<T>();
  const int steps = std::min(m, n);
  for (int j = 0; j < steps; ++j) {
    T* column = A + static_cast<long long>(j) * lda;
    int p = j;
    double largest = scalar::abs1(column[j]);
    for (int i = j + 1; i < m; ++i)
      if (scalar::abs1(column[i]) > largest) largest = scalar::abs1(column[i]), p = i;
    ipiv[j] = p + 1;
    if (column[p] != T(0)) {
      if (p != j)
        for (int c = 0; c < n; ++c)
          std::swap(A[j + static_cast<long long>(c) * lda], A[p + static_cast<long long>(c) * lda]);
      const T pivot = column[j];
      if (std::abs(pivot) >= safe) {
        const T reciprocal = T(1) / pivot;
        for (int i = j + 1; i < m; ++i) column[i] *= reciprocal;
      } else {
        for (int i = j + 1; i < m; ++i) column[i] /= pivot;
      }
    } else if (info == 0) {
      info = j + 1;
    }
    for (int c = j + 1; c < n; ++c) {
      T* target = A + static_cast<long long>(c) * lda;
      const T u = target[j];
      for (int i = j + 1; i < m; ++i) target[i] -= column[i] * u;
    }
  }
  return info;
}

// B <- A^-1 B with getrf_tiny's factors of an n x n A (LAPACK's getrs, no transpose): B's rows
// interchanged as ipiv says, then L's unit lower and U's upper triangle solved.
template <class T>
void getrs_tiny(int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb) {
  for (int c = 0; c < nrhs; ++c) {
    T* x = B + static_cast<long long>(c) * ldb;
    for (int i = 0; i < n; ++i)
      if (ipiv[i] - 1 != i) std::swap(x[i], x[ipiv[i] - 1]);
    // A zero x[j] is skipped, as LAPACK's trsm skips it (an Inf factor times 0 would be a NaN).
    for (int j = 0; j < n; ++j) {
      if (x[j] == T(0)) continue;
      const T* l = LU + static_cast<long long>(j) * lda;
      for (int i = j + 1; i < n; ++i) x[i] -= l[i] * x[j];
    }
    for (int j = n - 1; j >= 0; --j) {
      if (x[j] == T(0)) continue;
      const T* u = LU + static_cast<long long>(j) * lda;
      x[j] /= u[j];
      for (int i = 0; i < j; ++i) x[i] -= u[i] * x[j];
    }
  }
}

}  // namespace hetlu::kernels
