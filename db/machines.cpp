#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

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
    auto last = db.prepare("SELECT coalesce(max(run), 0) FROM probe_results WHERE machine_id = ?1");
    last.bind(1, machine_id);
    last.step();
    const std::int64_t run = last.column_int(0) + 1;
    for (const auto& m : profile.measurements)
      db.prepare(
            "INSERT INTO probe_results (machine_id, name, value, unit, detail, spread, run) "
            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
          .bind(1, machine_id)
          .bind(2, m.name)
          .bind(3, m.median)
          .bind(4, m.unit)
          .bind(5, m.detail)
          .bind(6, m.spread)
          .bind(7, run)
          .run();
    // Only the newest runs are kept, so that reruns do not grow the database; the reference
    // timings (openblas_*) stay with the tuned sizes they were measured for, and the refinement
    // steps with the mixed plans tuned (one row per solver and order, replaced when measured again).
    db.prepare(
          "DELETE FROM probe_results WHERE machine_id = ?1 AND run <= ?2 AND name NOT LIKE 'openblas\\_%' "
          "ESCAPE '\\' AND name <> 'mixed_refinement_steps'")
        .bind(1, machine_id)
        .bind(2, run - kept_probe_runs)
        .run();
  });
}

void store_reference(Database& db, std::int64_t machine_id, const std::string& name, int n, double seconds,
                     double gflops, int cpu_threads) {
  db.transaction([&] {
    db.prepare(
          "INSERT INTO probe_results (machine_id, name, value, unit, detail, spread, run) VALUES (?1, ?2, ?3, "
          "'GFlop/s', ?4, 0, (SELECT coalesce(max(run), 0) FROM probe_results WHERE machine_id = ?1))")
        .bind(1, machine_id)
        .bind(2, name)
        .bind(3, gflops)
        .bind(4, "n=" + std::to_string(n) + " seconds=" + std::to_string(seconds) +
                     " threads=" + std::to_string(cpu_threads))
        .run();
  });
}

void store_refinement_steps(Database& db, std::int64_t machine_id, Solver solver, int n, double steps) {
  const std::string detail = "solver=" + to_string(solver) + " n=" + std::to_string(n);
  db.transaction([&] {
    db.prepare("DELETE FROM probe_results WHERE machine_id = ?1 AND name = 'mixed_refinement_steps' AND detail = ?2")
        .bind(1, machine_id)
        .bind(2, detail)
        .run();
    db.prepare(
          "INSERT INTO probe_results (machine_id, name, value, unit, detail, spread, run) VALUES (?1, "
          "'mixed_refinement_steps', ?2, 'steps', ?3, 0, (SELECT coalesce(max(run), 0) FROM probe_results WHERE "
          "machine_id = ?1))")
        .bind(1, machine_id)
        .bind(2, steps)
        .bind(3, detail)
        .run();
  });
}

namespace {
// "rows=4096 width=128 threads=1" -> the value of one key, or -1.
int detail_int(const std::string& detail, const std::string& key) {
  const auto at = detail.find(key + "=");
  return at == std::string::npos ? -1 : std::atoi(detail.c_str() + at + key.size() + 1);
}

// The refinement steps of every solver and order tuned in mixed precision, from whichever probe run
// they were stored with (a later calibration of double alone keeps them; the newest of a kind wins).
std::vector<RefinementSteps> load_refinement_steps(Database& db, std::int64_t machine_id) {
  auto s = db.prepare(
      "SELECT value, detail FROM probe_results WHERE machine_id = ?1 AND name = 'mixed_refinement_steps' "
      "ORDER BY run, id");
  s.bind(1, machine_id);
  std::map<std::pair<Solver, int>, double> newest;
  while (s.step()) {
    const double steps = s.column_double(0);
    const std::string detail = s.column_text(1);
    const auto solver_at = detail.find("solver=");
    const int n = detail_int(detail, "n");
    if (solver_at == std::string::npos || n <= 0 || !(steps >= 0)) continue;
    const auto name_end = detail.find(' ', solver_at);
    try {  // a row another version wrote, or a damaged one, is no reason to lose the rest
      newest[{from_string<Solver>(detail.substr(solver_at + 7, name_end - solver_at - 7)), n}] = steps;
    } catch (const InvalidArgument&) {
    }
  }
  std::vector<RefinementSteps> steps;
  for (const auto& [kind, value] : newest) steps.push_back({kind.first, kind.second, value});
  return steps;
}
}  // namespace

bool load_probe_rates(Database& db, std::int64_t machine_id, MachineProfile& profile) {
  // One probe run, so that every rate the model reads was measured together: the newest none of
  // whose rows is damaged, else the newest with a valid row. A damaged newer run (db check lists
  // it) does not hide the one before: one whose GEMM rates were set to 0, its other rows valid, sent
  // the model to the datasheet.
  const std::string valid = "coalesce(" + valid_probe_condition() + ", 0)";
  auto runs = db.prepare("SELECT run, min(" + valid + "), max(" + valid +
                         ") FROM probe_results WHERE machine_id = ?1 GROUP BY run ORDER BY run DESC");
  runs.bind(1, machine_id);
  std::optional<std::int64_t> whole_run, partly_valid_run;
  while (runs.step() && !whole_run) {
    if (runs.column_int(1) != 0) whole_run = runs.column_int(0);
    if (runs.column_int(2) != 0 && !partly_valid_run) partly_valid_run = runs.column_int(0);
  }
  const std::optional<std::int64_t> run = whole_run ? whole_run : partly_valid_run;
  auto s = db.prepare(
      "SELECT name, value, unit, detail, spread FROM probe_results WHERE machine_id = ?1 AND run = ?2 "
      "AND " +
      valid + " ORDER BY id");
  s.bind(1, machine_id).bind(2, run.value_or(-1));
  MachineProfile loaded = profile;
  loaded.measurements.clear();
  loaded.panel_rates.clear();
  loaded.pass_costs.clear();
  loaded.mixed_refinement_steps.clear();
  bool found = false;
  while (s.step()) {
    ProbeMeasurement m{s.column_text(0), s.column_double(1), s.column_double(4), s.column_text(2), s.column_text(3)};
    auto keep_max = [&](double& field) { field = std::max(field, m.median); };
    if (m.name == "dgemm_one_core") keep_max(loaded.dgemm_gflops_one_core);
    if (m.name == "dgemm_all_cores") {
      if (m.median > loaded.dgemm_gflops_all_cores) loaded.dgemm_probe_size = detail_int(m.detail, "n");
      keep_max(loaded.dgemm_gflops_all_cores);
    }
    if (m.name == "sgemm_one_core") keep_max(loaded.sgemm_gflops_one_core);
    if (m.name == "sgemm_all_cores") keep_max(loaded.sgemm_gflops_all_cores);
    if (m.name == "triad_bandwidth") loaded.memory_bandwidth_gbs = m.median;
    if (m.name == "panel_gepp" || m.name == "panel_tslu" || m.name == "panel_tslu_leaf")
      loaded.panel_rates.push_back({m.name.substr(6), detail_int(m.detail, "rows"), detail_int(m.detail, "width"),
                                    detail_int(m.detail, "threads"), m.median});
    if (m.name == "getrf_crossover" && m.median > 0)
      (m.detail == "precision=single" ? loaded.getrf_crossover_single : loaded.getrf_crossover_double) =
          static_cast<int>(m.median);
    if (m.name == "mixed_refinement_steps") continue;  // read apart, from whichever run stored them
    if (m.name.rfind("pass_", 0) == 0 && m.median > 0)
      loaded.pass_costs.push_back({m.name.substr(5), detail_int(m.detail, "n"), 1 / m.median});
    const int gpu = detail_int(m.detail, "gpu");
    if (gpu >= 0 && gpu < static_cast<int>(loaded.gpus.size())) {
      auto& g = loaded.gpus[gpu];
      if (m.name == "gpu_dgemm") g.dgemm_gflops = m.median;
      if (m.name == "gpu_sgemm") g.sgemm_gflops = m.median;
      if (m.name == "gpu_dgetrf") g.dgetrf_gflops = m.median;
      if (m.name == "gpu_sgetrf") g.sgetrf_gflops = m.median;
      if (m.name == "gpu_tf32_gemm") g.tf32_gemm_gflops = m.median;
      if (m.name == "gpu_h2d_bandwidth") g.h2d_bandwidth_gbs = m.median;
      if (m.name == "gpu_d2h_bandwidth") g.d2h_bandwidth_gbs = m.median;
      if (m.name == "gpu_h2d_latency") g.h2d_latency_us = m.median;
      if (m.name == "gpu_d2h_latency") g.d2h_latency_us = m.median;
      if (m.name == "gpu_memory_bandwidth") g.memory_bandwidth_gbs = m.median;
      if (m.name == "gpu_staged_upload") g.staged_upload_gbs = m.median;
      if (m.name == "gpu_staged_download") g.staged_download_gbs = m.median;
    }
    loaded.measurements.push_back(std::move(m));
    found = true;
  }
  if (!found) return false;
  loaded.mixed_refinement_steps = load_refinement_steps(db, machine_id);
  loaded.rates_measured = true;
  profile = std::move(loaded);
  return true;
}

}  // namespace hetlu::db
