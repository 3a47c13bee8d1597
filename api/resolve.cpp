#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "api/front_end.hpp"
#include "api/small_path.hpp"
#include "configs/configs.hpp"
#include "db/records.hpp"
#include "hetlu/detail/cuda_tf32.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/detail/utf8.hpp"
#include "hetlu/hetlu.hpp"
#include "model/predict.hpp"
#include "probes/probes.hpp"
#include "solvers/backend.hpp"
#include "solvers/blas.hpp"

namespace hetlu {
namespace {

// A database another process keeps locked is left alone for a while: each look-up would wait out
// the busy timeout (5 s), and a program solving many shapes (SciPy's loop through the drop-in) took
// 5 s a new shape (found by a hostile test). Path -> when to try it again; guarded by its mutex.
constexpr double busy_database_pause_seconds = 60;
std::mutex busy_databases_mutex;
std::map<std::string, std::chrono::steady_clock::time_point> busy_databases;

bool database_paused(const std::string& path) {
  std::lock_guard lock(busy_databases_mutex);
  const auto it = busy_databases.find(path);
  return it != busy_databases.end() && std::chrono::steady_clock::now() < it->second;
}

void pause_database(const std::string& path) {
  std::lock_guard lock(busy_databases_mutex);
  busy_databases[path] =
      std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                             std::chrono::duration<double>(busy_database_pause_seconds));
}

// The tuned plan for this machine and the CPU threads its solve runs on, or nothing; explains a
// miss in `why`.
std::optional<Plan> tuned_plan(const Plan& kind, int m, int n, int cpu_threads, const Options& options,
                               MachineProfile& profile, std::string& why, std::vector<std::string>& warnings,
                               std::optional<double>* measured_seconds = nullptr) {
  if (!options.use_database) {
    why = "database not used";
    return std::nullopt;
  }
  std::string path;
  try {
    path = db::path_or_default(options.db_path);
    if (database_paused(path)) {
      why = "database '" + path + "' was locked by another process: not read again for " +
            std::to_string(static_cast<int>(busy_database_pause_seconds)) + " s";
      return std::nullopt;
    }
    auto database = db::Database::open(path, db::Database::Mode::read_only);
    const auto machine = db::find_machine(database, db::fingerprint(profile).hash);
    if (!machine) {
      why = db::list_machines(database).empty()
                ? "database '" + path + "' has no calibration yet"
                : "database '" + path + "' has entries for other machines only (fingerprint mismatch)";
      return std::nullopt;
    }
    db::load_probe_rates(database, machine->id, profile);  // measured rates feed the model on a miss
    const auto found = db::lookup_best_plan(database, machine->id, kind, m, n, options.min_level, cpu_threads);
    for (const auto& bad : found.invalid_rows) warnings.push_back("'" + path + "': skipped an invalid " + bad);
    if (!found.best) {
      why = found.detail;
      return std::nullopt;
    }
    Plan plan = found.best->plan;
    if (kind.target == Target::hybrid)  // tuned at another size or width: the same share of the block columns
      plan.cpu_block_columns =
          same_cpu_share(plan.cpu_block_columns, found.tuned_block_columns, block_columns(n, plan.nb));
    plan.source = PlanSource::tuned;
    plan.source_detail = found.detail;
    // Soft attributes (hostname, hetlu version) do not decide whether rows apply, but a change
    // means they were measured under other conditions: say so.
    const auto now = nlohmann::json::parse(db::fingerprint(profile).soft_attributes);
    // A damaged machine row is a miss, as a damaged plan is: said in words, not a parser's.
    const auto then = nlohmann::json::parse(machine->fingerprint.soft_attributes, nullptr, false);
    if (!then.is_object())
      throw db::DatabaseError("'" + path + "': machine " + machine->fingerprint.hash +
                              ": soft_attributes is not a JSON object (a damaged row: 'hetlu db check' lists it)");
    std::string changed;
    for (auto it = now.begin(); it != now.end(); ++it)
      if (!then.contains(it.key()) || then[it.key()] != it.value())
        changed += (changed.empty() ? "" : ", ") + it.key() + " was " +
                   (then.contains(it.key()) ? then[it.key()].dump() : "unknown") + ", now " + it.value().dump();
    if (!changed.empty()) {
      plan.source_detail += " [stale: " + changed + "]";
      warnings.push_back("tuned entries in '" + path + "' are stale (" + changed + "): run 'hetlu calibrate' again");
    }
    plan.predicted_seconds = found.best->predicted_s;
    if (measured_seconds && found.exact && found.best->m == m && found.best->n == n)
      *measured_seconds = found.best->median_s;
    return plan;
  } catch (const db::DatabaseBusy& e) {
    pause_database(path);
    why = e.what();
    warnings.push_back(std::string(e.what()) + "; the model answers, and the database is not read again for " +
                       std::to_string(static_cast<int>(busy_database_pause_seconds)) + " s");
    return std::nullopt;
  } catch (const db::DatabaseError& e) {
    // A missing, unreadable or corrupt database is a miss, never a failed solve.
    why = e.what();
    if (std::string(e.what()).find("no database at") == std::string::npos) warnings.push_back(e.what());
    return std::nullopt;
  } catch (const std::exception& e) {  // a damaged value (a machine's fingerprint that is not JSON, say)
    why = std::string("unusable database entry: ") + e.what();
    warnings.push_back(why);
    return std::nullopt;
  }
}

// The model's plan for this machine (measured rates when the database has them, else datasheet
// estimates); fills the explanation. Nothing when the profile has no rate at all.
std::optional<Plan> model_plan(Solver solver, Precision precision, Target target, int m, int n, int devices,
                               const MachineProfile& profile, std::string& why, Resolution& r) {
  try {
    const auto prediction =
        model::predict(profile, model::Problem{solver, precision, target, m, n, devices, detail::cuda_tf32_requested()},
                       configs::model_params());
    r.explanation = prediction.reasoning;
    r.cpu_fraction = prediction.d_fraction;
    if (prediction.faster_alone) r.warnings.push_back(model::faster_alone_note(prediction));
    return prediction.plan;
  } catch (const Error& e) {
    why = e.what();
    return std::nullopt;
  }
}

// The devices a hybrid plan runs on: the caller's, else a GPU when this build and machine have one,
// else the host backend.
DeviceSet devices_for(const Options& options) {
  return options.overrides.devices.value_or(default_devices());
}

// How many devices the model prices for a plan of this target.
int driven_devices(Target target, const DeviceSet& devices) {
  return target == Target::hybrid ? static_cast<int>(devices.size()) : 1;
}

// How a plan's source_detail begins once the caller set some of its fields; `rest` is where the
// others came from.
std::string overrides_said(const Plan& plan, PlanSource rest) {
  return "caller set " + overridden_fields(plan) + "; the rest from " + to_string(rest) + ": ";
}

void apply_overrides(Plan& plan, const PlanOverrides& o, int m, int n) {
  // Every interface's panel widths, checked here once: Python's nb = -1 reached PRBT's mixed path,
  // which clamps without checking, and failed only where the double solver had to answer.
  for (const auto& [value, name] : {std::pair{o.nb, "nb"}, std::pair{o.ib, "ib"}})
    if (value && *value < 1)
      throw InvalidArgument(std::string("override ") + name + " = " + std::to_string(*value) + " must be >= 1");
  auto take = [&](const std::optional<int>& value, int& field, const char* name) {
    if (!value) return;
    field = *value;
    plan.overridden.emplace_back(name);
  };
  take(o.nb, plan.nb, "nb");
  take(o.ib, plan.ib, "ib");
  take(o.cpu_block_columns, plan.cpu_block_columns, "cpu_block_columns");
  take(o.panel_threads, plan.panel_threads, "panel_threads");
  take(o.lookahead, plan.lookahead, "lookahead");
  if (o.refinement) {
    plan.refinement = *o.refinement;
    plan.overridden.emplace_back("refinement");
  }
  // The devices are not a tuned parameter: they chose which plan (tuned for them, or modelled) applies.
  if (o.devices) plan.devices = *o.devices;
  // d = 0 is the panel on the device, and only that: a caller's d and panel place must agree.
  if (o.panel_location) {
    const bool on_device = *o.panel_location == PanelLocation::device;
    if (o.cpu_block_columns && (*o.cpu_block_columns == 0) != on_device)
      throw InvalidArgument("overrides cpu_block_columns = " + std::to_string(*o.cpu_block_columns) +
                            " and panel_location = " + to_string(*o.panel_location) +
                            " contradict each other: d = 0 puts the panel on the device, any other d keeps it on "
                            "the CPUs");
    plan.cpu_block_columns = on_device ? 0 : std::max(1, plan.cpu_block_columns);
    plan.overridden.emplace_back("panel_location");
  }
  if (plan.overridden.empty()) return;
  clamp_blocks_to_matrix(plan, m, n);
  plan.source_detail = overrides_said(plan, plan.source) + plan.source_detail;
  plan.source_before_override = plan.source;
  plan.source = PlanSource::override_;
}

}  // namespace

void front_end::set_by_escalation(Plan& plan, const std::string& field, const std::string& by) {
  const auto named = std::find(plan.overridden.begin(), plan.overridden.end(), field);
  if (plan.source != PlanSource::override_ || named == plan.overridden.end()) return;
  const std::string said = overrides_said(plan, plan.source_before_override);
  if (plan.source_detail.compare(0, said.size(), said) != 0) return;  // not as apply_overrides wrote it
  const std::string rest = plan.source_detail.substr(said.size());
  plan.overridden.erase(named);
  if (plan.overridden.empty()) plan.source = plan.source_before_override;
  plan.source_detail = (plan.overridden.empty() ? "" : overrides_said(plan, plan.source_before_override)) + rest +
                       (rest.empty() ? "" : "; ") + field + " set by " + by;
}

const MachineProfile& this_machine() {
  static std::once_flag once;
  static MachineProfile profile;
  std::call_once(once, [] {
    profile = probes::topology();
    profile.gpus = probes::gpus(false).gpus;
  });
  return profile;
}

namespace {
// A resolution before overrides, and the machine as the model saw it (measured rates where the
// database has them; the host backend's team as the device), so that an overridden plan is priced
// by the same model: the tuner, --solver auto, bench and db show --accuracy read one prediction.
struct Resolved {
  Resolution resolution;
  std::shared_ptr<const MachineProfile> profile;  // shared: a look-up copies the entry, not the profile
};
std::mutex cache_mutex;
std::map<std::string, Resolved> cache;  // key: problem, database and level
// Entries kept at most (a few KB each): a caller of ever new shapes (a hostile tester's 40000 took
// 70 MB) starts the cache afresh rather than growing it without end.
constexpr std::size_t max_cached_plans = 4096;

Resolution resolve_uncached(Solver solver, Precision precision, Target target, int m, int n, const Options& options,
                            MachineProfile& profile) {
  Resolution r;
  profile = this_machine();
  std::string why_not_tuned, why_not_model;
  const DeviceSet devices = devices_for(options);
  const int driven = driven_devices(target, devices);
  Plan kind;
  kind.solver = solver;
  kind.precision = precision;
  kind.target = target;
  kind.devices = devices;
  // A solve's CPUs run on the calling thread's OpenMP threads (less the host teams'): tuned rows
  // answer for the threads they were timed on, and the model prices those, not every core (under
  // OMP_NUM_THREADS=1 or taskset -c 0 a 2-core machine's plans were priced on both cores).
  const int threads = backends::cpu_threads_here(target, devices);
  r.cpu_threads = threads;
  std::optional<Plan> plan =
      tuned_plan(kind, m, n, threads, options, profile, why_not_tuned, r.warnings, &r.measured_seconds);
  if (!plan && precision == Precision::mixed) {
    // Mixed precision runs the single factorization: its tuned parameters serve until mixed ones are stored.
    Plan single = kind;
    single.precision = Precision::single;
    std::string why_not_single;
    plan = tuned_plan(single, m, n, threads, options, profile, why_not_single, r.warnings);
    if (plan) plan->source_detail = "the single-precision factorization's: " + plan->source_detail;
  }
  // The machine as the plan's devices see it (a host backend: a team of its cores). A GPU the
  // probes did not find leaves the profile as it is: the model then says the device has no rate.
  if (target == Target::hybrid) {
    const int all_teams = 1 + backends::host_team_threads(devices);  // the CPUs' side keeps at least one
    if (devices.has(BackendKind::host) && all_teams > std::max(1, profile.cores))
      r.warnings.push_back("devices " + to_string(devices) + ": " + std::to_string(all_teams) + " threads on " +
                           std::to_string(profile.cores) +
                           " cores; oversubscribed teams run below the rate the model gives them");
    // A host team's "device memory" where $HETLU_HOST_BACKEND_MEMORY_MIB caps it: the model then
    // deals no team more than it holds. A bad value: said here, refused by a solve on the team.
    std::size_t host_memory = 0;
    if (devices.has(BackendKind::host)) try {
        host_memory = backends::host_backend_memory_limit();
      } catch (const InvalidArgument& e) {
        r.warnings.push_back(std::string(e.what()) + ": the model takes the host backend's memory as unlimited");
      }
    try {
      profile = model::with_devices(profile, backends::with_team_sizes(devices), host_memory);
    } catch (const InvalidArgument& e) {
      r.warnings.push_back(std::string("the model cannot price these devices: ") + e.what());
    }
  }
  const int cpu_cores = profile.cores;
  profile = model::with_threads(profile, threads);
  // The model is consulted either way: its reasoning explains a tuned plan too.
  std::optional<Plan> predicted = model_plan(solver, precision, target, m, n, driven, profile, why_not_model, r);
  if (threads < cpu_cores)
    r.explanation.push_back("this thread's solves run their CPUs' work on " + std::to_string(threads) + " of the " +
                            std::to_string(cpu_cores) +
                            " cores (OMP_NUM_THREADS, OMP_THREAD_LIMIT, OMP_MAX_ACTIVE_LEVELS, the caller's "
                            "parallel region or the affinity mask): priced on those, and tuned plans read for them");
  // The tuned plan keeps nb and d; with several devices the deal follows their measured rates, as
  // the model deals them (at d = 0 each device alone too), within their memory. Where the devices'
  // memory holds no deal of the tuned nb and d at this size (or no longer holds it: another cap of
  // the host teams' memory), the model's plan runs; the executor would leave it all to the CPUs.
  if (plan && predicted && target == Target::hybrid) {
    const model::Problem problem{solver, precision, target, m, n, driven, detail::cuda_tf32_requested()};
    if (auto deal = model::best_fitting_deal(profile, problem, *plan, configs::model_params())) {
      if (driven > 1) plan->device_shares = std::move(*deal);
    } else {
      r.explanation.push_back("the tuned plan (" + plan->source_detail + ", nb = " + std::to_string(plan->nb) +
                              ", d = " + std::to_string(plan->cpu_block_columns) +
                              ") leaves the devices more than their memory holds at this size: the model's plan "
                              "instead");
      plan.reset();
      why_not_tuned =
          "the tuned plan does not fit the devices' memory at " + std::to_string(m) + " x " + std::to_string(n);
      r.measured_seconds.reset();
    }
  }
  if (plan && predicted) {
    // The stored prediction was for the tuned size: predict this size with the tuned parameters.
    try {
      plan->predicted_seconds = model::predict_seconds(
          profile, model::Problem{solver, precision, target, m, n, driven, detail::cuda_tf32_requested()}, *plan,
          configs::model_params());
    } catch (const Error&) {
      plan->predicted_seconds.reset();
    }
    r.explanation.push_back("the database answered instead: " + plan->source_detail + ", nb = " +
                            std::to_string(plan->nb) + " (the model's nb = " + std::to_string(predicted->nb) + ")");
    if (target == Target::hybrid) {
      const int blocks = block_columns(n, plan->nb);
      r.cpu_fraction = blocks > 0 ? double(plan->cpu_block_columns) / blocks : 0;
      r.explanation.push_back("tuned d = " + std::to_string(plan->cpu_block_columns) + " block column(s) on the CPUs" +
                              (plan->cpu_block_columns == 0 ? " (everything, panels too, on the device)" : "") +
                              " (the model's d = " + std::to_string(predicted->cpu_block_columns) + ")");
    }
  }
  // A stored prediction is for the size (and precision) tuned: with no model to price this one,
  // none (a rate from it was another size's, up to 8x off).
  if (plan && !predicted && !r.measured_seconds) plan->predicted_seconds.reset();
  if (!plan && predicted) {
    plan = predicted;
    plan->source_detail += " (not tuned: " + why_not_tuned + ")";
  }
  if (!plan) {
    plan = Plan{};
    if (target == Target::hybrid) plan->cpu_block_columns = 1;  // the paper's schedule: the CPUs factor panels
    plan->source = PlanSource::default_;
    plan->source_detail = "built-in default (not tuned: " + why_not_tuned + "; no model: " + why_not_model + ")";
  }
  plan->solver = solver;
  plan->precision = precision;
  plan->target = target;
  plan->devices = devices;
  if (target == Target::hybrid) {
    std::string names;
    for (const auto& g : profile.gpus) names += (names.empty() ? "" : ", ") + g.name;
    r.explanation.insert(r.explanation.begin(),
                         (devices.size() > 1 ? "devices " : "backend ") + to_string(devices) +
                             (devices == BackendKind::host
                                  ? ": the device's part runs on a second team of this machine's cores (" + names + ")"
                              : devices == BackendKind::cuda ? std::string(": the GPU")
                                                             : ": " + names));
  }
  r.plan = std::move(*plan);
  return r;
}
}  // namespace

static std::map<std::string, SmallMatrixCrossover> crossovers;  // guarded by cache_mutex

std::string tuning_database_path(const Options& options) {
  if (!options.use_database) return "";
  try {
    return db::path_or_default(options.db_path);
  } catch (const db::DatabaseError&) {  // no $HETLU_DB, $XDG_DATA_HOME or $HOME
    return "";
  }
}

void clear_plan_cache() {
  {
    std::lock_guard lock(busy_databases_mutex);
    busy_databases.clear();
  }
  std::lock_guard lock(cache_mutex);
  cache.clear();
  crossovers.clear();
  detail::forget_default_crossover();
}

bool below_small_matrix_crossover(int m, int n, int below) {
  if (m == n) return n >= 0 && n < below;  // a square's work grows with n: the same test, on the hot path
  return below > 0 && m >= 0 && n >= 0 && detail::getrf_flops(m, n) < detail::getrf_flops(below, below);
}

bool small_path_getrs(int n, int nrhs, int below) {
  return nrhs > 0 && n >= 0 &&
         (below_small_matrix_crossover(n, n, below) || (nrhs == 1 && n < blas::blocked_one_column_order));
}

namespace {
// HETLU_SMALL_MATRIX_CROSSOVER, read once per process (a bad value said once): the order, or -1
// where it is unset or ignored.
int crossover_from_environment() {
  static const int order = [] {
    const char* text = std::getenv("HETLU_SMALL_MATRIX_CROSSOVER");
    if (!text || !*text) return -1;
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(text, &end, 10);
    if (*end == '\0' && errno == 0 && value >= 0 && value <= 1000000) return static_cast<int>(value);
    std::fprintf(stderr, "hetlu: HETLU_SMALL_MATRIX_CROSSOVER=%s is not an order from 0 to 1000000; ignored\n",
                 detail::printable_value(text).c_str());
    return -1;
  }();
  return order;
}
}  // namespace

SmallMatrixCrossover small_matrix_crossover(Precision precision, const Options& options) {
  // The environment first, for every interface alike: the drop-in's dsgesv_ read it and the front
  // end's small path did not, so that N above the database's crossover moved dgesv_ alone.
  if (const int order = crossover_from_environment(); order >= 0)
    return {order, PlanSource::override_, "HETLU_SMALL_MATRIX_CROSSOVER=" + std::to_string(order)};
  const std::string path = tuning_database_path(options);  // empty: no database, the default crossover
  const std::string key = to_string(precision) + "|" + path;
  {
    std::lock_guard lock(cache_mutex);
    if (auto hit = crossovers.find(key); hit != crossovers.end()) return hit->second;
  }
  SmallMatrixCrossover c{default_small_matrix_crossover, PlanSource::default_,
                         "default (no measured crossover for this machine: 'hetlu calibrate')"};
  bool busy = !path.empty() && database_paused(path);
  if (!path.empty() && !busy) {
    try {
      auto database = db::Database::open(path, db::Database::Mode::read_only);
      MachineProfile profile = this_machine();
      if (const auto machine = db::find_machine(database, db::fingerprint(profile).hash)) {
        db::load_probe_rates(database, machine->id, profile);
        const int measured =
            precision == Precision::double_ ? profile.getrf_crossover_double : profile.getrf_crossover_single;
        if (measured > 0) c = {measured, PlanSource::tuned, "measured by hetlu calibrate, in '" + path + "'"};
      }
    } catch (const db::DatabaseBusy&) {  // the default now, the database again once the pause ends
      pause_database(path);
      busy = true;
    } catch (const std::exception&) {  // a missing or damaged database: the default, as for plans
    }
  }
  if (busy) return c;  // not cached: the measured crossover once the database is free
  std::lock_guard lock(cache_mutex);
  return crossovers.emplace(key, c).first->second;
}

namespace {

// The host backend's memory cap as the environment gives it, part of a hybrid plan's cache key: the
// model deals the teams within it.
std::string host_memory_cap_text(Target target) {
  if (target != Target::hybrid) return "";
  const char* text = std::getenv("HETLU_HOST_BACKEND_MEMORY_MIB");
  return text ? text : "";
}

}  // namespace

Resolution resolve_plan(Solver solver, Precision precision, int m, int n, const Options& options) {
  const Target target = options.target;
  if (m < 0 || n < 0)
    throw InvalidArgument("problem size m = " + std::to_string(m) + ", n = " + std::to_string(n) + " must be >= 0");
  std::string db_key = "-";
  if (options.use_database) {
    try {
      db_key = db::path_or_default(options.db_path);
    } catch (const db::DatabaseError&) {
      db_key = "?";  // no default path: the uncached resolution reports it
    }
  }
  const std::string key = to_string(solver) + "|" + to_string(precision) + "|" + to_string(target) + "|" +
                          std::to_string(m) + "|" + std::to_string(n) + "|" + to_string(options.min_level) + "|" +
                          db_key + "|" + to_string(devices_for(options)) + "|" + host_memory_cap_text(target) + "|" +
                          std::to_string(backends::cpu_threads_here(target, devices_for(options)));
  std::optional<Resolved> entry;
  {
    std::lock_guard lock(cache_mutex);
    if (auto hit = cache.find(key); hit != cache.end()) entry = hit->second;
  }
  if (!entry) {
    auto profile = std::make_shared<MachineProfile>();
    entry.emplace();
    entry->resolution = resolve_uncached(solver, precision, target, m, n, options, *profile);
    entry->profile = std::move(profile);
    // Not kept while the database is paused for a lock: the tuned plan once it is free (a review
    // found every shape looked up in the pause on the model's plan for the life of the process).
    if (db_key == "-" || db_key == "?" || !database_paused(db_key)) {
      std::lock_guard lock(cache_mutex);
      if (cache.size() >= max_cached_plans) cache.clear();
      cache.emplace(key, *entry);
    }
  }
  Resolution& r = entry->resolution;
  // A plan tuned at another order may be wider than this matrix (nb = 8 said for n = 4): the widths
  // it runs with, as for the model's plans and the overrides.
  clamp_blocks_to_matrix(r.plan, m, n);
  apply_overrides(r.plan, options.overrides, m, n);
  if (!r.plan.overridden.empty()) r.measured_seconds.reset();  // measured for another plan
  if (!r.plan.overridden.empty() && r.plan.predicted_seconds) {
    // The caller changed the plan: its prediction is the model's for the plan that will run.
    try {
      r.plan.predicted_seconds =
          model::predict_seconds(*entry->profile,
                                 model::Problem{solver, precision, target, m, n, driven_devices(target, r.plan.devices),
                                                detail::cuda_tf32_requested()},
                                 r.plan, configs::model_params());
    } catch (const Error&) {
      r.plan.predicted_seconds.reset();
    }
  }
  // The rate of the plan that will run, from its own predicted time (a tuned plan's time was shown
  // beside the rate of the model's own plan: 0.0142 s and 52.2 GFlop/s at n = 1000, 46.9 in truth).
  r.predicted_gflops.reset();
  if (r.plan.predicted_seconds && *r.plan.predicted_seconds > 0)
    r.predicted_gflops = detail::gflops(detail::getrf_flops(m, n), *r.plan.predicted_seconds);
  return r;
}

Solver choose_solver(Precision precision, int m, int n, const Options& options, std::string* why) {
  Solver best = Solver::gepp;
  double best_seconds = std::numeric_limits<double>::infinity();
  std::string summary;
  for (Solver s : {Solver::gepp, Solver::calu, Solver::prbt}) {
    if (s == Solver::prbt && m != n) continue;  // PRBT solves square systems only
    const Plan p = resolve_plan(s, precision, m, n, options).plan;
    const double t = p.predicted_seconds.value_or(std::numeric_limits<double>::infinity());
    summary += (summary.empty() ? "" : ", ") + to_string(s) + " " +
               (p.predicted_seconds ? std::to_string(t).substr(0, 8) + " s" : "no prediction");
    if (t < best_seconds) best_seconds = t, best = s;
  }
  if (why) *why = "auto chose " + to_string(best) + ", the least predicted time (" + summary + ")";
  return best;
}

}  // namespace hetlu
