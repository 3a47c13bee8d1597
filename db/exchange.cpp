#include "db/exchange.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

#include "db/records.hpp"
#include "hetlu/detail/utf8.hpp"

namespace hetlu::db {
namespace {

constexpr const char* format_name = "hetlu-tuning-db";
// The distributed tables (schema 5: the network per rank layout and p?gesv's trials) travel too; an
// older export has none of them.
constexpr const char* tables[] = {"probe_results", "trials", "best_plans", "network_probes", "distributed_trials"};
constexpr int table_count = sizeof tables / sizeof tables[0];
// The oldest export this hetlu imports: schema 4 only added trials.environment (default '').
constexpr int oldest_importable_schema = 3;

// Every row of a table for one machine, as JSON objects keyed by column. Row ids are local and
// left out; a probe run keeps its number, renumbered on import; a best plan's trial is found
// again on import by its key (the plan's parameters at the plan's level).
nlohmann::json rows_of(Database& db, const std::string& table, std::int64_t machine_id) {
  auto s = db.prepare("SELECT * FROM " + table + " WHERE machine_id = ?1 ORDER BY rowid");
  s.bind(1, machine_id);
  nlohmann::json rows = nlohmann::json::array();
  while (s.step()) {
    nlohmann::json row;
    for (int c = 0; c < s.column_count(); ++c) {
      const std::string name = s.column_name(c);
      if (name == "id" || name == "machine_id" || name == "trial_id") continue;
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

void bind_value(Statement& s, int index, const nlohmann::json& v, const std::string& table, const std::string& column) {
  if (v.is_null())
    s.bind_null(index);
  else if (v.is_number_integer())
    s.bind(index, v.get<std::int64_t>());
  else if (v.is_number())
    s.bind(index, v.get<double>());
  else if (v.is_string())
    s.bind(index, v.get<std::string>());
  else
    throw DatabaseError("import: column '" + column + "' of " + table + " is not a number or a string");
}

// The columns of a table, as this hetlu's schema has them.
std::set<std::string> columns_of(Database& db, const std::string& table) {
  std::set<std::string> columns;
  auto s = db.prepare("SELECT name FROM pragma_table_info('" + table + "')");
  while (s.step()) columns.insert(s.column_text(0));
  return columns;
}

// An exported row is an object naming only columns this schema has, ids excepted (they are local).
void check_row(const nlohmann::json& row, const std::string& table, const std::set<std::string>& columns) {
  if (!row.is_object()) throw DatabaseError("import: a row of " + table + " is not an object");
  for (auto it = row.begin(); it != row.end(); ++it)
    if (!columns.count(it.key()) || it.key() == "id" || it.key() == "machine_id" || it.key() == "trial_id")
      throw DatabaseError("import: unknown column '" + it.key().substr(0, 64) + "' in " + table);
}

// Inserts one exported row (checked by check_row) unless a row with the same unique key is there
// (then false). A row that breaks any other constraint (a NULL, a CHECK) fails the import.
bool insert_row(Database& db, const std::string& table, std::int64_t machine_id, const nlohmann::json& row) {
  std::string columns = "machine_id", values = "?1";
  int index = 2;
  for (auto it = row.begin(); it != row.end(); ++it, ++index) {
    columns += ", " + it.key();
    values += ", ?" + std::to_string(index);
  }
  auto s = db.prepare("INSERT INTO " + table + " (" + columns + ") VALUES (" + values + ") ON CONFLICT DO NOTHING");
  s.bind(1, machine_id);
  index = 2;
  for (auto it = row.begin(); it != row.end(); ++it, ++index) bind_value(s, index, *it, table, it.key());
  s.run();
  return db.changes() > 0;
}

// A row whose key the database already holds is not inserted, yet judged as one that is: the same
// file (a best plan edited to nb = 1e30) was refused by a new database and taken, "already there",
// by one holding the row (a hostile helper's finding). Judged in a scratch table of the table's
// columns and types, without its keys, made before the import's statements run and kept for the
// connection's life (a DROP waits out every statement the caller holds open, 30 s each). A column
// the row leaves out takes the table's default, as an insert gives it (a schema-3 export's trials
// have no environment).
class ScratchTables {
 public:
  explicit ScratchTables(Database& db) : db_(db) {
    for (const char* table : tables) {
      db_.exec("CREATE TEMP TABLE IF NOT EXISTS " + name(table) + " AS SELECT * FROM main." + table + " WHERE 0");
      auto columns = db_.prepare(std::string("SELECT name, dflt_value FROM pragma_table_info('") + table +
                                 "') WHERE dflt_value IS NOT NULL");
      while (columns.step()) defaults_[table][columns.column_text(0)] = default_value(columns.column_text(1));
    }
  }
  std::optional<InvalidRow> judged_apart(const std::string& table, std::int64_t machine_id, const nlohmann::json& row) {
    const std::string scratch = "temp." + name(table);
    nlohmann::json complete = row;
    for (const auto& [column, value] : defaults_[table])
      if (!complete.contains(column)) complete[column] = value;
    insert_row(db_, scratch, machine_id, complete);
    auto bad = first_invalid_after(db_, table, 0, scratch);
    db_.exec("DELETE FROM " + scratch);
    return bad;
  }

 private:
  static std::string name(const std::string& table) { return "import_judged_" + table; }
  // A column's DEFAULT (an SQL expression from the schema: a literal or CURRENT_TIMESTAMP), evaluated.
  nlohmann::json default_value(const std::string& expression) {
    auto value = db_.prepare("SELECT " + expression);
    value.step();
    if (value.column_is_integer(0)) return value.column_int(0);
    if (value.column_is_real(0)) return value.column_double(0);
    if (value.column_is_null(0)) return nullptr;
    return value.column_text(0);
  }
  Database& db_;
  std::map<std::string, std::map<std::string, nlohmann::json>> defaults_;
};

// Probe results have no unique key: a row equal to a stored one in every column the file gives but
// its run (renumbered) is already there (the same import twice). Rows are compared as stored (each
// value after its column's affinity), by keys held in memory, one set per list of columns given
// (every row of an export gives the same): a query a row had made 20000 rows take 11 s to import,
// 4x as long for every doubling.
class StoredProbeRows {
 public:
  StoredProbeRows(Database& db, std::int64_t machine_id) : db_(db), machine_id_(machine_id) {}

  // Whether the row just stored at `rowid`, whose file gave `columns`, is new (then remembered), or
  // equal to one stored before it.
  bool is_new(std::int64_t rowid, const std::vector<std::string>& columns) {
    auto& known = keys_for(columns, rowid);
    auto row = db_.prepare("SELECT * FROM probe_results WHERE rowid = ?1");
    row.bind(1, rowid);
    row.step();
    if (known.count(key(row, columns))) return false;
    for (auto& [given, keys] : keys_) keys.insert(key(row, given));
    return true;
  }

 private:
  std::unordered_set<std::string>& keys_for(const std::vector<std::string>& columns, std::int64_t rowid) {
    const auto found = keys_.find(columns);
    if (found != keys_.end()) return found->second;
    auto s = db_.prepare("SELECT * FROM probe_results WHERE machine_id = ?1 AND rowid <> ?2");
    s.bind(1, machine_id_).bind(2, rowid);
    std::unordered_set<std::string> keys;
    while (s.step()) keys.insert(key(s, columns));
    return keys_.emplace(columns, std::move(keys)).first->second;
  }
  // The values of `columns` (names check_row found in the schema) in the row at s.
  static std::string key(Statement& s, const std::vector<std::string>& columns) {
    std::string k;
    for (int c = 0; c < s.column_count(); ++c) {
      if (std::find(columns.begin(), columns.end(), s.column_name(c)) == columns.end()) continue;
      char field[40];
      if (s.column_is_null(c)) {
        std::snprintf(field, sizeof field, "N|");
      } else if (s.column_is_integer(c)) {
        std::snprintf(field, sizeof field, "I%lld|", static_cast<long long>(s.column_int(c)));
      } else if (s.column_is_real(c)) {
        std::snprintf(field, sizeof field, "R%.17g|", s.column_double(c));
      } else {  // a text, after its length (a text holding '|' cannot pass for two fields)
        const std::string text = s.column_text(c);
        std::snprintf(field, sizeof field, "T%zu:", text.size());
        k.append(field).append(text);
        std::snprintf(field, sizeof field, "|");
      }
      k.append(field);
    }
    return k;
  }
  Database& db_;
  std::int64_t machine_id_;
  std::map<std::vector<std::string>, std::unordered_set<std::string>> keys_;
};

// The columns a probe row of the file gives, but its run (renumbered on import), in order.
std::vector<std::string> compared_columns(const nlohmann::json& row) {
  std::vector<std::string> columns;
  for (auto it = row.begin(); it != row.end(); ++it)
    if (it.key() != "run") columns.push_back(it.key());
  return columns;  // nlohmann's objects keep their keys sorted
}

// Best plans point at the trial they came from; the imported ones find it again by its key.
void link_best_plans_to_trials(Database& db, std::int64_t machine_id) {
  std::string same;
  for (const char* column : plan_trial_key_columns)
    same += std::string(same.empty() ? "" : " AND ") + "t." + column + " = best_plans." + column;
  db.prepare("UPDATE best_plans SET trial_id = (SELECT t.id FROM trials t WHERE " + same +
             ") WHERE machine_id = ?1 AND trial_id IS NULL")
      .bind(1, machine_id)
      .run();
}

std::string text_of(const nlohmann::json& value, const char* what) {
  if (!value.is_string()) throw DatabaseError(std::string("import: ") + what + " is not a string");
  return value.get<std::string>();
}

}  // namespace

nlohmann::json export_json(Database& db) {
  // A damaged row would make a file no import takes (or a raw JSON error here): named instead.
  for (const auto& problems : {invalid_best_plans(db), invalid_rows(db)})
    if (!problems.empty())
      throw DatabaseError("export: " + problems.front() +
                          " ('hetlu db check' lists every such row; 'hetlu db forget' or a new calibration clears it)");
  nlohmann::json machines = nlohmann::json::array();
  for (const auto& m : list_machines(db)) {
    nlohmann::json machine = {{"fingerprint", m.fingerprint.hash},
                              {"hard_key", nlohmann::json::parse(m.fingerprint.hard_key)},
                              {"soft_attributes", nlohmann::json::parse(m.fingerprint.soft_attributes)},
                              {"first_seen", m.first_seen},
                              {"last_seen", m.last_seen}};
    for (const char* table : tables) machine[table] = rows_of(db, table, m.id);
    machines.push_back(machine);
  }
  return {{"format", format_name}, {"schema_version", db.user_version()}, {"machines", machines}};
}

namespace {

// The deepest nesting in `value`, walked with a stack of its own: nlohmann's dump recurses once a
// level, and a 200 KB file nested 100000 deep under hard_key overflowed the call stack.
int nesting_depth(const nlohmann::json& value) {
  int deepest = 0;
  std::vector<std::pair<const nlohmann::json*, int>> pending{{&value, 1}};
  while (!pending.empty()) {
    const auto [node, depth] = pending.back();
    pending.pop_back();
    deepest = std::max(deepest, depth);
    if (node->is_structured())
      for (const auto& child : *node) pending.push_back({&child, depth + 1});
  }
  return deepest;
}

// An export nests 5 deep (document, machines, machine, table, row) and its machine keys' objects a
// few more; this leaves room and refuses what would exhaust a recursive walk.
constexpr int deepest_export = 32;

}  // namespace

nlohmann::json parse_export(const std::string& text) {
  struct TooDeep {};
  struct Repeated {
    std::string key;
  };
  // The keys of each object open at the moment: a key given twice was taken last-wins ("nb": 64,
  // "nb": 32 imported nb = 32; a hostile helper's finding), where the YAML files refuse one.
  std::vector<std::unordered_set<std::string>> open_objects;
  const auto guard = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (depth >= deepest_export) throw TooDeep{};
    if (event == Event::object_start) open_objects.emplace_back();
    if (event == Event::object_end && !open_objects.empty()) open_objects.pop_back();
    if (event == Event::key && !open_objects.empty() && !open_objects.back().insert(parsed.get<std::string>()).second)
      throw Repeated{parsed.get<std::string>()};
    return true;
  };
  try {
    return nlohmann::json::parse(text, guard);
  } catch (const TooDeep&) {
    throw DatabaseError("import: nested more than " + std::to_string(deepest_export) + " levels deep; not an export");
  } catch (const Repeated& r) {
    throw DatabaseError("import: the key \"" + detail::printable_value(r.key) + "\" appears twice in one object");
  }
}

void check_export(const nlohmann::json& document, const std::string& this_machine, bool force) {
  if (nesting_depth(document) > deepest_export)
    throw DatabaseError("import: nested more than " + std::to_string(deepest_export) + " levels deep; not an export");
  if (!document.is_object() || document.value("format", "") != format_name)
    throw DatabaseError("import: not a hetlu database export (no \"format\": \"" + std::string(format_name) + "\")");
  const auto version = document.find("schema_version");
  if (version == document.end() || !version->is_number_integer() || *version < oldest_importable_schema ||
      *version > schema_version)
    throw DatabaseError("import: the export has schema version " +
                        (version == document.end() ? std::string("(none)") : version->dump()) +
                        "; this hetlu imports " + std::to_string(oldest_importable_schema) + " to " +
                        std::to_string(schema_version));
  const auto machines = document.find("machines");
  if (machines == document.end() || !machines->is_array()) throw DatabaseError("import: no \"machines\" list");
  for (const auto& m : *machines) {
    if (!m.is_object()) throw DatabaseError("import: a machine is not an object");
    for (const char* key : {"fingerprint", "hard_key", "soft_attributes"})
      if (!m.contains(key)) throw DatabaseError(std::string("import: a machine has no \"") + key + "\"");
    const std::string fingerprint = text_of(m["fingerprint"], "a machine's fingerprint");
    if (!m["hard_key"].is_object())
      throw DatabaseError("import: machine " + fingerprint + ": hard_key is not an object");
    // The fingerprint is the hard key's hash: a file naming this machine's beside another machine's
    // hardware had its rows taken as this machine's without --force (a hostile test's finding). A
    // hard key of fields this hetlu does not know (another version's) cannot be checked: such a
    // machine is foreign, never this one.
    const auto hashed = fingerprint_of_hard_key(m["hard_key"].dump());
    if (!hashed.empty() && hashed != fingerprint)
      throw DatabaseError("import: machine " + fingerprint + ": its hard_key hashes to " + hashed +
                          ", not to its fingerprint: an edited or damaged export");
    if (hashed.empty() && fingerprint == this_machine)
      throw DatabaseError("import: machine " + fingerprint +
                          ": its hard_key is not a layout this hetlu knows (fields missing or unknown), yet it claims "
                          "this machine's fingerprint: an edited export, or one from another version of hetlu");
    for (const char* table : tables)
      if (m.contains(table) && !m[table].is_array())
        throw DatabaseError("import: machine " + fingerprint + ": " + table + " is not a list");
    if (fingerprint != this_machine && !force)
      throw DatabaseError("import: machine " + fingerprint + " is not this machine (" + this_machine +
                          "); use --force to import its rows anyway");
  }
}

ImportReport import_json(Database& db, const nlohmann::json& document, const std::string& this_machine, bool force) {
  check_export(document, this_machine, force);
  ImportReport report;
  std::set<std::string> columns[table_count];
  for (int t = 0; t < table_count; ++t) columns[t] = columns_of(db, tables[t]);
  ScratchTables scratch(db);
  db.transaction([&] {
    const auto bad_plans_before = invalid_best_plans(db), bad_rows_before = invalid_rows(db);
    for (const auto& m : document.at("machines")) {
      Fingerprint fp{m.at("fingerprint"), m.at("hard_key").dump(), m.at("soft_attributes").dump()};
      // A machine this database knows keeps its own soft attributes (an import adds, never
      // replaces: a file's hostname made this host's own rows look stale); a new one is the file's.
      const auto here = find_machine(db, fp.hash);
      const bool known = here.has_value();
      const auto id = known ? here->id : ensure_machine(db, fp);
      // The machine's history: a new one's as the file has it; a known one's first seen at the
      // earliest of both, last seen at the latest.
      if (m.contains("first_seen") && m.contains("last_seen"))
        db.prepare(known ? "UPDATE machines SET first_seen = min(first_seen, ?2), last_seen = max(last_seen, ?3) "
                           "WHERE id = ?1"
                         : "UPDATE machines SET first_seen = ?2, last_seen = ?3 WHERE id = ?1")
            .bind(1, id)
            .bind(2, text_of(m["first_seen"], "first_seen"))
            .bind(3, text_of(m["last_seen"], "last_seen"))
            .run();
      if (!known) ++report.machines;
      std::int64_t* added[] = {&report.probe_results, &report.trials, &report.best_plans, &report.network_probes,
                               &report.distributed_trials};
      static_assert(sizeof added / sizeof added[0] == table_count);
      auto last = db.prepare("SELECT coalesce(max(run), 0) FROM probe_results WHERE machine_id = ?1");
      last.bind(1, id);
      last.step();
      std::int64_t next_run = last.column_int(0) + 1;
      std::map<std::int64_t, std::int64_t> runs;  // exported run -> local run: each run stays one run
      StoredProbeRows stored_probes(db, id);
      // The file's plans come after it: a plan stored before without a trial (through the API) is
      // not the file's to answer for.
      auto plans_before = db.prepare("SELECT coalesce(max(rowid), 0) FROM best_plans");
      plans_before.step();
      const std::int64_t first_new_plan = plans_before.column_int(0) + 1;
      for (int t = 0; t < table_count; ++t) {
        // A row of the file named by its place in the table's list and its wrong fields.
        auto bad_entry = [&](int place, const std::string& fields) {
          return DatabaseError("import: machine " + fp.hash + ": " + tables[t] + " entry " + std::to_string(place) +
                               ": " + fields + " of the wrong type or out of range");
        };
        int position = 0;  // in the file's list, from 1
        auto newest = db.prepare(std::string("SELECT coalesce(max(rowid), 0) FROM ") + tables[t]);
        newest.step();
        const std::int64_t before = newest.column_int(0);  // rows added come after it
        std::map<std::int64_t, int> positions;             // row id -> place in the file
        for (const auto& row : m.value(tables[t], nlohmann::json::array())) {
          ++position;
          check_row(row, tables[t], columns[t]);
          nlohmann::json values = row;
          const std::int64_t exported_run = values.contains("run") && values["run"].is_number_integer()
                                                ? values["run"].get<std::int64_t>()
                                                : -1;  // an export without runs: one run
          if (t == 0) values["run"] = runs.count(exported_run) ? runs[exported_run] : next_run;
          bool inserted = false;
          try {
            inserted = insert_row(db, tables[t], id, values);
          } catch (const DatabaseError& e) {
            // A CHECK the schema holds (a status outside its names): said as the validity checks say
            // it, not as SQLite's message on the import's temporary file.
            if (std::string(e.what()).find("constraint failed") == std::string::npos) throw;
            const std::string what = e.what();
            const std::string check = what.substr(std::min(what.find("constraint failed"), what.find("CHECK")));
            throw DatabaseError("import: machine " + fp.hash + ": " + tables[t] + " entry " + std::to_string(position) +
                                ": a value of the wrong type or out of range (" + check + ")");
          }
          if (inserted && t == 0 && !stored_probes.is_new(db.last_insert_id(), compared_columns(row))) {
            db.prepare("DELETE FROM probe_results WHERE rowid = ?1").bind(1, db.last_insert_id()).run();
            inserted = false;
          } else if (inserted && t == 0 && !runs.count(exported_run)) {
            runs[exported_run] = next_run++;  // a run of which a row was added
          }
          if (inserted) {
            positions[db.last_insert_id()] = position;
            ++*added[t];
          } else {
            if (t > 0)
              if (const auto bad = scratch.judged_apart(tables[t], id, values)) throw bad_entry(position, bad->fields);
            ++report.skipped;
          }
        }
        if (const auto bad = first_invalid_after(db, tables[t], before))
          throw bad_entry(positions[bad->rowid], bad->fields);
      }
      link_best_plans_to_trials(db, id);
      auto orphan =
          db.prepare("SELECT solver, n FROM best_plans WHERE machine_id = ?1 AND trial_id IS NULL AND rowid >= ?2");
      orphan.bind(1, id).bind(2, first_new_plan);
      if (orphan.step())
        throw DatabaseError("import: the best plan of " + orphan.column_text(0) + " at n = " + orphan.column_text(1) +
                            " has no trial with its parameters in the export");
    }
    // Rows a look-up would refuse, or of the wrong type or range, are refused here, and the whole
    // import with them; ones the database held before (`hetlu db check` lists them) are not the
    // file's doing and do not refuse it.
    auto first_new = [](const std::vector<std::string>& now, const std::vector<std::string>& before) {
      const auto it = std::find_if(now.begin(), now.end(), [&](const std::string& problem) {
        return std::find(before.begin(), before.end(), problem) == before.end();
      });
      return it == now.end() ? std::string() : *it;
    };
    if (const auto bad = first_new(invalid_best_plans(db), bad_plans_before); !bad.empty())
      throw DatabaseError("import: " + bad);
    if (const auto bad = first_new(invalid_rows(db), bad_rows_before); !bad.empty())
      throw DatabaseError("import: " + bad);
  });
  return report;
}

}  // namespace hetlu::db
