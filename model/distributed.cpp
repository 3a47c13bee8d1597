#include "model/distributed.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <tuple>

#include "hetlu/detail/bytes.hpp"
#include "hetlu/detail/flops.hpp"

namespace hetlu::model {
namespace {

using distributed::DistributedPlan;
using distributed::NetworkProfile;

std::string format(const char* pattern, double a, double b = 0, double c = 0) {
  char text[200];
  std::snprintf(text, sizeof text, pattern, a, b, c);
  return text;
}

// The cost of a broadcast of `bytes` to `ranks` ranks: a binomial tree, one level per doubling.
double broadcast_seconds(const NetworkProfile& net, double bytes, int ranks) {
  if (ranks <= 1) return 0;
  return distributed::broadcast_tree_levels(ranks) *
         (net.broadcast_latency_seconds + bytes / net.broadcast_bandwidth_bytes_per_second);
}

double message_seconds(const NetworkProfile& net, double bytes) {
  return net.latency_seconds + bytes / net.bandwidth_bytes_per_second;
}

// The ranks on one node, within the layout's ranks.
int ranks_on_a_node(const distributed::RankLayout& layout) {
  return std::clamp(layout.ranks_per_node, 1, std::max(1, layout.ranks));
}

// Whole nb-blocks of `count` rows or columns dealt cyclically to `procs` processes: what the most
// loaded one holds.
double most_loaded(double count, int nb, int procs) {
  const double blocks = std::ceil(count / nb);
  return std::min(count, std::ceil(blocks / procs) * nb);
}

// The block steps of an LU of order n in panels of nb: body(done, count) for groups of `count`
// consecutive steps, the first `done` columns factored at the group's middle step, each term of the
// group priced there times count. Every step alone up to max_priced_steps steps (any order below
// 2048 nb: exact); beyond, as many groups, each within a fraction 1 / max_priced_steps of the
// sum's range (recommend --ranks 64 -n 1e8 priced 1.5 million steps per candidate: 29 s).
constexpr double max_priced_steps = 2048;
template <class Body>
void for_each_step_group(int n, int nb, Body&& body) {
  const double steps = std::ceil(double(n) / nb), stride = std::max(1.0, std::ceil(steps / max_priced_steps));
  for (double step = 0; step < steps; step += stride) {
    const double count = std::min(stride, steps - step);
    body((step + (count - 1) / 2) * nb, count);  // the group's centre
  }
}

// The CPUs' update term of p?gesv, which the device-resident variant replaces.
const char* const local_update_term = "local TRSM and GEMM";

struct RankRates {
  double gemm_flops = 0;   // per second, one rank with its threads, for a wide update
  double panel_flops = 0;  // per second, p?getf2's column-by-column updates
  double slowdown = 1;     // oversubscribed cores
  double cores_per_rank = 1;
  bool threads_back_off = false;  // idle threads sleep, or libgomp throttles their spinning
};

// `panel_rows`: a rank's part of the first panel, whose probed shape prices p?getf2's threads.
RankRates rank_rates(const MachineProfile& node, const Rates& rates, const DistributedProblem& problem, int threads,
                     int nb, double panel_rows, const ModelParams& params) {
  RankRates r;
  const int cores = std::max(1, node.cores);
  const int per_node = std::max(1, problem.layout.ranks_per_node);
  r.cores_per_rank = double(cores) / per_node;
  const double used_cores = std::min<double>(threads, r.cores_per_rank);
  // The node's ranks together run as many cores as they keep busy, at one core's rate each up to the
  // probed all-cores rate, never above it; each rank has its cores' share. 16 ranks of one thread on
  // 16 cores ran at 0.44 of one core's rate each, as 16 threads of one GEMM did (the H200 machine,
  // 2026-11-29), where one core's rate alone had priced them 2x fast.
  const double one = rates.cpu_one.gflops * 1e9;
  const double all = rates.cpu_all.gflops > 0 ? rates.cpu_all.gflops * 1e9 : one * cores;
  // Of `busy` cores' rate, the share each keeps.
  auto efficiency_of = [&](double busy) { return one > 0 ? busy_cores_rate(one, all, busy) / (one * busy) : 1; };
  const double efficiency = efficiency_of(std::max(1.0, std::min<double>(cores, per_node * used_cores)));
  r.gemm_flops = one * used_cores * efficiency;
  // A rank's threads speed p?getf2 up as they speed a panel up alone (panel_thread_speedup: the
  // probe's own contention is in it), and the node's other busy cores slow it as they slow a GEMM:
  // the efficiency beyond the rank's own threads'. A rank with less than a core has that share of one.
  // (The 16-rank and 4-rank plans of the H200 machine were fitted so; with the rank's own threads
  // counted twice, more threads priced an unprobed rank's panel slower.)
  r.panel_flops = one * params.distributed_panel_efficiency * efficiency / efficiency_of(std::max(1.0, used_cores)) *
                  (used_cores < 1 ? used_cores : panel_thread_speedup(node, "gepp", panel_rows, nb, used_cores));
  r.threads_back_off = problem.idle_threads_sleep || (problem.cpus_per_rank > 0 && threads > problem.cpus_per_rank);
  if (threads > 1 && per_node * threads > cores)
    r.slowdown = r.threads_back_off ? params.oversubscribed_passive_slowdown : params.oversubscribed_slowdown;
  return r;
}

// The plan's bytes on a node, and whether the node's memory holds them (said either way, where the
// profile gives its memory: a prediction for an order no node can hold had read as any other).
void note_memory(const MachineProfile& node, const DistributedProblem& problem, DistributedPrediction& out) {
  out.bytes_per_node = distributed_bytes_per_node(problem, out.plan);
  const int on_node = ranks_on_a_node(problem.layout);
  std::string said = "memory: " + detail::readable_bytes(out.bytes_per_node) + " on a node (" +
                     std::to_string(on_node) + " rank" + (on_node == 1 ? "" : "s") + " x the most loaded rank's " +
                     "blocks of A and B and its pivots)";
  if (node.memory_bytes > 0) {
    out.fits_memory = out.bytes_per_node <= double(node.memory_bytes);
    said += *out.fits_memory ? ", of the node's " + detail::readable_bytes(double(node.memory_bytes))
                             : ", more than the node's " + detail::readable_bytes(double(node.memory_bytes)) +
                                   ": it would not fit (more nodes, or fewer ranks a node)";
  }
  out.reasoning.push_back(said);
}

}  // namespace

NetworkProfile default_network(const distributed::RankLayout& layout, const ModelParams& params) {
  NetworkProfile net;
  net.layout = layout;
  const bool one_node = layout.ranks_per_node >= layout.ranks;
  const double latency = (one_node ? params.node_latency_us : params.network_latency_us) * 1e-6;
  const double bandwidth = (one_node ? params.node_bandwidth_gbs : params.network_bandwidth_gbs) * 1e9;
  net.latency_seconds = net.broadcast_latency_seconds = latency;
  net.bandwidth_bytes_per_second = net.broadcast_bandwidth_bytes_per_second = bandwidth;
  net.source =
      one_node ? "the model's default for ranks on one node" : "the model's default for ranks on several nodes";
  return net;
}

double distributed_bytes_per_node(const DistributedProblem& problem, const DistributedPlan& plan) {
  // What the first process of a row or column holds, as ScaLAPACK's NUMROC counts it: the most of
  // any (most_loaded, the time terms' count, is a block high where it holds the short last one).
  auto first_holds = [](double count, int nb, int procs) {
    const double blocks = std::ceil(count / nb);
    const bool holds_last = std::fmod(blocks - 1, procs) == 0;
    return std::max(0.0, std::ceil(blocks / procs) * nb - (holds_last ? blocks * nb - count : 0));
  };
  const double rows = first_holds(problem.n, plan.nb, plan.grid_rows);
  const double per_rank =
      entry_bytes(problem.precision) * rows *
          (first_holds(problem.n, plan.nb, plan.grid_cols) + first_holds(problem.nrhs, plan.nb, plan.grid_cols)) +
      sizeof(int) * (rows + plan.nb);  // p?getrf's pivots: LOCr(n) + nb
  return per_rank * ranks_on_a_node(problem.layout);
}

std::string memory_warning(const DistributedProblem& problem, const DistributedPrediction& prediction,
                           const std::string& memory) {
  return "n = " + std::to_string(problem.n) + " on " + std::to_string(problem.layout.ranks) + " rank(s), " +
         std::to_string(problem.layout.ranks_per_node) + " a node, puts " +
         detail::readable_bytes(prediction.bytes_per_node) + " on a node, more than " + memory +
         ": the solve would not fit (more nodes, or fewer ranks a node)";
}

double distributed_solve_flops(const DistributedProblem& problem) {
  return detail::gesv_flops(problem.n, problem.nrhs);
}

DistributedPrediction predict_distributed_seconds(const MachineProfile& node, const NetworkProfile& net,
                                                  const DistributedProblem& problem, const DistributedPlan& plan,
                                                  const ModelParams& params) {
  const int P = plan.grid_rows, Q = plan.grid_cols, nb = plan.nb, n = problem.n;
  if (P < 1 || Q < 1 || nb < 1 || plan.threads_per_rank < 1 || n < 0)
    throw InvalidArgument("distributed model: the plan's grid, nb and threads must be resolved (>= 1)");
  if (net.bandwidth_bytes_per_second <= 0 || net.broadcast_bandwidth_bytes_per_second <= 0)
    throw InvalidArgument("distributed model: the network profile has no bandwidth");
  const Rates rates = rates_of(node, problem.precision, params);
  if (rates.cpu_one.gflops <= 0) throw Error("the machine profile has no CPU rate to predict from");
  const RankRates rank =
      rank_rates(node, rates, problem, plan.threads_per_rank, plan.nb, most_loaded(n, nb, P), params);
  const double word = entry_bytes(problem.precision);
  const double gemm_rate = rank.gemm_flops * nb / (nb + params.gemm_half_rate_k);
  const int levels_p = distributed::broadcast_tree_levels(P);

  double panel = 0, pivots = 0, swaps = 0, broadcasts = 0, update = 0, overhead = 0;
  for_each_step_group(n, nb, [&](double done, double count) {
    const double m = n - done, width = std::min<double>(nb, m), rest = m - width;
    const double local_rows = most_loaded(m, nb, P);
    panel += count * (local_rows * width * width - width * width * width / 3) / rank.panel_flops;
    // Per column: the pivot's search reduced and its row broadcast down the process column, and
    // its swap with the diagonal row (another rank's, but for a column of one).
    if (P > 1) pivots += count * width * (2 * levels_p * net.broadcast_latency_seconds + net.latency_seconds);
    if (P > 1) swaps += count * width * (P - 1.0) / P * message_seconds(net, most_loaded(n - width, nb, Q) * word);
    broadcasts += count * broadcast_seconds(net, local_rows * width * word, Q);
    broadcasts += count * broadcast_seconds(net, width * most_loaded(rest, nb, Q) * word, P);
    const double cols = most_loaded(rest, nb, Q), rows = most_loaded(rest, nb, P);
    update += count * (width * width * cols + 2 * rows * cols * width) / gemm_rate;
    overhead += count * params.step_overhead_seconds;
  });
  // The triangular solves: per block a small broadcast along each dimension, and the flops spread
  // over the process column (the right-hand sides live in one).
  const double blocks = std::ceil(double(n) / nb);
  const double solve = 2 * blocks * (broadcast_seconds(net, nb * word, P) + broadcast_seconds(net, nb * word, Q)) +
                       detail::getrs_flops(n, problem.nrhs) / P / gemm_rate;

  DistributedPrediction out;
  out.plan = plan;
  out.plan.source = PlanSource::model;
  out.terms = {{"panel factorization (p?getf2)", panel},
               {"pivot search and pivot rows", pivots},
               {"row interchanges", swaps},
               {"panel and row-block broadcasts", broadcasts},
               {local_update_term, update},
               {"triangular solves", solve},
               {"step overhead", overhead}};
  double seconds = 0;
  for (auto& term : out.terms) seconds += (term.seconds *= rank.slowdown);
  out.seconds = seconds;
  out.plan.predicted_seconds = seconds;
  out.reasoning.push_back(format("per rank: %.1f GFlop/s GEMM on %.0f thread(s), %.2f cores of its node each",
                                 rank.gemm_flops / 1e9, plan.threads_per_rank, rank.cores_per_rank) +
                          " (one core: " + rates.cpu_one.source + "; all: " + rates.cpu_all.source + ")");
  out.reasoning.push_back(format("network: %.2f us latency, %.2f GB/s point to point; %.2f us per broadcast level",
                                 net.latency_seconds * 1e6, net.bandwidth_bytes_per_second / 1e9,
                                 net.broadcast_latency_seconds * 1e6) +
                          " (" + net.source + ")");
  if (rank.slowdown > 1)
    out.reasoning.push_back(format("%.0f ranks x %.0f threads oversubscribe the node's cores: x %g",
                                   problem.layout.ranks_per_node, plan.threads_per_rank, rank.slowdown) +
                            (rank.threads_back_off
                                 ? " (idle OpenMP threads sleep: OMP_WAIT_POLICY=passive, a small GOMP_SPINCOUNT, or "
                                   "more threads than a rank's CPUs)"
                                 : " (idle OpenMP threads spin)"));
  // More ranks than blocks along a side leave ranks without any of the matrix (1048576 ranks for
  // 25 x 25 blocks were planned on a 1024 x 1024 grid without a word): said, with how many hold some.
  const double holding = std::min(blocks, double(P)) * std::min(blocks, double(Q));
  if (holding < double(P) * Q)
    out.reasoning.push_back(
        format("only %.0f of the %.0f ranks hold part of the matrix (%.0f blocks of nb a side): "
               "fewer ranks would do",
               holding, double(P) * Q, blocks));
  note_memory(node, problem, out);
  return out;
}

DistributedPrediction predict_resident_seconds(const MachineProfile& node, const MachineProfile& node_with_device,
                                               const NetworkProfile& net, const DistributedProblem& problem,
                                               const DistributedPlan& plan, const ModelParams& params) {
  DistributedPrediction out = predict_distributed_seconds(node, net, problem, plan, params);
  const Rates rates = rates_of(node_with_device, problem.precision, params, 1, problem.tf32);
  if (rates.device.gflops <= 0 || rates.link.gbs <= 0)
    throw Error("the machine profile has no device rate or link to price the device-resident LU with");
  const RankRates rank = rank_rates(node, rates_of(node, problem.precision, params), problem, plan.threads_per_rank,
                                    plan.nb, most_loaded(problem.n, plan.nb, plan.grid_rows), params);
  const int P = plan.grid_rows, Q = plan.grid_cols, nb = plan.nb, n = problem.n;
  const double word = entry_bytes(problem.precision);
  const double cpu_rate = rank.gemm_flops * nb / (nb + params.gemm_half_rate_k);
  const double device_rate = rates.device.gflops * 1e9 * nb / (nb + params.gemm_half_rate_k);
  // Every rank drives the same device (the cuda backend's CUDA device 0; cuda:K is K for all), so a
  // node's ranks share one GPU's GEMMs, link and copies. 16 ranks on one H200 were priced as 16
  // GPUs, 0.68 s against 5.76 measured (2026-11-29). Ranks given GPUs of their own through
  // CUDA_VISIBLE_DEVICES run apart, which the model does not see. A host team is a rank's own cores.
  const bool gpu = !node_with_device.gpus.empty() && node_with_device.gpus.front().host_team_threads == 0;
  const double sharing = gpu ? std::max(1, problem.layout.ranks_per_node) : 1;
  const double link = rates.link.gbs * 1e9 / sharing, latency = rates.link_latency_us * 1e-6 * sharing;
  double trsm = 0, gemm = 0, elements = most_loaded(n, nb, P) * most_loaded(n, nb, Q), copies = 1;
  for_each_step_group(n, nb, [&](double done, double count) {
    const double m = n - done, width = std::min<double>(nb, m), rest = m - width;
    const double cols = most_loaded(rest, nb, Q), rows = most_loaded(rest, nb, P);
    trsm += count * width * width * cols / cpu_rate;
    gemm += count * 2 * rows * cols * width / device_rate * sharing;
    const double touched = rest > 0 ? width + width / P : 0;
    elements += count * (most_loaded(m, nb, P) * width + 2 * touched * cols + rows * width + width * cols);
    // The panel, L and U one copy each; the touched rows gathered on the device, one copy each way
    // and their indices up (Backend::gather_rows).
    copies += count * (3 + (rest > 0 ? 3 : 0));
  });
  const double transfers = elements * word / link + copies * latency;
  double seconds = 0;
  for (auto& term : out.terms) {
    if (term.name == local_update_term) term = {"TRSM of the U row (CPUs)", trsm * rank.slowdown};
    seconds += term.seconds;
  }
  out.terms.push_back({"trailing GEMM (device, " + rates.device_name + ")", gemm});
  out.terms.push_back({"link: matrix up once; panels, touched rows, L and U", transfers});
  out.seconds = seconds + gemm + transfers;
  out.plan.predicted_seconds = out.seconds;
  out.reasoning.push_back(format("device: %.1f GFlop/s GEMM (", rates.device.gflops) + rates.device.source +
                          format("); link %.2f GB/s, %.1f us per copy", rates.link.gbs, rates.link_latency_us));
  if (sharing > 1)
    out.reasoning.push_back(format("the node's %.0f ranks share one GPU: its GEMMs, link and copies", sharing));
  return out;
}

std::vector<DistributedPrediction> distributed_candidates(const MachineProfile& node, const NetworkProfile& net,
                                                          const DistributedProblem& problem,
                                                          const ModelParams& params) {
  const int ranks = problem.layout.ranks;
  if (ranks < 1) throw InvalidArgument("distributed model: " + std::to_string(ranks) + " ranks");
  const int cores_per_rank = std::max(1, std::max(1, node.cores) / std::max(1, problem.layout.ranks_per_node));
  // Threads: powers of two and the rank's whole share of its node's cores.
  std::vector<int> thread_counts;
  for (int t = 1; t < cores_per_rank; t *= 2) thread_counts.push_back(t);
  thread_counts.push_back(cores_per_rank);
  // nb capped at the order, as every other plan's is (64 was offered for n = 10).
  std::vector<int> nbs;
  for (int nb : params.distributed_nb_candidates) nbs.push_back(std::clamp(nb, 1, std::max(1, problem.n)));
  std::sort(nbs.begin(), nbs.end());
  nbs.erase(std::unique(nbs.begin(), nbs.end()), nbs.end());
  std::vector<DistributedPrediction> all;
  for (int rows = 1; rows <= ranks; ++rows) {
    if (ranks % rows) continue;
    for (int nb : nbs)
      for (int threads : thread_counts) {
        DistributedPlan plan;
        plan.grid_rows = rows, plan.grid_cols = ranks / rows, plan.nb = nb, plan.threads_per_rank = threads;
        all.push_back(predict_distributed_seconds(node, net, problem, plan, params));
      }
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.seconds < b.seconds; });
  return all;
}

DistributedPrediction predict_distributed(const MachineProfile& node, const NetworkProfile& net,
                                          const DistributedProblem& problem, const ModelParams& params) {
  auto all = distributed_candidates(node, net, problem, params);
  int square_rows = 1, square_cols = 1;
  distributed::squarest_grid(problem.layout.ranks, square_rows, square_cols);
  // Within 1 % of the least time counts as a tie: then the squarer grid, nb nearer 64, fewer threads.
  auto tie_key = [&](const DistributedPrediction& p) {
    return std::make_tuple(std::abs(p.plan.grid_rows - square_rows),
                           std::abs(std::log2(p.plan.nb / double(distributed::common_nb))), p.plan.threads_per_rank);
  };
  std::size_t best = 0;
  for (std::size_t i = 1; i < all.size() && all[i].seconds <= 1.01 * all[0].seconds; ++i)
    if (tie_key(all[i]) < tie_key(all[best])) best = i;
  DistributedPrediction out = std::move(all[best]);
  out.plan.source_detail = "model";
  out.reasoning.insert(out.reasoning.begin(), format("chose nb = %.0f on a %.0f x ", out.plan.nb, out.plan.grid_rows) +
                                                  format("%.0f grid, %.0f BLAS thread(s) per rank", out.plan.grid_cols,
                                                         out.plan.threads_per_rank));
  return out;
}

}  // namespace hetlu::model
