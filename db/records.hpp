// What the database stores: machines by fingerprint, probe results, tuning trials and best plans.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"

namespace hetlu::db {

// ---- machines ------------------------------------------------------------------------------------

// The hard key decides whether stored rows apply to this machine: CPU model; package, core,
// thread and NUMA counts; each GPU's name, compute capability, SMs and memory; the BLAS library.
// Soft attributes (hostname, hetlu version) only mark rows stale.
struct Fingerprint {
  std::string hash;             // 16 hex digits of FNV-1a over hard_key
  std::string hard_key;         // JSON
  std::string soft_attributes;  // JSON
};

Fingerprint fingerprint(const MachineProfile& profile);
// The fingerprint a hard key (JSON text, its keys in any order: an export's) hashes to; empty where
// the text is not a hard key. Import and db check compare it with the fingerprint stored beside it.
std::string fingerprint_of_hard_key(const std::string& hard_key);

struct MachineRow {
  std::int64_t id = 0;
  Fingerprint fingerprint;
  std::string first_seen, last_seen;
};

// Inserts the machine or refreshes its soft attributes; returns its id.
std::int64_t ensure_machine(Database& db, const Fingerprint& fp);
std::optional<MachineRow> find_machine(Database& db, const std::string& hash);
std::vector<MachineRow> list_machines(Database& db);

// ---- probe results -------------------------------------------------------------------------------

// Stores the measured rates of the profile as a new probe run (one transaction), and deletes the
// probe rows of all but the newest kept_probe_runs runs (reference timings excepted).
inline constexpr int kept_probe_runs = 5;
void store_probe_results(Database& db, std::int64_t machine_id, const MachineProfile& profile);
// A reference timing (e.g. "openblas_dgetrf" at n, on cpu_threads: the report sets a tuned plan
// against the reference of its own threads), stored with the newest probe run.
void store_reference(Database& db, std::int64_t machine_id, const std::string& name, int n, double seconds,
                     double gflops, int cpu_threads);
// The refinement steps a mixed-precision plan took (MachineProfile::mixed_refinement_steps), stored
// with the newest probe run as a measurement "mixed_refinement_steps", detail "solver=S n=N".
void store_refinement_steps(Database& db, std::int64_t machine_id, Solver solver, int n, double steps);

// Fills the profile's rates with the newest stored ones; false when none are stored.
bool load_probe_rates(Database& db, std::int64_t machine_id, MachineProfile& profile);

// The backend column of trials and best plans: the hybrid target's device set ("cuda", "cuda,host:4"), empty for the
// CPU.
std::string backend_column(const Plan& plan);
// Sets plan.devices from a stored backend column (nothing for an empty one).
void read_backend_column(const std::string& text, Plan& plan);

// ---- trials --------------------------------------------------------------------------------------

enum class TrialStatus { ok, noisy, failed };
std::string to_string(TrialStatus status);
TrialStatus trial_status_from_string(const std::string& text);

struct Trial {
  std::int64_t id = 0;
  std::int64_t machine_id = 0;
  CalibrationLevel level = CalibrationLevel::quick;
  Plan plan;  // solver, precision, target and the tuned parameters
  int m = 0, n = 0;
  // The CPU threads its solve ran on (backends::cpu_threads_here at the calibration), part of the
  // key: 0 for a trial stored before schema 6, which kept none.
  int cpu_threads = 0;
  TrialStatus status = TrialStatus::ok;
  std::string error;  // why a failed trial failed
  // For a failure the environment caused (out of memory, say): the environment it ran under, as
  // tuner::environment describes it; empty for a success and for a failure of the configuration.
  std::string environment;
  int repetitions = 0;
  std::optional<double> median_s, min_s, spread, gflops, predicted_s;
  std::vector<double> samples;
  std::string measured_at;
};

// Stores one trial in its own transaction: a killed calibration loses at most the trial in hand.
// Throws when a trial with the same key is already stored.
std::int64_t insert_trial(Database& db, const Trial& trial);
// Stores a measured trial and returns what is stored under its key afterwards: this trial; or, when
// another process stored a successful one first, that one (never measured twice over); a stored
// failure is replaced.
Trial store_trial(Database& db, const Trial& trial);
// The stored trial with the same machine, level, problem and parameters, if any.
std::optional<Trial> find_trial(Database& db, const Trial& key);
// Trials of one problem (kind's solver, precision, target and backend) at one level, timed on
// cpu_threads, oldest first.
std::vector<Trial> list_trials(Database& db, std::int64_t machine_id, const Plan& kind, int m, int n,
                               CalibrationLevel level, int cpu_threads);
std::int64_t count_trials(Database& db);

// ---- best plans ----------------------------------------------------------------------------------

struct BestPlan {
  std::int64_t machine_id = 0;
  Plan plan;
  int m = 0, n = 0;
  int cpu_threads = 0;  // as its trial's: part of the key; 0 before schema 6 (not recorded)
  CalibrationLevel level = CalibrationLevel::quick;
  double median_s = 0, gflops = 0;
  std::optional<double> predicted_s;
  std::int64_t trial_id = 0;
  std::string updated_at;
};

// Stores the best plan of one problem, unless a row from a higher level is already there.
void upsert_best_plan(Database& db, const BestPlan& best);
std::vector<BestPlan> list_best_plans(Database& db);

struct Lookup {
  std::optional<BestPlan> best;  // empty: a miss
  bool exact = false;
  // Hybrid: the block columns that best->plan's d is a share of, as tuned (N at the tuned size and
  // width). resolve_plan carries the share to the problem asked; the database stores d as measured.
  int tuned_block_columns = 0;
  std::string detail;                     // what answered, or why nothing did
  std::vector<std::string> invalid_rows;  // rows skipped as invalid (the first bad value of each)
};

// Every best_plans row that a look-up would skip as invalid, described (db check, import).
std::vector<std::string> invalid_best_plans(Database& db);
// Deletes those rows (keep_only_valid_rows); returns how many.
std::int64_t delete_invalid_best_plans(Database& db);

// Rows of machines, trials, probe_results, best_plans and the distributed tables whose values have
// the wrong type or range (a text time, a real count, an unknown solver, a bad date, attributes that
// are not a JSON object), described: up to 20 per table (db check, import, export).
std::vector<std::string> invalid_rows(Database& db);

// Deletes every row invalid_rows or invalid_best_plans would find (every one invalid_values names,
// and those past its 20 a table), foreign keys unchecked: for a copy that is only read (hetlu report
// draws what a look-up would use, not what db check lists).
std::int64_t keep_only_valid_rows(Database& copy);  // returns how many rows went

// The first row of `table` after `rowid` that invalid_rows would find, with its wrong fields as
// "a, b" (an import names a bad row by its place in the file: one query a table, not one a row).
// `rows_in` (default: the table itself) holds the rows judged by the table's rules: a scratch
// table of its columns.
struct InvalidRow {
  std::int64_t rowid;
  std::string fields;
};
std::optional<InvalidRow> first_invalid_after(Database& db, const std::string& table, std::int64_t rowid,
                                              const std::string& rows_in = "");

// Stored texts that are not valid UTF-8 (a flipped byte) or that hold a control character other
// than a tab or line feed (a hand edit: ESC or U+009B would reach a terminal), described by table,
// row and column: up to 20 per column (db check).
std::vector<std::string> texts_not_printable(Database& db);

// The columns a best plan shares with the trial it came from, which together name that trial: an
// import finds a plan's trial by them, and db check names a plan that no longer matches its own.
inline constexpr const char* plan_trial_key_columns[] = {
    "machine_id", "level", "solver", "precision",         "target",        "backend",  "cpu_threads", "m",
    "n",          "nb",    "ib",     "cpu_block_columns", "panel_threads", "lookahead"};

// The SQL condition a trials row meets when its values are of the right types and ranges (what
// invalid_rows checks): find_trial and list_trials see only such rows, and store_trial replaces
// a row that does not, so a damaged trial is measured again rather than read.
const std::string& valid_trial_condition();

// The SQL condition a probe_results row meets when its values are of the right types and ranges:
// the model reads only such rows (a hand edit or an older import may hold others; db check lists them).
const std::string& valid_probe_condition();

// The best plan for this machine and problem from rows at min_level or higher: the exact size;
// else, for a square problem between two tuned square sizes, nb interpolated geometrically between
// them; else the nearest tuned size within a factor of 2 in m and in n.
// kind: the solver, precision, target and (hybrid) backend asked for. Only rows tuned on
// cpu_threads answer (a plan's measured time and nb are its threads'); where none of them answers
// (none valid at the level, or none near the size), the rows from before schema 6, which recorded
// no count, answer as they did then.
Lookup lookup_best_plan(Database& db, std::int64_t machine_id, const Plan& kind, int m, int n,
                        CalibrationLevel min_level, int cpu_threads);

}  // namespace hetlu::db

namespace hetlu::db {

struct CheckReport {
  std::vector<std::string> problems;  // empty: the database is sound
  int schema_version = 0;
  std::int64_t machines = 0, probe_results = 0, trials = 0, best_plans = 0;
};

// PRAGMA integrity_check and foreign_key_check, the schema version, and the row counts.
CheckReport check(Database& db);

// Every row of a value of the wrong type or range (invalid_best_plans, then invalid_rows), each said
// once: what keep_only_valid_rows deletes.
std::vector<std::string> invalid_values(Database& db);

// Deletes everything stored for the machine with this fingerprint, in one transaction; returns
// how many rows went (0 when the fingerprint is unknown).
std::int64_t forget_machine(Database& db, const std::string& fingerprint);

}  // namespace hetlu::db
