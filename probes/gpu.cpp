// The GPU probes, from the cuda plugin (solvers/cuda_plugin.hpp) when it loads; otherwise none,
// and the note says why.
#include "probes/probes.hpp"
#include "solvers/cuda_plugin.hpp"

namespace hetlu::probes {

GpuProbe gpus(bool measure_rates) {
  std::string why;
  const auto* plugin = cuda_plugin::entry(&why);
  if (!plugin) return {{}, why};
  GpuProbe probe;
  plugin->probe_gpus(measure_rates, &probe);
  return probe;
}

bool built_with_cuda() {
  return cuda_plugin::built();
}

}  // namespace hetlu::probes
