// What the front ends of getrf, getrs, gesv and mixed_gesv share (api/getrf.cpp and the others):
// the CPU plan a hybrid one falls back to, the timer that a caller may switch off, and the
// small-matrix path's rule. Internal to libhetlu; templates and inline functions here so that a call
// of order 1 pays no call across files (#14.1 counts nanoseconds there). Not solvers/front_end.cpp,
// the layer below, which checks a resolved plan's arguments.
#pragma once

#include <algorithm>
#include <atomic>
#include <complex>
#include <string>

#include "api/small_path.hpp"
#include "hetlu/detail/stopwatch.hpp"
#include "hetlu/hetlu.hpp"
#include "solvers/scalar.hpp"

namespace hetlu::front_end {

// How the warnings about A's singularity to working precision begin: check_working_precision_singularity's
// verdict (api/solve_checked.cpp), and the mixed path's note where its certificate failed.
inline constexpr const char* singular_said = "A is singular to working precision";
inline constexpr const char* maybe_singular_said = "A may be singular to working precision";

// A field of the report's plan that `by` set through the overrides, not the caller (the checked
// solve's escalation sets refinement): no longer said to be the caller's, nor the plan an
// override where it was the only one. Defined in api/resolve.cpp, beside the overrides.
void set_by_escalation(Plan& plan, const std::string& field, const std::string& by);

// The options with the CPU target instead of the hybrid one, the device settings dropped.
inline Options on_the_cpus(const Options& options) {
  Options cpus = options;
  cpus.target = Target::cpu;
  cpus.overrides.devices.reset();
  cpus.overrides.cpu_block_columns.reset();
  cpus.overrides.panel_location.reset();
  return cpus;
}

// Runs the report's plan (run(plan, the options it was resolved with)); when it is hybrid and its
// device cannot hold the problem (thrown before A or B changes), runs the CPU plan instead and says
// so in the warnings.
template <class Run>
void run_or_fall_back_to_cpus(SolveReport& report, Solver solver, Precision precision, int m, int n,
                              const Options& options, Run&& run) {
  try {
    run(report.plan, options);
  } catch (const DeviceOutOfMemory& e) {
    if (report.plan.target != Target::hybrid) throw;
    const Options cpus = on_the_cpus(options);
    Resolution r = resolve_plan(solver, precision, m, n, cpus);
    report.plan = r.plan;
    report.warnings.push_back(std::string(e.what()) + ": solved on the CPUs instead");
    report.warnings.insert(report.warnings.end(), r.warnings.begin(), r.warnings.end());
    run(report.plan, cpus);
  }
}

// The default database's crossover, resolved on a process's first call and then read without a
// lock or an initialization check (most calls name no database). -1 until resolved.
template <class T>
inline std::atomic<int> default_below{-1};

// The default database's crossover for T, resolved on the first call.
template <class T>
int default_small_matrix_below() {
  int below = default_below<T>.load(std::memory_order_relaxed);
  if (below < 0) {
    below = small_matrix_crossover(scalar::plan_precision<T>(), Options{}).below;
    default_below<T>.store(below, std::memory_order_relaxed);
  }
  return below;
}

// The small-matrix path (#14.1, Options::small_matrix_path): below the crossover, a GEPP call on the
// CPU target that overrides nothing goes to the BLAS library's own LU, as the LAPACK drop-in's calls
// do: no plan resolution, allocation or thread wake-up. The crossover is looked up once per thread, precision and
// database path (with the default path, the process does not see $HETLU_DB change after its first call).
template <class T>
bool takes_small_path(Solver solver, int m, int n, const Options& options) {
  if (!options.small_matrix_path || solver != Solver::gepp || options.target != Target::cpu ||
      !options.overrides.none())
    return false;
  // The default database's crossover in a process-wide atomic (no lock, no string compared: most
  // calls name no database); any other in a thread's cache keyed by its path.
  if (options.use_database && options.db_path.empty())
    return below_small_matrix_crossover(m, n, default_small_matrix_below<T>());
  struct Known {
    bool valid = false, use_database = false;
    std::string db_path;
    int below = 0;
  };
  thread_local Known known;
  if (!known.valid || known.use_database != options.use_database || known.db_path != options.db_path) {
    known = {true, options.use_database, options.db_path,
             small_matrix_crossover(scalar::plan_precision<T>(), options).below};
  }
  return below_small_matrix_crossover(m, n, known.below);
}

// Seconds `run` took, or 0 without running the clock when the caller asked for no timing.
template <class Run>
double timed(const Options& options, Run&& run) {
  if (options.measure_time) return detail::seconds_of(run);
  run();
  return 0;
}

// The plan a small-path call reports: the BLAS library's unblocked-size LU, one panel. Set in the
// report's own default plan: a second Plan built and moved in costs a tenth of an n = 1 call.
template <class T>
void set_small_path_plan(Plan& plan, int m, int n) {
  plan.precision = scalar::plan_precision<T>();
  plan.nb = std::max(1, std::min(m, n));
  plan.source_detail = "small-matrix LU";  // the BLAS library's (short: no allocation per call)
}

}  // namespace hetlu::front_end
