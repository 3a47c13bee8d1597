// The model of the hybrid LU (solvers/hybrid_lu.hpp): the moving window of d block columns on the
// CPUs, the device's updates, the staged copies, several devices, and what stays on the device.
#include <algorithm>
#include <cmath>
#include <vector>

#include "hetlu/detail/deal_columns.hpp"
#include "hetlu/detail/prbt_order.hpp"
#include "hetlu/detail/staging_slot.hpp"
#include "model/pricing.hpp"

namespace hetlu::model {

bool prbt_solves_on_device(const Rates& rates, int n, double word) {
  // Two copies of the padded A, and the solves' and refinement's buffers for one right-hand side
  // (device_refinement.hpp: X, R and the row shares of n; the solves' work of np).
  const double np = detail::prbt_padded_order(n);
  const double held = 2 * word * np * np + word * (3.0 * n + np);
  return !(rates.device_memory_bytes > 0) || held <= rates.device_memory_usable_bytes;
}

namespace {

// Whether one device's memory holds what a plan keeps there: the whole matrix with the panel on it
// (d = 0, hybrid_lu.hpp) or for PRBT at any d that deals it block columns (prbt_hybrid.cpp
// randomizes A there; a second copy only where it fits), else its block columns right of the CPUs'
// d and two panel slots. m and n are PRBT's padded order. A capacity not known counts as enough.
// Without this the model sent n = 110000 (97 GB) to an 80 GB H100.
bool device_holds_plan(const Rates& rates, Solver solver, int m, int n, int nb, int d, double word) {
  if (!(rates.device_memory_bytes > 0)) return true;
  const int blocks = block_columns(n, nb);
  const double columns = d == 0 || solver == Solver::prbt ? double(n) : double(std::max(0, blocks - d)) * nb + 2.0 * nb;
  return word * double(m) * columns <= rates.device_memory_usable_bytes;
}

}  // namespace

bool plan_fits_device(const Rates& rates, const Problem& problem, const Plan& plan) {
  const bool hybrid = problem.target == Target::hybrid && rates.device.gflops > 0;
  // PRBT factors diag(A, s I) of its padded order, on the devices as GEPP factors A.
  const bool prbt = problem.solver == Solver::prbt;
  const int m = prbt ? detail::prbt_padded_order(problem.n) : problem.m;
  const int n = prbt ? detail::prbt_padded_order(problem.n) : problem.n;
  const int nb = std::max(1, plan.nb), blocks = block_columns(n, nb);
  const bool devices_take_columns = prbt
                                        ? detail::prbt_devices_take_block_columns(problem.n, nb, plan.cpu_block_columns)
                                        : plan.cpu_block_columns < blocks;
  if (!hybrid || !devices_take_columns) return true;
  const double word = entry_bytes(problem.precision);
  const std::size_t count = rates.devices.size();
  if (count <= 1) return device_holds_plan(rates, problem.solver, m, n, nb, plan.cpu_block_columns, word);
  // Several: a d = 0 deal that gives one device everything runs it alone, the whole matrix there.
  const int d = std::max(0, plan.cpu_block_columns);
  if (const int s = sole_owner(plan, static_cast<int>(count), n); s >= 0)
    return device_column_capacity(rates.devices[s], m, word) >= n;
  const auto owner = detail::deal_block_columns(plan.device_shares, static_cast<int>(count), blocks - d);
  std::vector<double> columns(count, 0);
  for (int J = d; J < blocks; ++J) columns[owner[J - d]] += block_column_width(J, n, nb);
  for (std::size_t i = 0; i < count; ++i)
    if (columns[i] > 0 && columns[i] + 2.0 * nb > device_column_capacity(rates.devices[i], m, word)) return false;
  return true;
}

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

namespace {

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

}  // namespace

bool mixed_refines_on_device(const Rates& rates, int n) {
  if (rates.devices.size() != 1) return false;
  return !(rates.device_memory_bytes > 0) || 12.0 * n * n <= rates.device_memory_usable_bytes;
}

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
  const double solve = 4 * entries / device + 2 * n * params.device_triangular_solve_row_us * 1e-6 + 2 * latency;
  const double residual = 8 * entries / device + 4 * latency;
  return rounding + randomize + upload + solve +
         mixed_refinement_steps(profile, solver, n, params).steps * (residual + solve);
}

namespace {

// A GPU's panel of step s: latency-bound, column by column, at device_panel_efficiency of its GEMM rate.
double gpu_panel_seconds(const Step& s, double panel_gflops, const ModelParams& params) {
  return s.panel_flops() / (panel_gflops * 1e9 * params.device_panel_efficiency) +
         s.jb * (1e-6 * params.device_panel_column_latency_us);
}

}  // namespace

double owner_panel_seconds(const MachineProfile* profile, const Rates& rates, std::size_t i, const Step& s,
                           const ModelParams& params) {
  const auto& dev = rates.devices[i];
  if (dev.host_threads == 0) return gpu_panel_seconds(s, dev.panel_gflops, params);
  if (profile) return cpu_panel_seconds(*profile, rates, Solver::gepp, s.rows, int(s.jb), dev.host_threads, params);
  return s.panel_flops() / (dev.panel_gflops * 1e9);  // a host backend's team, no profile to price its kernel
}

namespace {

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
  for (int J = 0; J < blocks; ++J) owned[owner[J]] += block_column_width(J, n, nb);
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

}  // namespace

int sole_owner(const Plan& plan, int devices, int n) {
  if (devices < 2 || plan.cpu_block_columns != 0) return -1;
  const auto dealt = detail::deal_block_columns(plan.device_shares, devices, block_columns(n, std::max(1, plan.nb)));
  if (dealt.empty() || !std::all_of(dealt.begin(), dealt.end(), [&](int o) { return o == dealt.front(); })) return -1;
  return dealt.front();
}

HybridTimes hybrid_lu_seconds(const MachineProfile& profile, const Rates& rates, Solver solver, int m, int n,
                              const Plan& plan, const ModelParams& params, double word, bool factors_stay,
                              double upload_word, bool prbt_on_device) {
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
  for (int J = d; several && J < blocks; ++J) owned_columns[owner[J - d]] += block_column_width(J, n, nb);
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
    if (K + d < blocks) owned_columns[owner[K]] -= block_column_width(K + d, n, nb);
    t.cpu += cpu;
    t.total += std::max(cpu + packing + owner_path, slowest) + params.step_overhead_seconds;
  };
  // d = 0: a GPU's panel is latency-bound, column by column; the host backend's team factors it
  // with the CPUs' recursive kernel (GEPP's; PRBT's without pivoting) on its own threads.
  auto device_panel_seconds = [&](const Step& s) {
    return rates.device_host_threads > 0
               ? cpu_panel_seconds(profile, rates, Solver::gepp, s.rows, s.jb, rates.device_host_threads, params)
               : gpu_panel_seconds(s, rates.device_panel_gflops, params);
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

}  // namespace hetlu::model
