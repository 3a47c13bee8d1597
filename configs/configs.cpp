#include "configs/configs.hpp"

#include <yaml-cpp/yaml.h>

#include "configs/embedded.hpp"

namespace hetlu::configs {
namespace {

template <class T>
T get(const YAML::Node& node, const char* key, const T& fallback, const std::string& where) {
  if (!node[key]) return fallback;
  try {
    return node[key].as<T>();
  } catch (const YAML::Exception& e) {
    throw InvalidArgument(where + ": bad value for '" + key + "': " + e.msg);
  }
}

}  // namespace

tuner::LevelSettings calibration_level(CalibrationLevel level, const std::string& yaml_path) {
  const std::string source = yaml_path.empty() ? "built-in calibration.yaml" : yaml_path;
  YAML::Node root;
  try {
    root = yaml_path.empty() ? YAML::Load(embedded::calibration_yaml) : YAML::LoadFile(yaml_path);
  } catch (const YAML::Exception& e) {
    throw InvalidArgument(source + ": " + e.what());
  }
  const std::string name = to_string(level);
  const YAML::Node node = root["levels"][name];
  if (!node) throw InvalidArgument(source + ": no settings for level '" + name + "'");
  const std::string where = source + ": levels." + name;

  tuner::LevelSettings s;
  s.level = level;
  s.measure_rates = get(node, "measure_rates", s.measure_rates, where);
  s.probe_gemm_size = get(node, "probe_gemm_size", s.probe_gemm_size, where);
  s.sizes = get(node, "sizes", s.sizes, where);
  s.strategy = get(node, "strategy", s.strategy, where);
  s.space.nb = get(node, "nb", s.space.nb, where);
  s.space.ib = get(node, "ib", s.space.ib, where);
  s.space.lookahead = get(node, "lookahead", s.space.lookahead, where);
  s.hybrid_sizes = get(node, "hybrid_sizes", s.hybrid_sizes, where);
  s.space.cpu_share = get(node, "cpu_share", s.space.cpu_share, where);
  s.budget_seconds = get(node, "budget_seconds", s.budget_seconds, where);
  if (node["solvers"]) {
    s.solvers.clear();
    for (const auto& solver : get<std::vector<std::string>>(node, "solvers", {}, where))
      s.solvers.push_back(from_string<Solver>(solver));
  }
  if (const YAML::Node t = node["timing"]) {
    const std::string twhere = where + ".timing";
    s.timing.warmup = get(t, "warmup", s.timing.warmup, twhere);
    s.timing.min_samples = get(t, "min_samples", s.timing.min_samples, twhere);
    s.timing.max_samples = get(t, "max_samples", s.timing.max_samples, twhere);
    s.timing.target_spread = get(t, "target_spread", s.timing.target_spread, twhere);
    s.timing.time_cap_seconds = get(t, "time_cap_seconds", s.timing.time_cap_seconds, twhere);
  }
  for (int n : s.sizes)
    if (n < 1) throw InvalidArgument(where + ".sizes: " + std::to_string(n) + " must be >= 1");
  for (int n : s.hybrid_sizes)
    if (n < 1) throw InvalidArgument(where + ".hybrid_sizes: " + std::to_string(n) + " must be >= 1");
  for (double share : s.space.cpu_share)
    if (!(share >= 0 && share <= 1))
      throw InvalidArgument(where + ".cpu_share: " + std::to_string(share) + " must be in [0, 1]");
  if (!s.sizes.empty()) tuner::find_strategy(s.strategy);  // fail early on a misspelt name
  return s;
}

namespace {
YAML::Node load(const std::string& yaml_path, const char* embedded_text, const std::string& source) {
  try {
    return yaml_path.empty() ? YAML::Load(embedded_text) : YAML::LoadFile(yaml_path);
  } catch (const YAML::Exception& e) {
    throw InvalidArgument(source + ": " + e.what());
  }
}
}  // namespace

model::ModelParams model_params(const std::string& yaml_path) {
  const std::string source = yaml_path.empty() ? "built-in model.yaml" : yaml_path;
  const YAML::Node root = load(yaml_path, embedded::model_yaml, source);
  model::ModelParams p;
  const YAML::Node none;
  auto section = [&](const char* key) { return root[key] ? root[key] : none; };
  p.cpu_efficiency = get(section("efficiency"), "cpu", p.cpu_efficiency, source + ": efficiency");
  p.device_efficiency = get(section("efficiency"), "device", p.device_efficiency, source + ": efficiency");
  p.gemm_half_rate_k = get(section("gemm_half_rate_k"), "cpu", p.gemm_half_rate_k, source + ": gemm_half_rate_k");
  p.device_gemm_half_rate_k =
      get(section("gemm_half_rate_k"), "device", p.device_gemm_half_rate_k, source + ": gemm_half_rate_k");
  p.panel_efficiency = get(section("panel"), "cpu_efficiency", p.panel_efficiency, source + ": panel");
  p.tslu_efficiency = get(section("panel"), "tslu_efficiency", p.tslu_efficiency, source + ": panel");
  p.device_panel_efficiency = get(section("panel"), "device_efficiency", p.device_panel_efficiency, source + ": panel");
  p.device_lu_efficiency = get(section("panel"), "device_lu_efficiency", p.device_lu_efficiency, source + ": panel");
  p.genp_panel_speedup = get(section("panel"), "genp_speedup", p.genp_panel_speedup, source + ": panel");
  p.panel_leaf_width = get(section("panel"), "leaf_width", p.panel_leaf_width, source + ": panel");
  if (p.panel_leaf_width < 1)
    throw InvalidArgument(source + ": panel: leaf_width = " + std::to_string(p.panel_leaf_width) + " must be >= 1");
  p.prbt_refinement_steps = get(root, "prbt_refinement_steps", p.prbt_refinement_steps, source);
  p.step_overhead_seconds = get(root, "step_overhead_seconds", p.step_overhead_seconds, source);
  p.default_link_gbs = get(section("link_default"), "bandwidth_gbs", p.default_link_gbs, source + ": link_default");
  p.default_link_latency_us =
      get(section("link_default"), "latency_us", p.default_link_latency_us, source + ": link_default");
  p.nb_candidates = get(root, "nb_candidates", p.nb_candidates, source);
  for (double f : {p.cpu_efficiency, p.device_efficiency, p.panel_efficiency, p.tslu_efficiency,
                   p.device_panel_efficiency, p.device_lu_efficiency})
    if (!(f > 0 && f <= 1))
      throw InvalidArgument(source + ": efficiency factors must be in (0, 1], got " + std::to_string(f));
  if (p.nb_candidates.empty()) throw InvalidArgument(source + ": nb_candidates is empty");
  for (int nb : p.nb_candidates)
    if (nb < 1) throw InvalidArgument(source + ": nb_candidates: " + std::to_string(nb) + " must be >= 1");
  return p;
}

MachineProfile machine_from_yaml(const std::string& yaml_path) {
  const YAML::Node root = load(yaml_path, "", yaml_path);
  const YAML::Node cpu = root["cpu"];
  if (!cpu) throw InvalidArgument(yaml_path + ": no 'cpu' section");
  const std::string where = yaml_path + ": cpu";
  MachineProfile p;
  p.cpu_model = get<std::string>(cpu, "model", get<std::string>(root, "name", "what-if machine", yaml_path), where);
  p.hostname = "what-if";
  p.cores = get(cpu, "cores", 0, where);
  if (p.cores < 1) throw InvalidArgument(where + ".cores must be >= 1");
  p.packages = get(cpu, "packages", 1, where);
  p.hardware_threads = get(cpu, "hardware_threads", p.cores, where);
  p.numa_nodes = get(cpu, "numa_nodes", p.packages, where);
  p.frequency_ghz = get(cpu, "frequency_ghz", 0.0, where);
  p.flops_per_cycle = get(cpu, "flops_per_cycle", 0, where);
  p.peak_gflops_per_core = p.frequency_ghz * p.flops_per_cycle;
  if (cpu["peak_gflops"]) p.peak_gflops_per_core = get(cpu, "peak_gflops", 0.0, where) / p.cores;
  p.dgemm_gflops_all_cores = get(cpu, "dgemm_gflops_all_cores", 0.0, where);
  p.dgemm_gflops_one_core = get(cpu, "dgemm_gflops_one_core", 0.0, where);
  p.memory_bandwidth_gbs = get(cpu, "memory_bandwidth_gbs", 0.0, where);
  p.rates_measured = p.dgemm_gflops_all_cores > 0;
  if (p.peak_gflops_per_core <= 0 && p.dgemm_gflops_all_cores <= 0)
    throw InvalidArgument(where + ": give frequency_ghz and flops_per_cycle, peak_gflops, or dgemm_gflops_all_cores");
  if (const YAML::Node devices = root["devices"]) {
    int index = 0;
    for (const auto& d : devices) {
      const std::string dwhere = yaml_path + ": devices[" + std::to_string(index++) + "]";
      GpuInfo g;
      g.name = get<std::string>(d, "name", "device", dwhere);
      g.dgemm_peak_gflops = get(d, "dgemm_peak_gflops", 0.0, dwhere);
      g.dgemm_gflops = get(d, "dgemm_gflops", 0.0, dwhere);
      g.dgetrf_gflops = get(d, "dgetrf_gflops", 0.0, dwhere);
      g.memory_bytes = static_cast<long long>(get(d, "memory_gb", 0.0, dwhere) * 1e9);
      g.h2d_bandwidth_gbs = g.d2h_bandwidth_gbs = get(d, "link_gbs", 0.0, dwhere);
      g.h2d_latency_us = g.d2h_latency_us = get(d, "latency_us", 0.0, dwhere);
      g.memory_bandwidth_gbs = get(d, "memory_gbs", 0.0, dwhere);
      if (g.dgemm_peak_gflops <= 0 && g.dgemm_gflops <= 0)
        throw InvalidArgument(dwhere + ": give dgemm_peak_gflops or dgemm_gflops");
      p.gpus.push_back(g);
    }
  }
  return p;
}

}  // namespace hetlu::configs
