// Rows checked by type and range in SQL, so that what an import or a hand edit put in the file
// (a text where a time belongs, a real where a count does, an unknown solver) is found before a
// look-up, the tuner or the model reads it.
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "db/distributed.hpp"
#include "db/records.hpp"
#include "hetlu/detail/plausible.hpp"
#include "hetlu/detail/utf8.hpp"

namespace hetlu::db {
namespace {

std::string fmt_real(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

std::string one_of(const std::vector<std::string>& names, bool empty_too = false) {
  std::string list = empty_too ? "''" : "";
  for (const auto& n : names) list += (list.empty() ? "'" : ", '") + n + "'";
  return "IN (" + list + ")";
}

// An integer in [low, high] (by default up to INT_MAX: every count is read into an int).
std::string whole(const char* column, long long low, long long high = std::numeric_limits<int>::max()) {
  return std::string("(typeof(") + column + ") = 'integer' AND " + column + " BETWEEN " + std::to_string(low) +
         " AND " + std::to_string(high) + ")";
}

// A real in [low, high].
std::string real_between(const char* column, double low, double high) {
  return std::string("(typeof(") + column + ") = 'real' AND " + column + " BETWEEN " + fmt_real(low) + " AND " +
         fmt_real(high) + ")";
}

// A finite real > 0 (or >= 0), or NULL where allowed. REAL columns store numbers as reals; SQLite
// keeps an infinity (1e999) as a real above every finite one (a best plan of Inf GFlop/s passed,
// and its export, as JSON null, could not be imported).
std::string real(const char* column, bool null_ok, bool zero_ok = false) {
  return std::string("((typeof(") + column + ") = 'real' AND " + column + (zero_ok ? " >= 0" : " > 0") + " AND " +
         column + " <= " + fmt_real(std::numeric_limits<double>::max()) + ")" +
         (null_ok ? std::string(" OR ") + column + " IS NULL" : "") + ")";
}

// One value's rule: the field it names (a column, or what several columns must meet together) and
// the SQL condition the row meets when that value is right.
struct Check {
  std::string field;
  std::string condition;
};
using Checks = std::vector<Check>;

Checks operator+(Checks a, const Checks& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The row meets every check.
std::string all_of(const Checks& checks) {
  std::string sql;
  for (const auto& c : checks) sql += (sql.empty() ? "(" : " AND (") + c.condition + ")";
  return sql;
}

// A text as an SQL literal.
std::string sql_text(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return quoted + "'";
}

// The fields whose checks the row fails, as one SQL text "a, b" (a NULL condition fails).
std::string failed_fields(const Checks& checks) {
  std::string sql;
  for (const auto& c : checks)
    sql += (sql.empty() ? "" : " || ") + std::string("CASE WHEN coalesce((") + c.condition + "), 0) THEN '' ELSE " +
           sql_text(c.field + ", ") + " END";
  return "rtrim(" + sql + ", ', ')";
}

Checks plan_checks() {
  return {{"solver", "solver " + one_of(detail::solver_names.all())},
          {"precision", "precision " + one_of(detail::precision_names.all())},
          {"target", "target " + one_of(detail::target_names.all())},
          {"level", "level " + one_of(detail::level_names.all())},
          {"backend",
           "typeof(backend) = 'text' AND backend NOT GLOB '*[^a-z0-9:,]*' AND "
           "(backend = '' OR backend GLOB 'host*' OR backend GLOB 'cuda*')"},
          {"m", whole("m", 1)},
          {"n", whole("n", 1)},
          {"nb", whole("nb", 1)},
          {"ib", whole("ib", 1)},
          {"cpu_block_columns", whole("cpu_block_columns", 0)},
          {"panel_threads", whole("panel_threads", 1, most_threads)},
          {"cpu_threads", whole("cpu_threads", 0, most_threads)},
          {"lookahead", whole("lookahead", 0, most_lookahead)},
          // The fields together, as the tuner's search space and clamp_blocks_to_matrix keep them: a
          // hand-edited nb = 1e9 was served as tuned, and an imported trial of nb = 999999 became
          // the best plan of the next calibration (a hostile helper's findings).
          {"nb (wider than the matrix)", "nb <= max(m, n)"},
          {"ib (wider than nb)", "solver <> 'calu' OR ib <= nb"},
          {"cpu_block_columns (more than the block columns)", "cpu_block_columns <= (n + nb - 1) / nb"}};
}

Check dated(const char* column) {
  return {column, std::string("datetime(") + column + ") IS NOT NULL"};
}

// Each table: its rows that break the rules, described by what identifies them.
struct Rule {
  const char* table;
  Checks checks;         // every row must meet them all
  const char* describe;  // SQL expression naming a row
};

// JSON text whose top level is of `type` (json_type of text that is not JSON raises an error, and
// SQLite need not test json_valid first).
std::string json_of_type(const char* column, const char* type) {
  return std::string("CASE WHEN json_valid(") + column + ") THEN json_type(" + column + ") = '" + type + "' ELSE 0 END";
}

// A JSON array of finite numbers only (a sample of "x" failed the tuner's read of the row; one of
// 1e999, which SQLite reads as infinity and the JSON library refuses, stopped every calibration).
std::string numbers_array(const char* column) {
  // json_each of text that is not JSON raises an error, and SQLite need not test json_valid first.
  return json_of_type(column, "array") + " AND NOT EXISTS (SELECT 1 " + "FROM json_each(CASE WHEN json_valid(" +
         column + ") THEN " + column +
         " ELSE '[]' END) WHERE json_each.type NOT IN ('integer', 'real') OR abs(json_each.value) > " +
         fmt_real(std::numeric_limits<double>::max()) + ")";
}

Checks trial_checks() {
  return plan_checks() +
         Checks{{"status", "status " + one_of({"ok", "noisy", "failed"})},
                {"median_s/gflops (needed unless status is failed)",
                 "status = 'failed' OR (" + real("median_s", false) + " AND " + real("gflops", false) + ")"},
                {"median_s", real("median_s", true)},
                {"min_s", real("min_s", true)},
                {"spread", real("spread", true, true)},
                {"gflops", real("gflops", true)},
                {"predicted_s", real("predicted_s", true)},
                {"repetitions", whole("repetitions", 0)},
                {"samples", numbers_array("samples")},
                dated("measured_at"),
                {"error", "typeof(error) = 'text'"},
                {"environment", "typeof(environment) = 'text'"}};
}

// A rate (GFlop/s, GB/s, Gentries/s) is 0 (not measured) or plausible, as a machine file's rates
// are; every value is at most the plausible ceiling: an import of rates of 1e-300 and 1e300 passed,
// and the model priced plans at 300-digit times and "inf GFlop/s".
Checks probe_checks() {
  return {{"name", "typeof(name) = 'text' AND name != ''"},
          {"value", real("value", false, true) + " AND value <= " + fmt_real(detail::most_plausible_value) +
                        " AND (value = 0 OR value >= " + fmt_real(detail::least_plausible_rate) + " OR unit NOT " +
                        one_of({"GFlop/s", "GB/s", "Gentries/s"}) + ")"},
          // The CPUs' rates every probe run measures: 0 is no "not measured" there (a run of zeros,
          // imported, hid the measured one and sent the model to the datasheet; a hostile helper's finding).
          {"value (a rate every probe run measures)",
           "name NOT " +
               one_of({"dgemm_one_core", "dgemm_all_cores", "sgemm_one_core", "sgemm_all_cores", "triad_bandwidth",
                       "panel_gepp", "panel_tslu", "panel_tslu_leaf"}) +
               " OR value > 0"},
          {"spread", real("spread", false, true)},
          {"unit", "typeof(unit) = 'text'"},
          {"detail", "typeof(detail) = 'text'"},
          {"run", whole("run", 0)},
          dated("measured_at")};
}

Checks rank_checks() {
  return {{"ranks", whole("ranks", 1)},
          {"ranks_per_node", whole("ranks_per_node", 1)},
          {"ranks_per_node (more than ranks)", "ranks_per_node <= ranks"}};
}

std::vector<Rule> rules() {
  return {
      {"trials", trial_checks(), "'trials row ' || id || ' (' || solver || ', n = ' || n || ', nb = ' || nb || ')'"},
      {"machines",
       {{"hard_key", json_of_type("hard_key", "object")},
        {"soft_attributes", json_of_type("soft_attributes", "object")},
        dated("first_seen"),
        dated("last_seen")},
       "'machine ' || fingerprint"},
      {"probe_results", probe_checks(), "'probe_results row ' || id || ' (' || name || ')'"},
      {"best_plans",
       plan_checks() + Checks{{"median_s", real("median_s", false)},
                              {"gflops", real("gflops", false)},
                              {"predicted_s", real("predicted_s", true)},
                              dated("updated_at")},
       "'best_plans row (' || solver || ' ' || precision || ' ' || target || CASE backend WHEN '' THEN '' ELSE ' ' || "
       "backend END || CASE cpu_threads WHEN 0 THEN '' ELSE ' on ' || cpu_threads || ' CPU threads' END || "
       "', m = ' || m || ', n = ' || n || ')'"},
      {"network_probes",
       rank_checks() +
           Checks{{"latency_s", real_between("latency_s", 0, most_network_latency_s)},
                  {"broadcast_latency_s", real_between("broadcast_latency_s", 0, most_network_latency_s)},
                  {"bandwidth_bps",
                   real_between("bandwidth_bps", least_network_bandwidth_bps, most_network_bandwidth_bps)},
                  {"broadcast_bandwidth_bps",
                   real_between("broadcast_bandwidth_bps", least_network_bandwidth_bps, most_network_bandwidth_bps)},
                  dated("measured_at")},
       "'network_probes row (' || ranks || ' ranks, ' || ranks_per_node || ' per node)'"},
      {"distributed_trials",
       rank_checks() +
           Checks{{"precision", "precision " + one_of(detail::precision_names.all())},
                  {"n", whole("n", 1)},
                  {"nb", whole("nb", 1)},
                  {"grid_rows", whole("grid_rows", 1)},
                  {"grid_cols", whole("grid_cols", 1)},
                  {"grid_rows x grid_cols (not ranks)", "grid_rows * grid_cols = ranks"},
                  {"threads_per_rank", whole("threads_per_rank", 1, most_threads)},
                  {"status", "status " + one_of({"ok", "noisy", "failed"})},
                  {"median_s (needed unless status is failed)", "status = 'failed' OR " + real("median_s", false)},
                  {"median_s", real("median_s", true)},
                  {"predicted_s", real("predicted_s", true)},
                  {"repetitions", whole("repetitions", 0)},
                  {"samples", numbers_array("samples")},
                  dated("measured_at")},
       "'distributed_trials row ' || id || ' (' || ranks || ' ranks, n = ' || n || ', nb = ' || nb || ')'"},
  };
}

}  // namespace

std::vector<std::string> texts_not_printable(Database& db) {
  std::vector<std::string> found;
  std::vector<std::string> tables;
  for (auto s = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
       s.step();)
    tables.push_back(s.column_text(0));
  for (const auto& table : tables) {
    std::vector<std::string> columns;
    auto names = db.prepare("SELECT name FROM pragma_table_info(?1)");
    for (names.bind(1, table); names.step();) columns.push_back(names.column_text(0));
    for (const auto& column : columns) {
      const std::string quoted = "\"" + column + "\"";
      // A blob has no place in hetlu's schema (every column is a text or a number): an edited row,
      // which column_text would print as a text.
      auto s = db.prepare("SELECT rowid, " + quoted + ", typeof(" + quoted + ") = 'blob' FROM \"" + table +
                          "\" WHERE typeof(" + quoted + ") IN ('text', 'blob')");
      int in_column = 0;
      while (s.step() && in_column < 20) {
        const std::string text = s.column_text(1);
        const char* problem = s.column_int(2) != 0     ? "is a blob where a text or a number belongs (an edited value)"
                              : !detail::is_utf8(text) ? "is a text that is not valid UTF-8 (a damaged value)"
                              // hetlu writes none: a hand edit or an import
                              : detail::has_control_character(text, true)
                                  ? "holds a control character (a terminal would act on it where the text is shown)"
                                  : nullptr;
        if (!problem) continue;
        found.push_back(table + " row " + std::to_string(s.column_int(0)) + ": " + column + " " + problem);
        ++in_column;
      }
    }
  }
  return found;
}

const std::string& valid_trial_condition() {
  static const std::string condition = all_of(trial_checks());
  return condition;
}

const std::string& valid_probe_condition() {
  static const std::string condition = all_of(probe_checks());
  return condition;
}

std::optional<InvalidRow> first_invalid_after(Database& db, const std::string& table, std::int64_t rowid,
                                              const std::string& rows_in) {
  for (const auto& rule : rules()) {
    if (rule.table != table) continue;
    auto s = db.prepare("SELECT rowid, " + failed_fields(rule.checks) + " FROM " + (rows_in.empty() ? table : rows_in) +
                        " WHERE rowid > ?1 AND NOT coalesce(" + all_of(rule.checks) + ", 0) ORDER BY rowid LIMIT 1");
    s.bind(1, rowid);
    if (s.step()) return InvalidRow{s.column_int(0), s.column_text(1)};
    return std::nullopt;
  }
  return std::nullopt;
}

std::int64_t keep_only_valid_rows(Database& copy) {
  copy.exec("PRAGMA foreign_keys=OFF");  // a machine's rows may outlive it here: nobody writes a copy
  std::int64_t deleted = 0;
  for (const auto& rule : rules()) {
    copy.exec(std::string("DELETE FROM ") + rule.table + " WHERE NOT coalesce(" + all_of(rule.checks) + ", 0)");
    deleted += copy.changes();
  }
  return deleted + delete_invalid_best_plans(copy);  // what a look-up checks beyond the rules (a backend's devices)
}

std::vector<std::string> invalid_rows(Database& db) {
  std::vector<std::string> found;
  for (const auto& rule : rules()) {
    auto s = db.prepare(std::string("SELECT ") + rule.describe + ", rowid, " + failed_fields(rule.checks) + " FROM " +
                        rule.table + " WHERE NOT coalesce(" + all_of(rule.checks) + ", 0) LIMIT 20");
    // A row whose describing fields are NULL (a damaged file) is named by its table and row id.
    while (s.step())
      found.push_back(
          (s.column_text(0).empty() ? std::string(rule.table) + " row " + s.column_text(1) : s.column_text(0)) + ": " +
          s.column_text(2) + " of the wrong type or out of range");
  }
  return found;
}

}  // namespace hetlu::db
