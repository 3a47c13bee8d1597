// What a distributed solve (#18) is told and what the network does, without MPI: the model, the
// database and `hetlu recommend --ranks` read these on a machine with no MPI at all.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hetlu/types.hpp"

namespace hetlu::distributed {

// How a distributed solve runs. Zero fields are resolved (hetlu::distributed::resolve_plan: tuned,
// else the model, else the defaults): the grid as square as the rank count allows (P <= Q, P the
// largest divisor of the count not above its square root: 6 ranks are 2 x 3, a prime count is
// 1 x count), nb = 64, and the BLAS threads the process already has.
struct DistributedPlan {
  int grid_rows = 0, grid_cols = 0;  // P x Q, P * Q == the communicator's size
  int nb = 0;                        // the square block of the block-cyclic layout
  int threads_per_rank = 0;          // BLAS (OpenMP) threads of each rank during the solve

  PlanSource source = PlanSource::default_;
  std::string source_detail;
  std::optional<double> predicted_seconds;  // the model's, for this plan's own nb, grid and threads
};

// The squarest P x Q grid of `ranks` ranks (P <= Q).
inline void squarest_grid(int ranks, int& rows, int& cols) {
  rows = 1;
  for (int r = 1; r * r <= ranks; ++r)
    if (ranks % r == 0) rows = r;
  cols = ranks / rows;
}

// The parameters most codes call p?gesv with (ScaLAPACK's examples and users' guide): nb = 64 and
// the squarest grid, with `threads_per_rank` BLAS threads (0: the process's own). hetlu's default
// where nothing is tuned or modelled, and what bench and calibrate compare tuning with.
constexpr int common_nb = 64;
inline DistributedPlan common_plan(int ranks, int threads_per_rank) {
  DistributedPlan plan;
  plan.nb = common_nb;
  plan.threads_per_rank = threads_per_rank;
  squarest_grid(ranks, plan.grid_rows, plan.grid_cols);
  return plan;
}

// The levels of a binomial broadcast tree over `ranks` ranks (ceil(log2 ranks)): what the network
// probe divides a measured broadcast by and what the model multiplies a level's cost by.
inline int broadcast_tree_levels(int ranks) {
  int levels = 0;
  while ((1 << levels) < ranks) ++levels;
  return levels;
}

// Where a distributed problem runs: how many ranks, how many of them share a node.
struct RankLayout {
  int ranks = 1;
  int ranks_per_node = 1;  // the most ranks on one node
};

// The network between ranks as the probe measured it (distributed/network_probe.cpp), or as a
// machine file describes it: point to point (ping-pong between the first and the last rank), and
// one level of a broadcast tree, fitted from broadcasts along a row and a column of the squarest grid.
struct NetworkProfile {
  RankLayout layout;
  double latency_seconds = 0;                       // half a round trip of 8 bytes
  double bandwidth_bytes_per_second = 0;            // from half a round trip of 4 MiB
  double broadcast_latency_seconds = 0;             // per tree level, small message
  double broadcast_bandwidth_bytes_per_second = 0;  // per tree level, large message
  std::string source;                               // "measured on 4 ranks, 4 per node", "default", ...
};

}  // namespace hetlu::distributed

namespace hetlu::distributed {

// A distributed plan resolved, and how.
struct DistributedResolution {
  DistributedPlan plan;
  NetworkProfile network;                // what the model priced it with
  std::vector<std::string> explanation;  // the model's terms and reasoning, when it priced the plan
  std::vector<std::string> warnings;     // a damaged or stale database, say
  // The bytes the plan puts on a node (the most loaded rank's blocks of A and B and its pivots, times
  // the ranks a node), and whether this machine's memory holds them (empty: not priced, or memory
  // not known); a plan that does not fit is said in the warnings too.
  double bytes_per_node = 0;
  std::optional<bool> fits_memory;
};

// The plan for an n x n system of `precision` (single or double) on `layout`: the fields of `given`
// that are not zero are the caller's; the others come from the fastest tuned configuration of this
// machine, layout and precision in the database at db_path (empty: the default path; the nearest
// tuned order), else the model (stored probe rates and network of this layout, else datasheet rates
// and the model's network defaults), else the defaults (the squarest grid, nb = 64, the process's
// own threads). Throws InvalidArgument for a layout or a given grid that cannot be. MPI-free: every
// rank may call it, or the root alone, which then sends the plan.
DistributedResolution resolve_plan(const DistributedPlan& given, Precision precision, int n, const RankLayout& layout,
                                   const std::string& db_path = "");

// The device-resident LU (distributed::getrf_resident) of a resolved `plan` with each rank's part on
// `device`, priced by the model with the rates and network resolve_plan would use: the result's
// plan is `plan` with predicted_seconds set (unset where the model cannot price it, why in the
// explanation), its explanation the terms.
DistributedResolution price_resident(const DistributedPlan& plan, Precision precision, int n, const RankLayout& layout,
                                     const Device& device, const std::string& db_path = "");

// The grid of `given` completed for `ranks` ranks (a zero side from the other, both zero: the
// squarest); throws InvalidArgument for one that does not use every rank.
void complete_grid(DistributedPlan& plan, int ranks);

}  // namespace hetlu::distributed
