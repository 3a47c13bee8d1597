// LU of a matrix of a few rows and columns as LAPACK's unblocked getf2 computes it (not getrf2's recursion,
// which reference getrf runs since LAPACK 3.6: the factors agree to rounding, bit for bit up to order 3), in plain
// loops: at such orders a call into the BLAS library costs more than the arithmetic (dgetrf_ of OpenBLAS 0.3.21 took 23
// ns at n = 1, 87 at 4, 1070 at 16 and 4500 at 32 on the dev machine's Xeon; these loops, built with -O3, 4, 42, 640
// and 3350). LAPACK's own arithmetic: the pivot is the first entry of largest |re| + |im| (i?amax), an exactly zero one
// is skipped and named in info, the column below it is scaled by the pivot's reciprocal or, where that would overflow
// (a subnormal pivot), divided by it, and the rest of the matrix takes a rank-1 update. A NaN propagates as in LAPACK.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <utility>

#include "hetlu/types.hpp"
#include "solvers/scalar.hpp"

namespace hetlu::kernels {

// The largest order (rows and columns) these kernels take. Up to 16 they cost 0.60-0.65x OpenBLAS's
// call. From 17 to 32 (0.74-0.95x there) the library's own getrf and getrs answer instead, bit for
// bit as without the drop-in: getf2's rank-1 updates had left a pivot of 9e-29 where OpenBLAS's
// getrf (and reference LAPACK's) leave an exact 0 on magic(20), and Octave then solved magic(20)\b
// to an x 586 from its own answer, under another warning (a hostile helper).
constexpr int tiny_lu_max_order = 16;

// Whether an m x n matrix is one these kernels take.
constexpr bool fits_tiny_lu(int m, int n) {
  return m <= tiny_lu_max_order && n <= tiny_lu_max_order;
}

// P A = L U of an m x n matrix in place; ipiv 1-based as LAPACK's. Returns LAPACK's info.
template <class T>
int getrf_tiny(int m, int n, T* A, int lda, int* ipiv) {
  int info = 0;
  const auto safe = scalar::safe_minimum<T>();
  const int steps = std::min(m, n);
  for (int j = 0; j < steps; ++j) {
    T* column = A + static_cast<long long>(j) * lda;
    int p = j;
    auto size = [](const T& x) {  // |re| + |im| in T's own precision, as i?amax adds (a tie in single stays one)
      if constexpr (scalar::is_complex_v<T>)
        return std::abs(x.real()) + std::abs(x.imag());
      else
        return std::abs(x);
    };
    auto largest = size(column[j]);
    for (int i = j + 1; i < m; ++i)
      if (size(column[i]) > largest) largest = size(column[i]), p = i;
    ipiv[j] = p + 1;
    if (column[p] != T(0)) {
      if (p != j)
        for (int c = 0; c < n; ++c)
          std::swap(A[j + static_cast<long long>(c) * lda], A[p + static_cast<long long>(c) * lda]);
      const T pivot = column[j];
      if (std::abs(pivot) >= safe) {
        const T reciprocal = scalar::divide(T(1), pivot);
        for (int i = j + 1; i < m; ++i) column[i] *= reciprocal;
      } else {
        for (int i = j + 1; i < m; ++i) column[i] /= pivot;
      }
    } else if (info == 0) {
      info = j + 1;
    }
    for (int c = j + 1; c < n; ++c) {  // the rank-1 update, skipping a zero u[c] as LAPACK's ger does
      T* target = A + static_cast<long long>(c) * lda;
      const T u = target[j];
      if (u == T(0)) continue;
      for (int i = j + 1; i < m; ++i) target[i] -= column[i] * u;
    }
  }
  return info;
}

// LU(i, j), conjugated for a solve with A^H.
template <class T>
T factor(Transpose trans, const T* LU, int lda, int i, int j) {
  const T a = LU[i + static_cast<long long>(j) * lda];
  if constexpr (scalar::is_complex_v<T>)
    return trans == Transpose::conjugate ? std::conj(a) : a;
  else
    return a;
}

// op(U)^-1 B for the upper triangle U of LU (trans yes: U^T, conjugate: U^H), dividing by each
// pivot as LAPACK's trsm does: the BLAS library's trsm multiplies by reciprocals, and a pivot below
// 1 / max made x = Inf where it is 1e10 (OpenBLAS's dgetrs_, U(1,1) = 1e-310, NRHS > 1). A zero
// x[j] is skipped in the column form, as LAPACK's trsm skips it (an Inf factor times 0 would be NaN).
template <class T>
void solve_upper_dividing(Transpose trans, int n, int nrhs, const T* LU, int lda, T* B, int ldb) {
  auto at = [&](int i, int j) { return factor(trans, LU, lda, i, j); };
  for (int c = 0; c < nrhs; ++c) {
    T* x = B + static_cast<long long>(c) * ldb;
    if (trans == Transpose::no) {
      for (int j = n - 1; j >= 0; --j) {
        if (x[j] == T(0)) continue;
        x[j] = scalar::divide(x[j], at(j, j));
        for (int i = 0; i < j; ++i) x[i] -= at(i, j) * x[j];
      }
    } else {  // U^T z = b: row j of U^T is column j of U, whose entries above the diagonal meet z[0..j)
      for (int j = 0; j < n; ++j) {
        T sum = x[j];
        for (int i = 0; i < j; ++i) sum -= at(i, j) * x[i];
        x[j] = scalar::divide(sum, at(j, j));
      }
    }
  }
}

// B <- op(A)^-1 B with getrf_tiny's factors of an n x n A = P L U, as LAPACK's getrs: trans no
// interchanges B's rows as ipiv says, then solves L's unit lower and U's upper triangle; yes (A^T)
// and conjugate (A^H) solve with U^T then L^T (conjugated) and interchange B's rows in reverse.
// ipiv's entries must lie in [1, n].
template <class T>
void getrs_tiny(Transpose trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb) {
  auto lower = [&](int i, int j) { return factor(trans, LU, lda, i, j); };
  if (trans != Transpose::no) solve_upper_dividing(trans, n, nrhs, LU, lda, B, ldb);
  for (int c = 0; c < nrhs; ++c) {
    T* x = B + static_cast<long long>(c) * ldb;
    if (trans == Transpose::no) {
      for (int i = 0; i < n; ++i)
        if (ipiv[i] - 1 != i) std::swap(x[i], x[ipiv[i] - 1]);
      for (int j = 0; j < n; ++j) {
        if (x[j] == T(0)) continue;
        for (int i = j + 1; i < n; ++i) x[i] -= lower(i, j) * x[j];
      }
    } else {
      for (int j = n - 1; j >= 0; --j) {  // L^T w = z: column j of L below the diagonal meets w[j+1..n)
        T sum = x[j];
        for (int i = j + 1; i < n; ++i) sum -= lower(i, j) * x[i];
        x[j] = sum;
      }
      for (int i = n - 1; i >= 0; --i)
        if (ipiv[i] - 1 != i) std::swap(x[i], x[ipiv[i] - 1]);
    }
  }
  if (trans == Transpose::no) solve_upper_dividing(trans, n, nrhs, LU, lda, B, ldb);
}

// Whether every pivot of U has a finite reciprocal: the BLAS library's triangular solves multiply by
// reciprocals, right only then. 1 / max itself has none (1 / 2^-1024 is Inf), nor has 0 (U singular:
// LAPACK's solve skips a zero entry of x, and keeps the rest finite). A NaN pivot keeps the BLAS:
// NaN either way, and the BLAS is faster. Only a pivot below the smallest normal number in every
// part can have none: the others pass on a comparison, without the division (and for complex the
// hypot) that made this scan 1-3 % of a one-column solve at n = 512. A complex pivot beyond the
// library's complex division (scalar::beyond_complex_division: OpenBLAS's reciprocal of
// 1e308 + 1e308i is 0) has none either.
template <class T>
bool pivots_have_reciprocals(int n, const T* LU, int lda) {
  using R = scalar::real_t<T>;
  constexpr R smallest_normal = std::numeric_limits<R>::min();
  for (int k = 0; k < n; ++k) {
    const T p = LU[k + static_cast<long long>(k) * lda];
    R size;
    if constexpr (scalar::is_complex_v<T>)
      size = std::max(std::abs(p.real()), std::abs(p.imag()));
    else
      size = std::abs(p);
    if (scalar::beyond_complex_division(p)) return false;
    if (size >= smallest_normal || std::isnan(size)) continue;
    if (std::isinf(R(1) / std::abs(p))) return false;
  }
  return true;
}

}  // namespace hetlu::kernels
