#include "db/records.hpp"

namespace hetlu::db {
namespace {
MachineRow read_machine(Statement& s) {
  MachineRow row;
  row.id = s.column_int(0);
  row.fingerprint.hash = s.column_text(1);
  row.fingerprint.hard_key = s.column_text(2);
  row.fingerprint.soft_attributes = s.column_text(3);
  row.first_seen = s.column_text(4);
  row.last_seen = s.column_text(5);
  return row;
}
constexpr const char* machine_columns =
    "SELECT id, fingerprint, hard_key, soft_attributes, first_seen, last_seen FROM machines";
}  // namespace

std::int64_t ensure_machine(Database& db, const Fingerprint& fp) {
  std::int64_t id = 0;
  db.transaction([&] {
    db.prepare(
          "INSERT INTO machines (fingerprint, hard_key, soft_attributes) VALUES (?1, ?2, ?3) "
          "ON CONFLICT (fingerprint) DO UPDATE SET soft_attributes = excluded.soft_attributes, "
          "last_seen = datetime('now')")
        .bind(1, fp.hash)
        .bind(2, fp.hard_key)
        .bind(3, fp.soft_attributes)
        .run();
    auto s = db.prepare("SELECT id FROM machines WHERE fingerprint = ?1");
    s.bind(1, fp.hash);
    s.step();
    id = s.column_int(0);
  });
  return id;
}

std::optional<MachineRow> find_machine(Database& db, const std::string& hash) {
  auto s = db.prepare(std::string(machine_columns) + " WHERE fingerprint = ?1");
  s.bind(1, hash);
  if (!s.step()) return std::nullopt;
  return read_machine(s);
}

std::vector<MachineRow> list_machines(Database& db) {
  auto s = db.prepare(std::string(machine_columns) + " ORDER BY id");
  std::vector<MachineRow> rows;
  while (s.step()) rows.push_back(read_machine(s));
  return rows;
}

void store_probe_results(Database& db, std::int64_t machine_id, const MachineProfile& profile) {
  if (!profile.rates_measured) return;
  db.transaction([&] {
    auto insert = [&](const char* name, double value, const char* unit, const std::string& detail) {
      db.prepare("INSERT INTO probe_results (machine_id, name, value, unit, detail) VALUES (?1, ?2, ?3, ?4, ?5)")
          .bind(1, machine_id)
          .bind(2, name)
          .bind(3, value)
          .bind(4, unit)
          .bind(5, detail)
          .run();
    };
    const std::string size = "n=" + std::to_string(profile.dgemm_probe_size);
    insert("dgemm_one_core", profile.dgemm_gflops_one_core, "GFlop/s", size);
    insert("dgemm_all_cores", profile.dgemm_gflops_all_cores, "GFlop/s", size);
    for (size_t g = 0; g < profile.gpus.size(); ++g)
      if (profile.gpus[g].dgemm_gflops > 0)
        insert("gpu_dgemm", profile.gpus[g].dgemm_gflops, "GFlop/s", "gpu=" + std::to_string(g));
  });
}

bool load_probe_rates(Database& db, std::int64_t machine_id, MachineProfile& profile) {
  auto s = db.prepare(
      "SELECT name, value, detail FROM probe_results WHERE machine_id = ?1 "
      "AND name IN ('dgemm_one_core', 'dgemm_all_cores') ORDER BY id");
  s.bind(1, machine_id);
  bool found = false;
  while (s.step()) {  // later rows overwrite earlier ones: the newest wins
    const std::string name = s.column_text(0);
    (name == "dgemm_one_core" ? profile.dgemm_gflops_one_core : profile.dgemm_gflops_all_cores) = s.column_double(1);
    const std::string detail = s.column_text(2);
    if (detail.rfind("n=", 0) == 0) profile.dgemm_probe_size = std::stoi(detail.substr(2));
    found = true;
  }
  if (found) profile.rates_measured = true;
  return found;
}

}  // namespace hetlu::db
