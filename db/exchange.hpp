// Export and import of a database as JSON: every machine with its probe results, trials and best
// plans. An import refuses another machine's rows unless forced, and never replaces local rows.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "db/database.hpp"

namespace hetlu::db {

nlohmann::json export_json(Database& db);

struct ImportReport {
  int machines = 0;
  std::int64_t probe_results = 0, trials = 0, best_plans = 0;  // rows added
  std::int64_t skipped = 0;                                    // rows already present
};

// this_machine: this machine's fingerprint; rows of any other are refused unless force.
ImportReport import_json(Database& db, const nlohmann::json& document, const std::string& this_machine, bool force);

}  // namespace hetlu::db
