#include <fmt/core.h>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/report.hpp"
#include "configs/configs.hpp"
#include "hetlu/detail/bytes.hpp"
#include "hetlu/detail/cuda_tf32.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/detail/utf8.hpp"
#include "hetlu/distributed_plan.hpp"
#include "hetlu/hetlu.hpp"
#include "model/distributed.hpp"
#include "model/predict.hpp"

namespace hetlu::cli {

namespace {

// Orders beyond these kept the model pricing for minutes (its schedules take O(n / nb) a d, and
// --sweep-d prices every d; -n 2147483647 ran for days): 10^7 doubles square are 800 TB, beyond one
// machine, and 10^8 beyond HPL's largest runs (N = 2.4e7).
constexpr int largest_order = 10'000'000, largest_distributed_order = 100'000'000;

// --sweep-d prices every d, each in O(n / nb): n / nb is bounded (--nb 1 at n = 8000 took 0.8 s).
constexpr int most_swept_block_columns = 20000;
void check_swept(int blocks) {
  if (blocks > most_swept_block_columns)
    throw UsageError(fmt::format("--sweep-d prices every d: n / nb must be at most {} block columns (here {})",
                                 most_swept_block_columns, blocks));
}

// The model's predicted time for every CPU share d of the plan it would choose (at nb when given):
// the curve a bench --sweep-d measures, for a machine described in YAML.
void predicted_sweep(const MachineProfile& profile, const model::Problem& problem, const model::ModelParams& params,
                     std::optional<int> nb, bool json) {
  const auto prediction = model::predict(profile, problem, params);
  Plan plan = prediction.plan;
  if (nb) plan.nb = std::min(*nb, std::max(1, std::min(problem.m, problem.n)));  // wider is the matrix
  const int blocks = block_columns(problem.n, plan.nb);
  check_swept(blocks);  // the model's nb; a given one is checked before predicting
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  const double flops = detail::getrf_flops(problem.m, problem.n);
  for (int d = 0; d <= blocks; ++d) {
    plan.cpu_block_columns = d;
    const double seconds = model::predict_seconds(profile, problem, plan, params);
    rows.push_back({{"d", d},
                    {"predicted_seconds", seconds},
                    {"predicted_gflops", detail::gflops(flops, seconds)},
                    {"fits_device", model::device_holds(profile, problem, plan, params)}});
  }
  if (json) {
    print_json(
        {{"m", problem.m},
         {"n", problem.n},
         {"solver", to_string(problem.solver)},
         {"nb", plan.nb},
         {"block_columns", blocks},
         {"model_d", nb ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(prediction.plan.cpu_block_columns)},
         {"points", rows}});
    return;
  }
  const std::string order =
      problem.m == problem.n ? fmt::format("n = {}", problem.n) : fmt::format("m = {}, n = {}", problem.m, problem.n);
  std::cout << fmt::format("{} {}, nb = {}, {} block columns: predicted time for each CPU share d\n",
                           to_string(problem.solver), order, plan.nb, blocks);
  std::cout << fmt::format("{:>6} {:>12} {:>10}\n", "d", "seconds", "GFlop/s");
  for (const auto& row : rows)
    std::cout << fmt::format("{:>6} {:>12.4f} {:>10.1f}{}{}\n", row["d"].get<int>(),
                             row["predicted_seconds"].get<double>(), row["predicted_gflops"].get<double>(),
                             row["fits_device"].get<bool>() ? "" : "  (does not fit the device's memory)",
                             !nb && row["d"] == prediction.plan.cpu_block_columns ? "  <- model's d" : "");
}

// --ranks: the distributed plan (#18): tuned, else the model's, for this machine; or the model's for
// a cluster of the machine file's nodes.
void recommend_distributed(Precision precision, int n, distributed::RankLayout layout, const std::string& machine,
                           const std::string& model_config, const std::string& db, bool explain, bool json) {
  if (precision == Precision::mixed) throw UsageError("--ranks: distributed solves are single or double");
  distributed::DistributedResolution r;
  std::string machine_name;
  if (!machine.empty()) {
    const MachineProfile node = configs::machine_from_yaml(machine);
    const auto [params, network_source] = configs::with_machine_network(machine, configs::model_params(model_config),
                                                                        layout.ranks_per_node >= layout.ranks);
    r.network = model::default_network(layout, params);
    r.network.source = network_source;
    const model::DistributedProblem problem = model::problem_as_run_here(precision, n, layout);
    const auto prediction = model::predict_distributed(node, r.network, problem, params);
    r.plan = prediction.plan;
    r.bytes_per_node = prediction.bytes_per_node;
    r.fits_memory = prediction.fits_memory;
    if (prediction.fits_memory && !*prediction.fits_memory)
      r.warnings.push_back(model::memory_warning(problem, prediction,
                                                 "the " + detail::readable_bytes(double(node.memory_bytes)) +
                                                     " of a node in '" + detail::printable(machine) + "'"));
    r.plan.source_detail = "model for the machine in " + machine;
    r.explanation = prediction.reasoning;
    for (const auto& term : prediction.terms)
      r.explanation.push_back(fmt::format("{}: {:.4f} s", term.name, term.seconds));
    machine_name = node.cpu_model;
  } else {
    if (!model_config.empty())
      throw UsageError("--model-config applies to --machine predictions; the local plan uses the built-in model");
    r = distributed::resolve_plan({}, precision, n, layout, db);
  }
  warn_all(r.warnings);
  const auto& p = r.plan;
  const double flops = model::distributed_solve_flops({precision, n, 1, layout});
  const double gflops = detail::gflops(flops, p.predicted_seconds.value_or(0));
  if (json) {
    nlohmann::ordered_json j = {
        {"n", n},
        {"precision", to_string(precision)},
        {"ranks", layout.ranks},
        {"ranks_per_node", layout.ranks_per_node},
        {"grid_rows", p.grid_rows},
        {"grid_cols", p.grid_cols},
        {"nb", p.nb},
        {"threads_per_rank", p.threads_per_rank},
        {"predicted_seconds", p.predicted_seconds ? nlohmann::ordered_json(*p.predicted_seconds) : nullptr},
        {"predicted_gflops", gflops > 0 ? nlohmann::ordered_json(gflops) : nullptr},
        {"source", to_string(p.source)},
        {"source_detail", p.source_detail},
        {"network", r.network.source},
        {"bytes_per_node", r.bytes_per_node > 0 ? nlohmann::ordered_json(r.bytes_per_node) : nullptr},
        {"fits_memory", r.fits_memory ? nlohmann::ordered_json(*r.fits_memory) : nullptr}};
    if (!machine_name.empty()) j["machine"] = machine_name;
    if (explain) j["explanation"] = r.explanation;
    print_json(j);
    return;
  }
  std::cout << fmt::format("p{}gesv on {} ranks ({} per node), n = {}{}\n", precision == Precision::single ? 's' : 'd',
                           layout.ranks, layout.ranks_per_node, n,
                           machine_name.empty() ? "" : ", machine: " + machine_name);
  std::cout << fmt::format("  {} x {} grid, nb = {}, {}\n", p.grid_rows, p.grid_cols, p.nb,
                           p.threads_per_rank > 0 ? fmt::format("{} BLAS thread(s) per rank", p.threads_per_rank)
                                                  : std::string("the process's BLAS threads"));
  if (p.predicted_seconds)
    std::cout << fmt::format("  predicted {:.4f} s{}\n", *p.predicted_seconds,
                             gflops > 0 ? fmt::format(", {:.1f} GFlop/s", gflops) : "");
  // Shown printable: they quote the machine file's path, whose bytes (ESC) went to the terminal.
  std::cout << "  source: " << to_string(p.source) << " (" << detail::printable(p.source_detail) << ")\n";
  std::cout << "  network: " << detail::printable(r.network.source) << "\n";
  if (r.bytes_per_node > 0)
    std::cout << fmt::format("  memory: {} a node{}\n", detail::readable_bytes(r.bytes_per_node),
                             !r.fits_memory   ? ""
                             : *r.fits_memory ? ", fits"
                                              : ", DOES NOT FIT");
  if (explain)
    for (const auto& line : r.explanation) std::cout << "  - " << detail::printable(line) << "\n";
}

}  // namespace

void register_recommend(CLI::App& app, CommandState&) {
  struct Args {
    std::string db, solver = "gepp", precision = "double", target = "cpu", machine, model_config, backend, devices;
    int m = -1, n = -1;
    std::optional<int> nb, ranks, ranks_per_node;
    bool json = false, explain = false, sweep_d = false, print_model_config = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("recommend", "Print the plan hetlu would use for a problem, and where it came from");
  add_db_option(*cmd, args->db);
  cmd->add_option("--solver", args->solver, "gepp, calu or prbt")
      ->capture_default_str()
      ->check(one_of(detail::solver_names.all()));
  cmd->add_option("--precision", args->precision, "double, single or mixed (single's factorization refined in double)")
      ->capture_default_str()
      ->check(one_of(detail::precision_names.all()));
  cmd->add_option("--target", args->target, "cpu or hybrid")
      ->capture_default_str()
      ->check(one_of(detail::target_names.all()));
  cmd->add_option("--backend", args->backend, "hybrid: cuda or host (default: cuda when a GPU is present)")
      ->check(one_of(detail::backend_names.all()));
  add_devices_option(*cmd, args->devices);
  // The bounds the help text says (it said 2147483647, which -n refused beyond 10^7).
  cmd->add_option("-m", args->m, "rows (default: n; at most 10000000, 100000000 with --ranks)")
      ->transform(whole_in(1, largest_distributed_order));
  cmd->add_option("-n", args->n, "columns (required; at most 10000000, 100000000 with --ranks)")
      ->transform(whole_in(1, largest_distributed_order));
  // An empty path (an unset $MACHINE) is refused: it had answered for this machine, exit 0.
  cmd->add_option("--machine", args->machine,
                  "predict for the machine described in this YAML file (configs/machines/) instead of this one")
      ->check(non_empty_path);
  cmd->add_option("--model-config", args->model_config,
                  "with --machine: a model file of efficiency factors and constants, each key in place of the "
                  "built-in value (model/params.hpp); --print-model-config writes one")
      ->check(non_empty_path);
  cmd->add_flag("--print-model-config", args->print_model_config,
                "print the model's constants as a model file (with --model-config: that file's) and exit");
  cmd->add_flag("--explain", args->explain, "print the model's reasoning: rates, split, time, where the panel runs");
  cmd->add_flag("--sweep-d", args->sweep_d,
                "with --machine and --target hybrid: the predicted time of every CPU share d (0: panel on the device)");
  cmd->add_option("--nb", args->nb, "--sweep-d: the panel width (default: the model's)")->transform(whole_positive);
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->add_option("--ranks", args->ranks,
                  "the distributed plan (grid, nb, threads per rank) for this many MPI ranks (#18)")
      ->transform(whole_in(1, 1 << 20));
  cmd->add_option("--ranks-per-node", args->ranks_per_node,
                  "--ranks: the most ranks on one node (default: all of them here; 1 with --machine)")
      ->transform(whole_in(1, 1 << 20));
  cmd->callback([args, cmd] {
    if (args->print_model_config) {
      for (const auto* option : cmd->get_options())
        if (option->count() > 0 && option->get_name() != "--print-model-config" &&
            option->get_name() != "--model-config")
          throw UsageError(option->get_name() + " does not apply to --print-model-config");
      std::cout << configs::model_params_yaml(configs::model_params(args->model_config));
      return;
    }
    if (args->n < 0) throw UsageError("-n is required");
    const int largest = args->ranks ? largest_distributed_order : largest_order;
    if (args->n > largest || args->m > largest)
      throw UsageError(fmt::format("-n and -m must be at most {}{}", largest, args->ranks ? " with --ranks" : ""));
    const int swept = args->nb ? (args->n - 1) / *args->nb + 1 : 0;  // block columns, without overflow
    if (args->sweep_d) check_swept(swept);
    if (args->ranks) {
      for (const char* option : {"-m", "--solver", "--target", "--sweep-d", "--nb", "--backend", "--devices"})
        if (cmd->count(option) > 0) throw UsageError(std::string(option) + " does not apply to --ranks");
      distributed::RankLayout layout;
      layout.ranks = *args->ranks;
      layout.ranks_per_node = args->ranks_per_node.value_or(args->machine.empty() ? layout.ranks : 1);
      if (layout.ranks_per_node > layout.ranks)
        throw UsageError(
            fmt::format("--ranks-per-node {} is more than --ranks {}", layout.ranks_per_node, layout.ranks));
      recommend_distributed(from_string<Precision>(args->precision), args->n, layout, args->machine, args->model_config,
                            args->db, args->explain, args->json);
      return;
    }
    if (args->ranks_per_node) throw UsageError("--ranks-per-node needs --ranks");
    const int m = args->m < 0 ? args->n : args->m;
    const Solver solver = from_string<Solver>(args->solver);
    if (solver == Solver::prbt && m != args->n) throw UsageError("prbt solves square systems only: give m = n");
    const Precision precision = from_string<Precision>(args->precision);
    const Target target = from_string<Target>(args->target);
    const auto devices = devices_of(args->backend, args->devices);
    if (devices && target != Target::hybrid)
      throw UsageError(std::string(args->devices.empty() ? "--backend" : "--devices") + " needs --target hybrid");
    const int driven = devices ? static_cast<int>(devices->size()) : 1;

    if (args->sweep_d && (args->machine.empty() || target != Target::hybrid))
      throw UsageError("--sweep-d needs --machine FILE and --target hybrid");
    if (args->nb && !args->sweep_d) throw UsageError("--nb applies to --sweep-d");
    if (args->sweep_d) {
      // One device's d at a time (a plan on several would need their shares): --devices picks it.
      if (devices && devices->size() > 1)
        throw UsageError("--sweep-d sweeps the d of a plan on one device: --devices names " +
                         std::to_string(devices->size()));
      MachineProfile profile = configs::machine_from_yaml(args->machine);
      if (devices) profile = model::with_devices(profile, *devices);  // ignored before, cuda:3 of one GPU too
      // Without a device every d is the CPUs alone: the sweep had printed 314 equal rows.
      if (profile.gpus.empty())
        throw UsageError("--sweep-d: '" + args->machine + "' describes no device, so every d runs on the CPUs alone");
      predicted_sweep(profile, model::Problem{solver, precision, target, m, args->n, 1, detail::cuda_tf32_requested()},
                      configs::model_params(args->model_config), args->nb, args->json);
      return;
    }
    Resolution r;
    std::string machine_name;
    std::optional<double> closed_form;  // the paper's d / N = P g1 / (P g1 + g2), for --machine
    if (!args->machine.empty()) {
      // A what-if machine has no measurements and no tuned entries: the model alone answers.
      MachineProfile profile = configs::machine_from_yaml(args->machine);
      if (devices) profile = model::with_devices(profile, *devices);
      const auto prediction = model::predict(
          profile, model::Problem{solver, precision, target, m, args->n, driven, detail::cuda_tf32_requested()},
          configs::model_params(args->model_config));
      r.plan = prediction.plan;
      if (devices)
        r.plan.devices = *devices;
      else if (target == Target::hybrid && !profile.gpus.empty())
        r.plan.devices = DeviceSet(BackendKind::cuda);  // the what-if machine's GPU, which the model priced
      r.plan.source_detail = "model for the machine in " + args->machine;
      r.explanation = prediction.reasoning;
      r.cpu_fraction = prediction.d_fraction;
      r.cpu_threads = std::max(1, profile.cores);  // a described machine's solves: on all its cores
      r.predicted_gflops = prediction.gflops;
      if (prediction.faster_alone) r.warnings.push_back(model::faster_alone_note(prediction));
      if (target == Target::hybrid && prediction.rates.device.gflops > 0)
        closed_form = prediction.closed_form_d_fraction;  // every driven device's rate, as the model's
      machine_name = profile.cpu_model;
      for (const auto& g : profile.gpus) machine_name += " + " + g.name;
    } else {
      if (!args->model_config.empty())
        throw UsageError("--model-config applies to --machine predictions; the local plan uses the built-in model");
      Options options;
      options.db_path = args->db;
      options.target = target;
      options.overrides.devices = devices;
      r = resolve_plan(solver, precision, m, args->n, options);
    }
    warn_all(r.warnings);
    const Plan& p = r.plan;
    if (args->json) {
      auto j = to_json(p);
      j["m"] = m;
      j["n"] = args->n;
      j["d"] = p.cpu_block_columns;
      j["d_fraction"] = r.cpu_fraction;
      j["cpu_threads"] = r.cpu_threads;
      if (closed_form) j["closed_form_d_fraction"] = *closed_form;
      j["predicted_gflops"] = r.predicted_gflops ? nlohmann::ordered_json(*r.predicted_gflops) : nullptr;
      if (!machine_name.empty()) j["machine"] = machine_name;
      if (args->explain) j["explanation"] = r.explanation;
      j["warnings"] = r.warnings;  // as said on stderr
      print_json(j);
      return;
    }
    std::cout << fmt::format("{} {} on {}, m = {}, n = {}{}\n", to_string(p.solver), to_string(p.precision),
                             to_string(p.target), m, args->n, machine_name.empty() ? "" : ", machine: " + machine_name);
    std::cout << fmt::format("  nb = {}, ib = {}, panel_threads = {}, lookahead = {}\n", p.nb, p.ib, p.panel_threads,
                             p.lookahead);
    if (p.target == Target::hybrid)
      std::cout << fmt::format("  d = {} block columns on the CPUs ({:.1f} %), panel on the {}\n", p.cpu_block_columns,
                               100 * r.cpu_fraction, to_string(panel_location(p)));
    // The deal only where there is one: with d every block column the devices are dealt nothing.
    if (p.target == Target::hybrid && p.device_shares.size() > 1 &&
        p.cpu_block_columns < block_columns(args->n, p.nb)) {
      std::string shares;
      for (std::size_t i = 0; i < p.device_shares.size(); ++i)
        shares += fmt::format("{}{} {:.1f} %", i ? ", " : "", to_string(p.devices.list[i]), 100 * p.device_shares[i]);
      std::cout << "  devices " << to_string(p.devices) << ": block columns right of d dealt " << shares << "\n";
    }
    if (p.predicted_seconds)
      std::cout << fmt::format("  predicted {:.4f} s{}\n", *p.predicted_seconds,
                               r.predicted_gflops ? fmt::format(", {:.1f} GFlop/s", *r.predicted_gflops) : "");
    std::cout << "  source: " << to_string(p.source) << " (" << detail::printable(p.source_detail) << ")\n";
    if (args->explain)
      for (const auto& line : r.explanation) std::cout << "  - " << detail::printable(line) << "\n";
  });
}

}  // namespace hetlu::cli
