#include <algorithm>
#include <nlohmann/json.hpp>

#include "db/records.hpp"

namespace hetlu::db {
namespace {
std::int64_t count(Database& db, const char* table) {
  auto s = db.prepare(std::string("SELECT count(*) FROM ") + table);
  s.step();
  return s.column_int(0);
}
}  // namespace

std::vector<std::string> invalid_values(Database& db) {
  std::vector<std::string> problems = invalid_best_plans(db);
  // A best plan both checks find is said once, with the value named (the first check's words).
  const auto named = problems.size();
  for (auto& problem : invalid_rows(db)) {
    const std::string row = problem.substr(0, problem.find("): ") + 1) + ": ";
    if (std::none_of(problems.begin(), problems.begin() + static_cast<long>(named),
                     [&](const std::string& seen) { return seen.rfind(row, 0) == 0; }))
      problems.push_back(std::move(problem));
  }
  return problems;
}

CheckReport check(Database& db) {
  CheckReport report;
  report.schema_version = db.user_version();
  if (report.schema_version != schema_version)
    report.problems.push_back("schema version " + std::to_string(report.schema_version) + ", expected " +
                              std::to_string(schema_version));
  auto integrity = db.prepare("PRAGMA integrity_check");
  // SQLite may put several findings in one row, a line each: one problem per line.
  while (integrity.step())
    if (const auto text = integrity.column_text(0); text != "ok")
      for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        if (end > at) report.problems.push_back("integrity: " + text.substr(at, end - at));
        at = end + 1;
      }
  auto foreign = db.prepare("PRAGMA foreign_key_check");
  while (foreign.step())
    report.problems.push_back("table " + foreign.column_text(0) + " row " + std::to_string(foreign.column_int(1)) +
                              " refers to a missing " + foreign.column_text(2) + " row");
  for (auto& problem : invalid_values(db)) report.problems.push_back(std::move(problem));
  // Whether one of the first `among` problems is of the row a problem starting with `row` names.
  auto said_of = [&](const std::string& row, std::size_t among) {
    return std::any_of(report.problems.begin(), report.problems.begin() + static_cast<long>(among),
                       [&](const std::string& seen) { return seen.rfind(row, 0) == 0; });
  };
  for (const auto& problem : texts_not_printable(db)) report.problems.push_back(problem);
  for (const auto& machine : list_machines(db)) {  // a hand edit, or an import before they were compared
    const std::string row = "machine " + machine.fingerprint.hash + ": ";
    const auto hashed = fingerprint_of_hard_key(machine.fingerprint.hard_key);  // "": not a layout known here
    if (!said_of(row, report.problems.size()) && !hashed.empty() && hashed != machine.fingerprint.hash)
      report.problems.push_back(row + "the fingerprint is not its hard_key's hash (an edited row)");
  }
  report.machines = count(db, "machines");
  report.probe_results = count(db, "probe_results");
  report.trials = count(db, "trials");
  report.best_plans = count(db, "best_plans");
  return report;
}

std::int64_t forget_machine(Database& db, const std::string& fingerprint) {
  const auto machine = find_machine(db, fingerprint);
  if (!machine) return 0;
  std::int64_t removed = 0;
  db.transaction([&] {
    for (const char* table : {"best_plans", "trials", "probe_results", "distributed_trials", "network_probes"}) {
      db.prepare(std::string("DELETE FROM ") + table + " WHERE machine_id = ?1").bind(1, machine->id).run();
      removed += db.changes();
    }
    db.prepare("DELETE FROM machines WHERE id = ?1").bind(1, machine->id).run();
    removed += db.changes();
  });
  return removed;
}

}  // namespace hetlu::db
