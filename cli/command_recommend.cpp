#include <fmt/core.h>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/report.hpp"
#include "hetlu/hetlu.hpp"

namespace hetlu::cli {

void register_recommend(CLI::App& app, CommandState&) {
  struct Args {
    std::string db, solver = "gepp", precision = "double", target = "cpu";
    int m = -1, n = -1;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("recommend", "Print the plan hetlu would use for a problem, and where it came from");
  add_db_option(*cmd, args->db);
  cmd->add_option("--solver", args->solver, "gepp, calu or prbt")->capture_default_str();
  cmd->add_option("--precision", args->precision, "double or single")->capture_default_str();
  cmd->add_option("--target", args->target, "cpu or hybrid")->capture_default_str();
  cmd->add_option("-m", args->m, "rows (default: n)")->check(CLI::NonNegativeNumber);
  cmd->add_option("-n", args->n, "columns")->required()->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args] {
    Options options;
    options.db_path = args->db;
    const int m = args->m < 0 ? args->n : args->m;
    const Resolution r = resolve_plan(from_string<Solver>(args->solver), from_string<Precision>(args->precision),
                                      from_string<Target>(args->target), m, args->n, options);
    warn_all(r.warnings);
    const Plan& p = r.plan;
    if (args->json) {
      auto j = to_json(p);
      j["m"] = m;
      j["n"] = args->n;
      print_json(j);
      return;
    }
    std::cout << fmt::format("{} {} on {}, m = {}, n = {}\n", to_string(p.solver), to_string(p.precision),
                             to_string(p.target), m, args->n);
    std::cout << fmt::format("  nb = {}, ib = {}, panel_threads = {}, lookahead = {}\n", p.nb, p.ib, p.panel_threads,
                             p.lookahead);
    if (p.predicted_seconds) std::cout << fmt::format("  predicted {:.4f} s\n", *p.predicted_seconds);
    std::cout << "  source: " << to_string(p.source) << " (" << p.source_detail << ")\n";
  });
}

}  // namespace hetlu::cli
