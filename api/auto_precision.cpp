// Precision auto (#15.3): a double answer from the mixed path where it pays and is safe, else from
// the double solver. Three things decide, in order:
//  1. What this process has observed: where the mixed path fell back on the last try at this
//     solver, target and order, the next calls_before_retry calls go straight to the double
//     solver (a time-stepping code meets the same matrix family again and again), then it tries
//     mixed again.
//  2. The prices: where `hetlu calibrate --precision double,mixed` tuned both at this very order,
//     the times it measured (with the double solver's solves added); else the model's, from the
//     measured SGEMM and DGEMM rates and refinement steps where calibrate stored them: mixed only
//     where its time, with the refinement of each further right-hand side, is below
//     predicted_margin times the double solver's.
//  3. The observed convergence of the mixed path itself: where its first refinement step does not
//     halve the residual, or shrinks it slowly and kappa_1(A), estimated from the single factors,
//     lies beyond max_condition_for_mixed, the double solver answers at once, without refinement
//     that cannot converge (or converges at more than the double solver's cost). Where the mixed
//     path answers, refinement goes on until omega stops improving, and an omega still above
//     (n + 1) u is no answer: the double solver's is taken (MixedSafeguards).
// The cost where mixed cannot work: the first call of a kind pays the single factorization, one
// refinement step and the estimate before the double solver (1.5-1.8x dgesv on the dev machine,
// bench/results/…-mixed.md); the calls_before_retry after it pay nothing extra.
#include <algorithm>
#include <complex>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "api/mixed.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/hetlu.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/checks.hpp"
#include "solvers/condition.hpp"
#include "solvers/copy_block.hpp"
#include "solvers/scalar.hpp"

namespace hetlu {
namespace {

// Mixed only where the model prices it below this share of the double solver's time: the margin
// covers what the price leaves out (the condition estimate's few solves, a third refinement step).
constexpr double predicted_margin = 0.9;
// After a fall-back, the double solver answers this many calls of the same kind before mixed is
// tried again: over a run of calls on a matrix family mixed cannot handle, the wasted tries cost
// about (1.5..1.8 - 1) / 9 = 6..9 % of the double solver's time on average (one call alone pays
// the whole 1.5..1.8x).
constexpr int calls_before_retry = 8;

// kappa_1(A) above which the double solver answers at once: 3e3 / u_single = 5e10. On the dev
// machine at n = 2000 (`hetlu bench --precision mixed --cond C`, bench/results/…-mixed.md),
// kappa_2 = 1e9 (kappa_1 estimated at 1.6e10) converged in four classical steps at dgesv's time,
// and kappa_2 = 1e10 (3.1e11) needed GMRES and 1.3x dgesv's time, or fell back.
template <class T>
double max_condition_for_mixed() {
  return 3e3 / accuracy::unit_roundoff<scalar::low_t<T>>();
}

// What this process has seen the mixed path do, per kind of call.
class FallbackMemory {
 public:
  // Whether this call goes straight to the double solver because of an earlier fall-back: why, and
  // whether that fall-back found A near singular to working precision.
  struct History {
    std::string why;
    bool near_singular = false;
  };
  std::optional<History> double_because_of_history(const std::string& key) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = entries_.find(key);
    if (it == entries_.end() || it->second.calls_left <= 0) return std::nullopt;
    --it->second.calls_left;
    return History{"mixed precision fell back on this solver and order's last try (" + it->second.why +
                       "): double, mixed tried again in " + std::to_string(it->second.calls_left + 1) + " call(s)",
                   it->second.near_singular};
  }
  void clear() {
    const std::lock_guard<std::mutex> lock(mutex_);
    entries_.clear();
  }
  void record(const std::string& key, bool fell_back, const std::string& why, bool near_singular) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!fell_back) {
      entries_.erase(key);
      return;
    }
    if (entries_.size() >= max_entries) entries_.clear();  // bounded: a process of many orders forgets
    entries_[key] = {calls_before_retry, why, near_singular};
  }

 private:
  static constexpr size_t max_entries = 4096;
  struct Entry {
    int calls_left = 0;
    std::string why;
    bool near_singular = false;
  };
  std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

FallbackMemory& fallback_memory() {
  static FallbackMemory memory;
  return memory;
}

}  // namespace

void detail::forget_mixed_fallbacks() {
  fallback_memory().clear();
}

namespace {

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g s", s);
  return text;
}

// What the mixed path pays beyond the double solver for the right-hand sides after the first. Each
// costs it about three residuals and three solves (6 n^2 flops each way, 12 n^2) where the double
// solver does one solve (2 n^2): the 10 n^2 more are charged at the double factorization's own rate
// (flop/s), so that mixed stops paying where nrhs nears n / 15.
double further_rhs_seconds(int n, int nrhs, double double_rate) {
  return (std::max(1, nrhs) - 1) * 10 * double(n) * n / double_rate;
}

// Step 2: the model's (or the tuner's) prices; mixed when it is predicted clearly faster. Both
// plans are priced for one right-hand side, further ones charged to mixed (further_rhs_seconds).

bool mixed_predicted_faster(Solver solver, int n, int nrhs, const Options& options, std::string& why) {
  const Resolution mixed_resolution = resolve_plan(solver, Precision::mixed, n, n, options);
  const Resolution double_resolution = resolve_plan(solver, Precision::double_, n, n, options);
  if (mixed_resolution.measured_seconds && double_resolution.measured_seconds) {
    // Both tuned at this order: the tuner's measurements decide, not the model's prices. Its mixed
    // trials time the whole solve of one right-hand side; its double GEPP and CALU trials the
    // factorization alone (PRBT's its gesv), so their solves are added, 2 n^2 flops per right-hand
    // side at the factorization's own rate (a triangular solve runs slower: this favours double
    // slightly). Further right-hand sides are charged to mixed (further_rhs_seconds). Real timings
    // stand in for complex ones.
    const double double_factor = *double_resolution.measured_seconds;
    const double double_rate = detail::getrf_flops(n, n) / double_factor;
    const int unpriced_solves = solver == Solver::prbt ? std::max(0, nrhs - 1) : std::max(1, nrhs);
    const double double_seconds = double_factor + detail::getrs_flops(n, unpriced_solves) / double_rate;
    const double mixed_seconds = *mixed_resolution.measured_seconds + further_rhs_seconds(n, nrhs, double_rate);
    const bool faster = mixed_seconds < predicted_margin * double_seconds;
    why = "mixed precision measured " + seconds_text(mixed_seconds) + " against double's " +
          seconds_text(double_seconds) + " (both tuned at this order)" + (faster ? ": mixed" : ": double");
    return faster;
  }
  const Plan& mixed = mixed_resolution.plan;
  const Plan& dbl = double_resolution.plan;
  if (!mixed.predicted_seconds || !dbl.predicted_seconds || !(*dbl.predicted_seconds > 0)) {
    why = "no prediction to compare mixed and double precision with: double";
    return false;
  }
  const double double_rate = detail::getrf_flops(n, n) / *dbl.predicted_seconds;
  const double mixed_seconds = *mixed.predicted_seconds + further_rhs_seconds(n, nrhs, double_rate);
  const bool faster = mixed_seconds < predicted_margin * *dbl.predicted_seconds;
  why = "mixed precision predicted " + seconds_text(mixed_seconds) + " against double's " +
        seconds_text(*dbl.predicted_seconds) + (faster ? ": mixed" : ": double");
  return faster;
}

std::string memory_key(Solver solver, bool complex, int n, const Options& options) {
  std::string key = to_string(solver);
  key += complex ? "/complex/" : "/real/";
  key += to_string(options.target);
  if (options.overrides.devices)
    for (const Device& d : options.overrides.devices->list)
      key.append("/").append(std::to_string(static_cast<int>(d.kind))).append(":").append(std::to_string(d.number));
  return key.append("/n=").append(std::to_string(n));
}

}  // namespace

template <class T>
SolveReport auto_precision_gesv(Solver solver, int n, int nrhs, T* A, int lda, int* ipiv, const T* B, int ldb, T* X,
                                int ldx, const Options& options) {
  static_assert(scalar::plan_precision<T>() == Precision::double_, "precision auto answers in double");
  // A's finiteness is checked by whichever path solves: on the mixed path's rounding pass, or below.
  checks::system_into_x(n, nrhs, A, lda, B, ldb, X, ldx, ipiv, options.input_check);

  const std::string key = memory_key(solver, scalar::is_complex_v<T>, n, options);
  std::string why;
  const auto history = fallback_memory().double_because_of_history(key);
  const bool mixed = history ? (why = history->why, false) : mixed_predicted_faster(solver, n, nrhs, options, why);
  if (!mixed) {
    Options checked = options;
    if (options.input_check == InputCheck::finite) checks::finite("A", n, n, A, lda);  // before X is written
    checked.input_check = InputCheck::none;                                            // A and B checked
    kernels::copy_block(n, nrhs, B, ldb, X, ldx);
    // After a fall-back that found A near singular, the calls it sends to double say how singular A
    // is, as that call did (dgecon's estimate from the factors: 15 % of the solve); others, as gesv.
    const bool estimate = history && history->near_singular && solver != Solver::prbt;
    const kernels::ScaledNorm anorm =
        estimate ? kernels::overflow_safe_norm(kernels::norm1(n, n, A, lda), n, A, lda, false) : kernels::ScaledNorm{};
    SolveReport report = gesv(solver, n, nrhs, A, lda, ipiv, X, ldx, checked);
    if (estimate && report.info == 0) {
      report.rcond = kernels::solution_rcond(n, nrhs, X, ldx, B, ldb, anorm,
                                             [&](double norm) { return rcond_estimate(n, A, lda, ipiv, norm); });
      check_working_precision_singularity<T>(report);
    }
    report.auto_choice = why;
    return report;
  }
  solvers::MixedSafeguards safeguards;
  safeguards.max_condition = max_condition_for_mixed<T>();
  safeguards.target_omega = accuracy::unit_roundoff<T>();
  safeguards.max_omega = accuracy::refinement_target<T>(n);
  safeguards.certify = true;
  solvers::MixedDetails details;
  SolveReport report = detail::mixed_solve(solver, n, nrhs, A, lda, ipiv, B, ldb, X, ldx, options, safeguards, details);
  const bool fell_back = details.iter < 0 && report.info == 0;
  fallback_memory().record(key, fell_back, fell_back ? report.warnings.back() : "", details.near_singular);
  report.auto_choice = why + (fell_back ? ", then double: " + report.warnings.back() : "");
  return report;
}

template SolveReport auto_precision_gesv<double>(Solver, int, int, double*, int, int*, const double*, int, double*, int,
                                                 const Options&);
template SolveReport auto_precision_gesv<std::complex<double>>(Solver, int, int, std::complex<double>*, int, int*,
                                                               const std::complex<double>*, int, std::complex<double>*,
                                                               int, const Options&);

}  // namespace hetlu
