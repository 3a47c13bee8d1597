#include <fmt/core.h>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/report.hpp"
#include "configs/configs.hpp"
#include "db/records.hpp"
#include "model/gepp_cpu.hpp"
#include "probes/probes.hpp"
#include "tuner/calibrate.hpp"

namespace hetlu::cli {

void register_calibrate(CLI::App& app, CommandState&) {
  struct Args {
    std::string db, level = "quick", config;
    std::vector<int> sizes;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("calibrate", "Measure this machine, tune the solvers and store the results");
  add_db_option(*cmd, args->db);
  cmd->add_option("--level", args->level, "estimate, quick or measure")->capture_default_str();
  cmd->add_option("--config", args->config, "calibration YAML to use instead of the built-in one");
  cmd->add_option("--sizes", args->sizes, "square sizes to tune instead of the level's")
      ->delimiter(',')
      ->check(CLI::Range(1, 100000));
  cmd->add_flag("--json", args->json, "print one JSON object (progress still goes to stderr)");
  cmd->callback([args] {
    const auto level = from_string<CalibrationLevel>(args->level);
    tuner::LevelSettings settings = configs::calibration_level(level, args->config);
    if (!args->sizes.empty()) settings.sizes = args->sizes;

    const std::string path = args->db.empty() ? db::default_path() : args->db;
    auto database = db::Database::open(path, db::Database::Mode::read_write);

    probes::ProbeOptions probe_options;
    probe_options.measure = settings.measure_rates;
    probe_options.gemm_size = settings.probe_gemm_size;
    std::cerr << "hetlu: probing this machine" << (settings.measure_rates ? " (timing DGEMM)" : "") << "...\n";
    const MachineProfile profile = probes::probe_machine(probe_options);
    const auto fp = db::fingerprint(profile);
    const auto machine_id = db::ensure_machine(database, fp);
    db::store_probe_results(database, machine_id, profile);

    const auto results = tuner::tune_gepp_cpu(database, machine_id, profile, settings, {},
                                              [](const std::string& line) { std::cerr << "  " << line << "\n"; });

    if (args->json) {
      nlohmann::ordered_json rows = nlohmann::ordered_json::array();
      for (const auto& r : results)
        rows.push_back({{"m", r.m},
                        {"n", r.n},
                        {"plan", to_json(r.best)},
                        {"median_seconds", r.median_s},
                        {"gflops", r.gflops},
                        {"model_predicted_seconds", r.predicted_s ? *r.predicted_s : 0.0},
                        {"trials_measured", r.measured},
                        {"trials_reused", r.reused},
                        {"trials_failed", r.failed}});
      print_json({{"database", path},
                  {"level", to_string(level)},
                  {"machine", fp.hash},
                  {"profile", to_json(profile)},
                  {"results", rows}});
      return;
    }
    std::cout << describe(profile);
    std::cout << fmt::format("machine    {} in {}\n", fp.hash, path);
    if (results.empty()) {
      std::cout << "level " << to_string(level) << ": nothing was timed; recommendations come from the model\n";
      return;
    }
    std::cout << fmt::format("\n{:>6} {:>6} {:>6} {:>10} {:>9} {:>12} {:>9}\n", "solver", "n", "nb", "seconds",
                             "GFlop/s", "model (s)", "trials");
    for (const auto& r : results)
      std::cout << fmt::format("{:>6} {:>6} {:>6} {:>10.4f} {:>9.1f} {:>12.4f} {:>4}+{:<4}\n", "gepp", r.n, r.best.nb,
                               r.median_s, r.gflops, r.predicted_s.value_or(0), r.measured, r.reused);
    std::cout << "(trials: measured now + reused from earlier runs)\n";
  });
}

}  // namespace hetlu::cli
