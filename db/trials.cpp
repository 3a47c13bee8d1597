#include <nlohmann/json.hpp>

#include "db/records.hpp"
#include "hetlu/detail/utf8.hpp"

namespace hetlu::db {

namespace {
// The one name table of TrialStatus, as every enum of hetlu has (hetlu/types.hpp).
constexpr hetlu::detail::EnumNames<TrialStatus, 3> trial_status_names{
    "trial status", {{{TrialStatus::ok, "ok"}, {TrialStatus::noisy, "noisy"}, {TrialStatus::failed, "failed"}}}};
}  // namespace

std::string backend_column(const Plan& plan) {
  return plan.target == Target::hybrid ? to_string(plan.devices) : std::string();
}

void read_backend_column(const std::string& text, Plan& plan) {
  if (text.empty()) return;
  try {
    plan.devices = from_string<DeviceSet>(text);
  } catch (const InvalidArgument& e) {
    throw DatabaseError(e.what());
  }
}

std::string to_string(TrialStatus status) {
  return std::string(trial_status_names.to_string(status));
}

TrialStatus trial_status_from_string(const std::string& text) {
  try {
    return trial_status_names.from_string(text);
  } catch (const InvalidArgument& e) {
    throw DatabaseError(e.what());  // read from the file: the database is what is wrong
  }
}

namespace {

constexpr const char* trial_columns =
    "SELECT id, machine_id, level, solver, precision, target, m, n, nb, ib, cpu_block_columns, "
    "panel_threads, lookahead, status, error, repetitions, median_s, min_s, spread, gflops, "
    "predicted_s, samples, measured_at, backend, environment, cpu_threads FROM trials";

// The columns that identify a configuration, bound at ?1 .. ?12, ?22 (the backend) and ?24 (the
// CPU threads).
constexpr const char* trial_key_where =
    " WHERE machine_id = ?1 AND level = ?2 AND solver = ?3 AND precision = ?4 AND target = ?5 "
    "AND m = ?6 AND n = ?7 AND nb = ?8 AND ib = ?9 AND cpu_block_columns = ?10 "
    "AND panel_threads = ?11 AND lookahead = ?12 AND backend = ?22 AND cpu_threads = ?24";

void bind_key(Statement& s, const Trial& t) {
  s.bind(1, t.machine_id)
      .bind(2, to_string(t.level))
      .bind(3, to_string(t.plan.solver))
      .bind(4, to_string(t.plan.precision))
      .bind(5, to_string(t.plan.target))
      .bind(6, t.m)
      .bind(7, t.n)
      .bind(8, t.plan.nb)
      .bind(9, t.plan.ib)
      .bind(10, t.plan.cpu_block_columns)
      .bind(11, t.plan.panel_threads)
      .bind(12, t.plan.lookahead)
      .bind(22, backend_column(t.plan))
      .bind(24, t.cpu_threads);
}

Trial read_trial(Statement& s) {
  Trial t;
  t.id = s.column_int(0);
  t.machine_id = s.column_int(1);
  t.level = from_string<CalibrationLevel>(s.column_text(2));
  t.plan.solver = from_string<Solver>(s.column_text(3));
  t.plan.precision = from_string<Precision>(s.column_text(4));
  t.plan.target = from_string<Target>(s.column_text(5));
  t.m = static_cast<int>(s.column_int(6));
  t.n = static_cast<int>(s.column_int(7));
  t.plan.nb = static_cast<int>(s.column_int(8));
  t.plan.ib = static_cast<int>(s.column_int(9));
  t.plan.cpu_block_columns = static_cast<int>(s.column_int(10));
  t.plan.panel_threads = static_cast<int>(s.column_int(11));
  t.plan.lookahead = static_cast<int>(s.column_int(12));
  t.status = trial_status_from_string(s.column_text(13));
  t.error = s.column_text(14);
  t.repetitions = static_cast<int>(s.column_int(15));
  t.median_s = s.column_optional_double(16);
  t.min_s = s.column_optional_double(17);
  t.spread = s.column_optional_double(18);
  t.gflops = s.column_optional_double(19);
  t.predicted_s = s.column_optional_double(20);
  t.samples = nlohmann::json::parse(s.column_text(21)).get<std::vector<double>>();
  t.measured_at = s.column_text(22);
  read_backend_column(s.column_text(23), t.plan);
  t.environment = s.column_text(24);
  t.cpu_threads = static_cast<int>(s.column_int(25));
  return t;
}

// The row of key's configuration; with valid_only, none unless it meets valid_trial_condition.
std::optional<Trial> find_stored_trial(Database& db, const Trial& key, bool valid_only) {
  auto s = db.prepare(std::string(trial_columns) + trial_key_where +
                      (valid_only ? " AND (" + valid_trial_condition() + ")" : std::string()));
  bind_key(s, key);
  if (!s.step()) return std::nullopt;
  return read_trial(s);
}

// The INSERT of a trial; `on_conflict` decides what a stored trial with the same key becomes.
void run_insert(Database& db, const Trial& t, const std::string& on_conflict) {
  auto s = db.prepare(
      "INSERT INTO trials (machine_id, level, solver, precision, target, m, n, nb, ib, "
      "cpu_block_columns, panel_threads, lookahead, status, error, repetitions, median_s, min_s, "
      "spread, gflops, predicted_s, samples, backend, environment, cpu_threads) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
      "?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)" +
      on_conflict);
  bind_key(s, t);
  s.bind(13, to_string(t.status))
      .bind(14, detail::printable(t.error))  // a driver's message may hold ESC or CR: stored as shown
      .bind(15, t.repetitions)
      .bind(16, t.median_s)
      .bind(17, t.min_s)
      .bind(18, t.spread)
      .bind(19, t.gflops)
      .bind(20, t.predicted_s)
      .bind(21, nlohmann::json(t.samples).dump())
      .bind(23, t.environment);
  s.run();
}

}  // namespace

std::int64_t insert_trial(Database& db, const Trial& t) {
  std::int64_t id = 0;
  db.transaction([&] {
    run_insert(db, t, "");
    id = db.last_insert_id();
  });
  return id;
}

Trial store_trial(Database& db, const Trial& t) {
  std::optional<Trial> stored;
  db.transaction([&] {
    // A failure is replaced by whatever was measured since, and so is a damaged row (a NULL or
    // text time: the tuner had read it as a measurement); a success is never replaced.
    run_insert(db, t,
               " ON CONFLICT DO UPDATE SET status = excluded.status, error = excluded.error, "
               "repetitions = excluded.repetitions, median_s = excluded.median_s, min_s = excluded.min_s, "
               "spread = excluded.spread, gflops = excluded.gflops, predicted_s = excluded.predicted_s, "
               "samples = excluded.samples, environment = excluded.environment, measured_at = datetime('now') "
               "WHERE trials.status = 'failed' OR NOT (" +
                   valid_trial_condition() + ")");
    stored = find_stored_trial(db, t, false);  // what was stored, whatever its values
  });
  if (!stored) throw DatabaseError("trial not found right after it was stored");
  return *stored;
}

std::optional<Trial> find_trial(Database& db, const Trial& key) {
  return find_stored_trial(db, key, true);
}

std::vector<Trial> list_trials(Database& db, std::int64_t machine_id, const Plan& kind, int m, int n,
                               CalibrationLevel level, int cpu_threads) {
  auto s = db.prepare(std::string(trial_columns) +
                      " WHERE machine_id = ?1 AND level = ?2 AND solver = ?3 AND precision = ?4 "
                      "AND target = ?5 AND m = ?6 AND n = ?7 AND backend = ?8 AND cpu_threads = ?9 AND (" +
                      valid_trial_condition() + ") ORDER BY id");
  s.bind(1, machine_id)
      .bind(2, to_string(level))
      .bind(3, to_string(kind.solver))
      .bind(4, to_string(kind.precision))
      .bind(5, to_string(kind.target))
      .bind(6, m)
      .bind(7, n)
      .bind(8, backend_column(kind))
      .bind(9, cpu_threads);
  std::vector<Trial> trials;
  while (s.step()) trials.push_back(read_trial(s));
  return trials;
}

std::int64_t count_trials(Database& db) {
  auto s = db.prepare("SELECT count(*) FROM trials");
  s.step();
  return s.column_int(0);
}

}  // namespace hetlu::db
