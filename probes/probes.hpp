// What the probes measure. Each function is usable alone; probe_machine() assembles a profile.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "hetlu/types.hpp"
#include "probes/timed.hpp"

namespace hetlu::backends {
template <class T>
class Backend;
}  // namespace hetlu::backends

namespace hetlu::probes {

// Topology from hwloc (packages, cores, hardware threads, NUMA nodes, caches), the CPU model
// string, the hostname and a datasheet-style per-core peak from the ISA and clock. No timing.
MachineProfile topology();

// The BLAS library the solvers call, e.g. "OpenBLAS 0.3.21 (Zen)" (its kernel set in brackets).
std::string blas_library();

// A warning when that BLAS runs generic kernels on a CPU with AVX2 or AVX-512 (isa as
// MachineProfile::isa), naming the fix; empty otherwise.
std::string blas_kernel_warning(const std::string& blas, const std::string& isa);

struct GemmRate {
  double gflops = 0;
  int size = 0;
  int threads = 0;
  double spread = 0;
};

// Times a square DGEMM of order n with the given number of threads; median of `repetitions`
// after one warm-up run.
GemmRate measure_dgemm(int n, int threads, int repetitions = 5);

// The same for T = float or double, as GFlop/s with its spread.
template <class T>
Rate measure_gemm(int n, int threads, int repetitions = 5);

// The triad's array length for a last-level cache and a memory of these sizes (bytes): four
// times the cache, so that memory, not cache, is measured, and at least 64 MiB; each array at most
// 512 MiB and a sixteenth of the memory (a VM shown its host's 480 MiB L3 took 5.8 GB). Three
// arrays of 512 MiB are 1.5 GiB, past every cache but the largest (1152 MiB on a Genoa-X), where
// the probe then measures partly the cache.
long long triad_array_doubles(long long cache_bytes, long long memory_bytes);

// STREAM triad a = b + s c on arrays of `doubles` elements each, all cores: GB/s moved.
Rate measure_triad(long long doubles, int repetitions = 5, int threads = 0);  // threads 0: OpenMP's default

// GFlop/s of one panel factorization of rows x width: "gepp" (recursive LU with partial
// pivoting) or "tslu" (CALU's panel as the solver runs it: recursive down to TSLU leaves of the
// default inner width Plan{}.ib, each a tournament over `threads` row blocks). threads = 1 runs
// the panel on one core, as the look-ahead schedule does. "tslu_leaf" is one TSLU of that width
// (CALU's leaf, plan.ib wide), its row blocks and tournament over `threads` threads: the model
// builds CALU's panel of any nb and ib from these and GEMM rates, as calu.cpp recurses.
Rate measure_panel(const std::string& kind, int rows, int width, int threads, int repetitions = 5);

// One of PRBT's O(n^2) passes over an n x n double matrix (n a multiple of 4), as prbt.cpp runs it:
// "randomize" (U^T A V), "triangular_solve" (one right-hand side through L and U),
// "transposed_solve" (through U^T and L^T) or "residual" (B - A X with its backward error). The rate is in giga-entries
// per second (its inverse: ns per entry). Scalar and memory-bound loops, which the triad bandwidth alone under-prices
// 3-9x.
Rate measure_pass_cost(const std::string& kind, int n, int repetitions = 5);

// A rows x cols double matrix from pageable host memory through the solvers' pinned slots
// (solvers/staging.hpp, sized as an upload beside the steps takes them) to `device`, and back, with
// this thread's OpenMP threads packing: GB/s each way, the host's packing and the link together, as
// the hybrid solvers pay them (the link's rate and the triad's price them too fast where the DMA's
// reads of the slots compete with the packing for host memory). One warm-up, then `repetitions`.
struct StagedRates {
  Rate upload, download;
};
StagedRates measure_staged_copies(backends::Backend<double>& device, int rows, int cols, int repetitions = 3);

struct GpuProbe {
  std::vector<GpuInfo> gpus;
  std::string note;  // why no GPU was found, or what failed; empty when all went well
};

// FMAs one streaming multiprocessor issues per clock in double (FP64 tensor cores where cuBLAS's
// DGEMM uses them: 8.0, 9.0) and in single precision (FP32 cores: cuBLAS's SGEMM without TF32),
// by compute capability, from NVIDIA's CUDA C Programming Guide (arithmetic instructions) and
// architecture whitepapers; 0 for an unknown capability.
int fp64_fmas_per_sm_clock(int major, int minor);
int fp32_fmas_per_sm_clock(int major, int minor);

// Fills a device's datasheet rates from its properties where they are known and not already set:
// DGEMM and SGEMM peaks (SMs x clock x FMAs per SM per clock x 2), memory bandwidth (2 x memory
// clock x bus width) and the PCIe link (per-lane rate of its generation x lanes).
void estimate_from_properties(GpuInfo& gpu);

// The PCIe generation and lane count of the device at domain:bus:device from sysfs, or {0, 0}.
std::pair<int, int> pcie_link(int domain, int bus, int device);

// GPUs the CUDA runtime sees, with their properties and datasheet estimates; with measure_rates,
// their cuBLAS and cuSOLVER rates and links measured. Never throws: a machine without a GPU or
// driver is a normal answer. The current device is left as it was.
GpuProbe gpus(bool measure_rates);

// True when hetlu was built with its cuda plugin (which may still be missing or unloadable here:
// gpus() says why).
bool built_with_cuda();

struct ProbeOptions {
  bool measure = true;   // false: topology and datasheet peaks only (the `estimate` level)
  int gemm_size = 1024;  // largest order of the timed GEMMs (half of it is timed too: the plateau)
  int repetitions = 5;
  std::vector<int> panel_rows = {256, 1024, 4096};   // panel-rate probes: rows,
  std::vector<int> panel_widths = {64, 128, 256};    // and widths
  std::vector<int> tslu_leaf_widths = {16, 32, 64};  // CALU's TSLU leaves (its ib), at the rows above
  std::vector<int> pass_orders = {1024, 4096};       // PRBT pass probes: in cache, and from memory
  std::function<bool()> stop_requested;              // polled after each probe: true stops (Interrupted)
};

MachineProfile probe_machine(const ProbeOptions& options);

// In the detail of an all-cores GEMM rate timed on fewer threads than cores (taskset,
// OMP_THREAD_LIMIT) and stored scaled to the cores, followed by their count.
constexpr const char* scaled_to_cores_detail = " scaled to the machine's cores=";

}  // namespace hetlu::probes
