// The model of a distributed LU solve (#18): ScaLAPACK's p?gesv on a P x Q grid in nb x nb
// blocks, as ScaLAPACK runs it (no look-ahead: each step's parts add up). Per step, with m rows and
// columns left:
//   panel      the nb columns factored down a process column (p?getf2, unblocked): per column a
//              pivot search reduced over P ranks, the pivot row swapped and broadcast, and the
//              rank-1 updates of m/P rows;
//   row swaps  nb rows interchanged across the process column in every other block column;
//   broadcasts the panel along the process row (m/P x nb), the U row block down the column
//              (nb x m/Q), each a binomial tree;
//   update     the TRSM of the row block and the GEMM of the trailing matrix on the most loaded
//              rank (whole blocks, so block-cyclic imbalance counts) at the per-rank GEMM rate of
//              its threads, the rate falling for thin updates as the CPU model's does.
// Then the triangular solves, latency-bound: a broadcast per block on each triangle.
// Pure functions: no MPI, no I/O.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hetlu/detail/cuda_tf32.hpp"
#include "hetlu/detail/openmp_wait.hpp"
#include "hetlu/distributed_plan.hpp"
#include "hetlu/types.hpp"
#include "model/params.hpp"
#include "model/predict.hpp"

namespace hetlu::model {

struct DistributedProblem {
  Precision precision = Precision::double_;  // single or double
  int n = 0, nrhs = 1;
  distributed::RankLayout layout;
  // The resident variant's device GEMMs in TF32 (single precision on a GPU that has it), as the
  // cuda backend runs them under HETLU_CUDA_TF32=1 (model::Problem::tf32's rule).
  bool tf32 = false;  // the callers pass detail::cuda_tf32_requested() (problem_as_run_here)
  // Idle OpenMP threads sleep (detail::openmp_idle_threads_sleep()), or a rank has more threads than
  // the CPUs it is bound to (detail::cpus_in_affinity_mask(); 0: not known), where libgomp throttles
  // their spinning: oversubscribed cores cost ModelParams::oversubscribed_passive_slowdown, not
  // oversubscribed_slowdown.
  bool idle_threads_sleep = false;
  int cpus_per_rank = 0;
};

// The problem as this process would run it: TF32, the OpenMP wait policy and the CPUs it is bound
// to read from its environment, once here for the model's callers (the model's own code reads none).
inline DistributedProblem problem_as_run_here(Precision precision, int n, const distributed::RankLayout& layout) {
  return {precision,
          n,
          1,
          layout,
          detail::cuda_tf32_requested(),
          detail::openmp_idle_threads_sleep(),
          detail::cpus_in_affinity_mask()};
}

struct DistributedPrediction {
  distributed::DistributedPlan plan;  // predicted_seconds set; source model
  double seconds = 0;
  // What the most loaded rank holds (its blocks of A and B, the pivots) times the ranks on a node;
  // fits_memory: whether the node's memory holds it (empty where the profile gives no memory).
  double bytes_per_node = 0;
  std::optional<bool> fits_memory;
  std::vector<Term> terms;
  std::vector<std::string> reasoning;
};

// The network the model uses: the probe's when it measured this layout, else the defaults of
// params for ranks on one node or on several.
distributed::NetworkProfile default_network(const distributed::RankLayout& layout, const ModelParams& params);

// Predicted seconds of the plan's own nb, grid and threads (every field resolved); terms filled.
DistributedPrediction predict_distributed_seconds(const MachineProfile& node, const distributed::NetworkProfile& net,
                                                  const DistributedProblem& problem,
                                                  const distributed::DistributedPlan& plan, const ModelParams& params);

// The device-resident variant (distributed::getrf_resident) of the same plan: p?gesv's panel,
// pivot, interchange and broadcast terms; the U block row's TRSM on the CPUs; the trailing GEMM at
// the device's rate; and its link: the local matrix up once, then per step the panel down, the
// rows the pivots touch down and back up (the block row's owner holds the step's own rows and its
// share of the pivot rows), L and U up, each copy paying the link's latency. No overlap is priced.
// The CPUs' terms are priced on `node` (a host team and the rank's BLAS threads take turns, not
// cores); the device's GEMM and link on `node_with_device`, the node as with_devices(node, that one
// device) describes it.
DistributedPrediction predict_resident_seconds(const MachineProfile& node, const MachineProfile& node_with_device,
                                               const distributed::NetworkProfile& net,
                                               const DistributedProblem& problem,
                                               const distributed::DistributedPlan& plan, const ModelParams& params);

// Every configuration the model considers (nb from params.distributed_nb_candidates, every grid of
// the rank count, threads per rank in powers of two up to the cores of each rank's node share), fastest first.
std::vector<DistributedPrediction> distributed_candidates(const MachineProfile& node,
                                                          const distributed::NetworkProfile& net,
                                                          const DistributedProblem& problem, const ModelParams& params);

// The plan with the least predicted time over nb (params.distributed_nb_candidates), every grid of
// the rank count and the threads per rank (powers of two, and each rank's share of its node's cores). Ties go to
// the squarer grid, then nb nearest 64, then fewer threads.
DistributedPrediction predict_distributed(const MachineProfile& node, const distributed::NetworkProfile& net,
                                          const DistributedProblem& problem, const ModelParams& params);

// The bytes a node's ranks hold for the plan: the most loaded rank's blocks of A (n x n) and B
// (n x nrhs, in the process column that holds it) and its pivots, times the ranks on the node.
double distributed_bytes_per_node(const DistributedProblem& problem, const distributed::DistributedPlan& plan);

// The warning of a prediction whose bytes a node cannot hold; `memory` names the memory it exceeds
// ("this node's 23.4 GiB", "the 476.8 GiB of a node in 'FILE'").
std::string memory_warning(const DistributedProblem& problem, const DistributedPrediction& prediction,
                           const std::string& memory);

// The flops of a solve: 2/3 n^3 + 2 n^2 nrhs, as every GFlop/s hetlu reports counts them.
double distributed_solve_flops(const DistributedProblem& problem);

}  // namespace hetlu::model
