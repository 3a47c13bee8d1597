// hetlu::solve_checked and LAPACK's error analysis around it: equilibration, backward errors in
// wider precision, condition and forward-error estimates that decide whether an answer is taken,
// and the escalation from one solver to the next.
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>
#include <utility>

#include "api/front_end.hpp"
#include "api/scaling.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/hetlu.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/blas_threads.hpp"
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

using checked::equilibrate;
using checked::exponent_of;
using checked::load_scaled;
using checked::long_double_t;
using checked::scaled_backward_error;
using checked::scaled_norm1;
using checked::scaled_residual;
using checked::Scaling;
using checked::ScalingPowers;
using front_end::maybe_singular_said;
using front_end::singular_said;

bool says_singular(const std::string& warning) {
  return warning.rfind(singular_said, 0) == 0 || warning.rfind(maybe_singular_said, 0) == 0;
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
  report.gflops = detail::gflops(detail::gesv_flops(n, nrhs, scalar::is_complex_v<T>), report.seconds);
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

// One solve_checked on R A C y = R b for a given scaling: the attempts in order, each answer judged
// by its omega and rcond, the best kept. X (ld = max(1, n)) gets the best answer.
template <class T>
class ScaledSolve {
 public:
  ScaledSolve(int n, int nrhs, const T* A, int lda, const T* B, int ldb, const Options& options, const Scaling& scaling)
      : n_(n),
        nrhs_(nrhs),
        ld_(std::max(1, n)),
        A_(A),
        lda_(lda),
        options_(options),
        scaling_(scaling),
        LU_(static_cast<size_t>(ld_) * n),
        X_(static_cast<size_t>(ld_) * nrhs),
        B_original_(static_cast<size_t>(ld_) * nrhs),
        ipiv_(ld_),
        tolerance_(accuracy_tolerance<T>(n)),
        anorm_(scaled_norm1(n, A, lda, scaling)) {
    kernels::copy_block(n, nrhs, B, ldb, B_original_.data(), ld_);
    B_scaled_ = rows_of_b([&](int i) { return scaling.applied_row(i); });
    B_measured_ =
        scaling.rows == scaling.rcond_rows ? B_scaled_ : rows_of_b([&](int i) { return scaling.measured_row(i); });
  }

  SolveReport run(std::optional<Solver> solver, std::vector<T>& best_x) {
    attempts_ = attempts_for(solver, scalar::plan_precision<T>(), n_, options_, &why_);
    for (size_t k = 0; k < attempts_.size(); ++k) {
      const Attempt attempt = attempts_[k];
      const bool refining = k > 0 && factors_in_lu_ && refines(attempts_[k - 1], attempt);
      if (refining && previous_factors_overflowed_) continue;  // nothing to refine from
      SolveReport report = refining ? refine_previous() : factor_afresh(attempt);
      if (report.info > 0) {  // exactly singular: an answer, not an inaccuracy
        report.attempts = best_.attempts;
        report.attempts.push_back(to_string(attempt.solver) + ": singular (info " + std::to_string(report.info) + ")");
        return report;
      }
      factors_in_lu_ = attempt.solver != Solver::prbt;
      if (k + 1 < attempts_.size() && refines(attempt, attempts_[k + 1])) {  // kept only for that
        Y_ = X_;
        previous_report_ = report;
      }
      unscale_columns();
      if (judge(std::move(report), attempt)) {
        ask_gepp_next(k);
        continue;
      }
      if (best_omega_ <= tolerance_) break;
    }
    finish();
    best_x = std::move(best_x_);
    return std::move(best_);
  }

 private:
  // R b, R's exponents as given.
  template <class Exponent>
  std::vector<T> rows_of_b(Exponent exponent) const {
    std::vector<T> scaled = B_original_;
    scalar::scale_rows_by_powers_of_two(n_, nrhs_, scaled.data(), ld_, exponent);
    return scaled;
  }

  // The attempt's solver on M = R_a A C_a, factored afresh into LU.
  SolveReport factor_afresh(const Attempt& attempt) {
    load_scaled(n_, A_, lda_, scaling_, LU_.data(), ld_);
    const double factored_largest = largest_entry(n_, LU_.data(), ld_, false);
    X_ = B_scaled_;
    factors_estimate_ = -1;
    Options o = options_;
    if (attempt.refinement != Refinement::none) o.overrides.refinement = attempt.refinement;
    o.input_check = InputCheck::none;  // checked before the scaling
    SolveReport report = gesv(attempt.solver, n_, nrhs_, LU_.data(), ld_, ipiv_.data(), X_.data(), ld_, o);
    if (attempt.refinement != Refinement::none && !options_.overrides.refinement)
      front_end::set_by_escalation(report.plan, "refinement", "the checked solve's escalation");
    // GEPP's or CALU's factors grown past 1 / u (Wilkinson's matrix: 2^(n-1)) are no factorization
    // of anything near A: their rcond estimate tells nothing (1e300 times Wilkinson's matrix at
    // n = 300 was called singular to working precision, rcond 2.5e-76, where it is 3e-3: a hostile
    // helper's finding). X's own bound still holds, and refinement may still mend X (it does at n = 64).
    factors_grown_ = attempt.solver != Solver::prbt &&
                     largest_entry(n_, LU_.data(), ld_, true) * accuracy::unit_roundoff<T>() > factored_largest;
    return report;
  }

  // The previous attempt's answer refined with its factors, still in LU.
  SolveReport refine_previous() {
    X_ = Y_;
    return refine_previous_answer(previous_report_, n_, nrhs_, A_, lda_, scaling_, LU_.data(), ld_, ipiv_.data(),
                                  B_scaled_.data(), X_.data(), options_);
  }

  void unscale_columns() {
    if (!scaling_.cols) return;  // R A C y = R b: x = C y
    for (int column = 0; column < nrhs_; ++column)
      for (int j = 0; j < n_; ++j) {
        T& x = X_[j + static_cast<size_t>(column) * ld_];
        x = scalar::scale_by_power_of_two(x, scaling_.applied_col(j));
      }
  }

  // The answer in X judged: its omega, its rcond (the estimate, never above what X proves), kept
  // where it is the best so far. True where PRBT's rcond could not tell and GEPP's must decide.
  bool judge(SolveReport report, const Attempt& attempt) {
    const double omega =
        scalar::all_finite(n_, nrhs_, X_.data(), ld_)
            ? scaled_backward_error(n_, nrhs_, A_, lda_, X_.data(), ld_, B_original_.data(), ld_, scaling_)
            : std::numeric_limits<double>::infinity();
    // rcond <= ||R b|| / (||R A|| ||x||) where x solves R A x = R b, or nearly (omega small): an X
    // that solves nothing near (omega 1: GEPP's on 1e300 times Wilkinson's matrix) bounds nothing,
    // and had said "singular to working precision" with rcond 1.8e-74 where it is 3e-3.
    const double proven =
        omega <= tolerance_ ? rcond_bound(n_, nrhs_, X_.data(), ld_, B_measured_.data(), ld_, anorm_) : 1.0;
    auto attempts_so_far = std::move(best_.attempts);
    attempts_so_far.push_back(describe(attempt, omega));
    // GEPP's or CALU's factors beyond the range of a finite A: element growth (2^(n-1) for
    // Wilkinson's matrix), which tells nothing of how singular A is. Its estimate from them, 0, had
    // said "singular to working precision" of a matrix with rcond 9e-4 (n = 1100) that PRBT solves.
    // Judged on the factors, not on X: with only U(n, n) past the range X stays finite and wrong
    // (Wilkinson's matrix at n = 1025, b = e_1: omega 1.0 and rcond 1e-311). A itself finite: with
    // input_check none, a NaN in A is not growth.
    const bool factors_overflowed =
        factors_in_lu_ && !scalar::all_finite(n_, n_, LU_.data(), ld_) && scalar::all_finite(n_, n_, A_, lda_);
    previous_factors_overflowed_ = factors_overflowed;
    if (factors_overflowed)
      attempts_so_far.push_back(to_string(attempt.solver) +
                                ": its factors overflowed (element growth beyond the floating-point range, not a sign "
                                "that A is singular; prbt does not grow so)");
    const bool asked_for_verdict = verdict_wanted_ && !verdict_ && attempt.solver == Solver::gepp;
    // With the columns scaled (or R not applied), PRBT's estimate is not R A's: GEPP's decides, and
    // PRBT's, and what gesv said of it, count for nothing.
    prbt_not_of_ra_ = attempt.solver == Solver::prbt && !scaling_.factors_measured();
    const bool prbt_could_not_tell =
        attempt.solver == Solver::prbt && !verdict_wanted_ &&
        (prbt_not_of_ra_ || (!report.fell_back_to_gepp && report.rcond && *report.rcond < prbt_cannot_tell_below()));
    prbt_estimate_ = report.rcond.value_or(1.0);
    if (prbt_not_of_ra_) {
      report.rcond.reset();
      clear_working_precision_singularity(report);
    }
    if (factors_overflowed) {
      report.rcond.reset();  // unknown: neither the factors nor X's overflow bound it
      clear_working_precision_singularity(report);
    } else if (!have_best_ || omega < best_omega_ || asked_for_verdict) {
      report.rcond = std::min(estimate(report, attempt), proven);
      if (asked_for_verdict) verdict_ = report.rcond;
    }
    if (!have_best_ || omega < best_omega_) {
      best_ = std::move(report);
      best_omega_ = omega;
      best_x_ = X_;
      have_best_ = true;
    }
    best_.attempts = std::move(attempts_so_far);
    return prbt_could_not_tell;
  }

  // The answer's rcond estimate: PRBT's own, or dgecon's from the factors still in LU (made once for
  // these factors: a refined answer has the same), or PRBT's of A where they grew.
  double estimate(const SolveReport& report, const Attempt& attempt) {
    if (report.rcond) return *report.rcond;
    if (attempt.solver == Solver::prbt) return 1.0;  // no factors at hand that tell: X's bound alone
    if (factors_grown_) return estimate_without_growth();
    if (factors_estimate_ < 0) factors_estimate_ = rows_rcond(n_, LU_.data(), ld_, ipiv_.data(), scaling_, anorm_);
    return factors_estimate_;
  }

  // PRBT's estimate comes from GENP's factors of the randomized matrix, whose rounding errors (grown
  // by GENP) bound it from below: on matrices singular to working precision it stopped at 1e-15 to
  // 1e-14 (10 u to 100 u, n = 200 to 1000), where GEPP's factors gave 1e-19. Below this, GEPP's
  // estimate decides (and GEPP's answer stands where its omega is smaller). Double precision only:
  // in single the floor lies near a random 1000 x 1000 matrix's rcond (3e-6 = 50 u), and every
  // such solve would pay for GEPP too.
  double prbt_cannot_tell_below() const {
    return std::is_same_v<scalar::real_t<T>, double>
               ? std::min(10.0 * std::max(1, n_), 1000.0) * accuracy::unit_roundoff<T>()
               : 0.0;
  }

  // Where GEPP's or CALU's factors grew, PRBT's estimate of the matrix solved (it does not grow so),
  // made once: X's bound alone had said rcond 1 of Wilkinson's matrix with B = ones (X exact), whose
  // rcond is 0.01 (a hostile helper's finding). One more factorization, for such matrices only; none
  // where the columns are scaled (PRBT's would not be of R A).
  double estimate_without_growth() {
    if (!scaling_.factors_measured()) return 1.0;
    if (!prbt_estimate_of_a_) {
      std::vector<T> M(static_cast<size_t>(ld_) * n_), b(static_cast<size_t>(ld_), T(1));
      std::vector<int> pivots(std::max(1, n_));
      load_scaled(n_, A_, lda_, scaling_, M.data(), ld_);
      Options o = options_;
      o.input_check = InputCheck::none;
      o.measure_time = false;
      o.overrides.refinement.reset();
      const SolveReport r = gesv(Solver::prbt, n_, 1, M.data(), ld_, pivots.data(), b.data(), ld_, o);
      prbt_estimate_of_a_ = r.info == 0 && r.rcond && !r.fell_back_to_gepp ? *r.rcond : 1.0;
    }
    return *prbt_estimate_of_a_;
  }

  // GEPP with refinement next (after attempt k), whatever the list says: its estimate decides.
  void ask_gepp_next(size_t k) {
    const Attempt gepp{Solver::gepp, Refinement::working};
    const auto next = attempts_.begin() + static_cast<long>(k) + 1;
    attempts_.erase(
        std::remove_if(next, attempts_.end(),
                       [&](const Attempt& a) { return a.solver == gepp.solver && a.refinement == gepp.refinement; }),
        attempts_.end());
    attempts_.insert(attempts_.begin() + static_cast<long>(k) + 1, gepp);
    verdict_wanted_ = true;
    char line[160];
    if (prbt_not_of_ra_)
      std::snprintf(line, sizeof line, "prbt: its rcond is not of R A (A scaled as solved): GEPP's estimate decides");
    else
      std::snprintf(line, sizeof line,
                    "prbt: rcond estimated at %.1e, below what its factors can tell (%.1e): GEPP's estimate decides",
                    prbt_estimate_, prbt_cannot_tell_below());
    best_.attempts.push_back(line);
  }

  // The best answer's verdict: GEPP's estimate where PRBT's could not tell, the forward error bound
  // where rcond alone would call X singular to working precision, and what the scaling says.
  void finish() {
    if (verdict_) best_.rcond = best_.rcond ? std::min(*best_.rcond, *verdict_) : *verdict_;
    best_.backward_error = best_omega_;
    best_.accurate = best_omega_ <= tolerance_;
    best_.auto_choice = why_;
    std::optional<double> refined_error;
    if (best_.accurate && forward_error_decides<T>(best_.rcond)) {
      // X may have no correct digit: dgerfs' bound tells, from the factors of A with its rows and
      // columns equilibrated, as dgesvx's (a triangular solve with R A's factors overflowed where A's
      // columns spanned 1e+-160).
      const Scaling both = scaling_.equilibrated();
      best_.forward_error = factors_in_lu_ && scaling_.rows && scaling_.cols
                                ? forward_error_bound(n_, nrhs_, A_, lda_, best_x_.data(), ld_, B_original_.data(), ld_,
                                                      LU_.data(), ld_, ipiv_.data(), both)
                                : forward_error_from_gepp(n_, nrhs_, A_, lda_, best_x_.data(), ld_, B_original_.data(),
                                                          ld_, both, LU_.data(), ld_, ipiv_.data(), options_);
      // Above eps, refinement with the same factors tells better (refined_error_estimate).
      if (best_.forward_error && !(*best_.rcond < accuracy::unit_roundoff<T>()))
        refined_error = refined_error_estimate(n_, nrhs_, A_, lda_, best_x_.data(), ld_, B_original_.data(), ld_,
                                               LU_.data(), ld_, ipiv_.data(), both, *best_.rcond);
    }
    decide_with_forward_error<T>(best_, refined_error);
    if (scaling_.extreme && scaling_.rows)
      best_.warnings.push_back(
          "A has rows or columns near an end of the floating-point range: solved equilibrated by powers of two (as "
          "dgesvx)");
    else if (scaling_.rcond_rows) {  // as dgesvx's EQUED = 'R' says it
      const std::string equed =
          scaling_.rows ? "rows equilibrated as dgesvx (rcond is R A's)" : "rcond is R A's (R: dgesvx's row scaling)";
      best_.note = best_.note.empty() ? equed : best_.note + "; " + equed;
    }
  }

  const int n_, nrhs_, ld_;
  const T* A_;
  const int lda_;
  const Options& options_;
  const Scaling& scaling_;
  std::vector<T> LU_, X_;  // the factors now in LU (with ipiv), the answer of the attempt being judged
  std::vector<T> B_original_, B_scaled_;
  std::vector<T> B_measured_;  // R b for the bound X proves of R A's rcond
  std::vector<int> ipiv_;
  const double tolerance_;
  const double anorm_;  // ||R A||_1, R as measured
  std::vector<Attempt> attempts_;
  std::string why_;  // auto's reason for its first solver
  SolveReport best_;
  std::vector<T> best_x_;
  double best_omega_ = std::numeric_limits<double>::infinity();
  bool have_best_ = false;
  bool verdict_wanted_ = false;
  std::optional<double> verdict_;  // GEPP's estimate, where PRBT's could not tell
  bool factors_in_lu_ = false;     // GEPP's or CALU's P M = L U, with ipiv (PRBT leaves none)
  std::vector<T> Y_;               // the last answer to M Y = R_a B, before C
  SolveReport previous_report_;    // the last attempt's, as gesv gave it
  bool previous_factors_overflowed_ = false;
  double factors_estimate_ = -1;  // dgecon's estimate from the factors now in LU, once made (< 0: not yet)
  bool factors_grown_ = false;    // the factors now in LU grew past 1 / u: their rcond estimate tells nothing
  bool prbt_not_of_ra_ = false;   // the last PRBT's rcond was not of R A
  double prbt_estimate_ = 1.0;    // the last attempt's own rcond, as gesv gave it
  std::optional<double> prbt_estimate_of_a_;
};

// One solve_checked on R A C y = R b for the given scaling; X (ld = max(1, n)) gets the best answer.
template <class T>
SolveReport solve_scaled(std::optional<Solver> solver, int n, int nrhs, const T* A, int lda, const T* B, int ldb,
                         const Options& options, const Scaling& scaling, std::vector<T>& best_x) {
  return ScaledSolve<T>(n, nrhs, A, lda, B, ldb, options, scaling).run(solver, best_x);
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
  // Its estimates and refinement call the BLAS outside the solvers' front ends (blas_threads.hpp).
  const kernels::BlasHold hold(options.target);
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
