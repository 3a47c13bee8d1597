#include "model/predict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "hetlu/detail/deal_columns.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/detail/staging_slot.hpp"
#include "model/cpu_share.hpp"

namespace hetlu::model {
namespace {

// One decimal; a positive value below 0.1 with two significant digits (a link of 0.01 GB/s had
// read "0.0 GB/s").
std::string fmt1(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, v > 0 && v < 0.1 ? "%.2g" : "%.1f", v);
  return buffer;
}
std::string fmt_seconds(double s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, s < 1 ? "%.4f s" : "%.2f s", s);
  return buffer;
}

double efficiency(double k, double half_k) {
  return k / (k + half_k);
}

// Bytes per second of the host's memory: the probed triad bandwidth, else 10 GB/s.
double host_bandwidth(double memory_gbs) {
  return (memory_gbs > 0 ? memory_gbs : 10) * 1e9;
}

// One step of a blocked right-looking LU: the panel of columns [j, j + jb), rows [j, m).
struct Step {
  double rows, jb, right;  // panel rows, panel width, columns right of the panel
  double panel_flops() const { return detail::getrf_flops(rows, jb); }
  double update_flops(double columns) const { return jb * jb * columns + 2.0 * (rows - jb) * columns * jb; }
};

template <class Visit>
void for_each_step(int m, int n, int nb, Visit&& visit) {
  // 64-bit: j + nb overflows int near INT_MAX (the loop never ended at n = 2147483647).
  const long long k = std::min(m, n);
  for (long long j = 0; j < k; j += nb) {
    const double jb = double(std::min<long long>(k - j, nb));
    visit(Step{double(m - j), jb, double(n - j) - jb});
  }
}

struct CpuTimes {
  double panel = 0, update = 0, swaps = 0, overhead = 0, total = 0;
};

// Row interchanges of one step on `columns` columns: two rows of jb entries read and written per
// column, memory-bound (the rows are far apart in column-major storage).
double swap_seconds(const Step& s, double columns, double word, double memory_gbs) {
  return 4 * word * s.jb * columns / host_bandwidth(memory_gbs);
}

// The same on a device's `columns`: a GPU's laswp at params.device_interchange_bytes per row and
// column; a host backend's team as the CPUs' (swap_seconds).
double device_swap_seconds(const Rates::Device& dev, double host_memory_gbs, const Step& s, double columns, double word,
                           const ModelParams& params) {
  if (dev.host_threads > 0) return swap_seconds(s, columns, word, host_memory_gbs);
  const double memory = dev.memory.gbs > 0 ? dev.memory.gbs : params.default_device_memory_gbs;
  return s.jb * columns * params.device_interchange_bytes / (memory * 1e9);
}

// The device's memory bandwidth in bytes per second: measured, the datasheet's share, or the default.
double device_memory_bandwidth(const Rates& rates, const ModelParams& params) {
  return (rates.device_memory.gbs > 0 ? rates.device_memory.gbs : params.default_device_memory_gbs) * 1e9;
}

// hetlu's own calls check that the input is finite first (checks::finite, a parallel pass over A
// on the host: 0.05 s at n = 16384 on the H100 machine's 16 cores, a fifth of the hybrid LU).
double input_check_seconds(const Rates& rates, int m, int n, double word) {
  return word * double(m) * n / host_bandwidth(rates.memory_gbs);
}

// Blocked LU on the CPUs. With look-ahead, one thread factors the next panel while the others
// (and it, afterwards) update the rest; without, the panel runs on all threads, then the update.
CpuTimes cpu_lu_seconds(const MachineProfile& profile, const Rates& rates, Solver solver, int m, int n,
                        const Plan& plan, const ModelParams& params, double word) {
  const int nb = std::max(1, plan.nb);
  const int cores = std::max(1, rates.cores);
  // One panel (nb >= min(m, n)) leaves nothing to look ahead to: it runs on all threads.
  const bool lookahead = plan.lookahead > 0 && cores > 1 && nb < std::min(m, n);
  const double one = rates.cpu_one.gflops * 1e9, all = rates.cpu_all.gflops * 1e9;
  // Under look-ahead a GEPP panel runs on one thread; a TSLU's row blocks (one per panel thread)
  // become tasks that idle threads pick up (tslu.cpp), and its tournament is played: the probe of
  // plan.panel_threads threads measures both (the one-thread probe plays no tournament).
  const int panel_threads = solver == Solver::calu ? std::max(1, plan.panel_threads) : (lookahead ? 1 : cores);
  const double genp = solver == Solver::prbt ? params.genp_panel_speedup : 1.0;
  // The generic panel rate was chosen for the narrow panels of the blocked algorithm; one panel
  // over the whole matrix is the recursive LU itself, mostly GEMM: modelled as it recurses.
  const int leaf_width = nb >= std::min(m, n) ? params.panel_leaf_width : 0;
  // CALU's panel from its TSLU leaves (plan.ib wide) where they were probed; its BLAS calls run on
  // one thread inside the look-ahead's tasks.
  const bool calu_from_leaves = solver == Solver::calu && has_tslu_leaf_rates(profile);
  CpuTimes t;
  for_each_step(m, n, nb, [&](const Step& s) {
    const double panel =
        calu_from_leaves
            ? calu_panel_seconds(profile, rates, s.rows, int(s.jb), plan.ib, panel_threads, !lookahead, params)
            : cpu_panel_seconds(profile, rates, solver, s.rows, int(s.jb), panel_threads, params, leaf_width) / genp;
    // GENP (PRBT) swaps nothing; GEPP and CALU interchange rows across the whole width.
    const double swaps = solver == Solver::prbt ? 0 : swap_seconds(s, n, word, rates.memory_gbs);
    t.panel += panel;
    t.swaps += swaps;
    t.overhead += params.step_overhead_seconds;
    if (!lookahead) {
      const double update = s.update_flops(s.right) / (all * efficiency(s.jb, params.gemm_half_rate_k));
      t.update += update;
      t.total += panel + update + swaps + params.step_overhead_seconds;
      return;
    }
    // Thread 0: the next block column's update and panel; everyone: the rest of the update.
    const double rate_one = one * efficiency(s.jb, params.gemm_half_rate_k);
    const double next = std::min(s.right, s.jb);
    const double critical = panel + s.update_flops(next) / rate_one;
    const double shared = (critical + s.update_flops(s.right - next) / rate_one) / cores;
    t.update += s.update_flops(s.right) / (rate_one * cores);
    t.total += std::max(critical, shared) + swaps + params.step_overhead_seconds;
  });
  return t;
}

// Seconds per entry of one of PRBT's O(n^2) passes at order n: the probed cost, interpolated in
// log n between the orders probed (the smaller ones run in cache) and held beyond them; without a
// probe, `memory_bytes` per entry at the triad bandwidth. Probed in double: single precision
// moves half the bytes.
double pass_seconds_per_entry(const MachineProfile& profile, const Rates& rates, const std::string& kind, int n,
                              double word, double memory_bytes) {
  const PassCost *below = nullptr, *above = nullptr;
  for (const auto& c : profile.pass_costs) {
    if (c.kind != kind || c.n <= 0 || c.ns_per_entry <= 0) continue;
    if (c.n <= n && (!below || c.n > below->n)) below = &c;
    if (c.n >= n && (!above || c.n < above->n)) above = &c;
  }
  const double scale = word / 8 * 1e-9;
  if (below && above && below->n != above->n) {
    const double t = std::log(double(n) / below->n) / std::log(double(above->n) / below->n);
    return scale * std::exp((1 - t) * std::log(below->ns_per_entry) + t * std::log(above->ns_per_entry));
  }
  if (below || above) return scale * (below ? below : above)->ns_per_entry;
  return word / 8 * memory_bytes / host_bandwidth(rates.memory_gbs);
}

// PRBT's extra work on the CPUs, all O(n^2), as prbt.cpp runs it: one pass randomizes A (U^T A V,
// both butterflies fused); the condition estimate takes ||A||_1 (a pass priced as a residual's)
// and sends prbt_condition_solves right-hand sides through the factors, alternately (L U)^-1 and
// (L U)^-T; the first solution and each refinement step are a solve and a residual pass with omega.
double prbt_extra_seconds(const MachineProfile& profile, const Rates& rates, int n, Precision precision,
                          const ModelParams& params, bool randomizes = true) {
  const double word = entry_bytes(precision);
  const double entries = double(n) * n;
  auto pass = [&](const char* kind, double memory_bytes) {
    return entries * pass_seconds_per_entry(profile, rates, kind, n, word, memory_bytes);
  };
  const double solve = pass("triangular_solve", 8), transposed = pass("transposed_solve", 8);
  const double residual = pass("residual", 8);
  return (randomizes ? pass("randomize", 16) : 0) + residual + params.prbt_condition_solves * (solve + transposed) / 2 +
         (params.prbt_refinement_steps + 1) * (solve + residual);
}

}  // namespace

MixedSteps mixed_refinement_steps(const MachineProfile& profile, Solver solver, int n, const ModelParams& params) {
  // The measurement at the nearest order (by ratio: steps grow with n where they grow at all).
  const RefinementSteps* nearest = nullptr;
  auto distance = [&](const RefinementSteps& r) { return std::abs(std::log(double(r.n) / std::max(1, n))); };
  for (const auto& r : profile.mixed_refinement_steps)
    if (r.solver == solver && r.n > 0 && (!nearest || distance(r) < distance(*nearest))) nearest = &r;
  if (nearest) return {nearest->steps, "measured at n = " + std::to_string(nearest->n)};
  return {double(solver == Solver::prbt ? params.prbt_mixed_refinement_steps : params.mixed_refinement_steps),
          "the model's default; calibrate --precision mixed measures them"};
}

namespace {

// Mixed precision beyond its single factorization, on the CPUs as mixed_gesv.cpp runs it: A
// rounded to single (a pass reading 8 bytes and writing 4 per entry; PRBT's randomization fused
// with it is another single pass), then the refinement steps (mixed_refinement_steps) of a residual
// in double and a solve with the single factors; the first solution is one more solve. GEPP's
// solves also swap rows.
// host_rounds false: the device rounded A where it landed (mixed_device.hpp, d = 0): no host pass.
double mixed_extra_seconds(const MachineProfile& profile, const Rates& rates, int n, Solver solver,
                           const ModelParams& params, bool host_rounds = true) {
  const double entries = double(n) * n;
  auto pass = [&](const char* kind, double word, double memory_bytes) {
    return entries * pass_seconds_per_entry(profile, rates, kind, n, word, memory_bytes);
  };
  const double rounding = host_rounds ? entries * 12 / host_bandwidth(rates.memory_gbs) : 0;
  const double randomize = solver == Solver::prbt ? pass("randomize", 4, 16) : 0;
  const double solve = pass("triangular_solve", 4, 8), residual = pass("residual", 8, 8);
  return rounding + randomize + solve + mixed_refinement_steps(profile, solver, n, params).steps * (residual + solve);
}

// Whether PRBT on the device keeps two copies of A there (prbt_device.hpp): its factors then stay
// on the device, where it solves and refines; else they come back and the CPUs do it. A capacity
// not known counts as enough. The share held back stands for the context, the libraries'
// workspaces and the staging slots, which cudaMalloc's free memory does not have.
constexpr double usable_device_memory_share = 0.95;
bool prbt_solves_on_device(const Rates& rates, int n, double word) {
  const double copy = word * double(n) * n;
  return !(rates.device_memory_bytes > 0) || 2 * copy <= usable_device_memory_share * rates.device_memory_bytes;
}

// Whether one device's memory holds what a plan keeps there: the whole matrix with the panel on it
// (d = 0, hybrid_lu.hpp) or for PRBT at any d (prbt_hybrid.cpp randomizes A there; a second copy
// only where it fits), else its block columns right of the CPUs' d and two panel slots. A capacity
// not known counts as enough. Without this the model sent n = 110000 (97 GB) to an 80 GB H100.
bool device_holds_plan(const Rates& rates, Solver solver, int m, int n, int nb, int d, double word) {
  if (!(rates.device_memory_bytes > 0)) return true;
  const int blocks = block_columns(n, nb);
  const double columns = d == 0 || solver == Solver::prbt ? double(n) : double(std::max(0, blocks - d)) * nb + 2.0 * nb;
  return word * double(m) * columns <= usable_device_memory_share * rates.device_memory_bytes;
}

// The same for a plan as the model chooses among them: only a hybrid plan on one device that keeps
// block columns there can fail to fit (several devices' shares are dealt by their memory).
bool plan_fits_device(const Rates& rates, const Problem& problem, const Plan& plan) {
  const bool hybrid = problem.target == Target::hybrid && rates.device.gflops > 0;
  if (!hybrid || rates.devices.size() > 1 || plan.cpu_block_columns >= block_columns(problem.n, plan.nb)) return true;
  return device_holds_plan(rates, problem.solver, problem.m, problem.n, plan.nb, plan.cpu_block_columns,
                           entry_bytes(problem.precision));
}

// The same on the hybrid target, as prbt_hybrid.cpp and prbt_device.hpp do it: the host uploads A
// (zero lines, finiteness and ||A||_1 read as it packs each column: no pass of their own, which
// took 0.16 s at n = 32768 on the H100 machine), and the device keeps a copy and randomizes the other;
// the condition estimate, each solve and each residual read
// the factors and A in device memory. The host backend's team runs the CPUs' kernels for these,
// priced as the CPUs' passes after three copies; a GPU's at its memory bandwidth. Where the device
// holds one copy only, it randomizes that one and the CPUs solve with the factors sent back.
double prbt_hybrid_extra_seconds(const MachineProfile& profile, const Rates& rates, int n, Precision precision,
                                 const ModelParams& params) {
  const double word = entry_bytes(precision);
  const double host = host_bandwidth(rates.memory_gbs);
  const double matrix = word * double(n) * n;
  const double copy = 2 * matrix / host;
  if (rates.device_host_threads > 0) return 2 * copy + prbt_extra_seconds(profile, rates, n, precision, params);
  const double device = device_memory_bandwidth(rates, params);
  if (!prbt_solves_on_device(rates, n, word))
    return 2 * matrix / device + prbt_extra_seconds(profile, rates, n, precision, params, false);
  const double solves = params.prbt_condition_solves + params.prbt_refinement_steps + 1;
  const double on_device =
      (2 * matrix + 2 * matrix + solves * matrix + (params.prbt_refinement_steps + 1) * matrix) / device;
  return on_device;
}

// A copy of `bytes` between the caller's memory and the device through pinned staging slots of
// `slot` bytes (solvers/staging.hpp): the host packs (or unpacks) each slot, a read and a write of
// it at host bandwidth, while the link carries the slot before; the pipeline costs the slower of
// the two over the whole copy and the faster over one slot (its fill). `measured` (GB/s; 0: none):
// the same copy timed whole on this machine, which the two rates alone may overrate (the link's DMA
// also reads host memory while the host packs the next slot); never below the two rates' bound.
double staged_copy_seconds(double bytes, double slot, double link, double host, double measured = 0) {
  if (bytes <= 0) return 0;
  slot = std::min(slot, bytes);
  const double over_link = bytes / link, packing = 2 * bytes / host;
  const double bound = std::max(over_link, packing) + std::min(slot / link, 2 * slot / host);
  return measured > 0 ? std::max(bound, bytes / (measured * 1e9)) : bound;
}

// Whether mixed precision refines on its device (mixed_device.hpp): one device, and its memory
// holds A in double beside the single factors. A capacity not known counts as enough.
bool mixed_refines_on_device(const Rates& rates, int n) {
  if (rates.devices.size() != 1) return false;
  return !(rates.device_memory_bytes > 0) || 12.0 * n * n <= usable_device_memory_share * rates.device_memory_bytes;
}

// The same beyond the single factorization (priced with its factors left on the device) when
// refining on the device. With the panel on the device (rounded_on_device) A went up in double as
// the factorization's own upload and was rounded there (hybrid_lu_seconds prices both); else the
// host rounds A and A in double goes up beside the factorization on the same link after the single
// copy (what outlasts the factorization counts). Then the first solve and each step's solve and
// residual read the factors or A in device memory, with the latencies of their copies (a solve: up
// and down; a residual: X and B up, R and the row omegas down). The host backend's team reads them
// at the CPUs' rates, as mixed_extra_seconds prices them. PRBT's randomization of the single copy
// on the device reads and writes it once (Backend::butterflies_two_sided).
double mixed_device_extra_seconds(const MachineProfile& profile, const Rates& rates, int n, Solver solver,
                                  const ModelParams& params, double factorization_seconds, bool rounded_on_device) {
  const double entries = double(n) * n;
  const double host = host_bandwidth(rates.memory_gbs), link = rates.link.gbs * 1e9;
  const double latency = rates.link_latency_us * 1e-6;
  const double slot = 8.0 * n * detail::staging_slot_columns(n, n, 1, false, 8);
  const double both_up = staged_copy_seconds(12 * entries, slot, link, host, rates.staged_upload.gbs);
  const double upload = rounded_on_device ? 0 : std::max(0.0, both_up - factorization_seconds);
  if (rates.device_host_threads > 0)
    return upload + mixed_extra_seconds(profile, rates, n, solver, params, !rounded_on_device);
  const double device = device_memory_bandwidth(rates, params);
  const double rounding = rounded_on_device ? 0 : entries * 12 / host;
  const double randomize = solver == Solver::prbt ? 8 * entries / device : 0;
  const double solve = 4 * entries / device + 2 * latency, residual = 8 * entries / device + 4 * latency;
  return rounding + randomize + upload + solve +
         mixed_refinement_steps(profile, solver, n, params).steps * (residual + solve);
}

struct HybridTimes {
  double cpu = 0, device = 0, transfer = 0, total = 0;
  double d_fraction = 0;
};

// Panel s on device i of several, as owner_panels factors it there: a GPU's is latency-bound,
// column by column; a host backend's team runs the CPUs' kernel (priced from the profile's panel
// probes; without a profile, at its GEMM rate).
double owner_panel_seconds(const MachineProfile* profile, const Rates& rates, std::size_t i, const Step& s,
                           const ModelParams& params) {
  const auto& dev = rates.devices[i];
  if (dev.host_threads > 0 && profile)
    return cpu_panel_seconds(*profile, rates, Solver::gepp, s.rows, int(s.jb), dev.host_threads, params);
  const double efficiency = dev.host_threads > 0 ? 1.0 : params.device_panel_efficiency;
  return s.panel_flops() / (dev.panel_gflops * 1e9 * efficiency) +
         (dev.host_threads > 0 ? 0.0 : s.jb * params.device_panel_column_seconds);
}

// Several devices with d = 0, as HybridLu's owner_panels runs them (heterogeneous-column-block §3):
// each device's block columns go up once; at step K the owner of block column K has factored panel
// K and sends the block column to the host, which packs the panel for every other device owning
// columns right of it; each then updates its own columns, the owner of block column K + 1 that one
// first and then its panel K + 1 (look-ahead). A step lasts until the slowest device is done and
// the next panel is factored, whichever is later.
HybridTimes owner_panels_seconds(const MachineProfile& profile, const Rates& rates, Solver solver, int m, int n,
                                 const Plan& plan, const ModelParams& params, double word) {
  const int nb = std::max(1, plan.nb), blocks = block_columns(n, nb);
  const std::size_t count = rates.devices.size();
  const double host = host_bandwidth(rates.memory_gbs);
  const std::vector<int> owner = detail::deal_block_columns(plan.device_shares, static_cast<int>(count), blocks);
  std::vector<double> owned(count, 0);  // columns of each device right of the current panel
  for (int J = 0; J < blocks; ++J) owned[owner[J]] += std::min(n, (J + 1) * nb) - J * nb;
  auto link = [&](std::size_t i) { return rates.devices[i].link.gbs * 1e9; };
  auto latency = [&](std::size_t i) { return rates.devices[i].link_latency_us * 1e-6; };
  auto gemm = [&](std::size_t i, double jb) {
    const auto& dev = rates.devices[i];
    const double half_k = dev.host_threads > 0 ? params.gemm_half_rate_k : params.device_gemm_half_rate_k;
    return dev.gemm.gflops * 1e9 * efficiency(jb, half_k);
  };
  auto panel = [&](std::size_t i, const Step& s) { return owner_panel_seconds(&profile, rates, i, s, params); };
  const bool pivoting = solver != Solver::prbt;
  HybridTimes t;
  const double slot = word * double(m) * nb;
  double up = 0;  // every device's columns, over its own link, the host packing them one after another
  for (std::size_t i = 0; i < count; ++i)
    up += staged_copy_seconds(word * double(m) * owned[i], slot, link(i), host) + latency(i);
  t.transfer += up;
  t.total += up;
  int K = 0;
  for_each_step(m, n, nb, [&](const Step& s) {
    const std::size_t o = owner[K];
    if (K == 0) {  // panel 0 alone; every later one is factored in the step before
      const double first = panel(o, s);
      t.device += first;
      t.total += first;
    }
    owned[o] -= std::min(n, (K + 1) * nb) - K * nb;
    const double column_bytes = word * double(m) * std::min<double>(nb, s.jb + s.right);
    const double panel_bytes = word * s.rows * s.jb;
    // The panel's pivots come first; its block column follows over the link and the host unpacks
    // it (every step: before passing the panel on where another device needs it, else later).
    const double pivots = latency(o), unpack = 2 * column_bytes / host;
    const double panel_at_host = pivots + column_bytes / link(o) + unpack;
    const bool has_next = K + 1 < blocks && s.rows > s.jb && s.right > 0;
    const std::size_t next = has_next ? owner[K + 1] : count;
    const Step next_panel{s.rows - s.jb, std::min({double(nb), s.rows - s.jb, s.right}), 0};
    double step = pivots, packing = 0;
    std::vector<std::size_t> order;  // the host serves the next panel's owner first, then the rest in turn
    if (next < count) order.push_back(next);
    for (std::size_t i = 0; i < count; ++i)
      if (i != next) order.push_back(i);
    for (std::size_t i : order) {
      if (owned[i] <= 0) continue;
      if (i != o) packing += 2 * panel_bytes / host;  // the host packs the panel once for each, in turn
      const double arrive = i == o ? pivots : panel_at_host + packing + latency(i) + panel_bytes / link(i);
      const double update =
          s.update_flops(owned[i]) / gemm(i, s.jb) +
          (pivoting ? device_swap_seconds(rates.devices[i], rates.memory_gbs, s, owned[i], word, params) : 0);
      const double factor_next = i == next ? panel(i, next_panel) : 0;
      t.device += update + factor_next;
      t.transfer += i == o ? 0 : panel_bytes / link(i);
      // The next panel runs on its own queue after block column K + 1's update: a GPU overlaps it
      // with the rest of its update; a host backend's team runs both on the same cores.
      const double first = i == next ? s.update_flops(std::min<double>(nb, owned[i])) / gemm(i, s.jb) : 0;
      const bool overlaps = rates.devices[i].host_threads == 0;
      step = std::max(step, arrive + (overlaps ? first + std::max(factor_next, update - first) : update + factor_next));
    }
    step = std::max(step, pivots + unpack + packing);  // the host's own work each step
    t.transfer += column_bytes / link(o);
    t.total += step + params.step_overhead_seconds;
    ++K;
  });
  return t;
}

// The one of `devices` devices that the deal of a d = 0 plan over n columns gives every block
// column (as HybridLu::deal finds it: that one runs alone), else -1; -1 for one device or d > 0.
int sole_owner(const Plan& plan, int devices, int n) {
  if (devices < 2 || plan.cpu_block_columns != 0) return -1;
  const auto dealt = detail::deal_block_columns(plan.device_shares, devices, block_columns(n, std::max(1, plan.nb)));
  if (dealt.empty() || !std::all_of(dealt.begin(), dealt.end(), [&](int o) { return o == dealt.front(); })) return -1;
  return dealt.front();
}

// Hybrid LU as HybridLu runs it (solvers/hybrid_lu.hpp; async-calu Algorithm 2): the CPUs own a
// window of the plan's d block columns that moves right one block column per step. At step K the
// panel goes to the device, which updates block column K + d first and sends it back (the window
// moves), then the rest; meanwhile the CPUs update block columns K + 1 .. K + d - 1 and factor
// panel K + 1. Once fewer than d block columns are left, the device has none and drops out. With
// the panel on the device (d = 0), the device does everything.
// factors_stay: mixed precision refining on the device (mixed_device.hpp), whose single factors
// never come back; PRBT's stay where the device holds two copies of A, whatever this says.
// upload_word: bytes per entry of the upload beside the steps (d = 0), where it differs from the
// factorization's word: mixed precision's A goes up in double and each batch is rounded to single
// where it lands, on the upload's queue (Backend::round_from_wide).
// prbt_on_device false: PRBT's GENP of a copy the CPUs randomized, as GEPP's hybrid LU runs
// (mixed precision where one device cannot hold A in double beside the single factors: lu_factors.cpp).
HybridTimes hybrid_lu_seconds(const MachineProfile& profile, const Rates& rates, Solver solver, int m, int n,
                              const Plan& plan, const ModelParams& params, double word, bool factors_stay = false,
                              double upload_word = 0, bool prbt_on_device = true) {
  const int nb = std::max(1, plan.nb);
  const double cpu_all = rates.cpu_all.gflops * 1e9, device = rates.device.gflops * 1e9;
  const double link = rates.link.gbs * 1e9, latency = rates.link_latency_us * 1e-6;
  const int blocks = block_columns(n, nb);
  const int d = std::min(blocks, std::max(0, plan.cpu_block_columns));
  // Several devices with d = 0 run the owner path, unless the deal gives the first every block
  // column: it then runs alone (HybridLu::deal), priced as one device.
  if (d == 0 && rates.devices.size() > 1 && sole_owner(plan, static_cast<int>(rates.devices.size()), n) != 0)
    return owner_panels_seconds(profile, rates, solver, m, n, plan, params, word);
  HybridTimes t;
  t.d_fraction = blocks > 0 ? double(d) / blocks : 0;
  // The matrix crosses the link before the first step and (d = 0) after the last, overlapping
  // nothing. The device's columns go up (PRBT: the whole matrix, randomized there, and the CPUs'
  // first d columns come back); with d = 0 the factors come back, except PRBT's where the device
  // holds two copies of A and solves there. With d >= 1 every block column comes back through the
  // CPUs' window during the steps.
  // Every copy goes through pinned slots of one block column, packed and unpacked by the host.
  const double matrix = word * double(m) * n;
  const double slot = word * double(m) * detail::staging_slot_columns(m, n, nb, d > 0, std::size_t(word));
  const double host = host_bandwidth(rates.memory_gbs);
  auto staged_up = [&](double bytes) { return staged_copy_seconds(bytes, slot, link, host, rates.staged_upload.gbs); };
  auto staged_down = [&](double bytes) {
    return staged_copy_seconds(bytes, slot, link, host, rates.staged_download.gbs);
  };
  const double cpu_share = std::min(1.0, double(d) * nb / std::max(1, n));
  // Several devices (#16): PRBT randomizes on the CPUs and its GENP runs as GEPP's does.
  const bool several = rates.devices.size() > 1 && d > 0;
  double once = 0;
  // d = 0 (GEPP, CALU): the rows of each block column but the last panel's down to its panel come
  // back during the factorization (hidden behind it, priced after the steps); the rest at the end.
  // PRBT keeps its factors (and A) on the device only on one device (prbt_device.hpp); on several
  // it runs hybrid_lu on the CPUs' randomized copy as GEPP does (prbt.cpp).
  const bool prbt_resident = solver == Solver::prbt && rates.devices.size() == 1 && prbt_on_device;
  const bool factors_return = !factors_stay && (!prbt_resident || !prbt_solves_on_device(rates, std::max(m, n), word));
  double early_bytes = 0;
  if (d == 0 && factors_return)
    for (int J = 0; J + 1 < block_columns(std::min(m, n), nb); ++J)
      early_bytes += word * std::min<double>(m, double(J + 1) * nb) * nb;
  // d = 0 (GEPP, CALU): the matrix goes up beside the first steps, upload_ahead_block_columns
  // before the first panel (priced here) and the rest while the steps run (in the device's clock
  // below). PRBT uploads its own copy before GENP starts.
  const bool upload_beside_steps = d == 0 && !prbt_resident && nb < std::min(m, n);
  // Where the CPUs factor panels from host memory (d > 0), the device's share goes up in the
  // factorization's word; PRBT's whole matrix goes up first at any d, and is rounded there whole.
  if (!(upload_word > 0) || (d > 0 && !prbt_resident)) upload_word = word;
  // `entries` up through slots of the upload's word (d = 0: staging_slot_columns' batches), the
  // last `batch` of them then rounded on the device where the upload's word is wider: a read and a
  // write of each entry in device memory (the host backend's team: its pass over host memory). A
  // batch's rounding overlaps the next batch's copy, so only the last one's adds.
  const double rounding_per_entry =
      upload_word == word
          ? 0
          : (upload_word + word) / (rates.device_host_threads > 0 ? host : device_memory_bandwidth(rates, params));
  const double upload_slot =
      upload_word * double(m) * detail::staging_slot_columns(m, n, nb, d > 0, std::size_t(upload_word));
  auto uploaded = [&](double entries, double batch) {
    return staged_copy_seconds(upload_word * entries, upload_slot, link, host, rates.staged_upload.gbs) +
           rounding_per_entry * batch;
  };
  const double first_columns =
      upload_beside_steps ? std::min<double>(n, double(detail::upload_ahead_block_columns) * nb) : double(n);
  const double first_entries = double(m) * first_columns;
  if (d == 0)
    once =
        uploaded(first_entries, first_entries) + (factors_return ? staged_down(matrix - early_bytes) : 0) + 2 * latency;
  else if (prbt_resident)  // the CPUs' columns down; where the factors stay, their final form up
    once = uploaded(double(m) * n, double(m) * n) + staged_down(matrix * cpu_share) + 2 * latency +
           (factors_return ? 0 : staged_up(matrix * cpu_share) + latency);
  else if (d < blocks)
    once = staged_up(matrix * (1 - cpu_share)) + latency + (factors_stay ? staged_up(matrix * cpu_share) + latency : 0);
  t.transfer += once;
  t.total += once;
  if (d == 0 && nb >= std::min(m, n)) {
    // One panel on the device: the vendor's LU of the whole resident matrix (cuSOLVER getrf).
    const double lu = vendor_lu_seconds(rates, m, n);
    t.device += lu;
    t.total += lu;
    return t;
  }
  const int panel_threads = solver == Solver::calu ? std::max(1, plan.panel_threads) : rates.cores;
  const bool calu_from_leaves = solver == Solver::calu && has_tslu_leaf_rates(profile);
  // The host backend's team runs the CPUs' GEMM, thin updates included: the CPUs' half-rate k, not
  // a GPU's (128 put the team's nb = 32 updates at a fifth of its rate, 1.5-4x the measured time).
  const double device_half_rate_k =
      rates.device_host_threads > 0 ? params.gemm_half_rate_k : params.device_gemm_half_rate_k;
  // Several devices (#16): each owns the block columns dealt to it (detail::deal_block_columns) and
  // receives every panel while it owns any; the step takes the longer of the CPUs' path (their
  // panel and window, packing the panel once per device, and the owner of K + d's transfers) and
  // the slowest device's transfers and update of its own columns.
  std::vector<int> owner;
  if (several)
    owner =
        detail::deal_block_columns(plan.device_shares, static_cast<int>(rates.devices.size()), std::max(0, blocks - d));
  std::vector<double> owned_columns(rates.devices.size(), 0);  // per device, right of the window
  for (int J = d; several && J < blocks; ++J) owned_columns[owner[J - d]] += std::min(n, (J + 1) * nb) - J * nb;
  auto several_devices_step = [&](const Step& s, int K, double cpu_columns) {
    const double cpu_panel =
        calu_from_leaves ? calu_panel_seconds(profile, rates, s.rows, int(s.jb), plan.ib, panel_threads, true, params)
                         : cpu_panel_seconds(profile, rates, solver, s.rows, int(s.jb), panel_threads, params);
    const double cpu = cpu_panel + s.update_flops(cpu_columns) / (cpu_all * efficiency(s.jb, params.gemm_half_rate_k));
    const double panel_bytes = word * s.rows * s.jb;
    const double block_bytes = word * double(m) * std::min<double>(nb, s.right);
    double slowest = 0, packing = 0, owner_path = 0;
    for (std::size_t i = 0; i < rates.devices.size(); ++i) {
      const auto& dev = rates.devices[i];
      if (owned_columns[i] <= 0) continue;
      const double link_i = dev.link.gbs * 1e9, latency_i = dev.link_latency_us * 1e-6;
      const bool returns = K + d < blocks && owner[K] == static_cast<int>(i);  // block column K + d
      const double transfer = (returns ? 3 : 2) * latency_i + (panel_bytes + (returns ? block_bytes : 0)) / link_i;
      const double half_k = dev.host_threads > 0 ? params.gemm_half_rate_k : params.device_gemm_half_rate_k;
      const double update = s.update_flops(owned_columns[i]) / (dev.gemm.gflops * 1e9 * efficiency(s.jb, half_k));
      slowest = std::max(slowest, transfer + update);
      packing += 2 * panel_bytes / host;
      if (returns) owner_path = transfer + 2 * block_bytes / host;
      t.device += update;
      t.transfer += transfer;
    }
    if (K + d < blocks) owned_columns[owner[K]] -= std::min(n, (K + d + 1) * nb) - (K + d) * nb;
    t.cpu += cpu;
    t.total += std::max(cpu + packing + owner_path, slowest) + params.step_overhead_seconds;
  };
  // d = 0: a GPU's panel is latency-bound, column by column; the host backend's team factors it
  // with the CPUs' recursive kernel (GEPP's; PRBT's without pivoting) on its own threads.
  auto device_panel_seconds = [&](const Step& s) {
    return rates.device_host_threads > 0
               ? cpu_panel_seconds(profile, rates, Solver::gepp, s.rows, s.jb, rates.device_host_threads, params)
               : s.panel_flops() / (rates.device_panel_gflops * 1e9 * params.device_panel_efficiency) +
                     s.jb * params.device_panel_column_seconds;
  };
  // GEPP's and CALU's row interchanges on the device's `columns` of step s.
  const bool pivoting = solver != Solver::prbt;
  auto device_swaps = [&](const Step& s, double columns) {
    return pivoting ? device_swap_seconds(rates.devices.front(), rates.memory_gbs, s, columns, word, params) : 0;
  };
  int K = 0;
  double next_panel = -1;  // d = 0: panel K + 1's time, factored during step K's update
  // d = 0 with the upload beside the steps (hybrid_lu.hpp's device_panels): the matrix goes up in
  // batches of upload_ahead block columns, back to back, the first before the steps (in `once`).
  // The host queues step K once it has packed batch K + 1 into the pinned slots, at the link's
  // pace; step K updates the K + 1 batches up, then catches batch K + 1 up with panels 0 .. K
  // (their interchanges, then one TRSM and GEMM as wide as those panels). So the device mostly
  // waits for the link until the last batch is up, and the steps after it come on top.
  const double batch_columns = double(detail::upload_ahead_block_columns) * nb;
  double device_clock = 0;                       // the compute queue's time since the steps began
  double catch_up_flops = 0;                     // per column, of the panels so far
  double catch_up_swaps = 0;                     // seconds per column, of the same
  double catch_up_width = 0;                     // the panels so far, side by side: the catch-up's GEMM's k
  auto catch_up_seconds = [&](double columns) {  // `columns` brought level with the panels so far
    return columns * (catch_up_flops / (device * efficiency(catch_up_width, device_half_rate_k)) + catch_up_swaps);
  };
  for_each_step(m, n, nb, [&](const Step& s) {
    const double dev_gemm = device * efficiency(s.jb, device_half_rate_k);
    if (d == 0) {
      // Look-ahead on the device (hybrid_lu.hpp's device_panels): step K updates block column K + 1,
      // then panel K + 1 runs on its own queue beside the update of the rest. A GPU overlaps the
      // two; the host backend's team runs both on the same cores, so they add.
      const double panel = next_panel >= 0 ? 0 : device_panel_seconds(s);  // panel 0 alone
      const double next_columns = std::min(s.right, double(nb));
      const double rows_below = s.rows - s.jb;
      const Step next{rows_below, std::min(double(nb), std::min(rows_below, next_columns)), 0};
      next_panel = rows_below > 0 && next_columns > 0 ? device_panel_seconds(next) : 0;
      // The columns this step updates: those up (every one without the upload beside the steps).
      const double left = double(n) - s.jb - s.right;
      const double up = upload_beside_steps ? std::min<double>(n, (K + 1) * batch_columns) : double(n);
      const double rest_columns = std::max(0.0, std::min(s.right, up - left - s.jb) - next_columns);
      // The interchanges left of the panel and on block column K + 1 before the next panel, on
      // the rest beside it.
      const double first = s.update_flops(next_columns) / dev_gemm + device_swaps(s, left + next_columns);
      const double rest = s.update_flops(rest_columns) / dev_gemm + device_swaps(s, rest_columns);
      const double overlapped = rates.device_host_threads > 0 ? next_panel + rest : std::max(next_panel, rest);
      const double batch = std::min<double>(n, up + batch_columns) - up;  // batch K + 1's columns
      if (batch > 0)
        device_clock = std::max(device_clock, uploaded(double(m) * (up + batch) - first_entries, double(m) * batch));
      t.device += panel + first + next_panel + rest;
      device_clock += panel + first + overlapped + params.step_overhead_seconds;
      catch_up_flops += s.update_flops(1);
      catch_up_swaps += device_swaps(s, 1);
      catch_up_width += s.jb;
      if (batch > 0) {
        const double catch_up = catch_up_seconds(batch);
        t.device += catch_up;
        device_clock += catch_up;
      }
      ++K;
      return;
    }
    const bool device_has_columns = K + d < blocks;
    const double cpu_columns = device_has_columns ? std::min(s.right, double(d - 1) * nb) : s.right;
    if (several) {
      several_devices_step(s, K, cpu_columns);
      ++K;
      return;
    }
    const double cpu_panel =
        calu_from_leaves ? calu_panel_seconds(profile, rates, s.rows, int(s.jb), plan.ib, panel_threads, true, params)
                         : cpu_panel_seconds(profile, rates, solver, s.rows, int(s.jb), panel_threads, params);
    const double cpu = cpu_panel + s.update_flops(cpu_columns) / (cpu_all * efficiency(s.jb, params.gemm_half_rate_k));
    // The panel up with its pivots, and block column K + d back down: three copies' latencies, the
    // bytes over the link, and the host's packing of the panel and unpacking of the block column
    // (on the CPUs' path: the panel is packed before the device can start, the block column
    // unpacked before the CPUs can touch it).
    // Factors left on the device: the panel goes up whole, its U rows too (hybrid_lu.hpp's device_step).
    const double panel_rows = s.rows + (factors_stay ? double(K) * nb : 0);
    const double bytes = word * (panel_rows * s.jb + double(m) * std::min<double>(nb, s.right));
    const double transfer = device_has_columns ? 3 * latency + bytes / link + 2 * bytes / host : 0;
    const double device_columns = s.right - cpu_columns;
    const double dev =
        device_has_columns ? s.update_flops(device_columns) / dev_gemm + device_swaps(s, device_columns) : 0;
    t.cpu += cpu;
    t.device += dev;
    t.transfer += transfer;
    t.total += std::max(cpu + transfer, dev) + params.step_overhead_seconds;
    ++K;
  });
  // The steps caught up the block columns up to `caught`; a wide matrix's right of them go up after
  // the steps, rounded (where the device rounds) as one batch.
  const double caught = upload_beside_steps ? std::min<double>(n, (K + 1) * batch_columns) : double(n);
  const double late = upload_beside_steps && double(m) * n > first_entries
                          ? uploaded(double(m) * n - first_entries, double(m) * (n - caught))
                          : 0;
  if (d == 0) {
    // Those late block columns catch up with every panel at once.
    if (caught < n) {
      const double catch_up = catch_up_seconds(n - caught);
      t.device += catch_up;
      device_clock = std::max(device_clock, late) + catch_up;
    }
    t.total += device_clock;
  }
  // The early downloads go in the link's other direction, beside the steps; with the input checked
  // on the upload (hetlu's default) none starts before the last column has gone up.
  const double steps = t.total - once;
  const double early = early_bytes > 0 ? staged_down(early_bytes) : 0;
  t.transfer += early + late;
  t.total = once + std::max(steps, (upload_beside_steps ? late : 0) + early);
  return t;
}

// The d tried for a plan of `blocks` block columns: every d up to 32, then about 12 per factor of
// two, and the paper's closed-form estimate with its neighbours.
std::vector<int> candidate_cpu_block_columns(int blocks, double closed_form_fraction) {
  std::vector<int> ds;
  for (int d = 1; d <= blocks; d = d < 32 ? d + 1 : d + std::max(1, d / 12)) ds.push_back(d);
  const int estimate = static_cast<int>(std::lround(closed_form_fraction * blocks));
  for (int d = estimate - 2; d <= estimate + 2; ++d)
    if (d >= 1 && d <= blocks) ds.push_back(d);
  if (blocks >= 1) ds.push_back(blocks);
  std::sort(ds.begin(), ds.end());
  ds.erase(std::unique(ds.begin(), ds.end()), ds.end());
  return ds;
}

// The vendor's LU of a resident matrix as updates at a rate and a latency per column, fitted to a
// getrf rate probed at vendor_lu_probe_order: the updates at the params' share of the GEMM rate,
// the latency what the probe took beyond them. Where the updates alone would take longer than the
// probe, the probed rate holds at every order (no latency).
struct VendorLuFit {
  double update_gflops, column_seconds;
};
VendorLuFit fit_vendor_lu(double probed_gflops, double gemm_gflops, const ModelParams& params) {
  const double order = vendor_lu_probe_order, flops = detail::getrf_flops(order, order);
  const double probed = flops / (probed_gflops * 1e9);
  const double update_gflops = params.device_lu_gemm_efficiency * gemm_gflops;
  const double updates = flops / (update_gflops * 1e9);
  if (!(updates < probed)) return {probed_gflops, 0};
  return {update_gflops, (probed - updates) / order};
}

// How vendor_lu_seconds prices it, in words for --explain.
std::string vendor_lu_terms(const Rates& r) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.4g", r.device_lu.gflops);
  if (r.device_lu_column_seconds <= 0)  // the probe beat its updates at the model's share of the GEMM
    return std::string("its probed ") + buffer + " GFlop/s at every size, " + r.device_lu.source;
  std::string text = std::string("updates at ") + buffer + " GFlop/s and ";
  std::snprintf(buffer, sizeof buffer, "%.3g", 1e6 * r.device_lu_column_seconds);
  return text + buffer + " us a column, " + r.device_lu.source;
}
}  // namespace

double vendor_lu_seconds(const Rates& rates, double m, double n) {
  return detail::getrf_flops(m, n) / (rates.device_lu.gflops * 1e9) + std::min(m, n) * rates.device_lu_column_seconds;
}

Rates rates_of(const MachineProfile& p, Precision precision, const ModelParams& params, int devices, bool tf32) {
  Rates r;
  r.cores = std::max(1, p.cores);
  const bool single = precision != Precision::double_;  // mixed factors in single
  const double measured_all = single ? p.sgemm_gflops_all_cores : p.dgemm_gflops_all_cores;
  const double measured_one = single ? p.sgemm_gflops_one_core : p.dgemm_gflops_one_core;
  const double peak_core = p.peak_gflops_per_core * (single ? 2 : 1);
  const std::string eff = " x " + fmt1(params.cpu_efficiency);
  if (measured_all > 0)
    r.cpu_all = {measured_all, "measured"};
  else if (peak_core > 0)
    r.cpu_all = {peak_core * r.cores * params.cpu_efficiency, "datasheet" + eff};
  if (measured_one > 0)
    r.cpu_one = {measured_one, "measured"};
  else if (peak_core > 0)
    r.cpu_one = {peak_core * params.cpu_efficiency, "datasheet" + eff};
  else
    r.cpu_one = {r.cpu_all.gflops / r.cores, r.cpu_all.source + " / cores"};

  // The plan drives the first `devices` of the profile's devices, each priced on its own; the
  // others are idle, and the model never sums a rate the executor does not use.
  const int driven = std::clamp(devices, 0, static_cast<int>(p.gpus.size()));
  r.devices_idle = static_cast<int>(p.gpus.size()) - driven;
  for (int i = driven - 1; i >= 0; --i) {  // the first last: its rates are r.device's
    const GpuInfo& g = p.gpus[i];
    r.device = {}, r.device_lu = {}, r.device_lu_column_seconds = 0;
    r.device_host_threads = g.host_team_threads;
    const double efficiency = params.device_efficiency, bandwidth_share = params.datasheet_bandwidth_efficiency;
    const double measured = single ? g.sgemm_gflops : g.dgemm_gflops;
    const double peak =
        single ? (g.sgemm_peak_gflops > 0 ? g.sgemm_peak_gflops : 2 * g.dgemm_peak_gflops) : g.dgemm_peak_gflops;
    if (measured > 0)
      r.device = {measured, "measured"};
    else if (peak > 0)
      r.device = {peak * efficiency, "datasheet x " + fmt1(efficiency)};
    // cuSOLVER's getrf: updates at params.device_lu_gemm_efficiency of the GEMM rate plus a latency
    // per column fitted to the probed getrf (fit_vendor_lu). A host backend's team launches no
    // kernels: no latency there. Single precision unprobed takes dgetrf's latency and its updates
    // at the SGEMM rate: on an H100 the two ran alike (DSgesv, sgetrf and refinement, 0.158 s on the
    // device at 16384, DDgesv 0.152 s, 2026-11-27), where 0.7 of SGEMM had priced sgetrf 3.9x faster
    // than the probed dgetrf and planned one panel.
    const double double_gemm = g.dgemm_gflops > 0 ? g.dgemm_gflops : g.dgemm_peak_gflops * efficiency;
    const std::string at_probe = " at n = " + std::to_string(vendor_lu_probe_order);
    if (single && g.sgetrf_gflops > 0 && r.device.gflops > 0) {
      const VendorLuFit fit = fit_vendor_lu(g.sgetrf_gflops, r.device.gflops, params);
      r.device_lu = {fit.update_gflops, "fitted to cuSOLVER sgetrf, measured" + at_probe};
      r.device_lu_column_seconds = fit.column_seconds;
    } else if (g.dgetrf_gflops > 0 && double_gemm > 0 && r.device.gflops > 0) {
      const VendorLuFit fit = fit_vendor_lu(g.dgetrf_gflops, double_gemm, params);
      r.device_lu = {fit.update_gflops * r.device.gflops / double_gemm,
                     single ? "fitted to cuSOLVER dgetrf, measured" + at_probe + ", x SGEMM / DGEMM (sgetrf not probed)"
                            : "fitted to cuSOLVER dgetrf, measured" + at_probe};
      r.device_lu_column_seconds = fit.column_seconds;
    } else if (r.device.gflops > 0) {
      char share[32];
      std::snprintf(share, sizeof share, "%g", params.device_lu_gemm_efficiency);
      r.device_lu = {r.device.gflops * params.device_lu_gemm_efficiency,
                     "device GEMM x " + std::string(share) + ", getrf not probed"};
      r.device_lu_column_seconds = g.host_team_threads > 0 ? 0 : params.device_lu_column_seconds;
    }
    // After the vendor's LU and with the panels' rate kept apart: cuSOLVER's getrf takes no TF32.
    // TF32 from compute capability 8 on; a what-if device (capability unknown) has it only where
    // its file gives tf32_gemm_gflops.
    r.device_panel_gflops = r.device.gflops;
    r.device_tf32 = tf32 && single && g.host_team_threads == 0 && r.device.gflops > 0 &&
                    (g.tf32_gemm_gflops > 0 || g.compute_capability_major >= 8);
    if (r.device_tf32)
      r.device = g.tf32_gemm_gflops > 0
                     ? RateUsed{g.tf32_gemm_gflops, "measured, TF32"}
                     : RateUsed{r.device.gflops * params.tf32_gemm_speedup,
                                r.device.source + " x " + fmt1(params.tf32_gemm_speedup) + " (TF32, estimated)"};
    const std::string known = p.hostname == "what-if" ? "given" : "measured";  // machine_from_yaml's
    if (g.memory_bandwidth_gbs > 0)
      r.device_memory = {g.memory_bandwidth_gbs, known};
    else if (g.peak_memory_bandwidth_gbs > 0)
      r.device_memory = {g.peak_memory_bandwidth_gbs * bandwidth_share, "datasheet x " + fmt1(bandwidth_share)};
    else
      r.device_memory = {params.default_device_memory_gbs, "default"};
    const double link = std::min(g.h2d_bandwidth_gbs, g.d2h_bandwidth_gbs);
    if (link > 0)
      r.link = {link, known};
    else if (g.peak_link_gbs > 0)
      r.link = {g.peak_link_gbs * bandwidth_share, "datasheet: PCIe " + std::to_string(g.pcie_generation) + " x" +
                                                       std::to_string(g.pcie_lanes) + " x " + fmt1(bandwidth_share)};
    else
      r.link = {params.default_link_gbs, "default"};
    const double latency = std::max(g.h2d_latency_us, g.d2h_latency_us);
    r.link_latency_us = latency > 0 ? latency : params.default_link_latency_us;
    r.staged_upload = {g.staged_upload_gbs, g.staged_upload_gbs > 0 ? known : ""};
    r.staged_download = {g.staged_download_gbs, g.staged_download_gbs > 0 ? known : ""};
    r.device_name = g.name;
    r.device_memory_bytes = double(g.memory_bytes);
    if (r.device.gflops <= 0 && p.hostname == "what-if")
      r.device.source = std::string("no known rate: the machine file gives none in ") +
                        (single ? "single precision (sgemm_gflops or sgemm_peak_gflops, or dgemm_peak_gflops)"
                                : "double precision (dgemm_gflops or dgemm_peak_gflops)");
    else if (r.device.gflops <= 0)
      r.device.source = "no known rate: compute capability " + std::to_string(g.compute_capability_major) + "." +
                        std::to_string(g.compute_capability_minor) +
                        " is not in the datasheet table and it was not probed ('hetlu calibrate')";
    r.devices.insert(r.devices.begin(), {g.name, r.device, r.link, r.link_latency_us, g.host_team_threads,
                                         r.device_memory, r.device_panel_gflops});
  }
  r.memory_gbs = p.memory_bandwidth_gbs;
  return r;
}

namespace {

// The probed panel rate of `kind` nearest rows x width (in log rows + log width); with
// any_threads, also the nearest thread count (in log threads), else exactly `threads`. Null when
// none was probed.
const PanelRate* nearest_panel_rate(const MachineProfile& profile, const std::string& kind, double rows, int width,
                                    int threads, bool any_threads) {
  auto distance = [&](const PanelRate& r) {
    return std::abs(std::log(r.rows / std::max(1.0, rows))) + std::abs(std::log(double(r.width) / width)) +
           (any_threads ? std::abs(std::log(double(std::max(1, r.threads)) / std::max(1, threads))) : 0.0);
  };
  const PanelRate* best = nullptr;
  for (const auto& r : profile.panel_rates)
    if (r.kind == kind && (any_threads || r.threads == threads) && r.gflops > 0 && r.rows > 0 &&
        (!best || distance(r) < distance(*best)))
      best = &r;
  return best;
}

}  // namespace

double cpu_panel_gflops(const MachineProfile& profile, const Rates& rates, Solver solver, double rows, int width,
                        int threads, const ModelParams& params) {
  const std::string kind = solver == Solver::calu ? "tslu" : "gepp";
  if (const PanelRate* best = nearest_panel_rate(profile, kind, rows, width, threads, false)) return best->gflops;
  const double one = rates.cpu_one.gflops * efficiency(std::max(1.0, width / 4.0), params.gemm_half_rate_k);
  if (kind == "tslu") return one * params.panel_efficiency * params.tslu_efficiency * std::max(1, threads);
  return one * params.panel_efficiency * (threads > 1 ? std::sqrt(double(threads)) : 1.0);
}

MachineProfile with_devices(const MachineProfile& profile, const DeviceSet& devices) {
  MachineProfile p = profile;
  p.gpus.clear();
  int teams = 0;
  for (const auto& d : devices.list) {
    if (d.kind == BackendKind::cuda) {
      if (d.number < 0 || d.number >= static_cast<int>(profile.gpus.size()))
        throw InvalidArgument("device '" + to_string(d) + "': this machine has " + std::to_string(profile.gpus.size()) +
                              " GPU(s)");
      p.gpus.push_back(profile.gpus[d.number]);
    } else {
      // A team of `team` cores at the machine's per-core rates (not with_host_backend's, which
      // leaves the CPUs at least one core of its own: here the teams may take more than there are).
      const int team = d.number > 0 ? d.number : std::max(1, profile.cores / 2);
      const double per_core = 1.0 / std::max(1, profile.cores);
      GpuInfo g = with_host_backend(profile, 1).gpus.front();
      g.name = "host backend (" + std::to_string(team) + " thread" + (team == 1 ? "" : "s") + ")";
      g.host_team_threads = team;
      // A team larger than the machine runs at most on all of its cores.
      const int busy = std::min(team, std::max(1, profile.cores));
      g.dgemm_gflops = profile.dgemm_gflops_all_cores * per_core * busy;
      g.sgemm_gflops = profile.sgemm_gflops_all_cores * per_core * busy;
      g.dgemm_peak_gflops = profile.peak_gflops_per_core * busy;
      p.gpus.push_back(g);
      teams += busy;
    }
  }
  // The CPUs keep the cores no team takes (at least one, as the executor does). More threads than
  // cores (teams + the CPUs' one) share them: every rate slows by cores / threads.
  const int cores = std::max(1, profile.cores);
  const int left = std::max(1, cores - teams);
  const double shared = double(cores) / std::max(cores, teams + left);
  const double kept = double(left) / cores * shared;
  p.cores = left;
  p.dgemm_gflops_all_cores *= kept;
  p.sgemm_gflops_all_cores *= kept;
  if (shared < 1) {
    p.dgemm_gflops_one_core *= shared;
    p.sgemm_gflops_one_core *= shared;
    p.peak_gflops_per_core *= shared;
    for (auto& g : p.gpus)
      if (g.host_team_threads > 0) g.dgemm_gflops *= shared, g.sgemm_gflops *= shared, g.dgemm_peak_gflops *= shared;
  }
  return p;
}

std::vector<double> balanced_device_shares(const Rates& rates, int m, int n, int nb, int cpu_block_columns,
                                           Precision precision, const ModelParams& params,
                                           const MachineProfile* profile) {
  const std::size_t count = rates.devices.size();
  if (count <= 1) return {};
  const double word = entry_bytes(precision);
  nb = std::max(1, nb);
  const int blocks = block_columns(n, nb), d = std::clamp(cpu_block_columns, 1, std::max(1, blocks));
  // F: the device update flops over the factorization (columns right of the window); L_i: device
  // i's panel copies while it owns columns (every step, a bound) and its part of the block columns
  // that go back.
  double flops = 0, panel_bytes = 0;
  int steps = 0;
  for_each_step(m, n, nb, [&](const Step& s) {
    const double right = std::max(0.0, s.right - double(d - 1) * nb);
    if (right <= 0) return;
    flops += s.update_flops(right);
    panel_bytes += word * s.rows * s.jb;
    ++steps;
  });
  if (flops <= 0) return std::vector<double>(count, 1.0 / count);
  const double returned = word * double(m) * std::max(0, n - d * nb);
  std::vector<double> g(count), L(count);
  for (std::size_t i = 0; i < count; ++i) {
    const auto& dev = rates.devices[i];
    const double half_k = dev.host_threads > 0 ? params.gemm_half_rate_k : params.device_gemm_half_rate_k;
    g[i] = std::max(0.0, dev.gemm.gflops * 1e9 * efficiency(nb, half_k));
    const double link = std::max(1e-3, dev.link.gbs) * 1e9;
    L[i] = (panel_bytes + returned / count) / link + 2.0 * steps * dev.link_latency_us * 1e-6;
    // d = 0: a share s_i also factors that share of the panels (owner_panels), s_i P_i more time,
    // P_i the device's time for every panel: it counts as the rate F / (F / g_i + P_i). A GPU
    // factors them beside its update (its panel queue): only a host backend's team pays them.
    if (cpu_block_columns == 0 && g[i] > 0 && dev.host_threads > 0) {
      double panels = 0;
      for_each_step(m, n, nb, [&](const Step& s) { panels += owner_panel_seconds(profile, rates, i, s, params); });
      g[i] = flops / (flops / g[i] + panels);
    }
  }
  // T = (F + sum L_i g_i) / sum g_i over the devices in use; drop any whose L_i >= T and repeat.
  std::vector<bool> used(count);
  for (std::size_t i = 0; i < count; ++i) used[i] = g[i] > 0;
  std::vector<double> shares(count, 0.0);
  for (std::size_t round = 0; round < count; ++round) {
    double sum_g = 0, sum_lg = 0;
    for (std::size_t i = 0; i < count; ++i)
      if (used[i]) sum_g += g[i], sum_lg += L[i] * g[i];
    if (sum_g <= 0) return std::vector<double>(count, 1.0 / count);
    const double T = (flops + sum_lg) / sum_g;
    bool dropped = false;
    for (std::size_t i = 0; i < count; ++i) {
      shares[i] = used[i] ? std::max(0.0, (T - L[i]) * g[i] / flops) : 0;
      if (used[i] && shares[i] <= 0) used[i] = false, dropped = true;
    }
    if (!dropped) break;
  }
  return shares;
}

MachineProfile with_host_backend(const MachineProfile& profile, int team_threads) {
  MachineProfile p = profile;
  const int cores = std::max(1, p.cores);
  const int team = std::max(1, std::min(team_threads, cores - 1));
  const int left = std::max(1, cores - team);
  const double share = double(team) / cores, kept = double(left) / cores;
  GpuInfo g;
  g.name = "host backend (" + std::to_string(team) + " thread" + (team == 1 ? "" : "s") + ")";
  g.host_team_threads = team;
  g.dgemm_gflops = p.dgemm_gflops_all_cores * share;
  g.sgemm_gflops = p.sgemm_gflops_all_cores * share;
  g.dgemm_peak_gflops = p.peak_gflops_per_core * team;
  g.h2d_bandwidth_gbs = g.d2h_bandwidth_gbs = p.memory_bandwidth_gbs > 0 ? p.memory_bandwidth_gbs : 10;
  g.h2d_latency_us = g.d2h_latency_us = 5;  // a queue hand-over between threads
  g.memory_bandwidth_gbs = g.h2d_bandwidth_gbs;
  p.gpus = {g};
  p.cores = left;
  p.dgemm_gflops_all_cores *= kept;
  p.sgemm_gflops_all_cores *= kept;
  return p;
}

double cpu_panel_seconds(const MachineProfile& profile, const Rates& rates, Solver solver, double rows, int width,
                         int threads, const ModelParams& params, int leaf_width) {
  const std::string kind = solver == Solver::calu ? "tslu" : "gepp";
  // The widest panel a rate is known for: a probe's, else (when asked) the leaf of the recursive
  // panel, which the generic rate below describes.
  int widest = 0;
  for (const auto& r : profile.panel_rates)
    if (r.kind == kind && r.threads == threads && r.gflops > 0) widest = std::max(widest, r.width);
  if (widest == 0) widest = leaf_width;
  if (widest > 0 && width > widest && rows > width) {
    // Wider than any probe: as the recursive panel runs it, two halves and a GEMM between them.
    const int n1 = width / 2, n2 = width - n1;
    const double gemm =
        (threads > 1 ? rates.cpu_all : rates.cpu_one).gflops * 1e9 * efficiency(n1, params.gemm_half_rate_k);
    return cpu_panel_seconds(profile, rates, solver, rows, n1, threads, params, leaf_width) +
           2.0 * (rows - n1) * n2 * n1 / gemm +
           cpu_panel_seconds(profile, rates, solver, rows - n1, n2, threads, params, leaf_width);
  }
  const double flops = detail::getrf_flops(rows, width);
  return flops / (cpu_panel_gflops(profile, rates, solver, rows, width, threads, params) * 1e9);
}

bool has_tslu_leaf_rates(const MachineProfile& profile) {
  for (const auto& r : profile.panel_rates)
    if (r.kind == "tslu_leaf" && r.gflops > 0) return true;
  return false;
}

double calu_panel_seconds(const MachineProfile& profile, const Rates& rates, double rows, int width, int inner,
                          int leaf_threads, bool threaded_blas, const ModelParams& params) {
  inner = std::max(1, inner);
  if (width <= inner || rows <= inner) {
    // The nearest probed shape and thread count (the leaves are probed on one thread and on all;
    // the host backend leaves the CPUs some in between).
    const PanelRate* best = nearest_panel_rate(profile, "tslu_leaf", rows, width, leaf_threads, true);
    const double gflops =
        best ? best->gflops : cpu_panel_gflops(profile, rates, Solver::calu, rows, width, leaf_threads, params);
    return detail::getrf_flops(rows, width) / (gflops * 1e9);
  }
  // calu.cpp's split: the left part a whole number of leaves, about half the panel.
  const int half = static_cast<int>(std::min(rows, double(width)) / 2);
  const int n1 = std::max(inner, half / inner * inner), n2 = width - n1;
  const double gemm =
      (threaded_blas ? rates.cpu_all : rates.cpu_one).gflops * 1e9 * efficiency(n1, params.gemm_half_rate_k);
  const double update = (double(n1) * n1 * n2 + 2.0 * (rows - n1) * n2 * n1) / gemm;  // TRSM and GEMM
  return calu_panel_seconds(profile, rates, rows, n1, inner, leaf_threads, threaded_blas, params) + update +
         calu_panel_seconds(profile, rates, rows - n1, n2, inner, leaf_threads, threaded_blas, params);
}

double solve_flops(const Problem& p) {
  return detail::getrf_flops(p.m, p.n);
}

bool device_holds(const MachineProfile& profile, const Problem& problem, const Plan& plan, const ModelParams& params) {
  if (problem.target != Target::hybrid) return true;
  return plan_fits_device(rates_of(profile, problem.precision, params, problem.devices, problem.tf32), problem, plan);
}

double predict_seconds(const MachineProfile& profile, const Problem& problem, const Plan& plan,
                       const ModelParams& params, std::vector<Term>* terms) {
  if (plan.nb < 1) throw InvalidArgument("nb = " + std::to_string(plan.nb) + " must be >= 1");
  const Rates rates = rates_of(profile, problem.precision, params, problem.devices, problem.tf32);
  // Several devices with d = 0 where the deal gives one of them every block column: HybridLu::deal
  // runs that one alone, in front; priced so, the others kept in the set (PRBT's extra work is the
  // several-devices one, as prbt.cpp runs it).
  const bool on_devices = problem.target == Target::hybrid && rates.device.gflops > 0;
  const int devices = on_devices ? static_cast<int>(rates.devices.size()) : 0;
  if (const int s = sole_owner(plan, devices, problem.n); s > 0) {
    MachineProfile front = profile;
    std::rotate(front.gpus.begin(), front.gpus.begin() + s, front.gpus.begin() + s + 1);
    Plan alone = plan;
    alone.device_shares.assign(rates.devices.size(), 0.0);
    alone.device_shares.front() = 1;
    return predict_seconds(front, problem, alone, params, terms);
  }
  if (rates.cpu_all.gflops <= 0 && rates.device.gflops <= 0)
    throw Error("the machine profile has no CPU or device rate to predict from");
  const double word = entry_bytes(problem.precision);
  double seconds = 0;
  const bool mixed_on_device = problem.precision == Precision::mixed && problem.target == Target::hybrid &&
                               rates.device.gflops > 0 && mixed_refines_on_device(rates, problem.n);
  // ... and with the panel there (d = 0), or for PRBT, A goes up in double and the device rounds it
  // (mixed_device.hpp).
  const bool mixed_rounded_on_device =
      mixed_on_device && (plan.cpu_block_columns == 0 || problem.solver == Solver::prbt);
  double factorization = 0;
  if (problem.target == Target::hybrid && rates.device.gflops > 0) {
    if (rates.cpu_all.gflops <= 0) throw Error("the machine profile has no CPU rate to predict from");
    // Mixed precision on the device with the panel there: A goes up in double and is rounded there.
    const double upload_word = mixed_rounded_on_device ? 2 * word : word;
    // Mixed PRBT where the device cannot hold A in double beside its factors: the CPUs randomize.
    const bool prbt_on_device = problem.precision != Precision::mixed || mixed_on_device;
    const HybridTimes t = hybrid_lu_seconds(profile, rates, problem.solver, problem.m, problem.n, plan, params, word,
                                            mixed_on_device, upload_word, prbt_on_device);
    factorization = t.total;
    seconds = t.total;
    // Busy times, which the schedule overlaps (they may add up to more than the total), and the
    // steps' fixed costs, which it does not.
    if (terms)
      *terms = {{"cpu panels and updates", t.cpu},
                {plan.cpu_block_columns == 0 ? "device panels and updates" : "device updates", t.device},
                {"transfers", t.transfer},
                {"per-step overheads",
                 block_columns(std::min(problem.m, problem.n), plan.nb) * params.step_overhead_seconds}};
    // PRBT's own pass over A checks it (its upload's packing on one device,
    // prbt_hybrid_extra_seconds; its randomization on the CPUs beside several), mixed precision's rounding pass, GEPP's
    // and CALU's upload with d = 0 (HybridLu::check_input); every other hybrid call checks A first.
    const bool one_device = rates.devices.size() == 1;
    const bool own_pass = problem.precision == Precision::mixed || problem.solver == Solver::prbt ||
                          (one_device && plan.cpu_block_columns == 0 && plan.refinement != Refinement::working);
    if (!own_pass) {
      const double check = input_check_seconds(rates, problem.m, problem.n, word);
      seconds += check;
      if (terms) terms->push_back({"the input's finiteness check on the host", check});
    }
  } else {
    if (rates.cpu_all.gflops <= 0) throw Error("the machine profile has no CPU rate to predict from");
    const CpuTimes t = cpu_lu_seconds(profile, rates, problem.solver, problem.m, problem.n, plan, params, word);
    seconds = t.total;
    if (terms)
      *terms = {
          {"panels", t.panel}, {"updates", t.update}, {"row interchanges", t.swaps}, {"step overheads", t.overhead}};
  }
  if (problem.precision == Precision::mixed) {
    const double extra = mixed_on_device ? mixed_device_extra_seconds(profile, rates, problem.n, problem.solver, params,
                                                                      factorization, mixed_rounded_on_device)
                                         : mixed_extra_seconds(profile, rates, problem.n, problem.solver, params);
    seconds += extra;
    if (terms) {
      const MixedSteps steps = mixed_refinement_steps(profile, problem.solver, problem.n, params);
      std::ostringstream name;
      const bool randomized_there = mixed_rounded_on_device && problem.solver == Solver::prbt;
      name << (randomized_there          ? "A up in double, rounded and randomized there, "
               : mixed_rounded_on_device ? "A up in double beside the factorization and rounded there, "
               : mixed_on_device         ? "rounding to single, A in double up beside the factorization, "
                                         : "rounding to single, ")
           << steps.steps << " refinement step(s) in double" << (mixed_on_device ? " on the device" : "") << " ("
           << steps.source << ")";
      terms->push_back({name.str(), extra});
    }
  } else if (problem.solver == Solver::prbt) {
    // On several devices the CPUs randomize and solve (prbt.cpp): the CPU target's extra work.
    const bool on_device = problem.target == Target::hybrid && rates.device.gflops > 0 && rates.devices.size() == 1;
    const double extra = on_device ? prbt_hybrid_extra_seconds(profile, rates, problem.n, problem.precision, params)
                                   : prbt_extra_seconds(profile, rates, problem.n, problem.precision, params);
    seconds += extra;
    if (terms) terms->push_back({"butterflies and refinement", extra});
  }
  return seconds;
}

namespace {
// Each of the first problem.devices devices driven alone (moved to the front of the profile's
// list, the CPUs as they are); the fastest, where it beats `set_seconds` by more than the model's
// noise (a tenth: 0.6 % was called "1.0x faster").
std::optional<AlonePrediction> fastest_alone(const MachineProfile& profile, const Problem& problem,
                                             const ModelParams& params, double set_seconds) {
  std::optional<AlonePrediction> fastest;
  const int count = std::min<int>(problem.devices, static_cast<int>(profile.gpus.size()));
  for (int i = 0; i < count; ++i) {
    MachineProfile alone = profile;
    std::rotate(alone.gpus.begin(), alone.gpus.begin() + i, alone.gpus.begin() + i + 1);
    Problem one = problem;
    one.devices = 1;
    const Prediction p = predict(alone, one, params);
    if (1.1 * p.seconds < set_seconds && (!fastest || p.seconds < fastest->seconds))
      fastest = AlonePrediction{p.rates.device_name, p.plan, p.seconds};
  }
  return fastest;
}
}  // namespace

std::string faster_alone_note(const Prediction& prediction) {
  const auto& alone = prediction.faster_alone;
  if (!alone) return "";
  if (alone->seconds >= prediction.seconds)  // the set's own plan: the deal left the others nothing
    return "the model deals the other devices no block column: " + alone->device +
           " alone (nb = " + std::to_string(alone->plan.nb) + ", d = " + std::to_string(alone->plan.cpu_block_columns) +
           ") runs the factorization and the others stay idle; give --devices that one alone";
  char times[120];  // %g: a small problem's times are microseconds
  std::snprintf(times, sizeof times, ") is predicted %.3g s, %.1fx faster than these %zu devices (%.3g s)",
                alone->seconds, prediction.seconds / alone->seconds, prediction.rates.devices.size(),
                prediction.seconds);
  return "the model says " + alone->device + " alone (nb = " + std::to_string(alone->plan.nb) +
         ", d = " + std::to_string(alone->plan.cpu_block_columns) + times +
         ": the others' share of the work, their panels and the panels' trips cost the set more than they "
         "give; give --devices that one alone";
}

Prediction predict(const MachineProfile& profile, const Problem& problem, const ModelParams& params) {
  if (problem.m < 0 || problem.n < 0) throw InvalidArgument("problem sizes must be >= 0");
  Prediction best;
  best.rates = rates_of(profile, problem.precision, params, problem.devices, problem.tf32);
  const Rates& r = best.rates;
  const bool hybrid = problem.target == Target::hybrid && r.device.gflops > 0;
  const int k = std::max(1, std::min(problem.m, problem.n));
  const double word = entry_bytes(problem.precision);

  // The paper's closed-form share d / N = P g1 / (P g1 + g2) (async-calu §4, Eq. 1): shown beside
  // the model's choice, and where the search for d looks first.
  // With several devices, g2 is their sum: the executor drives every one of them.
  double devices_gflops = 0;
  for (const auto& dev : r.devices) devices_gflops += dev.gemm.gflops;
  const double closed_form_fraction = hybrid ? cpu_fraction(r.cpu_all.gflops, devices_gflops) : 1;
  std::vector<PanelLocation> locations = {PanelLocation::cpu};
  const bool several = hybrid && r.devices.size() > 1;
  // The panel on the device: with several, each device factors its own block columns' panels.
  if (hybrid) locations.push_back(PanelLocation::device);
  best.seconds = std::numeric_limits<double>::infinity();
  for (PanelLocation where : locations)
    for (int nb : params.nb_candidates) {
      // At least four panels, so that look-ahead (or the device) has an update to overlap the panel
      // with; this also keeps nb from shrinking as the matrix grows (tiny matrices would otherwise
      // take a few wide panels only to save the per-step overhead). A tall and skinny matrix on
      // the CPUs may also be one panel (nb = n): a recursive LU whose updates are all wide GEMMs.
      // With the panel on the device, one panel is the vendor's LU of the whole matrix.
      // Under TF32 too, at the vendor LU's own rate: cuSOLVER's getrf runs its GEMMs without it.
      const bool one_panel = nb == params.nb_candidates.back() &&
                             (hybrid ? where == PanelLocation::device && !several : problem.m >= 4 * problem.n);
      const int width = one_panel ? k : nb;
      if (!one_panel && nb > std::max(params.nb_candidates.front(), k / 4)) continue;
      Plan plan;
      plan.solver = problem.solver;
      plan.precision = problem.precision;
      plan.target = problem.target;
      plan.nb = width;
      plan.ib = std::min(width, Plan{}.ib);  // CALU's inner width, as the panel probe measured it
      plan.panel_threads = problem.solver == Solver::calu ? r.cores : 1;
      plan.lookahead = r.cores > 1 ? 1 : 0;
      plan.refinement = problem.solver == Solver::prbt ? Refinement::working : Refinement::none;
      // The CPUs' share d: on the hybrid target the d of least predicted time, each priced with
      // the schedule HybridLu runs; the CPU target keeps every block column.
      const int blocks = block_columns(problem.n, width);
      std::vector<int> ds = {blocks};
      if (hybrid)
        ds = where == PanelLocation::device ? std::vector<int>{0}
                                            : candidate_cpu_block_columns(blocks, closed_form_fraction);
      for (int d : ds) {
        plan.cpu_block_columns = d;
        if (!plan_fits_device(r, problem, plan)) continue;
        if (several)
          plan.device_shares =
              balanced_device_shares(r, problem.m, problem.n, width, d, problem.precision, params, &profile);
        std::vector<Term> terms;
        const double t = predict_seconds(profile, problem, plan, params, &terms);
        if (t < best.seconds) {
          best.seconds = t;
          best.plan = plan;
          best.terms = terms;
        }
      }
    }
  // No plan priced finite (rates so small that every time overflows): an error, never Plan{}'s
  // defaults with an infinite time.
  if (!std::isfinite(best.seconds))
    throw InvalidArgument("the model prices every plan of this " + std::to_string(problem.m) + " x " +
                          std::to_string(problem.n) +
                          " problem at an infinite time: the machine's rates are too small");

  Plan& plan = best.plan;
  const double flops = solve_flops(problem);
  best.gflops = best.seconds > 0 ? flops / best.seconds / 1e9 : 0;
  plan.source = PlanSource::model;
  plan.predicted_seconds = best.seconds;
  const int blocks = block_columns(problem.n, plan.nb);
  auto& why = best.reasoning;
  why.push_back("CPU GEMM rate " + fmt1(r.cpu_all.gflops) + " GFlop/s on " + std::to_string(r.cores) + " core(s) (" +
                r.cpu_all.source + "), " + fmt1(r.cpu_one.gflops) + " on one (" + r.cpu_one.source + ")");
  if (problem.target == Target::hybrid && !hybrid)
    why.push_back(r.device_name.empty() ? "no device on this machine: the hybrid plan runs on the CPUs alone"
                                        : "device " + r.device_name + " has " + r.device.source +
                                              ": the hybrid plan runs on the CPUs alone");
  if (hybrid) {
    best.d_fraction = blocks > 0 ? double(plan.cpu_block_columns) / blocks : 0;
    why.push_back("device " + r.device_name + ": GEMM rate " + fmt1(r.device.gflops) + " GFlop/s (" + r.device.source +
                  "), link " + fmt1(r.link.gbs) + " GB/s (" + r.link.source + ") with " + fmt1(r.link_latency_us) +
                  " us latency, memory " + fmt1(r.device_memory.gbs) + " GB/s (" + r.device_memory.source + ")" +
                  (r.staged_upload.gbs > 0
                       ? ", staged copies " + fmt1(r.staged_upload.gbs) + " GB/s up" +
                             (r.staged_download.gbs > 0 ? " and " + fmt1(r.staged_download.gbs) + " down" : "") + " (" +
                             r.staged_upload.source + ")"
                       : ""));
    if (r.device_tf32)
      why.push_back(
          "single precision's GEMMs on the device in TF32 (HETLU_CUDA_TF32=1), except in a plan of one panel: "
          "cuSOLVER's getrf runs them without TF32, priced at its own rate");
    else if (problem.tf32 && problem.precision != Precision::double_ && r.device_host_threads == 0)
      why.push_back("HETLU_CUDA_TF32=1, but " + r.device_name +
                    " has no TF32 (compute capability below 8, or a machine file without tf32_gemm_gflops): "
                    "priced in FP32");
    for (std::size_t i = 1; i < r.devices.size(); ++i)
      why.push_back("device " + std::to_string(i + 1) + " " + r.devices[i].name + ": GEMM rate " +
                    fmt1(r.devices[i].gemm.gflops) + " GFlop/s (" + r.devices[i].gemm.source + "), link " +
                    fmt1(r.devices[i].link.gbs) + " GB/s (" + r.devices[i].link.source + ")");
    if (several && plan.cpu_block_columns < blocks) {
      std::string shares;
      for (std::size_t i = 0; i < plan.device_shares.size(); ++i)
        shares += (i ? ", " : "") + fmt1(100 * plan.device_shares[i]) + " %";
      why.push_back("the block columns right of d dealt " + shares +
                    ": each device's transfers plus its share of the updates at its GEMM rate take the same "
                    "predicted time (heterogeneous-column-block §3.2)");
    }
    if (r.devices_idle > 0)
      why.push_back(std::to_string(r.devices_idle) + " more device(s) idle: the plan drives " +
                    std::to_string(r.devices.size()) + ", and the model prices those");
    why.push_back("d = " + std::to_string(plan.cpu_block_columns) + " of " + std::to_string(blocks) +
                  " block columns (" + fmt1(100 * best.d_fraction) +
                  " %) minimizes the predicted time of the moving-window schedule; the paper's closed form "
                  "d/N = P g1 / (P g1 + g2) = " +
                  fmt1(100 * closed_form_fraction) + " % (async-calu §4, Eq. 1)");
    if (problem.solver == Solver::prbt && problem.precision != Precision::mixed && !several &&
        !prbt_solves_on_device(r, problem.n, word))
      why.push_back("two copies of A (" + fmt1(2 * word * double(problem.n) * problem.n / 1e9) +
                    " GB) do not fit the device's " + fmt1(r.device_memory_bytes / 1e9) +
                    " GB: PRBT's factors come back and the CPUs solve and refine");
    if (panel_location(plan) == PanelLocation::device && several &&
        sole_owner(plan, int(r.devices.size()), problem.n) >= 0)
      why.push_back("d = 0 on several devices, the deal giving one of them every block column: it runs alone");
    else if (panel_location(plan) == PanelLocation::device && several)
      why.push_back(
          "d = 0 on several devices: each factors the panels of its own block columns and the CPUs pass them on "
          "(heterogeneous-column-block §3); the CPUs' panels would stall the fastest device");
    else if (panel_location(plan) == PanelLocation::device)
      why.push_back(
          "panel on the device: the device is so much faster that a CPU panel (and its transfers) "
          "would stall it; the CPUs take no block columns");
    else if (plan.cpu_block_columns >= blocks)
      why.push_back("every block column on the CPUs: the device's share would not pay for its transfers");
    else
      why.push_back("panel on the CPUs, overlapped with the device's update; d = " +
                    std::to_string(plan.cpu_block_columns) + " of " + std::to_string(blocks) + " block columns");
    // The d the device's memory allows: below it the chosen d is no choice of the time's (PRBT
    // keeps the whole matrix there at any d: said above where it does not fit).
    Plan fewer = plan;
    fewer.cpu_block_columns = 0;
    if (problem.solver != Solver::prbt)
      while (fewer.cpu_block_columns < blocks && !plan_fits_device(r, problem, fewer)) ++fewer.cpu_block_columns;
    if (fewer.cpu_block_columns > 0)
      why.push_back("d below " + std::to_string(fewer.cpu_block_columns) +
                    " leaves the device more block columns than its " + fmt1(r.device_memory_bytes / 1e9) +
                    " GB hold: those plans were left out");
  } else {
    best.d_fraction = 1;
    plan.cpu_block_columns = blocks;
  }
  why.push_back(
      "nb = " + std::to_string(plan.nb) + " minimizes the predicted time over " +
      std::to_string(params.nb_candidates.size()) + " candidate widths" +
      (plan.nb >= k && hybrid && panel_location(plan) == PanelLocation::device
           ? ": one panel, the vendor's LU of the whole matrix on the device (" +
                 fmt1(detail::getrf_flops(problem.m, problem.n) / vendor_lu_seconds(r, problem.m, problem.n) / 1e9) +
                 " GFlop/s at this size: " + vendor_lu_terms(r) + (r.device_tf32 ? "; without TF32" : "") + ")"
       : plan.nb >= k   ? ": one panel, a recursive LU of the whole matrix on all threads (tall and skinny)"
       : plan.lookahead ? ", with look-ahead (one thread factors the next panel)"
                        : ""));
  std::string parts;
  for (const auto& t : best.terms) parts += (parts.empty() ? "" : ", ") + t.name + " " + fmt_seconds(t.seconds);
  why.push_back("predicted " + fmt_seconds(best.seconds) + " = " + fmt1(best.gflops) + " GFlop/s (" +
                (hybrid ? "busy times the schedule overlaps: " : "") + parts + ")");
  if (several) {
    // HybridLu::deal runs a device alone where the deal gives it every block column; a plan of one
    // device alone that is faster still (another nb, the vendor's LU) is said instead.
    if (const int s = sole_owner(plan, static_cast<int>(r.devices.size()), problem.n); s >= 0)
      best.faster_alone = AlonePrediction{r.devices[s].name, plan, best.seconds};
    auto faster = fastest_alone(profile, problem, params, best.seconds);
    if (faster && (!best.faster_alone || faster->seconds < best.faster_alone->seconds)) best.faster_alone = faster;
    if (best.faster_alone) why.push_back(faster_alone_note(best));
  }
  plan.source_detail = std::string("model: least predicted time at ") +
                       (r.cpu_all.source == "measured" ? "measured" : "estimated") + " rates";
  if (hybrid && r.device.source.rfind("measured", 0) != 0)
    plan.source_detail += "; device rates from its datasheet (" + r.device_name + " not probed: 'hetlu calibrate')";
  return best;
}

}  // namespace hetlu::model
