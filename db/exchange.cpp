#include "db/exchange.hpp"

#include "db/records.hpp"

namespace hetlu::db {
namespace {

constexpr const char* format_name = "hetlu-tuning-db";
constexpr const char* tables[] = {"probe_results", "trials", "best_plans"};

// Every row of a table for one machine, as JSON objects keyed by column (ids left out).
nlohmann::json rows_of(Database& db, const std::string& table, std::int64_t machine_id) {
  auto s = db.prepare("SELECT * FROM " + table + " WHERE machine_id = ?1 ORDER BY rowid");
  s.bind(1, machine_id);
  nlohmann::json rows = nlohmann::json::array();
  while (s.step()) {
    nlohmann::json row;
    for (int c = 0; c < s.column_count(); ++c) {
      const std::string name = s.column_name(c);
      // Row ids are local; the probe run is renumbered on import.
      if (name == "id" || name == "machine_id" || name == "trial_id" || name == "run") continue;
      if (s.column_is_null(c))
        row[name] = nullptr;
      else if (s.column_is_integer(c))
        row[name] = s.column_int(c);
      else if (s.column_is_real(c))
        row[name] = s.column_double(c);
      else
        row[name] = s.column_text(c);
    }
    rows.push_back(row);
  }
  return rows;
}

// INSERT OR IGNORE of one exported row: a row whose unique key is already there stays as it is.
bool insert_row(Database& db, const std::string& table, std::int64_t machine_id, const nlohmann::json& row) {
  std::string columns = "machine_id", values = "?1";
  int index = 2;
  for (auto it = row.begin(); it != row.end(); ++it, ++index) {
    if (it.key().find_first_not_of("abcdefghijklmnopqrstuvwxyz_0123456789") != std::string::npos)
      throw DatabaseError("import: bad column name '" + it.key() + "' in " + table);
    columns += ", " + it.key();
    values += ", ?" + std::to_string(index);
  }
  auto s = db.prepare("INSERT OR IGNORE INTO " + table + " (" + columns + ") VALUES (" + values + ")");
  s.bind(1, machine_id);
  index = 2;
  for (auto it = row.begin(); it != row.end(); ++it, ++index) {
    const auto& v = *it;
    if (v.is_null())
      s.bind_null(index);
    else if (v.is_number_integer())
      s.bind(index, v.get<std::int64_t>());
    else if (v.is_number())
      s.bind(index, v.get<double>());
    else if (v.is_string())
      s.bind(index, v.get<std::string>());
    else
      throw DatabaseError("import: column '" + it.key() + "' of " + table + " is not a number or a string");
  }
  s.run();
  return db.changes() > 0;
}

}  // namespace

nlohmann::json export_json(Database& db) {
  nlohmann::json machines = nlohmann::json::array();
  for (const auto& m : list_machines(db)) {
    nlohmann::json machine = {{"fingerprint", m.fingerprint.hash},
                              {"hard_key", nlohmann::json::parse(m.fingerprint.hard_key)},
                              {"soft_attributes", nlohmann::json::parse(m.fingerprint.soft_attributes)}};
    for (const char* table : tables) machine[table] = rows_of(db, table, m.id);
    machines.push_back(machine);
  }
  return {{"format", format_name}, {"schema_version", db.user_version()}, {"machines", machines}};
}

ImportReport import_json(Database& db, const nlohmann::json& document, const std::string& this_machine, bool force) {
  if (!document.is_object() || document.value("format", "") != format_name)
    throw DatabaseError("import: not a hetlu database export (no \"format\": \"" + std::string(format_name) + "\")");
  if (document.value("schema_version", 0) != schema_version)
    throw DatabaseError("import: the export has schema version " + std::to_string(document.value("schema_version", 0)) +
                        ", this hetlu writes " + std::to_string(schema_version));
  for (const auto& m : document.at("machines"))
    if (m.at("fingerprint") != this_machine && !force)
      throw DatabaseError("import: machine " + m.at("fingerprint").get<std::string>() + " is not this machine (" +
                          this_machine + "); use --force to import its rows anyway");
  ImportReport report;
  db.transaction([&] {
    for (const auto& m : document.at("machines")) {
      Fingerprint fp{m.at("fingerprint"), m.at("hard_key").dump(), m.at("soft_attributes").dump()};
      const auto id = ensure_machine(db, fp);
      ++report.machines;
      std::int64_t* added[] = {&report.probe_results, &report.trials, &report.best_plans};
      auto last = db.prepare("SELECT coalesce(max(run), 0) + 1 FROM probe_results WHERE machine_id = ?1");
      last.bind(1, id);
      last.step();
      const std::int64_t run = last.column_int(0);  // the imported probe results form one new run
      for (int t = 0; t < 3; ++t)
        for (const auto& row : m.value(tables[t], nlohmann::json::array())) {
          nlohmann::json values = row;
          if (t == 0) values["run"] = run;
          if (insert_row(db, tables[t], id, values))
            ++*added[t];
          else
            ++report.skipped;
        }
    }
    // Rows a look-up would refuse are refused here, and the whole import with them.
    if (const auto bad = invalid_best_plans(db); !bad.empty()) throw DatabaseError("import: " + bad.front());
  });
  return report;
}

}  // namespace hetlu::db
