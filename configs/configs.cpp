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
  if (!s.sizes.empty()) tuner::find_strategy(s.strategy);  // fail early on a misspelt name
  return s;
}

}  // namespace hetlu::configs
