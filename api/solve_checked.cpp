// hetlu::solve_checked and LAPACK's error analysis around it: equilibration, backward errors in
// wider precision, condition and forward-error estimates that decide whether an answer is taken,
// and the escalation from one solver to the next.
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>
#include <utility>

#include "api/front_end.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/hetlu.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/checks.hpp"
#include "solvers/condition.hpp"
#include "solvers/copy_block.hpp"
#include "solvers/lu.hpp"
#include "solvers/refinement.hpp"
#include "solvers/row_omega.hpp"
#include "solvers/scalar.hpp"
#include "solvers/variants.hpp"

namespace hetlu {

template <class T>
double accuracy_tolerance(int n) {
  return accuracy::tolerance<T>(n);
}

namespace {

using front_end::maybe_singular_said;
using front_end::singular_said;

bool says_singular(const std::string& warning) {
  return warning.rfind(singular_said, 0) == 0 || warning.rfind(maybe_singular_said, 0) == 0;
}

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
int exponent_of(double v) {
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
std::vector<double> powers_of_two(const std::vector<int>& exponents) {
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

// Hager and Higham's estimate of ||D2 op(M)^-1 D1||_1 for diagonal D1, D2 (before, after: x <- D x)
// and op(M) = M or M^H, from M's factors (getrf's): its adjoint D1 op(M)^-H D2 runs the scalings
// in the other order. dgecon's rcond with the equilibration folded in, and dgerfs' bound, use it.
template <class T, class Before, class After>
double scaled_inverse_norm1(int n, const T* LU, int ld, const int* ipiv, Transpose op, Before&& before, After&& after) {
  const Transpose adjoint = op == Transpose::no ? Transpose::conjugate : Transpose::no;
  return kernels::inverse_norm1_estimate<T>(
      n,
      [&](T* x) {
        before(x);
        variants::lu_getrs(op, n, 1, LU, ld, ipiv, x, n);
        after(x);
      },
      [&](T* x) {
        after(x);
        variants::lu_getrs(adjoint, n, 1, LU, ld, ipiv, x, n);
        before(x);
      });
}

// Where an answer's rcond is below eps, X may have no correct digit; dgerfs' forward error bound
// tells whether it has: an X within this of the exact solution, relative to ||X||_inf, is not called
// singular to working precision (A's columns scaled 10^U(-10, 10): rcond(R A) 2e-23, X right to
// 8e-14, and the bound says 1e-12). A hundredth leaves room for the estimate, usually within a
// factor of 3 of the bound it estimates.
constexpr double trusted_forward_error = 0.01;

// Where rcond is at least eps but within the estimate's slack of it: X's error estimated above this
// (refined_error_estimate's, else dgerfs' bound) says X may have no correct digit, and A is called
// singular to working precision.
constexpr double untrusted_forward_error = 0.5;
// The same for refined_error_estimate's, an estimate rather than a bound: it said 0.38-0.46 of Xs
// wrong by 0.53-0.64 (n = 3 to 8, a hostile test), and 1e-4 to 7e-4 where X was right to 1e-15 to 1e-4.
constexpr double untrusted_refined_error = 0.1;

// A singular to working precision where rcond, at least eps, is within the estimate's slack of it and
// X may have no correct digit: `why` says what shows it.
template <class T>
void flag_singular_near_eps(SolveReport& report, const std::string& why) {
  std::erase_if(report.warnings, says_singular);
  report.singular_to_working_precision = true;
  char line[320];
  std::snprintf(line, sizeof line,
                "%s (estimated reciprocal condition number %.1e, within the estimate's error of eps = %.1e, and %s): X "
                "may have no correct digit, however small its backward error",
                singular_said, *report.rcond, accuracy::unit_roundoff<T>(), why.c_str());
  report.warnings.push_back(line);
}

// Where report.rcond < eps: a forward error bound at most trusted_forward_error clears the verdict
// "singular to working precision" (with a note saying why); else it stands. Where rcond is within the
// estimate's slack above eps, X's error as refinement estimates it (refined_error_estimate), else
// dgerfs' bound, above untrusted_forward_error gives that verdict.
template <class T>
void decide_with_forward_error(SolveReport& report, std::optional<double> refined_error = std::nullopt) {
  const bool below_eps = report.rcond && *report.rcond < accuracy::unit_roundoff<T>();
  const bool near_eps = !below_eps && forward_error_decides<T>(report.rcond);
  char why[160];
  if (near_eps && refined_error && !(*refined_error <= untrusted_refined_error)) {
    if (std::isinf(*refined_error))
      std::snprintf(why, sizeof why, "refinement with the residual in extended precision does not converge");
    else
      std::snprintf(why, sizeof why, "refinement with the residual in extended precision estimates X's error at %.1e",
                    *refined_error);
    flag_singular_near_eps<T>(report, why);
  } else if (near_eps && !refined_error && report.forward_error &&
             !(*report.forward_error <= untrusted_forward_error)) {
    std::snprintf(why, sizeof why, "dgerfs' forward error bound %.1e", *report.forward_error);
    flag_singular_near_eps<T>(report, why);
  } else if (near_eps) {
    return;  // X has digits: nothing to say
  } else if (below_eps && report.forward_error && *report.forward_error <= trusted_forward_error) {
    char line[200];
    std::snprintf(line, sizeof line,
                  "rcond %.1e is below eps, but dgerfs' forward error bound is %.1e: X is that accurate (as where A's "
                  "columns are badly scaled), and A is not called singular to working precision",
                  report.rcond.value_or(0), *report.forward_error);
    report.note = report.note.empty() ? line : report.note + "; " + line;
    clear_working_precision_singularity(report);  // what PRBT's gesv said from its own estimate
  } else {
    check_working_precision_singularity<T>(report);
  }
}

// dgerfs' forward error bound of X (A X = B), estimated from the factors of M = R_a A C_a in LU (R_a,
// C_a as the solve applied them): the largest over columns of || |A^-1| w_j ||_inf / ||x_j||_inf,
// w_j = |b_j - A x_j| + (n + 1) eps (|A| |x_j| + |b_j|), which bounds ||x_j - A^-1 b_j||_inf /
// ||x_j||_inf but for the rounding of the residual. |A^-1| w = C_a |M^-1| R_a w, and R_a w is the
// scaled system's w, computed there. One estimate serves every column: w-hat, each entry the
// largest over columns of w_ij / ||x_j||_inf, bounds each column's, so nrhs = n costs what 1 does.
template <class T>
std::optional<double> forward_error_bound(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B,
                                          int ldb, const T* LU, int ld, const int* ipiv, const Scaling& s) {
  using R = scalar::real_t<T>;
  const double eps = accuracy::unit_roundoff<T>();
  const double safe1 = (n + 1) * double(std::numeric_limits<R>::min()), safe2 = safe1 / eps;  // dgerfs'
  const std::vector<int> rows = s.applied_rows(), cols = s.applied_cols();
  auto x_norm = [&](int k) {
    double largest = 0;
    for (int i = 0; i < n; ++i)
      largest = std::max(largest, double(scalar::abs1(X[i + static_cast<long long>(k) * ldx])));
    return largest;
  };
  // C_a / ||X||_inf and w ||X||_inf / ||x_j||_inf, by powers of two, keep the products in range: with
  // columns spread 1e+-160, C_a reached 2^1049 (R A's small columns fell below 1e-300) and x 1e160.
  int shift = std::numeric_limits<int>::min();
  for (int k = 0; k < nrhs; ++k) shift = std::max(shift, exponent_of(x_norm(k)));
  // No right-hand side, or X = 0 (B = 0, solved exactly): no X to bound, and rcond alone tells.
  if (shift == std::numeric_limits<int>::min()) return std::nullopt;
  std::vector<double> w(n, 0.0), magnitude;
  std::vector<scalar::wide_t<T>> residual;
  const ScalingPowers powers(rows, cols);
  for (int k = 0; k < nrhs; ++k) {
    const double norm = x_norm(k);
    if (norm == 0) continue;  // b_j = 0, solved exactly
    int e = 0;
    const double mantissa = std::frexp(norm, &e);                 // norm = mantissa 2^e
    const double weight = std::ldexp(1.0 / mantissa, shift - e);  // 2^shift / norm
    scaled_residual(n, A, lda, X + static_cast<long long>(k) * ldx, B + static_cast<long long>(k) * ldb, powers,
                    residual, magnitude);
    for (int i = 0; i < n; ++i) {
      const double bound = scalar::abs1(residual[i]) + (n + 1) * eps * magnitude[i];
      const double wi = (magnitude[i] > safe2 ? bound : bound + safe1) * weight;
      w[i] = std::isnan(wi) ? std::numeric_limits<double>::infinity() : std::max(w[i], wi);
    }
  }
  auto by_c = [&](T* v) {
    for (int j = 0; j < n; ++j) v[j] = scalar::scale_by_power_of_two(v[j], cols[j] - shift);
  };
  auto by_w = [&](T* v) {
    for (int i = 0; i < n; ++i) v[i] *= T(w[i]);
  };
  // || C_a M^-1 diag(w) ||_inf = || diag(w) M^-H C_a ||_1: Hager and Higham's estimate of the latter.
  const double bound = scaled_inverse_norm1(n, LU, ld, ipiv, Transpose::conjugate, by_c, by_w);
  return std::isfinite(bound) ? bound : std::numeric_limits<double>::infinity();
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

// Where rcond lies within the estimate's slack above eps, dgerfs' bound cannot tell a numerically
// singular A from one of kappa 1e15 whose X has digits: its (n + 1) eps allowance for the residual's
// rounding alone makes it about n eps kappa (18 at n = 500 for an X right to 1.5e-3, a review). Two
// steps of refinement with the residual in extended precision (long double) and the same factors can:
// where they contract (||d2|| <= ||d1|| / 2), ||d1|| / (1 - ||d2|| / ||d1||) estimates X's error (0.0018
// against a true 0.0015 there, the contraction 0.002); where they do not, the factors cannot resolve
// A, and X may have no correct digit (infinity): a column within 1e-13 of another's multiple gave
// ||d1|| / ||x|| = 0.25 and a contraction of 0.95-1.1. An X already accurate to about 1000 eps is
// taken as it is (its corrections are rounding, which need not contract). The largest estimate over
// X's nonzero columns, at most max_refined_columns of them (each costs O(n^2) in long double); nullopt
// where there are more, where refinement's own rounding hides more than untrusted_refined_error, or
// where a step is not finite (the residual or correction out of T's range): dgerfs' bound decides
// then. LU and ipiv: the factors of M = R_a A C_a as `s` applies them.
constexpr int max_refined_columns = 16;

template <class T>
std::optional<double> refined_error_estimate(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B,
                                             int ldb, const T* LU, int ld, const int* ipiv, const Scaling& s,
                                             double rcond) {
  using L = long_double_t<T>;
  const double eps = accuracy::unit_roundoff<T>();
  auto largest = [n](const std::vector<T>& v) {  // infinity where an entry is not finite (std::max passes NaN over)
    double m = 0;
    for (int i = 0; i < n; ++i) {
      const double a = double(scalar::abs1(v[i]));
      if (!(a <= std::numeric_limits<double>::max())) return std::numeric_limits<double>::infinity();
      m = std::max(m, a);
    }
    return m;
  };
  std::vector<T> x(n), d(n);
  std::vector<L> r(n);
  // d <- A^-1 (b - A x) = C_a M^-1 R_a (b - A x), the residual in long double; its largest entry,
  // NaN where something is not finite.
  auto correction = [&](const T* b) {
    for (int i = 0; i < n; ++i) r[i] = L(b[i]);
    for (int j = 0; j < n; ++j) {
      const L xj = L(x[j]);
      for (int i = 0; i < n; ++i) r[i] -= L(A[i + static_cast<long long>(j) * lda]) * xj;
    }
    // R_a in long double, then narrowed: narrowed first, a residual of entries near 1e-322 (A scaled
    // by 2^-1015) kept a few bits and never contracted (a review).
    for (int i = 0; i < n; ++i) d[i] = T(scalar::scale_by_power_of_two(r[i], s.applied_row(i)));
    variants::lu_getrs(Transpose::no, n, 1, LU, ld, ipiv, d.data(), n);
    for (int j = 0; j < n; ++j) d[j] = scalar::scale_by_power_of_two(d[j], s.applied_col(j));
    const double size = largest(d);
    return std::isfinite(size) ? size : std::numeric_limits<double>::quiet_NaN();
  };
  // The corrections' own error: the residual rounds in long double (u_L = 2^-64; a sum of n terms,
  // sqrt(n) u_L |A| |x| as rounding errors add up) and A^-1 magnifies that by up to 1 / rcond: 1e-4 of
  // an X right to 1e-16 at kappa 5e15 (n = 2, a hostile test), where a correction that small said
  // nothing. Ten times that, or 1000 eps.
  const double noise =
      std::max(1000 * eps, 10 * std::sqrt(double(n)) * 0x1p-64 / std::max(rcond, std::numeric_limits<double>::min()));
  if (noise > untrusted_refined_error) return std::nullopt;
  std::vector<int> columns;  // X's nonzero columns (X = 0 solves B = 0 exactly)
  for (int k = 0; k < nrhs; ++k) {
    std::copy(X + static_cast<long long>(k) * ldx, X + static_cast<long long>(k) * ldx + n, x.begin());
    const double size = largest(x);
    if (!std::isfinite(size)) return std::nullopt;
    if (size > 0) columns.push_back(k);
  }
  if (columns.size() > max_refined_columns) return std::nullopt;
  double estimate = 0;
  for (int k : columns) {
    std::copy(X + static_cast<long long>(k) * ldx, X + static_cast<long long>(k) * ldx + n, x.begin());
    const T* b = B + static_cast<long long>(k) * ldb;
    const double x_size = largest(x);
    const double first = correction(b);
    if (std::isnan(first)) return std::nullopt;
    if (first <= noise * x_size) {  // X as accurate as refinement can tell
      estimate = std::max(estimate, noise);
      continue;
    }
    for (int i = 0; i < n; ++i) x[i] += d[i];
    const double second = correction(b);
    if (std::isnan(second)) return std::nullopt;
    const double contraction = second / first;
    if (second <= noise * x_size) {  // converged in one step
      estimate = std::max(estimate, first / x_size);
      continue;
    }
    if (!(contraction <= 0.5)) return std::numeric_limits<double>::infinity();
    estimate = std::max(estimate, first / x_size / (1 - contraction));
  }
  return estimate;
}

// dgerfs' forward error bound from GEPP's factors of A scaled as `both` (R A C, dgesvx's), factored
// into LU and ipiv (n x n, ld) with the caller's options (its database for GEPP's plan); nullopt
// where those factors are singular.
template <class T>
std::optional<double> forward_error_from_gepp(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B,
                                              int ldb, const Scaling& both, T* LU, int ld, int* ipiv,
                                              const Options& options) {
  load_scaled(n, A, lda, both, LU, ld);
  Options o = options;
  o.input_check = InputCheck::none;
  if (getrf(Solver::gepp, n, n, LU, ld, ipiv, o).info != 0) return std::nullopt;
  return forward_error_bound(n, nrhs, A, lda, X, ldx, B, ldb, LU, ld, ipiv, both);
}

// ||R A||_1: the matrix whose rcond solve_scaled reports (R as it measures it).
template <class T>
double scaled_norm1(int n, const T* A, int lda, const Scaling& s) {
  if (!s.rcond_rows) return kernels::norm1(n, n, A, lda);
  return scalar::norm1_of_scaled_rows(n, A, lda, [&](int i) { return s.measured_row(i); });
}

// rcond of R A (R as measured; anorm = ||R A||_1) from the factors of M = R_a A C_a (R, C as
// applied): dgecon's estimate with the solves (R A)^-1 = C_a M^-1 R_a R^-1 and its conjugate
// transpose R^-1 R_a M^-H C_a (R_a R^-1 = I where R is applied, C_a = I unless the columns were scaled).
template <class T>
double rows_rcond(int n, const T* LU, int ld, const int* ipiv, const Scaling& s, double anorm) {
  if (s.factors_measured()) return rcond_estimate(n, LU, ld, ipiv, anorm);
  if (n == 0) return 1;
  if (!(anorm > 0)) return 0;
  auto by_c = [&](T* x) {
    for (int j = 0; j < n; ++j) x[j] = scalar::scale_by_power_of_two(x[j], s.applied_col(j));
  };
  auto by_r = [&](T* x) {
    for (int i = 0; i < n; ++i) x[i] = scalar::scale_by_power_of_two(x[i], s.applied_row(i) - s.measured_row(i));
  };
  const double inverse_norm = scaled_inverse_norm1(n, LU, ld, ipiv, Transpose::no, by_r, by_c);
  return std::isfinite(inverse_norm) && inverse_norm > 0 ? 1 / inverse_norm / anorm : 0;
}

struct Attempt {
  Solver solver;
  Refinement refinement;
};

std::vector<Attempt> attempts_for(std::optional<Solver> solver, Precision precision, int n, const Options& options,
                                  std::string* why) {
  const Refinement asked = options.overrides.refinement.value_or(Refinement::none);
  if (solver) {
    // The solver asked for, refined where its answer fails the check and refinement was not ruled
    // out: GEPP is backward stable normwise, not componentwise, and a step of refinement makes it so
    // (Skeel). A diagonally dominant A with B = A (n = 1500) gave omega 2.7e-11 and exit 4 where X
    // was within 7e-16 of I; refined, 2.1e-15.
    if (options.overrides.refinement || *solver == Solver::prbt) return {{*solver, asked}};
    return {{*solver, asked}, {*solver, Refinement::working}};
  }
  const Solver first = choose_solver(precision, n, n, options, why);
  std::vector<Attempt> list{{first, asked}};
  auto add = [&](Solver s, Refinement r) {
    for (const auto& a : list)
      if (a.solver == s && (a.refinement == r || s == Solver::prbt)) return;
    list.push_back({s, r});
  };
  add(first, Refinement::working);
  add(Solver::prbt, Refinement::working);
  add(Solver::gepp, Refinement::working);
  add(Solver::calu, Refinement::working);
  return list;
}

// Whether `next` is `previous` refined: the same factors, so refinement can start from the previous
// answer with them rather than factor M again (a named GEPP or CALU whose answer failed the check).
bool refines(const Attempt& previous, const Attempt& next) {
  return next.solver == previous.solver && next.solver != Solver::prbt && previous.refinement == Refinement::none &&
         next.refinement == Refinement::working;
}

// Y (ld = max(1, n)), the answer to M Y = R_a B of the previous attempt whose factors of M = R_a A C_a
// are still in LU and ipiv, refined in working precision with them: what gesv with refinement does
// after its factorization, which it would repeat (n = 1500, 1500 right-hand sides: 0.92 s refactored,
// the factorization 0.1 s of it).
template <class T>
SolveReport refine_previous_answer(const SolveReport& previous, int n, int nrhs, const T* A, int lda,
                                   const Scaling& scaling, const T* LU, int ld, const int* ipiv, const T* B_scaled,
                                   T* Y, const Options& options) {
  SolveReport report;
  report.plan = previous.plan;
  report.plan.refinement = Refinement::working;
  report.plan.precision = scalar::plan_precision<T>();  // as getrs checks it, whatever path the factors took
  report.warnings = previous.warnings;
  report.seconds = front_end::timed(options, [&] {
    std::vector<T> M(static_cast<size_t>(ld) * n);
    load_scaled(n, A, lda, scaling, M.data(), ld);
    auto solve_in_place = [&](T* R, int ldr) {
      solvers::getrs(report.plan, Transpose::no, n, nrhs, LU, ld, ipiv, R, ldr, InputCheck::none);
    };
    const auto r =
        variants::refine(n, nrhs, Y, ld, variants::host_residual(n, nrhs, M.data(), ld, B_scaled, ld), solve_in_place);
    report.refinement_steps = r.steps;
    report.backward_error = r.backward_error;
    if (!r.converged) report.note = "refinement stopped after " + std::to_string(r.steps) + " steps above (n+1) eps";
  });
  // The answer's time: the factorization and solve that gave Y, then this refinement.
  report.phase_seconds = previous.phase_seconds;
  report.phase_seconds.emplace_back("refinement with the previous factors", report.seconds);
  report.seconds += previous.seconds;
  report.gflops = report.seconds > 0 ? detail::gesv_flops(n, nrhs, scalar::is_complex_v<T>) / report.seconds / 1e9 : 0;
  return report;
}

std::string describe(const Attempt& a, double omega) {
  char text[160];
  std::snprintf(text, sizeof text, "%s%s: backward error %.2e", to_string(a.solver).c_str(),
                a.refinement == Refinement::working && a.solver != Solver::prbt ? " with refinement" : "", omega);
  return text;
}

// The largest entry (abs_max) of the n x n array M, or of its upper triangle (U of its factors).
template <class T>
double largest_entry(int n, const T* M, int ld, bool upper) {
  double largest = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < (upper ? j + 1 : n); ++i)
      largest = std::max(largest, scalar::abs_max(M[i + static_cast<size_t>(j) * ld]));
  return largest;
}

// One solve_checked on R A C y = R b for the given scaling; X (ld = max(1, n)) gets the best answer.
template <class T>
SolveReport solve_scaled(std::optional<Solver> solver, int n, int nrhs, const T* A, int lda, const T* B, int ldb,
                         const Options& options, const Scaling& scaling, std::vector<T>& best_x) {
  const int ld = std::max(1, n);
  std::vector<T> LU(static_cast<size_t>(ld) * n), X(static_cast<size_t>(ld) * nrhs);
  std::vector<T> B_original(static_cast<size_t>(ld) * nrhs);
  kernels::copy_block(n, nrhs, B, ldb, B_original.data(), ld);
  auto rows_of_b = [&](auto exponent) {  // R b, R's exponents as given
    std::vector<T> scaled = B_original;
    scalar::scale_rows_by_powers_of_two(n, nrhs, scaled.data(), ld, exponent);
    return scaled;
  };
  const std::vector<T> B_scaled = rows_of_b([&](int i) { return scaling.applied_row(i); });  // the solve's
  const std::vector<T> B_measured =  // R b for the bound X proves of R A's rcond
      scaling.rows == scaling.rcond_rows ? B_scaled : rows_of_b([&](int i) { return scaling.measured_row(i); });
  std::vector<int> ipiv(ld);
  std::string why;
  auto attempts = attempts_for(solver, scalar::plan_precision<T>(), n, options, &why);
  const double tolerance = accuracy_tolerance<T>(n);
  SolveReport best;
  double best_omega = std::numeric_limits<double>::infinity();
  bool have_best = false;
  const double anorm = scaled_norm1(n, A, lda, scaling);
  // PRBT's estimate comes from GENP's factors of the randomized matrix, whose rounding errors (grown
  // by GENP) bound it from below: on matrices singular to working precision it stopped at 1e-15 to
  // 1e-14 (10 u to 100 u, n = 200 to 1000), where GEPP's factors gave 1e-19. Below this, GEPP's
  // estimate decides (and GEPP's answer stands where its omega is smaller). Double precision only:
  // in single the floor lies near a random 1000 x 1000 matrix's rcond (3e-6 = 50 u), and every
  // such solve would pay for GEPP too.
  const double prbt_cannot_tell_below = std::is_same_v<scalar::real_t<T>, double>
                                            ? std::min(10.0 * std::max(1, n), 1000.0) * accuracy::unit_roundoff<T>()
                                            : 0.0;
  bool verdict_wanted = false;
  std::optional<double> verdict;  // GEPP's estimate, where PRBT's could not tell
  bool factors_in_lu = false;     // GEPP's or CALU's P M = L U, with ipiv (PRBT leaves none)
  std::vector<T> Y;               // the last answer to M Y = R_a B, before C
  SolveReport previous_report;    // the last attempt's, as gesv gave it
  bool previous_factors_overflowed = false;
  double factors_estimate = -1;  // dgecon's estimate from the factors now in LU, once made (< 0: not yet)
  bool factors_grown = false;    // the factors now in LU grew past 1 / u: their rcond estimate tells nothing
  // Where they did, PRBT's estimate of the matrix solved (it does not grow so), made once: X's bound
  // alone had said rcond 1 of Wilkinson's matrix with B = ones (X exact), whose rcond is 0.01 (a
  // hostile helper's finding). One more factorization, for such matrices only; none where the
  // columns are scaled (PRBT's would not be of R A).
  std::optional<double> prbt_estimate_of_a;
  auto estimate_without_growth = [&]() -> double {
    if (!scaling.factors_measured()) return 1.0;
    if (!prbt_estimate_of_a) {
      std::vector<T> M(static_cast<size_t>(ld) * n), b(static_cast<size_t>(ld), T(1));
      std::vector<int> pivots(std::max(1, n));
      load_scaled(n, A, lda, scaling, M.data(), ld);
      Options o = options;
      o.input_check = InputCheck::none;
      o.measure_time = false;
      o.overrides.refinement.reset();
      const SolveReport r = gesv(Solver::prbt, n, 1, M.data(), ld, pivots.data(), b.data(), ld, o);
      prbt_estimate_of_a = r.info == 0 && r.rcond && !r.fell_back_to_gepp ? *r.rcond : 1.0;
    }
    return *prbt_estimate_of_a;
  };
  for (size_t k = 0; k < attempts.size(); ++k) {
    const Attempt attempt = attempts[k];
    SolveReport report;
    if (k > 0 && factors_in_lu && refines(attempts[k - 1], attempt)) {
      if (previous_factors_overflowed) continue;  // nothing to refine from
      X = Y;
      report = refine_previous_answer(previous_report, n, nrhs, A, lda, scaling, LU.data(), ld, ipiv.data(),
                                      B_scaled.data(), X.data(), options);
    } else {
      load_scaled(n, A, lda, scaling, LU.data(), ld);
      const double factored_largest = largest_entry(n, LU.data(), ld, false);
      X = B_scaled;
      factors_estimate = -1;
      Options o = options;
      if (attempt.refinement != Refinement::none) o.overrides.refinement = attempt.refinement;
      o.input_check = InputCheck::none;  // checked above, before the scaling
      report = gesv(attempt.solver, n, nrhs, LU.data(), ld, ipiv.data(), X.data(), ld, o);
      if (attempt.refinement != Refinement::none && !options.overrides.refinement)
        front_end::set_by_escalation(report.plan, "refinement", "the checked solve's escalation");
      // GEPP's or CALU's factors grown past 1 / u (Wilkinson's matrix: 2^(n-1)) are no factorization
      // of anything near A: their rcond estimate tells nothing (1e300 times Wilkinson's matrix at
      // n = 300 was called singular to working precision, rcond 2.5e-76, where it is 3e-3: a hostile
      // helper's finding). X's own bound still holds, and refinement may still mend X (it does at n = 64).
      factors_grown = attempt.solver != Solver::prbt &&
                      largest_entry(n, LU.data(), ld, true) * accuracy::unit_roundoff<T>() > factored_largest;
    }
    if (report.info > 0) {  // exactly singular: an answer, not an inaccuracy
      report.attempts = best.attempts;
      report.attempts.push_back(to_string(attempt.solver) + ": singular (info " + std::to_string(report.info) + ")");
      return report;
    }
    factors_in_lu = attempt.solver != Solver::prbt;
    if (k + 1 < attempts.size() && refines(attempt, attempts[k + 1])) {  // kept only for that
      Y = X;
      previous_report = report;
    }
    if (scaling.cols)  // R A C y = R b: x = C y
      for (int column = 0; column < nrhs; ++column)
        for (int j = 0; j < n; ++j) {
          T& x = X[j + static_cast<size_t>(column) * ld];
          x = scalar::scale_by_power_of_two(x, scaling.applied_col(j));
        }
    const double omega = scalar::all_finite(n, nrhs, X.data(), ld)
                             ? scaled_backward_error(n, nrhs, A, lda, X.data(), ld, B_original.data(), ld, scaling)
                             : std::numeric_limits<double>::infinity();
    // rcond <= ||R b|| / (||R A|| ||x||) where x solves R A x = R b, or nearly (omega small): an X
    // that solves nothing near (omega 1: GEPP's on 1e300 times Wilkinson's matrix) bounds nothing,
    // and had said "singular to working precision" with rcond 1.8e-74 where it is 3e-3.
    const double proven = omega <= tolerance ? rcond_bound(n, nrhs, X.data(), ld, B_measured.data(), ld, anorm) : 1.0;
    auto attempts_so_far = std::move(best.attempts);
    attempts_so_far.push_back(describe(attempt, omega));
    // GEPP's or CALU's factors beyond the range of a finite A: element growth (2^(n-1) for
    // Wilkinson's matrix), which tells nothing of how singular A is. Its estimate from them, 0, had
    // said "singular to working precision" of a matrix with rcond 9e-4 (n = 1100) that PRBT solves.
    // Judged on the factors, not on X: with only U(n, n) past the range X stays finite and wrong
    // (Wilkinson's matrix at n = 1025, b = e_1: omega 1.0 and rcond 1e-311). A itself finite: with
    // input_check none, a NaN in A is not growth.
    const bool factors_overflowed =
        factors_in_lu && !scalar::all_finite(n, n, LU.data(), ld) && scalar::all_finite(n, n, A, lda);
    previous_factors_overflowed = factors_overflowed;
    if (factors_overflowed)
      attempts_so_far.push_back(to_string(attempt.solver) +
                                ": its factors overflowed (element growth beyond the floating-point range, not a sign "
                                "that A is singular; prbt does not grow so)");
    const bool asked_for_verdict = verdict_wanted && !verdict && attempt.solver == Solver::gepp;
    // With the columns scaled (or R not applied), PRBT's estimate is not R A's: GEPP's decides, and
    // PRBT's, and what gesv said of it, count for nothing.
    const bool prbt_not_of_ra = attempt.solver == Solver::prbt && !scaling.factors_measured();
    const bool prbt_could_not_tell =
        attempt.solver == Solver::prbt && !verdict_wanted &&
        (prbt_not_of_ra || (!report.fell_back_to_gepp && report.rcond && *report.rcond < prbt_cannot_tell_below));
    const double prbt_estimate = report.rcond.value_or(1.0);
    if (prbt_not_of_ra) {
      report.rcond.reset();
      clear_working_precision_singularity(report);
    }
    if (factors_overflowed) {
      report.rcond.reset();  // unknown: neither the factors nor X's overflow bound it
      clear_working_precision_singularity(report);
    } else if (!have_best || omega < best_omega || asked_for_verdict) {
      // The factors are still in LU (PRBT estimated its own): dgecon's estimate, where X proves no less;
      // made once for these factors (a refined answer has the same).
      if (!report.rcond && attempt.solver != Solver::prbt && factors_estimate < 0 && !factors_grown)
        factors_estimate = rows_rcond(n, LU.data(), ld, ipiv.data(), scaling, anorm);
      const double estimate = report.rcond                     ? *report.rcond
                              : attempt.solver == Solver::prbt ? 1.0  // no factors at hand that tell: X's bound alone
                              : factors_grown                  ? estimate_without_growth()
                                                               : factors_estimate;
      report.rcond = std::min(estimate, proven);
      if (asked_for_verdict) verdict = report.rcond;
    }
    if (!have_best || omega < best_omega) {
      best = std::move(report);
      best_omega = omega;
      best_x = X;
      have_best = true;
    }
    best.attempts = std::move(attempts_so_far);
    if (prbt_could_not_tell) {  // GEPP next, whatever the list says
      const Attempt gepp{Solver::gepp, Refinement::working};
      const auto next = attempts.begin() + static_cast<long>(k) + 1;
      attempts.erase(
          std::remove_if(next, attempts.end(),
                         [&](const Attempt& a) { return a.solver == gepp.solver && a.refinement == gepp.refinement; }),
          attempts.end());
      attempts.insert(attempts.begin() + static_cast<long>(k) + 1, gepp);
      verdict_wanted = true;
      char line[160];
      if (prbt_not_of_ra)
        std::snprintf(line, sizeof line, "prbt: its rcond is not of R A (A scaled as solved): GEPP's estimate decides");
      else
        std::snprintf(line, sizeof line,
                      "prbt: rcond estimated at %.1e, below what its factors can tell (%.1e): GEPP's estimate decides",
                      prbt_estimate, prbt_cannot_tell_below);
      best.attempts.push_back(line);
      continue;
    }
    if (best_omega <= tolerance) break;
  }
  if (verdict) best.rcond = best.rcond ? std::min(*best.rcond, *verdict) : *verdict;
  best.backward_error = best_omega;
  best.accurate = best_omega <= tolerance;
  best.auto_choice = why;
  std::optional<double> refined_error;
  if (best.accurate && forward_error_decides<T>(best.rcond)) {
    // X may have no correct digit: dgerfs' bound tells, from the factors of A with its rows and
    // columns equilibrated, as dgesvx's (a triangular solve with R A's factors overflowed where A's
    // columns spanned 1e+-160).
    const Scaling both = scaling.equilibrated();
    best.forward_error = factors_in_lu && scaling.rows && scaling.cols
                             ? forward_error_bound(n, nrhs, A, lda, best_x.data(), ld, B_original.data(), ld, LU.data(),
                                                   ld, ipiv.data(), both)
                             : forward_error_from_gepp(n, nrhs, A, lda, best_x.data(), ld, B_original.data(), ld, both,
                                                       LU.data(), ld, ipiv.data(), options);
    // Above eps, refinement with the same factors tells better (refined_error_estimate).
    if (best.forward_error && !(*best.rcond < accuracy::unit_roundoff<T>()))
      refined_error = refined_error_estimate(n, nrhs, A, lda, best_x.data(), ld, B_original.data(), ld, LU.data(), ld,
                                             ipiv.data(), both, *best.rcond);
  }
  decide_with_forward_error<T>(best, refined_error);
  if (scaling.extreme && scaling.rows)
    best.warnings.push_back(
        "A has rows or columns near an end of the floating-point range: solved equilibrated by powers of two (as "
        "dgesvx)");
  else if (scaling.rcond_rows) {  // as dgesvx's EQUED = 'R' says it
    const std::string equed =
        scaling.rows ? "rows equilibrated as dgesvx (rcond is R A's)" : "rcond is R A's (R: dgesvx's row scaling)";
    best.note = best.note.empty() ? equed : best.note + "; " + equed;
  }
  return best;
}

}  // namespace

template <class T>
double rcond_bound(int n, int nrhs, const T* X, int ldx, const T* B, int ldb, double anorm) {
  return kernels::solution_rcond_bound(n, nrhs, X, ldx, B, ldb, {anorm, 0});
}

template <class T>
double rcond_of_solution(int n, int nrhs, const T* LU, int lda, const int* ipiv, const T* X, int ldx, const T* B,
                         int ldb, double anorm) {
  return kernels::solution_rcond(n, nrhs, X, ldx, B, ldb, {anorm, 0},
                                 [&](double norm) { return rcond_estimate(n, LU, lda, ipiv, norm); });
}

template <class T>
Equilibration equilibration(int n, const T* A, int lda) {
  checks::non_negative("n", n);
  checks::at_least("lda", lda, "max(1, n)", std::max(1, n));
  checks::not_null("A", A, static_cast<long long>(n) * n);
  const Scaling scaling = equilibrate(n, A, lda);
  return {scaling.applied_rows(), scaling.applied_cols()};
}

template <class T>
double equilibrated_backward_error(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B, int ldb) {
  checks::square_system(n, nrhs, A, lda, X, ldx);
  checks::square_system(n, nrhs, A, lda, B, ldb);  // B's leading dimension and pointer too
  return scaled_backward_error(n, nrhs, A, lda, X, ldx, B, ldb, equilibrate(n, A, lda));
}

template <class T>
double rcond_estimate_with_columns(int n, const T* LU, int lda, const int* ipiv, const std::vector<int>& cols,
                                   double anorm) {
  checks::non_negative("n", n);
  checks::at_least("lda", lda, "max(1, n)", std::max(1, n));
  checks::not_null("LU", LU, static_cast<long long>(n) * n);
  checks::not_null("ipiv", ipiv, n);
  checks::pivots("ipiv", n, ipiv);
  if (cols.size() != static_cast<std::size_t>(n))  // read for each of the n columns (8 read past a vector of 1)
    throw InvalidArgument("cols has " + std::to_string(cols.size()) +
                          " entries; it must have n = " + std::to_string(n));
  if (!(anorm >= 0)) throw InvalidArgument("anorm = " + std::to_string(anorm) + " must be >= 0 (||A||_1)");
  Scaling s;  // C applied, R measured as applied: rows_rcond's R_a R^-1 = I
  s.row.assign(n, 0), s.col = cols;
  s.cols = std::any_of(cols.begin(), cols.end(), [](int e) { return e != 0; });
  return rows_rcond(n, LU, lda, ipiv, s, anorm);
}

template <class T>
void judge_singularity_with_forward_error(SolveReport& report, int n, int nrhs, const T* A, int lda, const T* X,
                                          int ldx, const T* B, int ldb, const Options& options) {
  checks::square_system(n, nrhs, A, lda, X, ldx);
  checks::square_system(n, nrhs, A, lda, B, ldb);
  std::optional<double> refined_error;
  if (forward_error_decides<T>(report.rcond) && n > 0) {
    const int ld = std::max(1, n);
    std::vector<T> LU(static_cast<size_t>(ld) * n);
    std::vector<int> ipiv(ld);
    const Scaling both = equilibrate(n, A, lda).equilibrated();
    report.forward_error =
        forward_error_from_gepp(n, nrhs, A, lda, X, ldx, B, ldb, both, LU.data(), ld, ipiv.data(), options);
    if (report.forward_error && !(*report.rcond < accuracy::unit_roundoff<T>()))
      refined_error =
          refined_error_estimate(n, nrhs, A, lda, X, ldx, B, ldb, LU.data(), ld, ipiv.data(), both, *report.rcond);
  }
  decide_with_forward_error<T>(report, refined_error);
}

// rcond_estimate_slack (hetlu.hpp): a column within 1e-13 of a multiple of another (true rcond 1e-19)
// was estimated at 1.5e-16 by hetlu and LAPACK's zgecon alike, and X, wrong in every digit, came with
// exit 0 (complex, n = 600; a hostile test); dgerfs' bound was above 100.
template <class T>
bool forward_error_decides(const std::optional<double>& rcond) {
  return rcond && *rcond < rcond_estimate_slack * accuracy::unit_roundoff<T>();
}

template <class T>
void check_working_precision_singularity(SolveReport& report) {
  const double eps = accuracy::unit_roundoff<T>();
  if (!report.rcond || *report.rcond >= eps) return;
  // Said once, with the latest estimate (solve_checked checks again what gesv checked for PRBT).
  std::erase_if(report.warnings, [](const std::string& w) { return w.rfind(singular_said, 0) == 0; });
  report.singular_to_working_precision = true;
  char line[240];
  std::snprintf(line, sizeof line,
                "%s (estimated reciprocal condition number %.1e < eps = %.1e): X may have no correct digit, however "
                "small its backward error (dgesvx's info = n + 1)",
                singular_said, *report.rcond, eps);
  report.warnings.push_back(line);
}

void clear_working_precision_singularity(SolveReport& report) {
  report.singular_to_working_precision = false;
  std::erase_if(report.warnings, says_singular);
}

template <class T>
SolveReport solve_checked(std::optional<Solver> solver, int n, int nrhs, const T* A, int lda, T* B, int ldb,
                          const Options& options) {
  checks::square_system(n, nrhs, A, lda, B, ldb);
  // X is written into B at the end, while A is promised unchanged: B over A would break the promise.
  if (n > 0 && nrhs > 0) checks::apart("B", B, ldb, nrhs, "A", A, lda, n, n);
  if (options.input_check == InputCheck::finite) checks::finite_system(n, nrhs, A, lda, B, ldb);
  Scaling scaling = equilibrate(n, A, lda);
  std::vector<T> X;
  SolveReport report = solve_scaled(solver, n, nrhs, A, lda, B, ldb, options, scaling, X);
  if ((report.info > 0 || !report.accurate) && scaling.needed()) {
    // The equilibrated matrix was singular, or its answer inaccurate, where A's own may not be:
    //  - scaling to the ends of the range underflowed entries far below their row's largest (a row
    //    led by 1e300 with 1e-300 beside it: omega 1.0 where A itself gave 8e-17);
    //  - a row scaled down to its one large entry (1e5 in a random 101 x 101 A) lets GEPP pivot
    //    elsewhere in that column, and elimination brings entries of size 1 into the scaled row,
    //    which in A's scale are a residual 1e5 times too large: omega 4e-12 (and 1.0 at 1e20) where
    //    A itself gave 3e-16, with no refinement asked for (hostile testing, 2026-11-27).
    // A's own answer, unscaled, where it is better. omega measured as before (in long double on A
    // itself where the range is extreme), and rcond still R A's (solved as A, measured as R A).
    std::vector<T> X_unscaled;
    SolveReport unscaled = solve_scaled(solver, n, nrhs, A, lda, B, ldb, options, scaling.unapplied(), X_unscaled);
    const bool better = report.info > 0 || (unscaled.info == 0 && unscaled.backward_error && report.backward_error &&
                                            *unscaled.backward_error < *report.backward_error);
    if (better) {
      char line[160];
      if (report.info > 0)
        std::snprintf(line, sizeof line, "equilibrated: singular (info %d); A solved as it is", report.info);
      else
        std::snprintf(line, sizeof line, "equilibrated: backward error %.2e; A solved as it is",
                      report.backward_error.value_or(std::numeric_limits<double>::infinity()));
      unscaled.attempts.insert(unscaled.attempts.begin(), line);
      report = std::move(unscaled), X = std::move(X_unscaled);
    }
  }
  if (report.info == 0) kernels::copy_block(n, nrhs, X.data(), std::max(1, n), B, ldb);
  return report;
}

template double accuracy_tolerance<float>(int);
template double accuracy_tolerance<double>(int);
template double accuracy_tolerance<std::complex<double>>(int);
template double accuracy_tolerance<std::complex<float>>(int);
template Equilibration equilibration<float>(int, const float*, int);
template Equilibration equilibration<double>(int, const double*, int);
template Equilibration equilibration<std::complex<double>>(int, const std::complex<double>*, int);
template Equilibration equilibration<std::complex<float>>(int, const std::complex<float>*, int);
template double equilibrated_backward_error<float>(int, int, const float*, int, const float*, int, const float*, int);
template double equilibrated_backward_error<double>(int, int, const double*, int, const double*, int, const double*,
                                                    int);
template double equilibrated_backward_error<std::complex<double>>(int, int, const std::complex<double>*, int,
                                                                  const std::complex<double>*, int,
                                                                  const std::complex<double>*, int);
template double equilibrated_backward_error<std::complex<float>>(int, int, const std::complex<float>*, int,
                                                                 const std::complex<float>*, int,
                                                                 const std::complex<float>*, int);
template double rcond_estimate_with_columns<float>(int, const float*, int, const int*, const std::vector<int>&, double);
template double rcond_estimate_with_columns<double>(int, const double*, int, const int*, const std::vector<int>&,
                                                    double);
template double rcond_estimate_with_columns<std::complex<double>>(int, const std::complex<double>*, int, const int*,
                                                                  const std::vector<int>&, double);
template double rcond_estimate_with_columns<std::complex<float>>(int, const std::complex<float>*, int, const int*,
                                                                 const std::vector<int>&, double);
template double rcond_bound<float>(int, int, const float*, int, const float*, int, double);
template double rcond_bound<double>(int, int, const double*, int, const double*, int, double);
template double rcond_bound<std::complex<double>>(int, int, const std::complex<double>*, int,
                                                  const std::complex<double>*, int, double);
template double rcond_bound<std::complex<float>>(int, int, const std::complex<float>*, int, const std::complex<float>*,
                                                 int, double);
template double rcond_of_solution<float>(int, int, const float*, int, const int*, const float*, int, const float*, int,
                                         double);
template double rcond_of_solution<double>(int, int, const double*, int, const int*, const double*, int, const double*,
                                          int, double);
template double rcond_of_solution<std::complex<double>>(int, int, const std::complex<double>*, int, const int*,
                                                        const std::complex<double>*, int, const std::complex<double>*,
                                                        int, double);
template double rcond_of_solution<std::complex<float>>(int, int, const std::complex<float>*, int, const int*,
                                                       const std::complex<float>*, int, const std::complex<float>*, int,
                                                       double);
template void judge_singularity_with_forward_error<float>(SolveReport&, int, int, const float*, int, const float*, int,
                                                          const float*, int, const Options&);
template void judge_singularity_with_forward_error<double>(SolveReport&, int, int, const double*, int, const double*,
                                                           int, const double*, int, const Options&);
template void judge_singularity_with_forward_error<std::complex<double>>(SolveReport&, int, int,
                                                                         const std::complex<double>*, int,
                                                                         const std::complex<double>*, int,
                                                                         const std::complex<double>*, int,
                                                                         const Options&);
template void judge_singularity_with_forward_error<std::complex<float>>(SolveReport&, int, int,
                                                                        const std::complex<float>*, int,
                                                                        const std::complex<float>*, int,
                                                                        const std::complex<float>*, int,
                                                                        const Options&);
template bool forward_error_decides<float>(const std::optional<double>&);
template bool forward_error_decides<double>(const std::optional<double>&);
template bool forward_error_decides<std::complex<double>>(const std::optional<double>&);
template bool forward_error_decides<std::complex<float>>(const std::optional<double>&);
template void check_working_precision_singularity<float>(SolveReport&);
template void check_working_precision_singularity<double>(SolveReport&);
template void check_working_precision_singularity<std::complex<double>>(SolveReport&);
template void check_working_precision_singularity<std::complex<float>>(SolveReport&);
template SolveReport solve_checked<float>(std::optional<Solver>, int, int, const float*, int, float*, int,
                                          const Options&);
template SolveReport solve_checked<double>(std::optional<Solver>, int, int, const double*, int, double*, int,
                                           const Options&);
template SolveReport solve_checked<std::complex<double>>(std::optional<Solver>, int, int, const std::complex<double>*,
                                                         int, std::complex<double>*, int, const Options&);
template SolveReport solve_checked<std::complex<float>>(std::optional<Solver>, int, int, const std::complex<float>*,
                                                        int, std::complex<float>*, int, const Options&);
}  // namespace hetlu
