#include "db/distributed.hpp"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "hetlu/detail/utf8.hpp"

namespace hetlu::db {
namespace {

const char* const trial_columns =
    "machine_id, precision, ranks, ranks_per_node, n, nb, grid_rows, grid_cols, threads_per_rank, status, error, "
    "repetitions, median_s, predicted_s, samples, measured_at";

// A row as stored, its numbers checked: a value out of range (from an import or a hand edit) throws,
// and the look-up skips the row.
DistributedTrial read_trial(Statement& s) {
  constexpr long long most = std::numeric_limits<int>::max();
  DistributedTrial t;
  t.machine_id = s.column_int(0);
  t.precision = from_string<Precision>(s.column_text(1));
  t.layout.ranks = s.column_int_within(2, "ranks", 1, most);
  t.layout.ranks_per_node = s.column_int_within(3, "ranks_per_node", 1, most);
  t.n = s.column_int_within(4, "n", 1, most);
  t.plan.nb = s.column_int_within(5, "nb", 1, most);
  t.plan.grid_rows = s.column_int_within(6, "grid_rows", 1, most);
  t.plan.grid_cols = s.column_int_within(7, "grid_cols", 1, most);
  t.plan.threads_per_rank = s.column_int_within(8, "threads_per_rank", 1, most_threads);
  t.status = trial_status_from_string(s.column_text(9));
  t.error = s.column_text(10);
  t.repetitions = static_cast<int>(s.column_int(11));
  t.median_s = s.column_optional_double(12);
  t.predicted_s = s.column_optional_double(13);
  t.samples = nlohmann::json::parse(s.column_text(14)).get<std::vector<double>>();
  t.measured_at = s.column_text(15);
  t.plan.predicted_seconds = t.predicted_s;
  return t;
}

// A stored configuration a solve could not run, beyond the ranges read_trial checks: a grid that
// does not use the ranks, no time. Damaged rows are skipped by the look-up, not trusted.
bool valid(const DistributedTrial& t) {
  return t.plan.grid_rows * static_cast<long long>(t.plan.grid_cols) == t.layout.ranks && t.median_s &&
         std::isfinite(*t.median_s) && *t.median_s > 0;
}

// Binds a trial's key (machine, precision, layout, n, nb, grid, threads) to ?1 .. ?9, in
// trial_columns' order.
Statement& bind_key(Statement& s, const DistributedTrial& t) {
  return s.bind(1, t.machine_id)
      .bind(2, to_string(t.precision))
      .bind(3, t.layout.ranks)
      .bind(4, t.layout.ranks_per_node)
      .bind(5, t.n)
      .bind(6, t.plan.nb)
      .bind(7, t.plan.grid_rows)
      .bind(8, t.plan.grid_cols)
      .bind(9, t.plan.threads_per_rank);
}

}  // namespace

void store_network_profile(Database& db, std::int64_t machine_id, const distributed::NetworkProfile& net) {
  db.prepare(
        "INSERT OR REPLACE INTO network_probes (machine_id, ranks, ranks_per_node, latency_s, bandwidth_bps, "
        "broadcast_latency_s, broadcast_bandwidth_bps) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
      .bind(1, machine_id)
      .bind(2, net.layout.ranks)
      .bind(3, net.layout.ranks_per_node)
      .bind(4, net.latency_seconds)
      .bind(5, net.bandwidth_bytes_per_second)
      .bind(6, net.broadcast_latency_seconds)
      .bind(7, net.broadcast_bandwidth_bytes_per_second)
      .run();
}

std::optional<distributed::NetworkProfile> load_network_profile(Database& db, std::int64_t machine_id,
                                                                const distributed::RankLayout& layout) {
  auto s = db.prepare(
      "SELECT latency_s, bandwidth_bps, broadcast_latency_s, broadcast_bandwidth_bps, measured_at, "
      "typeof(latency_s) = 'real' AND typeof(bandwidth_bps) = 'real' AND typeof(broadcast_latency_s) = 'real' AND "
      "typeof(broadcast_bandwidth_bps) = 'real' FROM "
      "network_probes WHERE machine_id = ?1 AND ranks = ?2 AND ranks_per_node = ?3");
  s.bind(1, machine_id).bind(2, layout.ranks).bind(3, layout.ranks_per_node);
  if (!s.step()) return std::nullopt;
  // A text where a measurement belongs read as 0 s of latency: no measurement (as db check says).
  if (s.column_int(5) != 1) return std::nullopt;
  distributed::NetworkProfile net;
  net.layout = layout;
  net.latency_seconds = s.column_double(0);
  net.bandwidth_bytes_per_second = s.column_double(1);
  net.broadcast_latency_seconds = s.column_double(2);
  net.broadcast_bandwidth_bytes_per_second = s.column_double(3);
  // A damaged row (no bandwidth, a negative or absurd latency) is no measurement.
  auto latency = [](double seconds) { return seconds >= 0 && seconds <= most_network_latency_s; };
  auto bandwidth = [](double b) { return b >= least_network_bandwidth_bps && b <= most_network_bandwidth_bps; };
  if (!(latency(net.latency_seconds) && latency(net.broadcast_latency_seconds) &&
        bandwidth(net.bandwidth_bytes_per_second) && bandwidth(net.broadcast_bandwidth_bytes_per_second)))
    return std::nullopt;
  net.source = "measured on " + std::to_string(layout.ranks) + " ranks, " + std::to_string(layout.ranks_per_node) +
               " per node, " + s.column_text(4);
  return net;
}

void store_distributed_trial(Database& db, const DistributedTrial& t) {
  auto s = db.prepare(std::string("INSERT OR REPLACE INTO distributed_trials (") + trial_columns +
                      ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, datetime('now'))");
  bind_key(s, t)
      .bind(10, to_string(t.status))
      .bind(11, detail::printable(t.error))  // as a local trial's (trials.cpp)
      .bind(12, t.repetitions)
      .bind(13, t.median_s)
      .bind(14, t.predicted_s)
      .bind(15, nlohmann::json(t.samples).dump())
      .run();
}

std::optional<DistributedTrial> find_distributed_trial(Database& db, const DistributedTrial& key) {
  auto s = db.prepare(std::string("SELECT ") + trial_columns +
                      " FROM distributed_trials WHERE machine_id = ?1 AND precision = ?2 AND ranks = ?3 AND "
                      "ranks_per_node = ?4 AND n = ?5 AND nb = ?6 AND grid_rows = ?7 AND grid_cols = ?8 AND "
                      "threads_per_rank = ?9");
  bind_key(s, key);
  if (!s.step()) return std::nullopt;
  try {
    return read_trial(s);
  } catch (const std::exception&) {  // a damaged row is measured again, as if absent (rank 0 alone reads it)
    return std::nullopt;
  }
}

std::vector<DistributedTrial> list_distributed_trials(Database& db, std::int64_t machine_id) {
  auto s = db.prepare(std::string("SELECT ") + trial_columns +
                      " FROM distributed_trials WHERE machine_id = ?1 ORDER BY ranks, ranks_per_node, precision, n, "
                      "median_s");
  s.bind(1, machine_id);
  std::vector<DistributedTrial> out;
  while (s.step()) try {
      out.push_back(read_trial(s));
    } catch (const std::exception&) {  // a damaged row (samples not JSON, an unknown precision)
    }
  return out;
}

DistributedLookup lookup_distributed_plan(Database& db, std::int64_t machine_id, Precision precision,
                                          const distributed::RankLayout& layout, int n) {
  DistributedLookup out;
  const std::string where = std::to_string(layout.ranks) + " ranks (" + std::to_string(layout.ranks_per_node) +
                            " per node), " + to_string(precision);
  auto s = db.prepare(std::string("SELECT ") + trial_columns +
                      " FROM distributed_trials WHERE machine_id = ?1 AND precision = ?2 AND ranks = ?3 AND "
                      "ranks_per_node = ?4 AND status != 'failed'");
  s.bind(1, machine_id).bind(2, to_string(precision)).bind(3, layout.ranks).bind(4, layout.ranks_per_node);
  double nearest = std::numeric_limits<double>::infinity();
  int skipped = 0, farther = 0;
  while (s.step()) {
    DistributedTrial t;
    try {
      t = read_trial(s);
    } catch (const std::exception&) {
      ++skipped;
      continue;
    }
    if (!valid(t)) {
      ++skipped;
      continue;
    }
    // As the local plans: a size tuned more than a factor of 2 away says little about this one.
    const double distance = std::abs(std::log2(double(t.n) / std::max(1, n)));
    if (distance > 1) {
      ++farther;
      continue;
    }
    const bool closer = distance < nearest - 1e-12;
    const bool same_size_faster = std::abs(distance - nearest) <= 1e-12 && *t.median_s < *out.best->median_s;
    if (closer || same_size_faster) {
      nearest = distance;
      out.best = t;
    }
  }
  out.skipped_rows = skipped;
  if (!out.best) {
    out.detail = (farther ? "no distributed trial within a factor of 2 of n = " + std::to_string(n) + " for "
                          : "no distributed trials for ") +
                 where + (skipped ? " (" + std::to_string(skipped) + " invalid rows skipped)" : "");
    return out;
  }
  out.exact = out.best->n == n;
  out.detail =
      "tuned for " + where + " at n = " + std::to_string(out.best->n) + (out.exact ? " (exact)" : " (nearest)");
  return out;
}

}  // namespace hetlu::db
