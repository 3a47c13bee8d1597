// hetlu::gesv: the small-matrix path, else the resolved plan (the CPUs where a device cannot hold it).

#include "api/front_end.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/hetlu.hpp"
#include "solvers/checks.hpp"
#include "solvers/lu.hpp"
#include "solvers/scalar.hpp"

namespace hetlu {

using namespace front_end;

template <class T>
SolveReport gesv(Solver solver, int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb, const Options& options) {
  SolveReport report;
  // Checked before any plan is resolved: pricing n = 2e9 took 126 s before "A is a null pointer".
  checks::square_system(n, nrhs, A, lda, B, ldb);
  checks::not_null("ipiv", ipiv, n);
  // The factors are written over A while B is read (LAPACK leaves an aliased B undefined: B = A
  // gave a wrong X with success); the drop-in (no checks) keeps LAPACK's contract.
  if (options.input_check == InputCheck::finite) {
    checks::apart("B", B, ldb, nrhs, "A", A, lda, n, n);
    // The pivots are written while A is factored and B solved (inside either: a crash or a wrong X).
    const auto pivots = checks::pivot_entries(ipiv, n);
    checks::entries_apart(pivots, checks::Entries::of("A", A, lda, n, n));
    checks::entries_apart(pivots, checks::Entries::of("B", B, ldb, nrhs, n));
  }
  if (takes_small_path<T>(solver, n, n, options)) {
    if (options.input_check == InputCheck::finite) checks::finite_system(n, nrhs, A, lda, B, ldb);
    bool done = false;
    report.seconds = timed(options, [&] {
      done = blas_library_gesv(n, nrhs, A, lda, ipiv, B, ldb, &report.info, options.small_own_loops);
    });
    if (done) {
      set_small_path_plan<T>(report.plan, n, n);
      report.gflops = detail::gflops(detail::gesv_flops(n, nrhs, scalar::is_complex_v<T>), report.seconds);
      return report;
    }
    report = SolveReport{};
  }
  Resolution r = resolve_plan(solver, scalar::plan_precision<T>(), n, n, options);
  report.plan = r.plan;
  report.warnings = r.warnings;
  report.seconds = timed(options, [&] {
    SolveDetails details;
    run_or_fall_back_to_cpus(
        report, solver, scalar::plan_precision<T>(), n, n, options, [&](const Plan& plan, const Options&) {
          details = {};
          report.info = solvers::gesv(plan, n, nrhs, A, lda, ipiv, B, ldb, options.input_check, &details);
        });
    report.refinement_steps = details.refinement_steps;
    report.backward_error = details.backward_error;
    report.fell_back_to_gepp = details.fell_back_to_gepp;
    report.rcond = details.rcond;
    report.note = details.note;
    report.phase_seconds = details.phase_seconds;
  });
  check_working_precision_singularity<T>(report);  // where the solver estimated rcond (PRBT)
  const double flops = detail::gesv_flops(n, nrhs, scalar::is_complex_v<T>);
  report.gflops = detail::gflops(flops, report.seconds);
  return report;
}

template SolveReport gesv<float>(Solver, int, int, float*, int, int*, float*, int, const Options&);
template SolveReport gesv<double>(Solver, int, int, double*, int, int*, double*, int, const Options&);
template SolveReport gesv<std::complex<double>>(Solver, int, int, std::complex<double>*, int, int*,
                                                std::complex<double>*, int, const Options&);
template SolveReport gesv<std::complex<float>>(Solver, int, int, std::complex<float>*, int, int*, std::complex<float>*,
                                               int, const Options&);
}  // namespace hetlu
