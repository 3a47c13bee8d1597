// The rates the model prices with: measured, datasheet or default, for the CPUs and each device;
// the vendor LU's fit; the machine as the executor drives it (with_devices, host backends).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "hetlu/detail/deal_columns.hpp"
#include "model/pricing.hpp"

namespace hetlu::model {

// The vendor's LU of a resident matrix as updates at a rate and a latency per column, fitted to a
// getrf rate probed at vendor_lu_probe_order: the updates at the params' share of the GEMM rate,
// the latency what the probe took beyond them. Where the updates alone would take longer than the
// probe, the probed rate holds at every order (no latency).
namespace {

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

}  // namespace

std::string vendor_lu_terms(const Rates& r) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.4g", r.device_lu.gflops);
  if (r.device_lu_column_seconds <= 0)  // the probe beat its updates at the model's share of the GEMM
    return std::string("its probed ") + buffer + " GFlop/s at every size, " + r.device_lu.source;
  std::string text = std::string("updates at ") + buffer + " GFlop/s and ";
  std::snprintf(buffer, sizeof buffer, "%.3g", 1e6 * r.device_lu_column_seconds);
  return text + buffer + " us a column, " + r.device_lu.source;
}

double vendor_lu_seconds(const Rates& rates, double m, double n) {
  return detail::getrf_flops(m, n) / (rates.device_lu.gflops * 1e9) + std::min(m, n) * rates.device_lu_column_seconds;
}

namespace {

// What a plan may fill of a device's memory: a GPU's less the share its context and libraries
// take; a host backend's team (memory_bytes set only where $HETLU_HOST_BACKEND_MEMORY_MIB caps it)
// counts hetlu's own allocations against its cap, so all of it.
double usable_memory_bytes(const GpuInfo& g, const ModelParams& params) {
  return (g.host_team_threads > 0 ? 1.0 : params.usable_device_memory_share) * double(g.memory_bytes);
}

}  // namespace

Rates rates_of(const MachineProfile& p, Precision precision, const ModelParams& params, int devices, bool tf32) {
  Rates r;
  r.cores = std::max(1, p.cores);
  const bool single = precision != Precision::double_;  // mixed factors in single
  const double measured_all = single ? p.sgemm_gflops_all_cores : p.dgemm_gflops_all_cores;
  const double measured_one = single ? p.sgemm_gflops_one_core : p.dgemm_gflops_one_core;
  const double peak_core = p.peak_gflops_per_core * (single ? 2 : 1);
  const std::string eff = " x " + fmt1(params.cpu_efficiency);
  // Single precision with DGEMM alone known (a machine file gives no SGEMM key): twice its rate, as
  // for a datasheet peak (such a file had priced double and refused single and mixed).
  const double doubled_all = single ? 2 * p.dgemm_gflops_all_cores : 0;
  const double doubled_one = single ? 2 * p.dgemm_gflops_one_core : 0;
  const std::string doubled = "measured DGEMM x 2 (SGEMM not measured)";
  if (measured_all > 0)
    r.cpu_all = {measured_all, "measured"};
  else if (peak_core > 0)
    r.cpu_all = {peak_core * r.cores * params.cpu_efficiency, "datasheet" + eff};
  else if (doubled_all > 0)
    r.cpu_all = {doubled_all, doubled};
  if (measured_one > 0)
    r.cpu_one = {measured_one, "measured"};
  else if (peak_core > 0)
    r.cpu_one = {peak_core * params.cpu_efficiency, "datasheet" + eff};
  else if (doubled_one > 0)
    r.cpu_one = {doubled_one, doubled};
  else
    r.cpu_one = {r.cpu_all.gflops / r.cores, r.cpu_all.source + " / cores"};
  // All cores below one: a probe disturbed by other work (38.4 against 49.3 on a loaded 2-core
  // machine, which then priced every threaded update 1.3x slow). The threaded GEMM can do what one
  // core does.
  if (r.cpu_all.gflops > 0 && r.cpu_all.gflops < r.cpu_one.gflops)
    r.cpu_all = {r.cpu_one.gflops,
                 r.cpu_all.source + ", " + fmt1(r.cpu_all.gflops) + " below one core's: taken as that"};

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
      r.device_lu_column_seconds = g.host_team_threads > 0 ? 0 : 1e-6 * params.device_lu_column_latency_us;
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
                                         r.device_memory, r.device_panel_gflops, usable_memory_bytes(g, params)});
  }
  r.memory_gbs = p.memory_bandwidth_gbs > 0
                     ? p.memory_bandwidth_gbs
                     : std::max(params.default_host_memory_gbs,
                                std::min(params.default_host_memory_gbs_per_core * std::max(1, p.cores),
                                         params.default_host_memory_gbs_per_package * std::max(1, p.packages)));
  r.device_memory_usable_bytes = r.devices.empty() ? 0 : r.devices.front().memory_usable_bytes;
  return r;
}

MachineProfile with_devices(const MachineProfile& profile, const DeviceSet& devices,
                            std::size_t host_team_memory_bytes) {
  const bool capped = host_team_memory_bytes > 0 && host_team_memory_bytes != std::numeric_limits<std::size_t>::max();
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
      if (capped) g.memory_bytes = static_cast<long long>(std::min<std::size_t>(host_team_memory_bytes, LLONG_MAX));
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

namespace {

// The shares s_i (summing to 1 where the devices hold the block columns) for which every device
// in use takes the same time T: L_i + s_i F / g_i = T. A device whose transfers alone reach T gets
// none; one whose share would pass its `most` of the `dealt` block columns keeps what it holds and
// the others balance the rest. Where the devices together hold too little, each keeps its most and
// the shares sum below 1.
std::vector<double> shares_within(double flops, const std::vector<double>& g, const std::vector<double>& L,
                                  const std::vector<double>& most, int dealt) {
  const std::size_t count = g.size();
  std::vector<bool> used(count), full(count, false);
  for (std::size_t i = 0; i < count; ++i) used[i] = g[i] > 0;
  std::vector<double> shares(count, 0.0), limit(count);
  for (std::size_t i = 0; i < count; ++i) limit[i] = dealt > 0 ? std::max(0.0, most[i]) / dealt : 1.0;
  // Each round drops a device, fills one (which brings every dropped device back: the time left
  // to the others rises) or ends; fills never undo, so (count + 1)^2 rounds bound it.
  for (std::size_t round = 0; round <= (count + 1) * (count + 1); ++round) {
    double sum_g = 0, sum_lg = 0, kept = 0;
    for (std::size_t i = 0; i < count; ++i) {
      if (full[i])
        kept += shares[i];
      else if (used[i])
        sum_g += g[i], sum_lg += L[i] * g[i];
    }
    if (sum_g <= 0) {
      if (kept > 0) return shares;  // every device in use is full
      return std::vector<double>(count, 1.0 / count);
    }
    const double T = (flops * std::max(0.0, 1 - kept) + sum_lg) / sum_g;
    bool changed = false;
    for (std::size_t i = 0; i < count; ++i) {
      if (full[i]) continue;
      shares[i] = used[i] ? std::max(0.0, (T - L[i]) * g[i] / flops) : 0;
      if (used[i] && shares[i] <= 0) used[i] = false, changed = true;
    }
    if (changed) continue;  // drop first, then balance again before any device counts as full
    for (std::size_t i = 0; i < count; ++i)
      if (used[i] && !full[i] && shares[i] > limit[i]) shares[i] = limit[i], full[i] = true, changed = true;
    if (!changed) break;
    for (std::size_t i = 0; i < count; ++i)
      if (!full[i]) used[i] = g[i] > 0;
  }
  return shares;
}

// Shares as the deal takes them (detail::deal_block_columns deals by their ratios), as fractions
// that sum to 1: memory-capped shares may sum below 1, and a plan then stated less than each device
// is dealt (where the devices together hold too little, plan_fits_device refuses the deal).
std::vector<double> as_fractions(std::vector<double> shares) {
  double sum = 0;
  for (double s : shares) sum += s;
  if (sum > 0 && std::abs(sum - 1) > 1e-9)
    for (double& s : shares) s /= sum;
  return shares;
}

}  // namespace

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
  // Each device's most block columns of those dealt: its memory less the two panel slots.
  const int dealt = blocks - std::clamp(cpu_block_columns, 0, blocks);
  std::vector<double> most(count);
  for (std::size_t i = 0; i < count; ++i) most[i] = device_block_column_capacity(rates.devices[i], m, nb, word);
  std::vector<double> shares = shares_within(flops, g, L, most, dealt);
  if (std::all_of(most.begin(), most.end(), [&](double c) { return c >= dealt; })) return as_fractions(shares);
  // The deal rounds shares to whole block columns: where it gives a device more than it holds, that
  // device's limit comes down by the excess and the shares are balanced again (not where the
  // devices together hold too little: no deal fits then).
  for (std::size_t attempt = 0; attempt < 2 * count; ++attempt) {
    double sum = 0;
    for (double s : shares) sum += s;
    if (sum < 1 - 1e-9) break;
    const auto owner = detail::deal_block_columns(shares, static_cast<int>(count), dealt);
    std::vector<double> got(count, 0);
    for (int o : owner) ++got[o];
    bool over = false;
    for (std::size_t i = 0; i < count; ++i)
      if (got[i] > std::max(0.0, most[i])) most[i] = std::max(0.0, 2 * most[i] - got[i]), over = true;
    if (!over) break;
    shares = shares_within(flops, g, L, most, dealt);
  }
  return as_fractions(shares);
}

double busy_cores_rate(double one_core, double all_cores, double busy) {
  return all_cores > 0 ? std::min(one_core * busy, all_cores) : one_core * busy;
}

MachineProfile with_threads(const MachineProfile& profile, int threads) {
  const int cores = std::max(1, profile.cores);
  if (threads <= 0 || threads >= cores) return profile;
  MachineProfile p = profile;
  auto busy = [&](double& all, double one) {
    if (all > 0) all = one > 0 ? busy_cores_rate(one, all, threads) : all * threads / cores;
  };
  busy(p.dgemm_gflops_all_cores, p.dgemm_gflops_one_core);
  busy(p.sgemm_gflops_all_cores, p.sgemm_gflops_one_core);
  p.cores = threads;
  return p;
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

}  // namespace hetlu::model
