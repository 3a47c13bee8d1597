// The scaled system solve_checked works on: R A C y = R b with R and C powers of two, as LAPACK's
// dgeequb, and omega measured on it (in long double on A itself near the range's ends). Internal to
// api/solve_checked.cpp.
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>
#include <vector>

#include "solvers/accuracy.hpp"
#include "solvers/condition.hpp"
#include "solvers/row_omega.hpp"
#include "solvers/scalar.hpp"

namespace hetlu::checked {

// Row and column scalings by powers of two (exact), as LAPACK's dgeequb: r_i brings row i's
// largest magnitude near 1, then c_j column j's of R A. omega is invariant under them, so it is
// computed on R A C, where |A||x| cannot overflow (near the range's ends, in long double on A
// itself: wide_backward_error). The solve applies R where the rows' largest
// magnitudes differ by more than about 10 (dlaqge's rowcnd < 0.1, as dgesvx), and R and C both
// where some row or column lies outside [smlnum, 1/smlnum], smlnum = safe minimum / eps, where
// pivots or their reciprocals would leave the range (an all-subnormal A, say). Columns are not
// scaled otherwise: GEPP's and CALU's pivots do not depend on them, and the estimated rcond, of R A,
// then bounds the error of X itself. dgesvx's rcond, of R A C, bounds only that of C^-1 X: a column
// scaled by 2^-400 with x_j = 0 came back as x_j = -5e106 with rcond(R A C) = 9e-4 (exit 0), where
// rcond(R A) = 4e-123 says exit 5. Without R, rows scaled 10^U(-20, 20) read as singular to working
// precision (rcond 1e-42 of A itself, X right to 1e-12) and rows scaled 10^U(-160, 160) as
// inaccurate.
struct Scaling {
  std::vector<int> row, col;        // exponents: r_i = 2^row[i], c_j = 2^col[j] (of R A)
  bool rows = false, cols = false;  // whether the solve applies R, C
  bool rcond_rows = false;          // whether rcond is R A's (else A's): R's dgesvx rule, applied or not
  bool extreme = false;             // some row or column lies outside [smlnum, 1/smlnum]
  bool needed() const { return rows || cols; }
  int applied_row(int i) const { return rows ? row[i] : 0; }
  int applied_col(int j) const { return cols ? col[j] : 0; }
  int measured_row(int i) const { return rcond_rows ? row[i] : 0; }
  // Whether the matrix factored is the one whose rcond is reported (no C, R as measured).
  bool factors_measured() const { return !cols && rows == rcond_rows; }
  // The exponents as the solve applies them (0 where it applies none).
  std::vector<int> applied_rows() const { return rows ? row : std::vector<int>(row.size(), 0); }
  std::vector<int> applied_cols() const { return cols ? col : std::vector<int>(col.size(), 0); }
  // R A C solved, as dgesvx's.
  Scaling equilibrated() const {
    Scaling s = *this;
    s.rows = s.cols = true;
    return s;
  }
  // A itself solved, rcond and omega measured as before.
  Scaling unapplied() const {
    Scaling s = *this;
    s.rows = s.cols = false;
    return s;
  }
};

// The binary exponent of a nonzero finite v (v = f 2^e, 0.5 <= |f| < 1); INT_MIN for 0.
inline int exponent_of(double v) {
  if (v == 0 || !std::isfinite(v)) return std::numeric_limits<int>::min();
  int e = 0;
  std::frexp(v, &e);
  return e;
}

// Largest magnitudes 2^e apart by e >= 4 (a factor 8 to 32): dlaqge's rowcnd, colcnd < 0.1, on exponents.
constexpr int badly_scaled_spread = 4;

// Computed on exponents alone: scaling a row first and then taking a column's largest entry would
// underflow (a column of 1e-300 in rows whose largest entry is 1e300 became zeros, and a
// nonsingular matrix "singular").
template <class T>
Scaling equilibrate(int n, const T* A, int lda) {
  constexpr int none = std::numeric_limits<int>::min();
  Scaling s;
  s.row.assign(n, 0);
  s.col.assign(n, 0);
  using R = scalar::real_t<T>;
  const double small = double(std::numeric_limits<R>::min()) / double(std::numeric_limits<R>::epsilon());
  const int low = exponent_of(small), high = exponent_of(1 / small);
  auto outside = [&](int e) { return e != none && (e < low || e > high); };
  // max(|re|, |im|): |re| + |im| of 1e308 + 1e308i is Inf, whose row then looked empty and unscaled.
  auto entry = [&](int i, int j) { return exponent_of(scalar::abs_max(A[i + static_cast<long long>(j) * lda])); };
  // The spread of the nonzero exponents among `e` (0 where fewer than two).
  auto spread = [&](const std::vector<int>& e) {
    int least = std::numeric_limits<int>::max(), most = none;
    for (int v : e)
      if (v != none) least = std::min(least, v), most = std::max(most, v);
    return most == none ? 0 : most - least;
  };
  std::vector<int> largest(n, none);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) largest[i] = std::max(largest[i], entry(i, j));
  for (int i = 0; i < n; ++i) {
    s.row[i] = largest[i] == none ? 0 : -largest[i];
    s.extreme = s.extreme || outside(largest[i]);
  }
  for (int j = 0; j < n; ++j) {
    int column = none;
    for (int i = 0; i < n; ++i)
      if (const int e = entry(i, j); e != none) column = std::max(column, e + s.row[i]);
    s.col[j] = column == none ? 0 : -column;
    s.extreme = s.extreme || outside(column);
  }
  s.rows = s.rcond_rows = s.extreme || spread(largest) >= badly_scaled_spread;
  s.cols = s.extreme;
  return s;
}

// T's entries in long double (x86's 80 bits), real or complex: sums that keep what double's round away.
template <class T>
using long_double_t = std::conditional_t<scalar::is_complex_v<T>, std::complex<long double>, long double>;

// omega of X for A X = B where A has entries near the ends of the range: in long double (x86's
// 80 bits: products of doubles span 1e+-616, far inside its 1e+-4932), on A itself, since any
// scaling by powers of two underflowed somewhere (a row led by 1e300 with 1e-300 beside it, and
// x ~ 1e300: omega 0.3 on R A C for an answer whose omega is 8e-17).
template <class T>
double wide_backward_error(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B, int ldb) {
  using L = long_double_t<T>;
  auto magnitude_of = [](const L& v) {
    if constexpr (scalar::is_complex_v<T>)
      return std::abs(v.real()) + std::abs(v.imag());
    else
      return std::abs(v);
  };
  double omega = 0;
  std::vector<L> residual(n);
  std::vector<long double> magnitude(n);
  for (int k = 0; k < nrhs; ++k) {
    const T* x = X + static_cast<long long>(k) * ldx;
    const T* b = B + static_cast<long long>(k) * ldb;
    for (int i = 0; i < n; ++i) residual[i] = L(b[i]), magnitude[i] = magnitude_of(residual[i]);
    for (int j = 0; j < n; ++j) {
      const L y = L(x[j]);
      for (int i = 0; i < n; ++i) {
        const L a = L(A[i + static_cast<long long>(j) * lda]);
        residual[i] -= a * y;
        magnitude[i] += magnitude_of(a) * magnitude_of(y);
      }
    }
    for (int i = 0; i < n; ++i) {
      const long double r = magnitude_of(residual[i]), m = magnitude[i];
      const long double q = r == 0 && m == 0 ? 0 : r / m;
      omega = std::max(omega, q != q ? HUGE_VAL : double(q));
    }
  }
  return omega;
}

// 2^e for each e as doubles, or nothing where some e lies beyond +-1000 (near the range's ends).
inline std::vector<double> powers_of_two(const std::vector<int>& exponents) {
  std::vector<double> powers(exponents.size());
  for (std::size_t i = 0; i < exponents.size(); ++i) {
    if (exponents[i] < -1000 || exponents[i] > 1000) return {};
    powers[i] = std::ldexp(1.0, exponents[i]);
  }
  return powers;
}

// R's and C's exponents with their powers of two, computed once for every right-hand side.
struct ScalingPowers {
  ScalingPowers(const std::vector<int>& rows, const std::vector<int>& cols)
      : row(rows), col(cols), r(powers_of_two(rows)), c(powers_of_two(cols)) {}
  const std::vector<int>& row;
  const std::vector<int>& col;
  std::vector<double> r, c;  // empty where some exponent lies beyond +-1000
};

// For one column x of X and b of B: residual = R b - R A C y and magnitude = |R b| + |R A C| |y|
// (y = C^-1 x; magnitudes |re| + |im|, as LAPACK's zgerfs), summed in W, a column of A at a time.
// Each entry of R A C as (a c_j) r_i: a c_j is exact (c_j >= 1 and |a c_j| <= 1 / r_i), so the
// product rounds once, as ldexp(a, r + c) did, at a multiplication's cost (ldexp per entry took 70 %
// of `hetlu solve` with 1000 right-hand sides at n = 1000). With exponents beyond +-1000, ldexp.
template <class T, class W = scalar::wide_t<T>>
void scaled_residual(int n, const T* A, int lda, const T* x, const T* b, const ScalingPowers& scaling,
                     std::vector<W>& residual, std::vector<double>& magnitude) {
  using scalar::abs1;
  using scalar::scale_by_power_of_two;
  const std::vector<int>&row = scaling.row, &col = scaling.col;
  const std::vector<double>&r = scaling.r, &c = scaling.c;
  residual.resize(n), magnitude.resize(n);
  for (int i = 0; i < n; ++i) {
    residual[i] = scale_by_power_of_two(W(b[i]), row[i]);
    magnitude[i] = abs1(residual[i]);
  }
  // One column's update; `entry(i)` is R A C's (i, j), each way inlined so that the loop vectorizes.
  auto update = [&](const W& y, auto&& entry) {
    const double y_size = abs1(y);
    for (int i = 0; i < n; ++i) {
      const W a = entry(i);
      residual[i] -= a * y;
      magnitude[i] += abs1(a) * y_size;
    }
  };
  const bool multiply = !r.empty() && !c.empty();
  for (int j = 0; j < n; ++j) {
    const W y = scale_by_power_of_two(W(x[j]), -col[j]);
    const T* a_j = A + static_cast<long long>(j) * lda;
    if (multiply)
      update(y, [&, c_j = c[j]](int i) { return W(a_j[i]) * c_j * r[i]; });
    else
      update(y, [&](int i) { return scale_by_power_of_two(W(a_j[i]), row[i] + col[j]); });
  }
}

// omega of X for A X = B, computed on the scaled system R A C y = R B, y = C^-1 X; in long double
// on A itself where A has entries near the ends of the range. Columns of X in parallel.
template <class T>
double scaled_backward_error(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B, int ldb,
                             const Scaling& s) {
  if (s.extreme) return wide_backward_error(n, nrhs, A, lda, X, ldx, B, ldb);
  double omega = 0;
  const ScalingPowers powers(s.row, s.col);
#pragma omp parallel reduction(max : omega) if (nrhs > 1 && static_cast <long long>(n) * n * nrhs > 1000000)
  {
    std::vector<scalar::wide_t<T>> residual;
    std::vector<double> magnitude;
#pragma omp for schedule(dynamic)
    for (int k = 0; k < nrhs; ++k) {
      scaled_residual(n, A, lda, X + static_cast<long long>(k) * ldx, B + static_cast<long long>(k) * ldb, powers,
                      residual, magnitude);
      for (int i = 0; i < n; ++i) omega = std::max(omega, accuracy::row_omega(scalar::abs1(residual[i]), magnitude[i]));
    }
  }
  return omega;
}

// LU <- R_a A C_a (R_a, C_a as `s` applies them), n x n.
template <class T>
void load_scaled(int n, const T* A, int lda, const Scaling& s, T* LU, int ld) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const T a = A[i + static_cast<long long>(j) * lda];
      LU[i + static_cast<size_t>(j) * ld] =
          s.needed() ? scalar::scale_by_power_of_two(a, s.applied_row(i) + s.applied_col(j)) : a;
    }
}

// ||R A||_1: the matrix whose rcond solve_scaled reports (R as it measures it).
template <class T>
double scaled_norm1(int n, const T* A, int lda, const Scaling& s) {
  if (!s.rcond_rows) return kernels::norm1(n, n, A, lda);
  return scalar::norm1_of_scaled_rows(n, A, lda, [&](int i) { return s.measured_row(i); });
}

}  // namespace hetlu::checked
