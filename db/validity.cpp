// Rows checked by type and range in SQL, so that what an import or a hand edit put in the file
// (a text where a time belongs, a real where a count does, an unknown solver) is found before a
// look-up, the tuner or the model reads it.
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "db/distributed.hpp"
#include "db/records.hpp"
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

std::string plan_columns_valid() {
  return "solver " + one_of(detail::solver_names.all()) + " AND precision " + one_of(detail::precision_names.all()) +
         " AND target " + one_of(detail::target_names.all()) + " AND level " + one_of(detail::level_names.all()) +
         " AND typeof(backend) = 'text' AND backend NOT GLOB '*[^a-z0-9:,]*' AND " +
         "(backend = '' OR backend GLOB 'host*' OR backend GLOB 'cuda*') AND " + whole("m", 1) + " AND " +
         whole("n", 1) + " AND " + whole("nb", 1) + " AND " + whole("ib", 1) + " AND " + whole("cpu_block_columns", 0) +
         " AND " + whole("panel_threads", 1, 4096) + " AND " + whole("lookahead", 0);
}

// Each table: its rows that break the rules, described by what identifies them.
struct Rule {
  const char* table;
  std::string valid;     // SQL condition every row must meet
  const char* describe;  // SQL expression naming a row
};

// A JSON array of finite numbers only (a sample of "x" failed the tuner's read of the row; one of
// 1e999, which SQLite reads as infinity and the JSON library refuses, stopped every calibration).
std::string numbers_array(const char* column) {
  // json_each of text that is not JSON raises an error, and SQLite need not test json_valid first.
  return std::string("json_valid(") + column + ") AND json_type(" + column + ") = 'array' AND NOT EXISTS (SELECT 1 " +
         "FROM json_each(CASE WHEN json_valid(" + column + ") THEN " + column +
         " ELSE '[]' END) WHERE json_each.type NOT IN ('integer', 'real') OR abs(json_each.value) > " +
         fmt_real(std::numeric_limits<double>::max()) + ")";
}

std::vector<Rule> rules() {
  return {
      {"trials", valid_trial_condition(),
       "'trials row ' || id || ' (' || solver || ', n = ' || n || ', nb = ' || nb || ')'"},
      {"machines",
       "json_valid(hard_key) AND json_type(hard_key) = 'object' AND json_valid(soft_attributes) AND "
       "json_type(soft_attributes) = 'object' AND datetime(first_seen) IS NOT NULL AND datetime(last_seen) IS NOT "
       "NULL",
       "'machine ' || fingerprint"},
      {"probe_results",
       "typeof(name) = 'text' AND name != '' AND " + real("value", false, true) + " AND " +
           real("spread", false, true) + " AND typeof(unit) = 'text' AND typeof(detail) = 'text' AND " +
           whole("run", 0) + " AND datetime(measured_at) IS NOT NULL",
       "'probe_results row ' || id || ' (' || name || ')'"},
      {"best_plans",
       plan_columns_valid() + " AND " + real("median_s", false) + " AND " + real("gflops", false) + " AND " +
           real("predicted_s", true) + " AND datetime(updated_at) IS NOT NULL",
       "'best_plans row (' || solver || ' ' || precision || ' ' || target || CASE backend WHEN '' THEN '' ELSE ' ' || "
       "backend END || ', m = ' || m || ', n = ' || n || ')'"},
      {"network_probes",
       whole("ranks", 1) + " AND " + whole("ranks_per_node", 1) + " AND ranks_per_node <= ranks AND " +
           real_between("latency_s", 0, most_network_latency_s) + " AND " +
           real_between("broadcast_latency_s", 0, most_network_latency_s) + " AND " +
           real_between("bandwidth_bps", least_network_bandwidth_bps, most_network_bandwidth_bps) + " AND " +
           real_between("broadcast_bandwidth_bps", least_network_bandwidth_bps, most_network_bandwidth_bps) +
           " AND datetime(measured_at) IS NOT NULL",
       "'network_probes row (' || ranks || ' ranks, ' || ranks_per_node || ' per node)'"},
      {"distributed_trials",
       "precision " + one_of(detail::precision_names.all()) + " AND " + whole("ranks", 1) + " AND " +
           whole("ranks_per_node", 1) + " AND ranks_per_node <= ranks AND " + whole("n", 1) + " AND " + whole("nb", 1) +
           " AND " + whole("grid_rows", 1) + " AND " + whole("grid_cols", 1) +
           " AND grid_rows * grid_cols = ranks AND " + whole("threads_per_rank", 1, 4096) + " AND status " +
           one_of({"ok", "noisy", "failed"}) + " AND (status = 'failed' OR " + real("median_s", false) + ") AND " +
           real("median_s", true) + " AND " + real("predicted_s", true) + " AND " + whole("repetitions", 0) + " AND " +
           numbers_array("samples") + " AND datetime(measured_at) IS NOT NULL",
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
  static const std::string condition =
      plan_columns_valid() + " AND status " + one_of({"ok", "noisy", "failed"}) + " AND (status = 'failed' OR (" +
      real("median_s", false) + " AND " + real("gflops", false) + "))" + " AND " + real("median_s", true) + " AND " +
      real("min_s", true) + " AND " + real("spread", true, true) + " AND " + real("gflops", true) + " AND " +
      real("predicted_s", true) + " AND " + whole("repetitions", 0) + " AND " + numbers_array("samples") +
      " AND datetime(measured_at) IS NOT NULL AND typeof(error) = 'text' AND typeof(environment) = 'text'";
  return condition;
}

std::vector<std::string> invalid_rows(Database& db) {
  std::vector<std::string> found;
  for (const auto& rule : rules()) {
    auto s = db.prepare(std::string("SELECT ") + rule.describe + ", rowid FROM " + rule.table + " WHERE NOT (" +
                        rule.valid + ") LIMIT 20");
    // A row whose describing fields are NULL (a damaged file) is named by its table and row id.
    while (s.step())
      found.push_back(
          (s.column_text(0).empty() ? std::string(rule.table) + " row " + s.column_text(1) : s.column_text(0)) +
          ": a value of the wrong type or out of range");
  }
  return found;
}

}  // namespace hetlu::db
