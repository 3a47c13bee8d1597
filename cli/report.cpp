#include "cli/report.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <iostream>

namespace hetlu::cli {

nlohmann::ordered_json to_json(const Plan& plan) {
  nlohmann::ordered_json j = {{"solver", to_string(plan.solver)},
                              {"precision", to_string(plan.precision)},
                              {"target", to_string(plan.target)},
                              {"nb", plan.nb},
                              {"ib", plan.ib},
                              {"cpu_block_columns", plan.cpu_block_columns},
                              {"panel_threads", plan.panel_threads},
                              {"lookahead", plan.lookahead},
                              {"source", to_string(plan.source)},
                              {"source_detail", plan.source_detail},
                              {"overridden", plan.overridden}};
  j["predicted_seconds"] = plan.predicted_seconds ? nlohmann::ordered_json(*plan.predicted_seconds) : nullptr;
  return j;
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
         {"dgemm_gflops", g.dgemm_gflops}});
  return {{"cpu_model", p.cpu_model},
          {"hostname", p.hostname},
          {"packages", p.packages},
          {"cores", p.cores},
          {"hardware_threads", p.hardware_threads},
          {"numa_nodes", p.numa_nodes},
          {"caches", caches},
          {"blas", p.blas_library},
          {"peak_gflops_per_core", p.peak_gflops_per_core},
          {"rates_measured", p.rates_measured},
          {"dgemm_probe_size", p.dgemm_probe_size},
          {"dgemm_gflops_one_core", p.dgemm_gflops_one_core},
          {"dgemm_gflops_all_cores", p.dgemm_gflops_all_cores},
          {"gpus", gpus}};
}

std::string describe(const MachineProfile& p) {
  std::string caches;
  for (const auto& c : p.caches)
    caches += fmt::format("{}L{} {} KiB", caches.empty() ? "" : ", ", c.level, c.bytes / 1024);
  std::string text = fmt::format(
      "CPU        {}\n"
      "topology   {} package(s), {} core(s), {} hardware thread(s), {} NUMA node(s)\n"
      "caches     {}\n"
      "BLAS       {}\n"
      "peak       {:.1f} GFlop/s per core (datasheet-style: ISA x clock)\n",
      p.cpu_model, p.packages, p.cores, p.hardware_threads, p.numa_nodes, caches.empty() ? "unknown" : caches,
      p.blas_library, p.peak_gflops_per_core);
  if (p.rates_measured)
    text += fmt::format("DGEMM      {:.1f} GFlop/s on one core, {:.1f} GFlop/s on all cores (n = {})\n",
                        p.dgemm_gflops_one_core, p.dgemm_gflops_all_cores, p.dgemm_probe_size);
  else
    text += "DGEMM      not measured\n";
  if (p.gpus.empty()) text += "GPUs       none\n";
  for (const auto& g : p.gpus)
    text += fmt::format("GPU        {} (sm_{}{}, {} SMs, {:.1f} GiB){}\n", g.name, g.compute_capability_major,
                        g.compute_capability_minor, g.multiprocessors, g.memory_bytes / 1073741824.0,
                        g.dgemm_gflops > 0 ? fmt::format(", cuBLAS DGEMM {:.0f} GFlop/s", g.dgemm_gflops) : "");
  return text;
}

void print_json(const nlohmann::ordered_json& object) {
  std::cout << object.dump() << std::endl;
}

void warn(const std::string& message) {
  std::cerr << "hetlu: warning: " << message << std::endl;
}

void warn_all(const std::vector<std::string>& messages) {
  for (const auto& m : messages) warn(m);
}

}  // namespace hetlu::cli
