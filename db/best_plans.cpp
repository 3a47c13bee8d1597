#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "db/records.hpp"

namespace hetlu::db {
namespace {

constexpr const char* best_columns =
    "SELECT machine_id, solver, precision, target, m, n, level, nb, ib, cpu_block_columns, "
    "panel_threads, lookahead, median_s, gflops, predicted_s, trial_id, updated_at, backend, rowid, cpu_threads "
    "FROM best_plans";

// A time or rate as a best plan needs it: a finite real > 0 (a NULL, text, -1 or Inf was shown as
// a tuned plan's time and passed on to recommend).
double positive_real(Statement& s, int column, const char* name) {
  const auto value = s.column_optional_double(column);
  if (!s.column_is_real(column) || !value || !std::isfinite(*value) || *value <= 0)
    throw DatabaseError(std::string(name) + " = '" + s.column_text(column) + "' is not a finite number > 0");
  return *value;
}

// The fields of a plan together, as validity.cpp's plan_checks: a hand-edited nb = 1e9 was served
// as tuned (and scaled to another order, a d of 2^31 - 1 overflowed to one block column).
void check_fields_together(const BestPlan& b) {
  auto refuse = [](const std::string& what) { throw DatabaseError(what); };
  if (b.plan.nb > std::max(b.m, b.n))
    refuse("nb = " + std::to_string(b.plan.nb) + " is wider than the matrix (" + std::to_string(b.m) + " x " +
           std::to_string(b.n) + ")");
  if (b.plan.solver == Solver::calu && b.plan.ib > b.plan.nb)
    refuse("ib = " + std::to_string(b.plan.ib) + " is wider than nb = " + std::to_string(b.plan.nb));
  if (b.plan.cpu_block_columns > block_columns(b.n, b.plan.nb))
    refuse("cpu_block_columns = " + std::to_string(b.plan.cpu_block_columns) + " is more than the " +
           std::to_string(block_columns(b.n, b.plan.nb)) + " block columns");
}

BestPlan read_best_unchecked(Statement& s) {
  BestPlan b;
  b.machine_id = s.column_int(0);
  b.plan.solver = from_string<Solver>(s.column_text(1));
  b.plan.precision = from_string<Precision>(s.column_text(2));
  b.plan.target = from_string<Target>(s.column_text(3));
  constexpr long long most = std::numeric_limits<int>::max();
  b.m = s.column_int_within(4, "m", 1, most);
  b.n = s.column_int_within(5, "n", 1, most);
  b.level = from_string<CalibrationLevel>(s.column_text(6));
  b.plan.nb = s.column_int_within(7, "nb", 1, most);
  b.plan.ib = s.column_int_within(8, "ib", 1, most);
  b.plan.cpu_block_columns = s.column_int_within(9, "cpu_block_columns", 0, most);
  b.plan.panel_threads = s.column_int_within(10, "panel_threads", 1, most_threads);
  b.plan.lookahead = s.column_int_within(11, "lookahead", 0, most_lookahead);
  b.median_s = positive_real(s, 12, "median_s");
  b.gflops = positive_real(s, 13, "gflops");
  if (s.column_optional_double(14)) b.predicted_s = positive_real(s, 14, "predicted_s");
  b.trial_id = s.column_int(15);
  b.updated_at = s.column_text(16);
  read_backend_column(s.column_text(17), b.plan);
  b.cpu_threads = static_cast<int>(s.column_int_within(19, "cpu_threads", 0, most_threads));
  b.plan.source = PlanSource::tuned;
  check_fields_together(b);
  return b;
}

// The row at s named by its key, as invalid_rows names it (db check says a row both find once).
std::string row_name(Statement& s) {
  const std::string backend = s.column_text(17), threads = s.column_text(19);
  return "best_plans row (" + s.column_text(1) + " " + s.column_text(2) + " " + s.column_text(3) +
         (backend.empty() ? "" : " " + backend) +
         (threads == "0" || threads.empty() ? "" : " on " + threads + " CPU threads") +
         ", m = " + std::to_string(s.column_int(4)) + ", n = " + std::to_string(s.column_int(5)) + ")";
}

// A row as stored, checked: hand edits, damaged files and imports must not reach a solver. Throws
// DatabaseError naming the row and the first bad value.
BestPlan read_best(Statement& s) {
  try {
    return read_best_unchecked(s);
  } catch (const Error& e) {  // a bad value (DatabaseError included), named with its row
    throw DatabaseError(row_name(s) + ": " + e.what());
  }
}

// " (its time was measured noisy: spread 35 %)" where the trial that made the plan best was flagged
// noisy, else nothing: a calibration cut short by its budget (--budget 0.001) stored a plan from one
// noisy trial, 8x the model's time, that read as any other tuned plan (a hostile helper's finding).
std::string noisy_note(Database& db, std::int64_t trial_id) {
  auto s = db.prepare("SELECT spread FROM trials WHERE id = ?1 AND status = 'noisy'");
  s.bind(1, trial_id);
  if (!s.step()) return "";
  const std::optional<double> spread = s.column_optional_double(0);
  char text[96];
  if (spread && std::isfinite(*spread) && *spread >= 0)
    std::snprintf(text, sizeof text, " (its time was measured noisy: spread %.0f %%)", 100 * *spread);
  else
    std::snprintf(text, sizeof text, " (its time was measured noisy)");
  return text;
}

}  // namespace

void upsert_best_plan(Database& db, const BestPlan& b) {
  db.transaction([&] {
    // A row from a higher level is better informed: a lower-level run does not replace it, unless
    // the row is damaged (it had kept every later calibration's result out, with exit 0).
    auto existing = db.prepare(std::string(best_columns) +
                               " WHERE machine_id = ?1 AND solver = ?2 AND precision = ?3 AND target = ?4 "
                               "AND m = ?5 AND n = ?6 AND backend = ?7 AND cpu_threads = ?8");
    existing.bind(1, b.machine_id)
        .bind(2, to_string(b.plan.solver))
        .bind(3, to_string(b.plan.precision))
        .bind(4, to_string(b.plan.target))
        .bind(5, b.m)
        .bind(6, b.n)
        .bind(7, backend_column(b.plan))
        .bind(8, b.cpu_threads);
    if (existing.step()) {
      std::optional<BestPlan> stored;
      try {
        stored = read_best(existing);
      } catch (const DatabaseError&) {  // damaged: replaced below
      }
      if (stored && stored->level > b.level) return;
    }
    db.prepare(
          "INSERT INTO best_plans (machine_id, solver, precision, target, m, n, level, nb, ib, "
          "cpu_block_columns, panel_threads, lookahead, median_s, gflops, predicted_s, trial_id, backend, "
          "cpu_threads) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18) "
          "ON CONFLICT (machine_id, solver, precision, target, backend, cpu_threads, m, n) DO UPDATE SET "
          "level = excluded.level, nb = excluded.nb, ib = excluded.ib, "
          "cpu_block_columns = excluded.cpu_block_columns, panel_threads = excluded.panel_threads, "
          "lookahead = excluded.lookahead, median_s = excluded.median_s, gflops = excluded.gflops, "
          "predicted_s = excluded.predicted_s, trial_id = excluded.trial_id, updated_at = datetime('now')")
        .bind(1, b.machine_id)
        .bind(2, to_string(b.plan.solver))
        .bind(3, to_string(b.plan.precision))
        .bind(4, to_string(b.plan.target))
        .bind(5, b.m)
        .bind(6, b.n)
        .bind(7, to_string(b.level))
        .bind(8, b.plan.nb)
        .bind(9, b.plan.ib)
        .bind(10, b.plan.cpu_block_columns)
        .bind(11, b.plan.panel_threads)
        .bind(12, b.plan.lookahead)
        .bind(13, b.median_s)
        .bind(14, b.gflops)
        .bind(15, b.predicted_s)
        .bind(16, b.trial_id > 0 ? std::optional<std::int64_t>(b.trial_id) : std::nullopt)
        .bind(17, backend_column(b.plan))
        .bind(18, b.cpu_threads)
        .run();
  });
}

namespace {
// The plans whose trial (by trial_id) was measured with another key: a hand edit of the plan's
// threads, level, size or parameters, which db check had called ok, an export had written, and its
// import refused ("no trial with its parameters").
std::map<std::int64_t, std::int64_t> plans_unlike_their_trial(Database& db) {
  std::string differs;
  for (const char* column : plan_trial_key_columns)
    differs += std::string(differs.empty() ? "" : " OR ") + "t." + column + " IS NOT b." + column;
  std::map<std::int64_t, std::int64_t> unlike;  // plan's rowid -> its trial's id
  for (auto s =
           db.prepare("SELECT b.rowid, t.id FROM best_plans b JOIN trials t ON t.id = b.trial_id WHERE " + differs);
       s.step();)
    unlike[s.column_int(0)] = s.column_int(1);
  return unlike;
}

// Every best_plans row a look-up would skip, or whose trial has another key, with its row id and why.
std::vector<std::pair<std::int64_t, std::string>> invalid_best_plan_rows(Database& db) {
  std::vector<std::pair<std::int64_t, std::string>> invalid;
  const auto unlike = plans_unlike_their_trial(db);
  for (auto s = db.prepare(std::string(best_columns)); s.step();) try {
      read_best(s);
      if (const auto trial = unlike.find(s.column_int(18)); trial != unlike.end())
        invalid.emplace_back(s.column_int(18), row_name(s) + ": its trial (trials row " +
                                                   std::to_string(trial->second) +
                                                   ") was measured with other parameters (an edited row)");
    } catch (const DatabaseError& e) {
      invalid.emplace_back(s.column_int(18), e.what());
    }
  return invalid;
}
}  // namespace

std::int64_t delete_invalid_best_plans(Database& db) {
  const auto invalid = invalid_best_plan_rows(db);
  for (const auto& row : invalid) db.prepare("DELETE FROM best_plans WHERE rowid = ?1").bind(1, row.first).run();
  return static_cast<std::int64_t>(invalid.size());
}

std::vector<std::string> invalid_best_plans(Database& db) {
  std::vector<std::string> problems;
  for (auto& row : invalid_best_plan_rows(db)) problems.push_back(std::move(row.second));
  return problems;
}

std::vector<BestPlan> list_best_plans(Database& db) {
  auto s = db.prepare(std::string(best_columns) +
                      " ORDER BY machine_id, solver, precision, target, backend, cpu_threads, m, n");
  std::vector<BestPlan> rows;
  while (s.step()) {
    try {
      rows.push_back(read_best(s));
    } catch (const DatabaseError&) {  // invalid: `db check` names it
    }
  }
  return rows;
}

namespace {

// The best of `rows` (valid, at the level asked, of one thread count) for m x n: the exact size;
// else, for a square problem between two tuned square sizes, nb interpolated geometrically in
// log n; else the nearest within a factor of 2 in m and in n. `on` ends the detail ("on 2 CPU
// threads").
Lookup choose_best(Database& db, const std::vector<BestPlan>& rows, int m, int n, const std::string& on) {
  // Distance in log-size: a plan tuned at twice the size is as far as one tuned at half.
  auto distance = [&](const BestPlan& b) {
    return std::abs(std::log2(double(b.m) / std::max(1, m))) + std::abs(std::log2(double(b.n) / std::max(1, n)));
  };
  Lookup result;
  double best_distance = std::numeric_limits<double>::infinity();
  std::vector<BestPlan> square;  // tuned square sizes, for interpolation
  for (const BestPlan& b : rows) {
    if (b.m == b.n) square.push_back(b);
    const bool within = std::abs(std::log2(double(b.m) / std::max(1, m))) <= 1 &&
                        std::abs(std::log2(double(b.n) / std::max(1, n))) <= 1;
    if (within && distance(b) < best_distance) {
      best_distance = distance(b);
      result.best = b;
    }
  }
  if (!result.best) return result;
  // A square problem between two tuned square sizes: nb interpolated geometrically in log n.
  if (m == n && !(result.best->m == m && result.best->n == n)) {
    const BestPlan* below = nullptr;
    const BestPlan* above = nullptr;
    for (const auto& b : square) {
      if (b.n < n && (!below || b.n > below->n)) below = &b;
      if (b.n > n && (!above || b.n < above->n)) above = &b;
    }
    if (below && above) {
      const double t = std::log(double(n) / below->n) / std::log(double(above->n) / below->n);
      BestPlan interpolated = t < 0.5 ? *below : *above;  // the other parameters from the nearer size
      interpolated.plan.nb = std::max(
          1,
          static_cast<int>(std::lround(std::exp((1 - t) * std::log(below->plan.nb) + t * std::log(above->plan.nb)))));
      const BestPlan& from = t < 0.5 ? *below : *above;
      result.tuned_block_columns = block_columns(from.n, from.plan.nb);  // d as tuned there
      interpolated.m = interpolated.n = n;
      result.best = interpolated;
      result.detail = "tuned, interpolated between n=" + std::to_string(below->n) + " (nb " +
                      std::to_string(below->plan.nb) + ") and n=" + std::to_string(above->n) + " (nb " +
                      std::to_string(above->plan.nb) + "), level " + to_string(interpolated.level) + ", " + on;
      return result;
    }
  }
  result.exact = result.best->m == m && result.best->n == n;
  result.tuned_block_columns = block_columns(result.best->n, result.best->plan.nb);
  result.detail = "tuned at m=" + std::to_string(result.best->m) + ", n=" + std::to_string(result.best->n) + " (" +
                  (result.exact ? "exact" : "nearest tuned size") + ", level " + to_string(result.best->level) + ", " +
                  on + ")" + noisy_note(db, result.best->trial_id);
  return result;
}

}  // namespace

Lookup lookup_best_plan(Database& db, std::int64_t machine_id, const Plan& kind, int m, int n,
                        CalibrationLevel min_level, int cpu_threads) {
  auto s = db.prepare(std::string(best_columns) +
                      " WHERE machine_id = ?1 AND solver = ?2 AND precision = ?3 AND target = ?4 AND backend = ?5");
  s.bind(1, machine_id)
      .bind(2, to_string(kind.solver))
      .bind(3, to_string(kind.precision))
      .bind(4, to_string(kind.target))
      .bind(5, backend_column(kind));
  // The valid rows at the level asked: those tuned on these threads, those that recorded none
  // (before schema 6), and the counts of the others, for a miss's explanation.
  std::vector<BestPlan> on_these, not_recorded;
  std::set<int> elsewhere;
  std::vector<std::string> invalid;
  while (s.step()) {
    BestPlan b;
    try {
      b = read_best(s);
    } catch (const DatabaseError& e) {  // a bad row is skipped, and said so
      invalid.emplace_back(e.what());
      continue;
    }
    if (b.level < min_level) continue;
    if (b.cpu_threads == cpu_threads)
      on_these.push_back(b);
    else if (b.cpu_threads == 0)
      not_recorded.push_back(b);
    else
      elsewhere.insert(b.cpu_threads);
  }
  const std::string on = "on " + std::to_string(cpu_threads) + " CPU thread" + (cpu_threads == 1 ? "" : "s");
  // Rows of these threads answer where one is near enough; else those that recorded no count, as
  // they answered before hetlu kept it (a calibration on these threads at one other size had
  // turned every older plan of the kind off).
  Lookup result = choose_best(db, on_these, m, n, on);
  if (!result.best) result = choose_best(db, not_recorded, m, n, "on a thread count not recorded");
  result.invalid_rows = std::move(invalid);
  if (result.best) return result;
  const std::string what = to_string(kind.solver) + " " + to_string(kind.precision) + " " + to_string(kind.target) +
                           (kind.target == Target::hybrid ? " (" + to_string(kind.devices) + " backend)" : "");
  std::string counts;
  for (int t : elsewhere) counts += (counts.empty() ? "" : ", ") + std::to_string(t);
  result.detail =
      on_these.empty() && not_recorded.empty()
          ? "no tuned " + what + " plan " + on + " for this machine at level " + to_string(min_level) + " or higher" +
                (counts.empty() ? std::string()
                                : " (tuned on " + counts + " only: a calibration under this thread count tunes for it)")
          : "no tuned " + what + " plan " + on + " within a factor of 2 of m=" + std::to_string(m) +
                ", n=" + std::to_string(n);
  return result;
}

}  // namespace hetlu::db
