#include "cli/report.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/commands.hpp"
#include "hetlu/detail/utf8.hpp"
#include "hetlu/hetlu.hpp"
#include "probes/probes.hpp"

namespace hetlu::cli {

nlohmann::ordered_json to_json(const Plan& plan) {
  return nlohmann::ordered_json::parse(plan_json(plan));
}

nlohmann::ordered_json to_json(const MachineProfile& p) {
  nlohmann::ordered_json caches = nlohmann::ordered_json::array();
  for (const auto& c : p.caches) caches.push_back({{"level", c.level}, {"bytes", c.bytes}, {"count", c.count}});
  nlohmann::ordered_json gpus = nlohmann::ordered_json::array();
  for (const auto& g : p.gpus)
    gpus.push_back(
        {{"name", g.name},
         {"compute_capability", fmt::format("{}.{}", g.compute_capability_major, g.compute_capability_minor)},
         {"multiprocessors", g.multiprocessors},
         {"memory_bytes", g.memory_bytes},
         {"dgemm_gflops", g.dgemm_gflops},
         {"sgemm_gflops", g.sgemm_gflops},
         {"dgetrf_gflops", g.dgetrf_gflops},
         {"sgetrf_gflops", g.sgetrf_gflops},
         {"tf32_gemm_gflops", g.tf32_gemm_gflops},
         {"dgemm_peak_gflops", g.dgemm_peak_gflops},
         {"sgemm_peak_gflops", g.sgemm_peak_gflops},
         {"peak_memory_bandwidth_gbs", g.peak_memory_bandwidth_gbs},
         {"pcie", fmt::format("{} x{}", g.pcie_generation, g.pcie_lanes)},
         {"peak_link_gbs", g.peak_link_gbs},
         {"h2d_bandwidth_gbs", g.h2d_bandwidth_gbs},
         {"d2h_bandwidth_gbs", g.d2h_bandwidth_gbs},
         {"h2d_latency_us", g.h2d_latency_us},
         {"d2h_latency_us", g.d2h_latency_us},
         {"memory_bandwidth_gbs", g.memory_bandwidth_gbs},
         {"staged_upload_gbs", g.staged_upload_gbs},
         {"staged_download_gbs", g.staged_download_gbs}});
  nlohmann::ordered_json panels = nlohmann::ordered_json::array();
  for (const auto& r : p.panel_rates)
    panels.push_back(
        {{"kind", r.kind}, {"rows", r.rows}, {"width", r.width}, {"threads", r.threads}, {"gflops", r.gflops}});
  nlohmann::ordered_json passes = nlohmann::ordered_json::array();
  for (const auto& c : p.pass_costs) passes.push_back({{"kind", c.kind}, {"n", c.n}, {"ns_per_entry", c.ns_per_entry}});
  nlohmann::ordered_json measurements = nlohmann::ordered_json::array();
  for (const auto& m : p.measurements)
    measurements.push_back(
        {{"name", m.name}, {"median", m.median}, {"spread", m.spread}, {"unit", m.unit}, {"detail", m.detail}});
  return {{"cpu_model", p.cpu_model},
          {"hostname", p.hostname},
          {"packages", p.packages},
          {"cores", p.cores},
          {"hardware_threads", p.hardware_threads},
          {"numa_nodes", p.numa_nodes},
          {"caches", caches},
          {"isa", p.isa},
          {"flops_per_cycle", p.flops_per_cycle},
          {"frequency_ghz", p.frequency_ghz},
          {"peak_gflops_per_core", p.peak_gflops_per_core},
          {"blas", p.blas_library},
          {"blas_warning", probes::blas_kernel_warning(p.blas_library, p.isa)},
          {"rates_measured", p.rates_measured},
          {"dgemm_probe_size", p.dgemm_probe_size},
          {"dgemm_gflops_one_core", p.dgemm_gflops_one_core},
          {"dgemm_gflops_all_cores", p.dgemm_gflops_all_cores},
          {"sgemm_gflops_one_core", p.sgemm_gflops_one_core},
          {"sgemm_gflops_all_cores", p.sgemm_gflops_all_cores},
          {"memory_bandwidth_gbs", p.memory_bandwidth_gbs},
          {"panel_rates", panels},
          {"pass_costs", passes},
          {"getrf_crossover", {{"double", p.getrf_crossover_double}, {"single", p.getrf_crossover_single}}},
          {"gpus", gpus},
          {"measurements", measurements}};
}

std::string describe(const MachineProfile& p) {
  std::string caches;
  for (const auto& c : p.caches)
    caches += fmt::format("{}L{} {} KiB x {}", caches.empty() ? "" : ", ", c.level, c.bytes / 1024, c.count);
  std::string text = fmt::format(
      "CPU        {}\n"
      "topology   {} package(s), {} core(s), {} hardware thread(s), {} NUMA node(s)\n"
      "caches     {}\n"
      "ISA        {}, {} double flops/cycle/core at {:.2f} GHz: datasheet peak {:.1f} GFlop/s per core, {:.1f} in all\n"
      "BLAS       {}\n",
      p.cpu_model, p.packages, p.cores, p.hardware_threads, p.numa_nodes, caches.empty() ? "unknown" : caches,
      p.isa.empty() ? "unknown" : p.isa, p.flops_per_cycle, p.frequency_ghz, p.peak_gflops_per_core,
      p.peak_gflops_per_core * p.cores, p.blas_library);
  if (const auto warning = probes::blas_kernel_warning(p.blas_library, p.isa); !warning.empty())
    text += "warning    " + warning + "\n";
  if (p.rates_measured) {
    text += fmt::format("DGEMM      {:.1f} GFlop/s on one core, {:.1f} on all cores (plateau at n = {})\n",
                        p.dgemm_gflops_one_core, p.dgemm_gflops_all_cores, p.dgemm_probe_size);
    text += fmt::format("SGEMM      {:.1f} GFlop/s on one core, {:.1f} on all cores\n", p.sgemm_gflops_one_core,
                        p.sgemm_gflops_all_cores);
    // From the probe's details: all-cores GEMM rates timed on fewer threads than cores (taskset, the
    // OpenMP limits), scaled, and said; the triad's threads as timed (not scaled).
    std::string scaled_gemm, triad_threads = "all cores";
    for (const auto& m : p.measurements) {
      if (m.name == "dgemm_all_cores" && scaled_gemm.empty() &&
          m.detail.find(probes::scaled_to_cores_detail) != std::string::npos)
        scaled_gemm = m.detail;
      if (const auto at = m.detail.find("threads="); m.name == "triad_bandwidth" && at != std::string::npos)
        triad_threads = m.detail.substr(at);
    }
    if (!scaled_gemm.empty())
      text += "note       the all-cores GEMM rates were timed on fewer threads than cores (" + scaled_gemm +
              "): this process may not run on every core\n";
    text += fmt::format("memory     {:.1f} GB/s (STREAM triad, {})\n", p.memory_bandwidth_gbs, triad_threads);
    for (const auto& r : p.panel_rates)
      text += fmt::format("panel      {} {} x {} on {} thread(s): {:.1f} GFlop/s\n", r.kind, r.rows, r.width, r.threads,
                          r.gflops);
    if (p.getrf_crossover_double > 0)
      text +=
          fmt::format("small      the BLAS's own getrf below n = {} (double), {} (single): the drop-in's small path\n",
                      p.getrf_crossover_double, p.getrf_crossover_single);
    for (const auto& c : p.pass_costs)
      text += fmt::format("pass       {} at n = {}: {:.2f} ns per entry\n", c.kind, c.n, c.ns_per_entry);
    double worst = 0;
    for (const auto& m : p.measurements) worst = std::max(worst, m.spread);
    text += fmt::format("spread     {} probes, largest MAD/median {:.1f} %\n", p.measurements.size(), 100 * worst);
    // On a quiet machine the large probes (GEMM on all cores, the triad) stay within a few per cent,
    // where the tiny panel probes may not (18 % on a quiet H100 host); beyond 10 % something else
    // ran (a busy loop beside `hetlu probe` gave 40 % and panel rates 10x low, said nowhere).
    constexpr double busy_spread = 0.10;
    for (const auto& m : p.measurements) {
      const bool large = m.name == "dgemm_all_cores" || m.name == "sgemm_all_cores" || m.name == "triad_bandwidth";
      if (!large || !(m.spread > busy_spread)) continue;
      text += fmt::format(
          "note       {} varied by {:.0f} %: the machine was busy while probed, so the rates (and the model's "
          "plans) may be off; probe again when it is quiet\n",
          m.name, 100 * m.spread);
      break;
    }
  } else {
    text += "rates      not measured\n";
  }
  if (p.gpus.empty()) text += "GPUs       none\n";
  for (const auto& g : p.gpus) {
    text += fmt::format("GPU        {} (sm_{}{}, {} SMs, {:.1f} GiB)\n", g.name, g.compute_capability_major,
                        g.compute_capability_minor, g.multiprocessors, g.memory_bytes / 1073741824.0);
    if (g.dgemm_peak_gflops > 0)
      text += fmt::format(
          "           datasheet: DGEMM {:.0f}, SGEMM {:.0f} GFlop/s; memory {:.0f} GB/s; PCIe {} x{} {:.1f} GB/s\n",
          g.dgemm_peak_gflops, g.sgemm_peak_gflops, g.peak_memory_bandwidth_gbs, g.pcie_generation, g.pcie_lanes,
          g.peak_link_gbs);
    if (g.dgemm_gflops > 0)
      text += fmt::format(
          "           cuBLAS DGEMM {:.0f}, SGEMM {:.0f}{}, cuSOLVER DGETRF {:.0f}{} GFlop/s; "
          "host->device {:.1f} GB/s {:.1f} us, "
          "device->host {:.1f} GB/s {:.1f} us; device memory {:.0f} GB/s\n",
          g.dgemm_gflops, g.sgemm_gflops,
          g.tf32_gemm_gflops > 0 ? fmt::format(" (TF32 {:.0f})", g.tf32_gemm_gflops) : "", g.dgetrf_gflops,
          g.sgetrf_gflops > 0 ? fmt::format(", SGETRF {:.0f}", g.sgetrf_gflops) : "", g.h2d_bandwidth_gbs,
          g.h2d_latency_us, g.d2h_bandwidth_gbs, g.d2h_latency_us, g.memory_bandwidth_gbs);
    if (g.staged_upload_gbs > 0)
      text += fmt::format("           staged from pageable memory: up {:.1f}, down {:.1f} GB/s\n", g.staged_upload_gbs,
                          g.staged_download_gbs);
  }
  return text;
}

std::string describe(const PhaseSeconds& phases) {
  std::string text;
  for (const auto& [phase, seconds] : phases)
    text += fmt::format("{}{} {:.3g} s", text.empty() ? "" : ", ", phase, seconds);
  return text;
}

nlohmann::ordered_json to_json(const PhaseSeconds& phases) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  for (const auto& [phase, seconds] : phases) object[phase] = seconds;
  return object;
}

void print_json(const nlohmann::ordered_json& object) {
  // A damaged stored text (bytes that are not UTF-8) printed as U+FFFD rather than the JSON
  // library's exception: db check --json names such rows.
  std::cout << object.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << std::endl;
}

void warn(const std::string& message) {
  std::cerr << "hetlu: warning: " << detail::printable(message) << std::endl;
}

void warn_all(const std::vector<std::string>& messages) {
  for (const auto& m : messages) warn(m);
}

void warn_inaccurate(const std::string& a_path, double omega, double tolerance, const std::string& tried) {
  std::cerr << fmt::format(
      "hetlu: warning: {}: backward error {:.2e} exceeds the tolerance 30 (n+1) eps = {:.2e}: the solution is not "
      "accurate (exit status {}){}\n",
      detail::printable(a_path), omega, tolerance, exit_inaccurate, tried);
}

void warn_unreliable(const std::string& a_path) {
  std::cerr << fmt::format("hetlu: warning: {}: the solution is not reliable (exit status {})\n",
                           detail::printable(a_path), exit_singular_to_working_precision);
}

}  // namespace hetlu::cli
