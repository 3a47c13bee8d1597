// The one place a distributed plan is resolved (#18): the caller's fields, then the database's
// tuned configuration, the model, the defaults.
#include <algorithm>
#include <cstdio>

#include "configs/configs.hpp"
#include "db/distributed.hpp"
#include "hetlu/detail/bytes.hpp"
#include "hetlu/distributed_plan.hpp"
#include "hetlu/hetlu.hpp"
#include "model/distributed.hpp"
#include "model/predict.hpp"

namespace hetlu::distributed {
namespace {

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

// The model's reasoning and terms, as --explain prints them.
void explain(const model::DistributedPrediction& priced, std::vector<std::string>& explanation) {
  explanation = priced.reasoning;
  for (const auto& term : priced.terms) explanation.push_back(term.name + ": " + fixed(term.seconds, 4) + " s");
}

// The plan's bytes a node, and a warning where the node's memory cannot hold them.
void note_memory(const model::DistributedProblem& problem, const model::DistributedPrediction& priced,
                 long long node_memory, DistributedResolution& r) {
  r.bytes_per_node = priced.bytes_per_node;
  r.fits_memory = priced.fits_memory;
  if (priced.fits_memory && !*priced.fits_memory)
    r.warnings.push_back(
        model::memory_warning(problem, priced, "this node's " + detail::readable_bytes(double(node_memory))));
}

void check_layout(const RankLayout& layout) {
  if (layout.ranks < 1) throw InvalidArgument("distributed: " + std::to_string(layout.ranks) + " ranks");
  if (layout.ranks_per_node < 1 || layout.ranks_per_node > layout.ranks)
    throw InvalidArgument("distributed: " + std::to_string(layout.ranks_per_node) + " ranks per node with " +
                          std::to_string(layout.ranks) + " ranks");
}

void check_given(const DistributedPlan& given) {
  if (given.nb < 0) throw InvalidArgument("distributed: nb = " + std::to_string(given.nb) + " must be >= 1");
  if (given.threads_per_rank < 0)
    throw InvalidArgument("distributed: threads per rank = " + std::to_string(given.threads_per_rank) +
                          " must be >= 1");
  if (given.threads_per_rank > most_threads)
    throw InvalidArgument("distributed: threads per rank = " + std::to_string(given.threads_per_rank) +
                          " is more than any node has");
}

// The tuned configuration of this machine, or nothing (why in `why`); fills the profile's measured
// rates and the layout's network when the database has them.
std::optional<DistributedPlan> tuned(Precision precision, int n, const RankLayout& layout, const std::string& db_path,
                                     MachineProfile& profile, std::optional<NetworkProfile>& network, std::string& why,
                                     std::vector<std::string>& warnings) {
  try {
    const std::string path = db::path_or_default(db_path);
    auto database = db::Database::open(path, db::Database::Mode::read_only);
    const auto machine = db::find_machine(database, db::fingerprint(profile).hash);
    if (!machine) {
      why = "database '" + path + "' has no calibration of this machine";
      return std::nullopt;
    }
    db::load_probe_rates(database, machine->id, profile);
    network = db::load_network_profile(database, machine->id, layout);
    const auto found = db::lookup_distributed_plan(database, machine->id, precision, layout, n);
    if (found.skipped_rows)
      warnings.push_back("database '" + path + "': skipped " + std::to_string(found.skipped_rows) +
                         " invalid distributed_trials row(s) (run `hetlu db check`)");
    if (!found.best) {
      why = found.detail;
      return std::nullopt;
    }
    DistributedPlan plan = found.best->plan;
    plan.source = PlanSource::tuned;
    plan.source_detail = found.detail;
    return plan;
  } catch (const db::DatabaseError& e) {  // missing, unreadable or corrupt: a miss, never a failed solve
    why = e.what();
    if (std::string(e.what()).find("no database at") == std::string::npos) warnings.push_back(e.what());
  } catch (const std::exception& e) {
    why = std::string("unusable database entry: ") + e.what();
    warnings.push_back(why);
  }
  return std::nullopt;
}

}  // namespace

void complete_grid(DistributedPlan& p, int ranks) {
  if (ranks < 1) throw InvalidArgument("distributed: " + std::to_string(ranks) + " ranks");
  if (p.grid_rows < 0 || p.grid_cols < 0)
    throw InvalidArgument("distributed: the grid " + std::to_string(p.grid_rows) + " x " + std::to_string(p.grid_cols) +
                          " must be positive");
  if (p.grid_rows == 0 && p.grid_cols == 0) {
    squarest_grid(ranks, p.grid_rows, p.grid_cols);
  } else if (p.grid_rows == 0 || p.grid_cols == 0) {
    const int given = std::max(p.grid_rows, p.grid_cols);
    if (ranks % given != 0)
      throw InvalidArgument("distributed: " + std::to_string(ranks) + " ranks do not divide into a grid with " +
                            std::to_string(given) + (p.grid_rows ? " rows" : " columns"));
    (p.grid_rows ? p.grid_cols : p.grid_rows) = ranks / given;
  }
  if (static_cast<long long>(p.grid_rows) * p.grid_cols != ranks)
    throw InvalidArgument("distributed: the grid " + std::to_string(p.grid_rows) + " x " + std::to_string(p.grid_cols) +
                          " does not use the " + std::to_string(ranks) + " ranks");
}

DistributedResolution resolve_plan(const DistributedPlan& given, Precision precision, int n, const RankLayout& layout,
                                   const std::string& db_path) {
  check_layout(layout);
  check_given(given);
  if (precision == Precision::mixed) throw InvalidArgument("distributed: precision must be single or double");
  if (n < 0) throw InvalidArgument("distributed: n = " + std::to_string(n) + " must be >= 0");
  {  // a given grid that cannot be fails before any look-up
    DistributedPlan grid = given;
    complete_grid(grid, layout.ranks);
  }
  DistributedResolution r;
  MachineProfile profile = this_machine();
  std::optional<NetworkProfile> network;
  std::string why_not_tuned, why_not_model;
  const auto params = configs::model_params();
  std::optional<DistributedPlan> base =
      tuned(precision, n, layout, db_path, profile, network, why_not_tuned, r.warnings);
  r.network = network ? *network : model::default_network(layout, params);
  const model::DistributedProblem problem = model::problem_as_run_here(precision, n, layout);
  if (!base) try {
      base = model::predict_distributed(profile, r.network, problem, params).plan;
      base->source_detail = "model (" + why_not_tuned + ")";
    } catch (const Error& e) {
      why_not_model = e.what();
    }
  if (!base) {
    base = common_plan(layout.ranks, 0);
    base->source = PlanSource::default_;
    base->source_detail = "default (" + why_not_tuned + "; " + why_not_model + ")";
  }

  DistributedPlan plan = *base;
  std::vector<std::string> overridden;
  if (given.grid_rows || given.grid_cols) {
    plan.grid_rows = given.grid_rows, plan.grid_cols = given.grid_cols;
    overridden.push_back("grid");
  }
  if (given.nb) plan.nb = given.nb, overridden.push_back("nb");
  plan.nb = std::clamp(plan.nb, 1, std::max(1, n));  // from any source: a block wider than the matrix is the matrix
  if (given.threads_per_rank) plan.threads_per_rank = given.threads_per_rank, overridden.push_back("threads per rank");
  complete_grid(plan, layout.ranks);  // a given side completed, or the default's squarest grid
  if (!overridden.empty()) {
    std::string fields;
    for (const auto& f : overridden) fields += (fields.empty() ? "" : ", ") + f;
    plan.source_detail = "caller set " + fields + "; the rest from " + plan.source_detail;
    plan.source = PlanSource::override_;
  }
  // The model prices the plan as resolved, whatever chose it.
  plan.predicted_seconds.reset();
  if (plan.threads_per_rank > 0 && why_not_model.empty()) try {
      const auto priced = model::predict_distributed_seconds(profile, r.network, problem, plan, params);
      plan.predicted_seconds = priced.seconds;
      explain(priced, r.explanation);
      note_memory(problem, priced, profile.memory_bytes, r);
    } catch (const Error& e) {
      r.explanation.push_back(std::string("not priced: ") + e.what());
    }
  r.plan = plan;
  return r;
}

DistributedResolution price_resident(const DistributedPlan& plan, Precision precision, int n, const RankLayout& layout,
                                     const Device& device, const std::string& db_path) {
  check_layout(layout);
  DistributedResolution r;
  r.plan = plan;
  r.plan.predicted_seconds.reset();
  MachineProfile profile = this_machine();
  std::optional<NetworkProfile> network;
  std::string why_not_tuned;
  tuned(precision, n, layout, db_path, profile, network, why_not_tuned, r.warnings);  // the rates, the network
  const auto params = configs::model_params();
  r.network = network ? *network : model::default_network(layout, params);
  try {
    const MachineProfile node = model::with_devices(profile, DeviceSet(DeviceList{device}));
    const auto priced = model::predict_resident_seconds(profile, node, r.network,
                                                        model::problem_as_run_here(precision, n, layout), plan, params);
    r.plan.predicted_seconds = priced.seconds;
    explain(priced, r.explanation);
  } catch (const Error& e) {
    r.explanation.push_back(std::string("not priced: ") + e.what());
  }
  return r;
}

}  // namespace hetlu::distributed
