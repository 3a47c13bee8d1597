// Export and import of a database as JSON: every machine with its probe results, trials and best
// plans. An import refuses another machine's rows unless forced, and never replaces local rows.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "db/database.hpp"

namespace hetlu::db {

nlohmann::json export_json(Database& db);

struct ImportReport {
  int machines = 0;                                            // machines added (one already here adds its rows only)
  std::int64_t probe_results = 0, trials = 0, best_plans = 0;  // rows added
  std::int64_t network_probes = 0, distributed_trials = 0;     // rows added (exports of schema 5 on)
  std::int64_t skipped = 0;                                    // rows already present
};

// An export's text as JSON; throws nlohmann's parse errors as they are, and DatabaseError where it
// nests deeper than an export does, said as soon as the parser gets there (a 100 MB file of '['
// took 7.4 GB to be refused after the whole of it was parsed).
nlohmann::json parse_export(const std::string& text);

// Throws DatabaseError, naming what is wrong, unless document is an export this hetlu can import
// (schema 3 or newer) whose machines are this_machine (any machine with force). Touches nothing:
// call it before opening the database, so that a refused file creates none.
void check_export(const nlohmann::json& document, const std::string& this_machine, bool force);

// this_machine: this machine's fingerprint; rows of any other are refused unless force. A faithful
// round trip: probe runs stay separate runs, best plans find their trials again, a machine keeps
// when it was first and last seen, and importing the same file twice adds nothing.
ImportReport import_json(Database& db, const nlohmann::json& document, const std::string& this_machine, bool force);

}  // namespace hetlu::db
