// What the database keeps of distributed solves (#18): the network probed for a rank layout, and
// every timed p?gesv configuration of a layout (schema version 5).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "db/records.hpp"
#include "hetlu/distributed_plan.hpp"

namespace hetlu::db {

// The range a stored network measurement must lie in to be believed (a look-up ignores a row outside
// it; `hetlu db check` and `db import` refuse it): latencies in seconds, bandwidths in bytes/s.
// Wide enough for any interconnect and shared memory, and for one rank's "network" (latency 0,
// 1e15 bytes/s: the probe's stand-in for no transfer); a latency of 1e300 s priced a solve at 8e306 s.
inline constexpr double most_network_latency_s = 1.0;
inline constexpr double least_network_bandwidth_bps = 1e3;
inline constexpr double most_network_bandwidth_bps = 1e15;

// Stores (replaces) the network profile of its layout.
void store_network_profile(Database& db, std::int64_t machine_id, const distributed::NetworkProfile& net);
std::optional<distributed::NetworkProfile> load_network_profile(Database& db, std::int64_t machine_id,
                                                                const distributed::RankLayout& layout);

struct DistributedTrial {
  std::int64_t machine_id = 0;
  Precision precision = Precision::double_;
  distributed::RankLayout layout;
  int n = 0;
  distributed::DistributedPlan plan;  // nb, grid and threads_per_rank: the configuration timed
  TrialStatus status = TrialStatus::ok;
  std::string error;
  int repetitions = 0;
  std::optional<double> median_s, predicted_s;
  std::vector<double> samples;
  std::string measured_at;
};

// Stores the trial under its key (machine, precision, layout, n, nb, grid, threads), replacing one
// stored before.
void store_distributed_trial(Database& db, const DistributedTrial& trial);
std::optional<DistributedTrial> find_distributed_trial(Database& db, const DistributedTrial& key);
std::vector<DistributedTrial> list_distributed_trials(Database& db, std::int64_t machine_id);

struct DistributedLookup {
  std::optional<DistributedTrial> best;  // empty: a miss
  bool exact = false;                    // tuned at the n asked
  std::string detail;                    // what answered, or why nothing did
  int skipped_rows = 0;                  // damaged or impossible rows of this layout, not trusted
};

// The fastest successful trial of the layout and precision at the tuned order nearest n (in log n),
// within a factor of 2 of n as the local plans are.
DistributedLookup lookup_distributed_plan(Database& db, std::int64_t machine_id, Precision precision,
                                          const distributed::RankLayout& layout, int n);

}  // namespace hetlu::db
