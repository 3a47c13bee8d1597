// The cuda plugin's one exported symbol (solvers/cuda_plugin.hpp): its entry, with the interface
// version the loader checks.
#include "cuda/cuda_parts.hpp"
#include "solvers/cuda_plugin.hpp"

namespace {

void probe_gpus(bool measure_rates, void* gpu_probe) {
  *static_cast<hetlu::probes::GpuProbe*>(gpu_probe) = hetlu::probes::cuda_gpus(measure_rates);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const hetlu::cuda_plugin::Entry* hetlu_cuda_plugin_entry() {
  using namespace hetlu::backends;
  static const hetlu::cuda_plugin::Entry entry{hetlu::cuda_plugin::interface_version,
                                               &cuda_device_present,
                                               &make_cuda_backend<float>,
                                               &make_cuda_backend<double>,
                                               &cuda_time_vendor_lu<double>,
                                               &probe_gpus,
                                               &cuda_time_vendor_lu<float>,
                                               &cuda_time_vendor_irs,
                                               &make_cuda_backend<std::complex<float>>,
                                               &make_cuda_backend<std::complex<double>>};
  return &entry;
}
