#include <cblas.h>

#include "probes/probes.hpp"

namespace hetlu::probes {

MachineProfile probe_machine(const ProbeOptions& options) {
  MachineProfile profile = topology();
  GpuProbe gpu = gpus(options.measure);
  profile.gpus = gpu.gpus;
  if (options.measure) {
    profile.dgemm_probe_size = options.gemm_size;
    profile.dgemm_gflops_one_core = measure_dgemm(options.gemm_size, 1, options.repetitions).gflops;
    profile.dgemm_gflops_all_cores =
        measure_dgemm(options.gemm_size, openblas_get_num_threads(), options.repetitions).gflops;
    profile.rates_measured = true;
  }
  return profile;
}

}  // namespace hetlu::probes
