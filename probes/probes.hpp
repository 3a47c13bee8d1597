// What the probes measure. Each function is usable alone; probe_machine() assembles a profile.
#pragma once

#include <string>
#include <vector>

#include "hetlu/types.hpp"

namespace hetlu::probes {

// Topology from hwloc (packages, cores, hardware threads, NUMA nodes, caches), the CPU model
// string, the hostname and a datasheet-style per-core peak from the ISA and clock. No timing.
MachineProfile topology();

// The BLAS library the solvers call, e.g. "OpenBLAS 0.3.21".
std::string blas_library();

struct GemmRate {
  double gflops = 0;
  int size = 0;
  int threads = 0;
};

// Times a square DGEMM of order n with the given number of threads; median of `repetitions`
// after one warm-up run.
GemmRate measure_dgemm(int n, int threads, int repetitions = 5);

struct GpuProbe {
  std::vector<GpuInfo> gpus;
  std::string note;  // why no GPU was found, or what failed; empty when all went well
};

// GPUs the CUDA runtime sees; with measure_rates, their cuBLAS DGEMM rate. Never throws: a
// machine without a GPU or driver is a normal answer.
GpuProbe gpus(bool measure_rates);

// True when hetlu was built with its CUDA code.
bool built_with_cuda();

struct ProbeOptions {
  bool measure = true;   // false: topology and datasheet peaks only (the `estimate` level)
  int gemm_size = 1024;  // order of the timed DGEMM
  int repetitions = 5;
};

MachineProfile probe_machine(const ProbeOptions& options);

}  // namespace hetlu::probes
