// Efficiency factors and shape constants of the model, with their defaults and why: their one
// place. `hetlu recommend --print-model-config` writes them as a model file, which
// `--model-config FILE` reads back for what-if predictions (configs::model_params).
#pragma once

#include <vector>

namespace hetlu::model {

struct ModelParams {
  // Fraction of peak a real factorization sustains (async-calu §4: 0.8 of CPU peak and 0.9 of
  // device peak gave reliable d on their machines). Applied to datasheet peaks only; measured
  // GEMM rates are already real.
  double cpu_efficiency = 0.8;
  double device_efficiency = 0.9;

  // A GEMM whose inner dimension is k runs at rate * k / (k + half_rate_k): thin updates cannot
  // reuse cache. 24 fits OpenBLAS on AVX2/AVX-512 cores; GPUs need far wider updates (128).
  double gemm_half_rate_k = 24;
  double device_gemm_half_rate_k = 128;

  // Without a measured panel rate: the recursive panel runs at this fraction of one core's GEMM
  // rate of its inner width, a TSLU panel at tslu_efficiency of that per thread (it does the
  // block factorizations and the tournament on top of the GEPP flops), and a device panel at
  // device_panel_efficiency of the device's GEMM rate (latency-bound column by column).
  double panel_efficiency = 0.5;
  double tslu_efficiency = 0.5;
  double device_panel_efficiency = 0.02;
  // ... plus this latency per panel column on a GPU (cuSOLVER's getrf of a tall panel launches
  // kernels column by column): 5 us put the panel-on-device LU within 6 % of its measured time at
  // n = 8192, 16384 and 32768 on an H100 with cuSOLVER 12004 (bench/results/2026-11-26-h100.md),
  // where the flops alone predicted 50 %, 29 % and 8 % too little.
  double device_panel_column_latency_us = 5;
  // The vendor's LU of a whole resident matrix (cuSOLVER getrf, a plan of one panel): its
  // trailing updates at this fraction of the device's GEMM rate, plus a latency per column (its
  // panels go column by column), which a probed getrf rate replaces by what the probe took beyond
  // the updates (model::rates_of). An H100 (cuSOLVER 12004) ran dgetrf in 0.0392-0.0394 s at
  // n = 8192, 0.141-0.142 at 16384 and 0.715-0.727 at 32768 (bench/results/2026-11-2[67]-h100*):
  // a constant rate cannot hold (9.3 to 32.6 TFlop/s), and one rate fitted at 8192 priced 32768 at
  // 3.5x its time; 0.65 of its 58.6 TFlop/s DGEMM plus 3.6 us a column fits all three within 4 %.
  double device_lu_gemm_efficiency = 0.65;
  double device_lu_column_latency_us = 3.6;
  // Without a probed TF32 GEMM rate (GpuInfo::tf32_gemm_gflops): single precision's GEMM rate times
  // this under HETLU_CUDA_TF32=1 (from 1 up). An H100's datasheet gives TF32 tensor cores 7.4x its
  // FP32 cores (495 against 67 TFlop/s dense), an A100's 8x; cuBLAS reaches a part of that peak: an
  // estimate, which `hetlu probe` replaces by the measured rate.
  double tf32_gemm_speedup = 4;
  // ... and, for the one-panel plan (the whole matrix as one recursive LU), for its leaves up to
  // this width: the wider levels are modelled as it recurses, two halves and a GEMM between them.
  int panel_leaf_width = 32;

  // PRBT: the expected number of refinement steps (hybrid-calu-prbt-gepp §4.3: one or two; one on
  // random matrices at n = 2000 and 4000 on the dev machine), and GENP's panel speed-up over GEPP's
  // (no pivot search, no interchanges).
  double prbt_refinement_steps = 1;
  // PRBT's condition estimate (solvers/condition.hpp, Hager-Higham as LAPACK's dlacn2): one
  // right-hand side through the factors per step, 4 to 11 of them; 5 on random matrices.
  int prbt_condition_solves = 5;
  double genp_panel_speedup = 1.5;
  // Mixed precision (solvers/mixed_gesv.cpp): the refinement steps expected after the single
  // factorization on a matrix it can handle (two on random matrices at n = 2000 to 8000 here; LAPACK's
  // dsgesv takes the same), each a residual in double and a solve with the single factors.
  int mixed_refinement_steps = 2;
  // PRBT's GENP factored in single grows more, and its refinement takes many more steps: 13 on a
  // random matrix at n = 4000 on the dev machine (bench/results/...-mixed.md). Both are defaults:
  // the steps `hetlu calibrate --precision mixed` measured (MachineProfile::mixed_refinement_steps)
  // replace them.
  int prbt_mixed_refinement_steps = 18;
  // A triangular solve with one right-hand side on a GPU (cuBLAS's TRSV) works down the rows a
  // block after another: besides reading the factor, a latency per row. An H200 refined at 3.9 to
  // 4.2 ms a step at n = 16384 and 8.2 to 9.6 ms at 32768, where reading A and the factors takes 0.8
  // and 3.1 ms: 0.1 us a row for each of a step's two solves (bench/results/2026-11-29-h200-session51.md).
  double device_triangular_solve_row_us = 0.1;

  // Row interchanges on a GPU (the cuda backend's laswp: one gather per call, every column moving
  // the rows its pivots touch at once; a top row's content mostly comes from a row a sector or more
  // away in column-major storage): device memory traffic per row and column interchanged. 264
  // bytes: 0.0984 s of interchanges at n = 32768, nb = 384 on an H100 at 2 877 GB/s, against 0.132 s
  // (355 bytes) for the in-order kernel before it in the same run (HETLU_TIME_KERNELS,
  // bench/results/2026-11-27-h100-session28.md).
  double device_interchange_bytes = 264;

  // Fixed cost of one panel step (synchronisation, BLAS call overhead), seconds.
  double step_overhead_seconds = 20e-6;

  // Without a measured host<->device link: bandwidth (GB/s) and latency (us), PCIe 3 x16 class.
  double default_link_gbs = 12;
  double default_link_latency_us = 10;
  // Without a measured device memory bandwidth (GB/s, bytes read + written): GDDR5 class.
  double default_device_memory_gbs = 150;
  // Without a probed triad bandwidth (GB/s): the host's memory, per core and at least one DDR4
  // channel's class. A triad on all cores measured 5.1 to 6.0 GB/s a core on the 16-core GPU
  // machines (2026-11-26 to 29); 10 GB/s for all of them priced the solvers' staged copies of an
  // unprobed H200 machine 3.4x slow (3.44 s predicted at 32768, 1.02 measured, 2026-11-29).
  // At most per_package a socket: a 2-socket 128-core node had been given 640 GB/s (a review; its
  // eight DDR4-3200 channels a socket peak at 205).
  double default_host_memory_gbs = 10;
  double default_host_memory_gbs_per_core = 5;
  double default_host_memory_gbs_per_package = 100;
  // The share of a device's memory a plan may fill: the rest stands for the CUDA context, the
  // libraries' workspaces and the staging slots, which cudaMalloc's free memory does not have.
  double usable_device_memory_share = 0.95;
  // A datasheet bandwidth (device memory, or the PCIe link from its generation and lanes) is a
  // peak; copies reach about this fraction of it (pinned PCIe 4 x16: 25 of 31.5 GB/s).
  double datasheet_bandwidth_efficiency = 0.8;

  // Distributed solves (model/distributed.cpp, #18). Without a network probe: point-to-point
  // latency (us) and bandwidth (GB/s) between nodes (an InfiniBand EDR class link) and between
  // ranks of one node (shared memory); a broadcast tree level costs one such message.
  double network_latency_us = 2;
  double network_bandwidth_gbs = 10;
  double node_latency_us = 0.5;
  double node_bandwidth_gbs = 5;
  // More BLAS threads on a node than it has cores: OpenBLAS's spinning threads and MPI's polling
  // fight for them. The slowdown of the whole solve (measured: pdgesv at n = 1000 on 4 ranks of
  // this 2-core machine took 125x longer with 2 threads per rank than with 1).
  double oversubscribed_slowdown = 100;
  // The same where idle OpenMP threads sleep (OMP_WAIT_POLICY=passive): the ranks' threads share
  // the cores, each rank at its share of them. 4 ranks of OpenBLAS's 16 threads on the H200
  // machine's 16 cores ran pdgesv at n = 16000 in 13.7 s (bench/results/2026-11-29-h200-session51.md).
  double oversubscribed_passive_slowdown = 1.5;
  // ScaLAPACK's panel (p?getf2) is unblocked, column by column: its rate as a fraction of one
  // core's GEMM rate per thread.
  double distributed_panel_efficiency = 0.15;
  // Block sizes the distributed model chooses from.
  std::vector<int> distributed_nb_candidates = {16, 32, 48, 64, 96, 128, 192, 256};

  // Panel widths the model chooses from.
  std::vector<int> nb_candidates = {16, 24, 32, 48, 64, 96, 128, 160, 192, 256, 320, 384, 512};
};

}  // namespace hetlu::model
