// The H200 machine of bench/results/2026-11-29-h200-session51.md as `hetlu probe` measured it
// (r1/probe.txt): its 16 cores, with their tallest GEPP panel probes, and its GPU.
#pragma once

#include "hetlu/types.hpp"

namespace hetlu::test_support {

inline MachineProfile h200_host_as_probed() {
  MachineProfile p;
  p.cores = 16;
  p.peak_gflops_per_core = 67.2;
  p.dgemm_gflops_one_core = 75.4;
  p.dgemm_gflops_all_cores = 535.4;
  p.sgemm_gflops_one_core = 154.2;
  p.sgemm_gflops_all_cores = 929.4;
  p.memory_bandwidth_gbs = 81.6;
  p.rates_measured = true;
  p.panel_rates = {{"gepp", 4096, 64, 1, 28.5},   {"gepp", 4096, 64, 16, 20.3}, {"gepp", 4096, 128, 1, 37.9},
                   {"gepp", 4096, 128, 16, 30.0}, {"gepp", 4096, 256, 1, 45.7}, {"gepp", 4096, 256, 16, 47.0}};
  return p;
}

inline GpuInfo h200_gpu_as_probed() {
  GpuInfo g;
  g.name = "NVIDIA H200";
  g.compute_capability_major = 9;
  g.multiprocessors = 132;
  g.memory_bytes = static_cast<long long>(139.8 * (1ll << 30));
  g.dgemm_gflops = 61136;
  g.sgemm_gflops = 50883;
  g.tf32_gemm_gflops = 407270;
  g.dgemm_peak_gflops = g.sgemm_peak_gflops = 66908;
  g.dgetrf_gflops = 9745;
  g.sgetrf_gflops = 10879;
  g.h2d_bandwidth_gbs = 55.4;
  g.d2h_bandwidth_gbs = 55.2;
  g.h2d_latency_us = 8.3;
  g.d2h_latency_us = 7.5;
  g.memory_bandwidth_gbs = 4100;
  g.staged_upload_gbs = 42.6;
  g.staged_download_gbs = 42.7;
  return g;
}

inline MachineProfile h200_as_probed() {
  MachineProfile p = h200_host_as_probed();
  p.gpus = {h200_gpu_as_probed()};
  return p;
}

}  // namespace hetlu::test_support
