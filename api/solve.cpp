#include <chrono>
#include <type_traits>

#include "hetlu/hetlu.hpp"
#include "model/gepp_cpu.hpp"
#include "solvers/lu.hpp"
#include "solvers/workspace.hpp"

namespace hetlu {
namespace {
template <class T>
constexpr Precision precision_of() {
  return std::is_same_v<T, double> ? Precision::double_ : Precision::single;
}

template <class Body>
double timed(Body&& body) {
  const auto t0 = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs the report's plan; when it is hybrid and its device cannot hold the problem (thrown before
// A or B changes), runs the CPU plan instead and says so in the warnings.
template <class Run>
void run_or_fall_back_to_cpus(SolveReport& report, Solver solver, Precision precision, int m, int n,
                              const Options& options, Run&& run) {
  try {
    run(report.plan);
  } catch (const DeviceOutOfMemory& e) {
    if (report.plan.target != Target::hybrid) throw;
    Options cpus = options;
    cpus.target = Target::cpu;
    cpus.overrides.backend.reset();
    cpus.overrides.cpu_block_columns.reset();
    cpus.overrides.panel_location.reset();
    Resolution r = resolve_plan(solver, precision, Target::cpu, m, n, cpus);
    report.plan = r.plan;
    report.warnings.push_back(std::string(e.what()) + ": solved on the CPUs instead");
    report.warnings.insert(report.warnings.end(), r.warnings.begin(), r.warnings.end());
    run(report.plan);
  }
}
}  // namespace

void release_workspace() {
  kernels::release_workspace();
}

template <class T>
SolveReport getrf(Solver solver, int m, int n, T* A, int lda, int* ipiv, const Options& options) {
  Resolution r = resolve_plan(solver, precision_of<T>(), options.target, m, n, options);
  SolveReport report;
  report.plan = r.plan;
  report.warnings = r.warnings;
  report.seconds = timed([&] {
    run_or_fall_back_to_cpus(report, solver, precision_of<T>(), m, n, options, [&](const Plan& plan) {
      report.info = solvers::getrf(plan, m, n, A, lda, ipiv, options.input_check);
    });
  });
  report.gflops = report.seconds > 0 ? model::getrf_flops(m, n) / report.seconds / 1e9 : 0;
  return report;
}

template <class T>
SolveReport getrs(Transpose trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb,
                  const Options& options) {
  // The solve has no tunable parameter yet: the plan only carries the precision.
  Plan plan;
  plan.precision = precision_of<T>();
  plan.source_detail = "getrs takes no tuned parameters";
  SolveReport report;
  report.plan = plan;
  report.seconds = timed([&] { solvers::getrs(plan, trans, n, nrhs, LU, lda, ipiv, B, ldb, options.input_check); });
  report.gflops = report.seconds > 0 ? 2.0 * n * double(n) * nrhs / report.seconds / 1e9 : 0;
  return report;
}

template <class T>
SolveReport gesv(Solver solver, int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb, const Options& options) {
  Resolution r = resolve_plan(solver, precision_of<T>(), options.target, n, n, options);
  SolveReport report;
  report.plan = r.plan;
  report.warnings = r.warnings;
  report.seconds = timed([&] {
    SolveDetails details;
    run_or_fall_back_to_cpus(report, solver, precision_of<T>(), n, n, options, [&](const Plan& plan) {
      details = {};
      report.info = solvers::gesv(plan, n, nrhs, A, lda, ipiv, B, ldb, options.input_check, &details);
    });
    report.refinement_steps = details.refinement_steps;
    report.backward_error = details.backward_error;
    report.fell_back_to_gepp = details.fell_back_to_gepp;
    report.note = details.note;
    report.phase_seconds = details.phase_seconds;
  });
  const double flops = model::getrf_flops(n, n) + 2.0 * n * double(n) * nrhs;
  report.gflops = report.seconds > 0 ? flops / report.seconds / 1e9 : 0;
  return report;
}

template SolveReport getrf<float>(Solver, int, int, float*, int, int*, const Options&);
template SolveReport getrf<double>(Solver, int, int, double*, int, int*, const Options&);
template SolveReport getrs<float>(Transpose, int, int, const float*, int, const int*, float*, int, const Options&);
template SolveReport getrs<double>(Transpose, int, int, const double*, int, const int*, double*, int, const Options&);
template SolveReport gesv<float>(Solver, int, int, float*, int, int*, float*, int, const Options&);
template SolveReport gesv<double>(Solver, int, int, double*, int, int*, double*, int, const Options&);

}  // namespace hetlu
