#include <fmt/core.h>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/report.hpp"
#include "configs/configs.hpp"
#include "hetlu/hetlu.hpp"
#include "model/predict.hpp"

namespace hetlu::cli {

void register_recommend(CLI::App& app, CommandState&) {
  struct Args {
    std::string db, solver = "gepp", precision = "double", target = "cpu", machine, model_config;
    int m = -1, n = -1;
    bool json = false, explain = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("recommend", "Print the plan hetlu would use for a problem, and where it came from");
  add_db_option(*cmd, args->db);
  cmd->add_option("--solver", args->solver, "gepp, calu or prbt")
      ->capture_default_str()
      ->check(one_of(detail::solver_names.all()));
  cmd->add_option("--precision", args->precision, "double or single")
      ->capture_default_str()
      ->check(one_of(detail::precision_names.all()));
  cmd->add_option("--target", args->target, "cpu or hybrid")
      ->capture_default_str()
      ->check(one_of(detail::target_names.all()));
  cmd->add_option("-m", args->m, "rows (default: n)")->check(CLI::NonNegativeNumber);
  cmd->add_option("-n", args->n, "columns")->required()->check(CLI::NonNegativeNumber);
  cmd->add_option("--machine", args->machine,
                  "predict for the machine described in this YAML file (configs/machines/) instead of this one");
  cmd->add_option("--model-config", args->model_config,
                  "model efficiency factors (default: built-in configs/model.yaml)");
  cmd->add_flag("--explain", args->explain, "print the model's reasoning: rates, split, time, where the panel runs");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args] {
    const int m = args->m < 0 ? args->n : args->m;
    const Solver solver = from_string<Solver>(args->solver);
    const Precision precision = from_string<Precision>(args->precision);
    const Target target = from_string<Target>(args->target);

    Resolution r;
    std::string machine_name;
    if (!args->machine.empty()) {
      // A what-if machine has no measurements and no tuned entries: the model alone answers.
      const MachineProfile profile = configs::machine_from_yaml(args->machine);
      const auto prediction = model::predict(profile, model::Problem{solver, precision, target, m, args->n},
                                             configs::model_params(args->model_config));
      r.plan = prediction.plan;
      r.plan.source_detail = "model for the machine in " + args->machine;
      r.explanation = prediction.reasoning;
      r.cpu_fraction = prediction.d_fraction;
      r.predicted_gflops = prediction.gflops;
      machine_name = profile.cpu_model;
      for (const auto& g : profile.gpus) machine_name += " + " + g.name;
    } else {
      if (!args->model_config.empty())
        throw UsageError("--model-config applies to --machine predictions; the local plan uses the built-in model");
      Options options;
      options.db_path = args->db;
      r = resolve_plan(solver, precision, target, m, args->n, options);
      warn_all(r.warnings);
    }
    const Plan& p = r.plan;
    if (args->json) {
      auto j = to_json(p);
      j["m"] = m;
      j["n"] = args->n;
      j["d"] = p.cpu_block_columns;
      j["d_fraction"] = r.cpu_fraction;
      j["predicted_gflops"] = r.predicted_gflops ? nlohmann::ordered_json(*r.predicted_gflops) : nullptr;
      if (!machine_name.empty()) j["machine"] = machine_name;
      if (args->explain) j["explanation"] = r.explanation;
      print_json(j);
      return;
    }
    std::cout << fmt::format("{} {} on {}, m = {}, n = {}{}\n", to_string(p.solver), to_string(p.precision),
                             to_string(p.target), m, args->n, machine_name.empty() ? "" : ", machine: " + machine_name);
    std::cout << fmt::format("  nb = {}, ib = {}, panel_threads = {}, lookahead = {}\n", p.nb, p.ib, p.panel_threads,
                             p.lookahead);
    if (p.target == Target::hybrid)
      std::cout << fmt::format("  d = {} block columns on the CPUs ({:.1f} %), panel on the {}\n", p.cpu_block_columns,
                               100 * r.cpu_fraction, to_string(p.panel_location));
    if (p.predicted_seconds)
      std::cout << fmt::format("  predicted {:.4f} s{}\n", *p.predicted_seconds,
                               r.predicted_gflops ? fmt::format(", {:.1f} GFlop/s", *r.predicted_gflops) : "");
    std::cout << "  source: " << to_string(p.source) << " (" << p.source_detail << ")\n";
    if (args->explain)
      for (const auto& line : r.explanation) std::cout << "  - " << line << "\n";
  });
}

}  // namespace hetlu::cli
