// hetlu::getrf: the small-matrix path, else the resolved plan (the CPUs where a device cannot hold it).

#include "api/front_end.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/hetlu.hpp"
#include "solvers/checks.hpp"
#include "solvers/lu.hpp"
#include "solvers/scalar.hpp"

namespace hetlu {

using namespace front_end;

// One report per call, returned from every path (no second one moved out: #14's per-call cost).
template <class T>
SolveReport getrf(Solver solver, int m, int n, T* A, int lda, int* ipiv, const Options& options) {
  SolveReport report;
  bool small = false;
  report.seconds =
      timed(options, [&] { small = detail::small_path_getrf(solver, m, n, A, lda, ipiv, options, &report.info); });
  if (small) {
    set_small_path_plan<T>(report.plan, m, n);
    report.gflops = detail::gflops(detail::getrf_flops(m, n, scalar::is_complex_v<T>), report.seconds);
    return report;
  }
  report.info = 0;
  checks::factorization(m, n, A, lda, ipiv);      // before the plan: pricing n = 2e9 took minutes
  if (options.input_check == InputCheck::finite)  // the pivots are written while A is factored
    checks::entries_apart(checks::getrf_pivots(m, n, ipiv), checks::Entries::of("A", A, lda, n, m));
  Resolution r = resolve_plan(solver, scalar::plan_precision<T>(), m, n, options);
  report.plan = r.plan;
  report.warnings = r.warnings;
  report.seconds = timed(options, [&] {
    run_or_fall_back_to_cpus(report, solver, scalar::plan_precision<T>(), m, n, options,
                             [&](const Plan& plan, const Options&) {
                               report.info = solvers::getrf(plan, m, n, A, lda, ipiv, options.input_check);
                             });
  });
  report.gflops = detail::gflops(detail::getrf_flops(m, n, scalar::is_complex_v<T>), report.seconds);
  return report;
}

template SolveReport getrf<float>(Solver, int, int, float*, int, int*, const Options&);
template SolveReport getrf<double>(Solver, int, int, double*, int, int*, const Options&);
template SolveReport getrf<std::complex<double>>(Solver, int, int, std::complex<double>*, int, int*, const Options&);
template SolveReport getrf<std::complex<float>>(Solver, int, int, std::complex<float>*, int, int*, const Options&);
}  // namespace hetlu
