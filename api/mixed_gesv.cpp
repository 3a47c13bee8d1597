// hetlu::mixed_gesv: a double (or complex double) answer from a single-precision factorization,
// refined in double, with LAPACK dsgesv's ITER (solvers/mixed_gesv.cpp does the work); and the
// front end auto precision shares with it (detail::mixed_solve).
#include <algorithm>
#include <cstdio>
#include <string>

#include "api/front_end.hpp"
#include "api/mixed.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/hetlu.hpp"
#include "solvers/checks.hpp"
#include "solvers/condition.hpp"
#include "solvers/lu.hpp"
#include "solvers/scalar.hpp"

namespace hetlu {

using namespace front_end;

namespace {
// Why a converged mixed answer was not taken (MixedSafeguards::certify).
std::string near_singular_note() {
  return std::string(maybe_singular_said) +
         ": the single factors cannot vouch for the mixed answer, so the double solver answered";
}

// Why precision auto's safeguard sent a system to the double solver after one refinement step.
std::string beyond_reach_note(const solvers::MixedDetails& details, double limit) {
  if (details.device_memory_ran_out) return details.note + ": solved in double";
  char line[200];
  if (details.condition_estimate > 0)
    std::snprintf(line, sizeof line,
                  "kappa_1(A) estimated at %.1e from the single factors, beyond mixed precision's reach (%.0e): "
                  "solved in double",
                  details.condition_estimate, limit);
  else
    std::snprintf(line, sizeof line,
                  "the first refinement step from single precision left %.2g of the residual (not half): solved in "
                  "double",
                  details.first_contraction);
  return line;
}
}  // namespace

template <class T>
SolveReport detail::mixed_solve(Solver solver, int n, int nrhs, T* A, int lda, int* ipiv, const T* B, int ldb, T* X,
                                int ldx, const Options& options, const solvers::MixedSafeguards& safeguards,
                                solvers::MixedDetails& details) {
  static_assert(scalar::plan_precision<T>() == Precision::double_, "mixed precision answers in double");
  checks::system_into_x(n, nrhs, A, lda, B, ldb, X, ldx, ipiv, options.input_check);
  SolveReport report;
  Plan high;  // the double solver's plan, where it answers
  if (takes_small_path<T>(solver, n, n, options)) {
    // Below the crossover (the small-matrix path): no plan resolved, GEPP's LUs and solves by the
    // BLAS library's routines (solvers::LuRoutines), the one panel the plan reports.
    Plan low;
    set_small_path_plan<T>(low, n, n);
    low.precision = Precision::single;
    high = low;
    high.precision = Precision::double_;
    report.plan = low;
    report.plan.precision = Precision::mixed;
    report.seconds = timed(options, [&] {
      report.info = solvers::mixed_gesv(low, high, n, nrhs, A, lda, ipiv, B, ldb, X, ldx, details, safeguards,
                                        options.input_check, solvers::LuRoutines::blas_library, options.measure_time);
    });
  } else {
    const Resolution mixed = resolve_plan(solver, Precision::mixed, n, n, options);
    report.plan = mixed.plan;
    report.warnings = mixed.warnings;
    // The factorization runs in single; the fallback answers as dsgesv's does, with partial pivoting
    // (PRBT's GENP has nothing to fall back to).
    auto run = [&](const Plan& mixed_plan, const Options& where) {
      Plan low = mixed_plan;
      low.precision = Precision::single;
      high = resolve_plan(solver == Solver::prbt ? Solver::gepp : solver, Precision::double_, n, n, where).plan;
      report.info = solvers::mixed_gesv(low, high, n, nrhs, A, lda, ipiv, B, ldb, X, ldx, details, safeguards,
                                        options.input_check, solvers::LuRoutines::planned, options.measure_time);
    };
    // A device that cannot hold the single factorization (or the double fallback's) throws before A,
    // X or ipiv change: the CPUs answer.
    report.seconds =
        timed(options, [&] { run_or_fall_back_to_cpus(report, solver, Precision::mixed, n, n, options, run); });
  }
  report.refinement_steps = std::max(0, details.iter);
  report.backward_error = details.iter >= 0 ? details.backward_error : std::nullopt;
  if (report.info == 0 && details.a_norm1.value > 0 && nrhs > 0) {
    // The safeguards' estimate (certify), never above what X proves; X alone where none was made.
    const double proven = kernels::solution_rcond_bound(n, nrhs, X, ldx, B, ldb, details.a_norm1);
    report.rcond = details.rcond > 0 ? std::min(details.rcond, proven) : proven;
    check_working_precision_singularity<T>(report);
  }
  report.phase_seconds = details.phase_seconds;
  report.note = std::to_string(details.classical_steps) + " step(s) of classical refinement";
  if (details.refined_on_device) report.note += " on the device, where the single factors and A stayed";
  if (!details.note.empty()) report.note += "; " + details.note;
  if (details.gmres_steps > 0)
    report.note += ", " + std::to_string(details.gmres_steps) + " of GMRES-based refinement (" +
                   std::to_string(details.gmres_iterations) + " GMRES iterations)";
  if (details.certify_steps > 0)
    report.note += ", " + std::to_string(details.certify_steps) + " step(s) refining a probe vector to vouch for A";
  if (details.condition_estimate > 0) {
    char estimate[64];
    std::snprintf(estimate, sizeof estimate, "; kappa_1(A) estimated at %.1e", details.condition_estimate);
    report.note += estimate;
  }
  if (details.iter < 0) {
    // Why the double solver answered; unsaid when it found A exactly singular (info says all).
    if (report.info == 0)
      report.warnings.push_back(
          details.near_singular ? near_singular_note()
          : details.iter == -1  ? beyond_reach_note(details, safeguards.max_condition)
          : details.iter == -2
              ? "an entry of A, of B or of a correction lies outside single precision's range: solved in double"
          : details.iter == -3
              ? "single precision's LU met a zero pivot: solved in double"
              : "refinement from single precision did not converge (" + report.note + "): solved in double");
    report.plan = high;  // the plan that gave the answer
  }
  report.gflops = detail::gflops(detail::gesv_flops(n, nrhs, scalar::is_complex_v<T>), report.seconds);
  return report;
}

template <class T>
SolveReport mixed_gesv(Solver solver, int n, int nrhs, T* A, int lda, int* ipiv, const T* B, int ldb, T* X, int ldx,
                       int* iter, const Options& options) {
  checks::not_null("iter", iter, 1);
  solvers::MixedDetails details;
  const auto safeguards =
      options.mixed_double_accuracy ? solvers::MixedSafeguards::double_accuracy<T>(n) : solvers::MixedSafeguards{};
  SolveReport report = detail::mixed_solve(solver, n, nrhs, A, lda, ipiv, B, ldb, X, ldx, options, safeguards, details);
  *iter = details.iter;
  return report;
}

template SolveReport detail::mixed_solve<double>(Solver, int, int, double*, int, int*, const double*, int, double*, int,
                                                 const Options&, const solvers::MixedSafeguards&,
                                                 solvers::MixedDetails&);
template SolveReport detail::mixed_solve<std::complex<double>>(Solver, int, int, std::complex<double>*, int, int*,
                                                               const std::complex<double>*, int, std::complex<double>*,
                                                               int, const Options&, const solvers::MixedSafeguards&,
                                                               solvers::MixedDetails&);
template SolveReport mixed_gesv<double>(Solver, int, int, double*, int, int*, const double*, int, double*, int, int*,
                                        const Options&);
template SolveReport mixed_gesv<std::complex<double>>(Solver, int, int, std::complex<double>*, int, int*,
                                                      const std::complex<double>*, int, std::complex<double>*, int,
                                                      int*, const Options&);
}  // namespace hetlu
