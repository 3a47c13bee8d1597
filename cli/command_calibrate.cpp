#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/distributed.hpp"
#include "cli/report.hpp"
#include "hetlu/detail/stopwatch.hpp"
#include "hetlu/detail/utf8.hpp"
#include "hetlu/hetlu.hpp"
#include "probes/memory.hpp"
#include "solvers/backend.hpp"
#include "tuner/calibrate.hpp"

namespace hetlu::cli {

void register_calibrate(CLI::App& app, CommandState& state) {
  struct Args {
    std::string db, level = "quick", config, target = "cpu", backend, devices;
    std::vector<int> sizes;
    std::vector<std::string> solvers;
    double budget = 0;
    bool json = false, retry_failed = false, distributed = false;
    std::vector<std::string> precisions;
    int candidates = 6, reps = 3;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("calibrate", "Measure this machine, tune the solvers and store the results");
  add_db_option(*cmd, args->db);
  cmd->add_option("--level", args->level, "estimate, quick, measure, patient or exhaustive")
      ->capture_default_str()
      ->check(one_of(detail::level_names.all()));
  cmd->add_option("--config", args->config, "calibration YAML to use instead of the built-in one")
      ->check(non_empty_path);
  cmd->add_option("--sizes", args->sizes, "square sizes to tune instead of the level's")
      ->delimiter(',')
      ->transform(whole_in(1, 100000));
  cmd->add_option("--solver", args->solvers, "solvers to tune instead of the level's (gepp, calu, prbt)")
      ->delimiter(',')
      ->check(one_of(detail::solver_names.all()));
  cmd->add_option("--target", args->target, "cpu, or hybrid: tune the CPU share d and nb of the hybrid target")
      ->capture_default_str()
      ->check(one_of(detail::target_names.all()));
  cmd->add_option("--backend", args->backend, "hybrid: cuda or host (default: cuda when a GPU is present)")
      ->check(one_of(detail::backend_names.all()));
  add_devices_option(*cmd, args->devices);
  cmd->add_option("--budget", args->budget,
                  "seconds of tuning, counted after the probes, after which no new trial starts (run again to resume)")
      ->check(finite_positive);
  cmd->add_flag("--retry-failed", args->retry_failed,
                "measure stored failed trials again (those that failed in another environment always are)");
  cmd->add_flag("--json", args->json, "print one JSON object (progress still goes to stderr)");
  cmd->add_flag("--distributed", args->distributed,
                "under mpirun: probe the network and tune p?gesv's nb, grid and threads per rank for this rank "
                "count (--sizes default 1000,2000)");
  cmd->add_option("--precision", args->precisions,
                  "precisions to tune instead of the level's (double, single, mixed: the whole mixed solve; "
                  "--distributed: double, single or both; default double)")
      ->delimiter(',')
      ->check(CLI::IsMember({"double", "single", "mixed"}));
  cmd->add_option("--candidates", args->candidates, "--distributed: the model's best configurations timed per size")
      ->transform(whole_in(1, 1000))
      ->capture_default_str();
  cmd->add_option("--reps", args->reps, "--distributed: timed runs of each configuration")
      ->transform(whole_in(1, 100))
      ->capture_default_str();
  cmd->callback([args, &state, cmd] {
    if (args->distributed) {
      for (const char* option :
           {"--level", "--config", "--solver", "--target", "--backend", "--devices", "--budget", "--retry-failed"})
        if (cmd->count(option) > 0) throw UsageError(std::string(option) + " does not apply to --distributed");
      for (const auto& precision : args->precisions)
        if (precision == "mixed") throw UsageError("--distributed tunes double and single precision, not mixed");
      DistributedCalibrateArgs d;
      d.db = args->db, d.sizes = args->sizes, d.precisions = args->precisions;
      d.candidates = args->candidates, d.repetitions = args->reps, d.json = args->json;
      calibrate_distributed(d);
      return;
    }
    for (const char* option : {"--candidates", "--reps"})
      if (cmd->count(option) > 0) throw UsageError(std::string(option) + " needs --distributed");
    CalibrationOptions options;
    options.level = from_string<CalibrationLevel>(args->level);
    if (options.level == CalibrationLevel::estimate &&
        (!args->sizes.empty() || !args->solvers.empty() || !args->precisions.empty()))
      throw UsageError(
          "--level estimate times nothing: --sizes, --solver and --precision need a level that measures (quick and "
          "above)");
    options.db_path = args->db;
    options.config_path = args->config;
    options.sizes = args->sizes;
    for (int n : args->sizes)  // refused before the probes run; a config file's sizes are the tuner's to refuse
      probes::require_memory(tuner::trial_bytes(n), "calibrate --sizes " + std::to_string(n));
    for (const auto& name : args->solvers) options.solvers.push_back(from_string<Solver>(name));
    for (const auto& name : args->precisions) options.precisions.push_back(from_string<Precision>(name));
    options.budget_seconds = args->budget;
    options.retry_failed = args->retry_failed;
    options.target = from_string<Target>(args->target);
    options.devices = devices_of(args->backend, args->devices);
    if (options.devices && options.target != Target::hybrid)
      throw UsageError(std::string(args->devices.empty() ? "--backend" : "--devices") + " needs --target hybrid");
    // On a terminal, a progress bar with an ETA; otherwise (a log, CI) one plain line per trial.
    const bool terminal = ::isatty(STDOUT_FILENO) == 1 && ::isatty(STDERR_FILENO) == 1;
    const detail::Stopwatch since_start;
    if (terminal) {
      options.on_trial = [since_start](int done, int at_most) {
        const double elapsed = since_start.seconds();
        const int width = 30, filled = at_most > 0 ? std::min(width, width * done / at_most) : 0;
        const double eta = done > 0 ? elapsed / done * std::max(0, at_most - done) : 0;
        std::cerr << fmt::format("\r  [{}{}] {}/{} configurations, {:.0f} s, at most {:.0f} s left ",
                                 std::string(filled, '#'), std::string(width - filled, '.'), done, at_most, elapsed,
                                 eta)
                  << std::flush;
      };
      options.progress = [](const std::string& line) {
        if (line.find("budget") != std::string::npos || line.find("probing") != std::string::npos)
          std::cerr << "\r  " << line << "\n";
      };
    } else {
      options.progress = [](const std::string& line) { std::cerr << "  " << line << "\n"; };
    }
    // The trials run on this process's threads, and the rows stored answer solves on as many: said
    // where they are fewer than its cores, since a calibration under taskset -c 0 then tunes nothing
    // for a solve on all the cores.
    // On the hybrid target, less the host teams' threads, as the trials' key counts them.
    if (options.level != CalibrationLevel::estimate)
      if (const int threads = backends::cpu_threads_here(options.target, options.devices.value_or(default_devices()));
          threads < this_machine().cores)
        std::cerr << fmt::format(
            "hetlu: note: the trials run on {} of this machine's {} cores (OMP_NUM_THREADS, OMP_THREAD_LIMIT, "
            "OMP_MAX_ACTIVE_LEVELS, the affinity mask or the host teams); the plans stored answer solves on {} "
            "thread{} only\n",
            threads, this_machine().cores, threads, threads == 1 ? "" : "s");
    const CalibrationReport report = calibrate(options);
    if (terminal) std::cerr << "\n";
    const auto& results = report.entries;
    const auto& profile = report.profile;
    const auto& path = report.db_path;
    const auto level = options.level;
    // A size whose every trial failed is an error (exit 1) after the rest is reported; one the
    // budget left unmeasured is not (a rerun resumes it).
    nlohmann::ordered_json missing = nlohmann::ordered_json::array();
    for (const auto& m : report.without_plan) {
      missing.push_back({{"solver", to_string(m.solver)},
                         {"precision", to_string(m.precision)},
                         {"m", m.m},
                         {"n", m.n},
                         {"why", m.why},
                         {"resumable", m.resumable},
                         {"trials_left_by_budget", m.trials_left_by_budget}});
      std::cerr << "hetlu: " << (m.resumable ? "note" : "error") << ": no plan stored for " << to_string(m.solver)
                << (m.precision == Precision::double_ ? "" : " " + to_string(m.precision)) << " n=" << m.n << ": "
                << detail::printable(m.why)
                << (m.trials_left_by_budget ? " (" + std::to_string(m.trials_left_by_budget) + " left by the budget)"
                                            : "")
                << "\n";
      if (!m.resumable) state.exit_code = exit_error;
    }

    if (args->json) {
      nlohmann::ordered_json rows = nlohmann::ordered_json::array();
      for (const auto& r : results)
        rows.push_back({{"solver", to_string(r.solver)},
                        {"precision", to_string(r.plan.precision)},
                        {"m", r.m},
                        {"n", r.n},
                        {"plan", to_json(r.plan)},
                        {"median_seconds", r.median_seconds},
                        {"gflops", r.gflops},
                        {"model_predicted_seconds", r.predicted_seconds.value_or(0.0)},
                        {"trials_measured", r.trials_measured},
                        {"trials_reused", r.trials_reused},
                        {"trials_failed", r.trials_failed},
                        {"trials_pruned", r.trials_pruned},
                        {"trials_left_by_budget", r.trials_left_by_budget}});
      print_json({{"database", path},
                  {"level", to_string(level)},
                  {"machine", report.machine},
                  {"profile", to_json(profile)},
                  {"results", rows},
                  {"without_plan", missing}});
      return;
    }
    std::cout << describe(profile);
    std::cout << fmt::format("machine    {} in {}\n", report.machine, detail::printable(path));
    if (results.empty()) {
      if (report.without_plan.empty())
        std::cout << "level " << to_string(level) << ": nothing was timed; recommendations come from the model\n";
      return;
    }
    const bool hybrid = options.target == Target::hybrid;
    if (hybrid) std::cout << "hybrid target on the " << to_string(results.front().plan.devices) << " backend\n";
    std::cout << fmt::format("\n{:>6} {:>9} {:>6} {:>6} {:>6} {:>10} {:>9} {:>12} {:>9}\n", "solver", "precision", "n",
                             "nb", hybrid ? "d" : "", "seconds", "GFlop/s", "model (s)", "trials");
    int pruned = 0, left = 0;
    for (const auto& r : results) {
      std::string notes;
      if (r.trials_pruned) notes += fmt::format(" {} pruned", r.trials_pruned);
      if (r.trials_left_by_budget) notes += fmt::format(" {} left by the budget", r.trials_left_by_budget);
      std::cout << fmt::format("{:>6} {:>9} {:>6} {:>6} {:>6} {:>10.4f} {:>9.1f} {:>12.4f} {:>4}+{:<4}{}\n",
                               to_string(r.solver), to_string(r.plan.precision), r.n, r.plan.nb,
                               hybrid ? std::to_string(r.plan.cpu_block_columns) : "", r.median_seconds, r.gflops,
                               r.predicted_seconds.value_or(0), r.trials_measured, r.trials_reused,
                               notes.empty() ? "" : " (" + notes.substr(1) + ")");
      pruned += r.trials_pruned;
      left += r.trials_left_by_budget;
    }
    std::cout << "(trials: measured now + reused from earlier runs"
              << (pruned ? "; pruned: not timed, the model priced them above prune_above x the best measured" : "")
              << (left ? "; left by the budget: not timed, a rerun resumes them (the plan is the best of the rest)"
                       : "")
              << ")\n";
  });
}

}  // namespace hetlu::cli
