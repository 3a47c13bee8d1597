// The pieces of the model's pricing that its files share (cpu_lu.cpp, hybrid_lu.cpp, rates.cpp,
// predict.cpp): units, the steps of a blocked LU, and the schedules' prices. Internal to
// hetlu_model; model/predict.hpp is its interface.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "hetlu/detail/flops.hpp"
#include "model/predict.hpp"

namespace hetlu::model {

// One decimal; a positive value below 0.1 with two significant digits (a link of 0.01 GB/s had
// read "0.0 GB/s").
inline std::string fmt1(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, v > 0 && v < 0.1 ? "%.2g" : "%.1f", v);
  return buffer;
}
inline std::string fmt_seconds(double s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, s < 1 ? "%.4f s" : "%.2f s", s);
  return buffer;
}

inline double efficiency(double k, double half_k) {
  return k / (k + half_k);
}

// Bytes per second of the host's memory (Rates::memory_gbs: the probed triad bandwidth or the default).
inline double host_bandwidth(double memory_gbs) {
  return memory_gbs * 1e9;
}

// One step of a blocked right-looking LU: the panel of columns [j, j + jb), rows [j, m).
struct Step {
  double rows, jb, right;  // panel rows, panel width, columns right of the panel
  double panel_flops() const { return detail::getrf_flops(rows, jb); }
  double update_flops(double columns) const { return jb * jb * columns + 2.0 * (rows - jb) * columns * jb; }
};

template <class Visit>
void for_each_step(int m, int n, int nb, Visit&& visit) {
  // 64-bit: j + nb overflows int near INT_MAX (the loop never ended at n = 2147483647).
  const long long k = std::min(m, n);
  for (long long j = 0; j < k; j += nb) {
    const double jb = double(std::min<long long>(k - j, nb));
    visit(Step{double(m - j), jb, double(n - j) - jb});
  }
}

struct CpuTimes {
  double panel = 0, update = 0, swaps = 0, overhead = 0, total = 0;
};

// Row interchanges of one step on `columns` columns: two rows of jb entries read and written per
// column, memory-bound (the rows are far apart in column-major storage).
inline double swap_seconds(const Step& s, double columns, double word, double memory_gbs) {
  return 4 * word * s.jb * columns / host_bandwidth(memory_gbs);
}

// The same on a device's `columns`: a GPU's laswp at params.device_interchange_bytes per row and
// column; a host backend's team as the CPUs' (swap_seconds).
inline double device_swap_seconds(const Rates::Device& dev, double host_memory_gbs, const Step& s, double columns,
                                  double word, const ModelParams& params) {
  if (dev.host_threads > 0) return swap_seconds(s, columns, word, host_memory_gbs);
  const double memory = dev.memory.gbs > 0 ? dev.memory.gbs : params.default_device_memory_gbs;
  return s.jb * columns * params.device_interchange_bytes / (memory * 1e9);
}

// The device's memory bandwidth in bytes per second: measured, the datasheet's share, or the default.
inline double device_memory_bandwidth(const Rates& rates, const ModelParams& params) {
  return (rates.device_memory.gbs > 0 ? rates.device_memory.gbs : params.default_device_memory_gbs) * 1e9;
}

// hetlu's own calls check that the input is finite first (checks::finite, a parallel pass over A
// on the host: 0.05 s at n = 16384 on the H100 machine's 16 cores, a fifth of the hybrid LU).
inline double input_check_seconds(const Rates& rates, int m, int n, double word) {
  return word * double(m) * n / host_bandwidth(rates.memory_gbs);
}

struct HybridTimes {
  double cpu = 0, device = 0, transfer = 0, total = 0;
  double d_fraction = 0;
};

// Blocked LU on the CPUs. With look-ahead, one thread factors the next panel while the others
// (and it, afterwards) update the rest; without, the panel runs on all threads, then the update.
CpuTimes cpu_lu_seconds(const MachineProfile& profile, const Rates& rates, Solver solver, int m, int n,
                        const Plan& plan, const ModelParams& params, double word);

// PRBT's extra work on the CPUs, all O(n^2), as prbt.cpp runs it: one pass randomizes A (U^T A V,
// both butterflies fused); the condition estimate takes ||A||_1 (a pass priced as a residual's)
// and sends prbt_condition_solves right-hand sides through the factors, alternately (L U)^-1 and
// (L U)^-T; the first solution and each refinement step are a solve and a residual pass with omega.
double prbt_extra_seconds(const MachineProfile& profile, const Rates& rates, int n, Precision precision,
                          const ModelParams& params, bool randomizes = true);

// Mixed precision beyond its single factorization, on the CPUs as solvers/mixed_gesv.cpp runs it: A
// rounded to single (a pass reading 8 bytes and writing 4 per entry; PRBT's randomization fused
// with it is another single pass), then the refinement steps (mixed_refinement_steps) of a residual
// in double and a solve with the single factors; the first solution is one more solve. GEPP's
// solves also swap rows.
// host_rounds false: the device rounded A where it landed (mixed_device.hpp, d = 0): no host pass.
double mixed_extra_seconds(const MachineProfile& profile, const Rates& rates, int n, Solver solver,
                           const ModelParams& params, bool host_rounds = true);

// Whether the devices' memory holds a hybrid plan that keeps block columns there: one device, as
// device_holds_plan says; several, each its dealt block columns and two panel slots (or the whole
// matrix where a d = 0 deal gives it everything), as HybridLu::prepare allocates them.
bool plan_fits_device(const Rates& rates, const Problem& problem, const Plan& plan);

// How many columns of m rows device `dev` holds in its usable memory; infinite where not known.
inline double device_column_capacity(const Rates::Device& dev, int m, double word) {
  return dev.memory_usable_bytes > 0 ? dev.memory_usable_bytes / (word * std::max(1, m))
                                     : std::numeric_limits<double>::infinity();
}

// How many whole block columns of nb columns device `dev` holds beside the two panel slots a
// hybrid plan keeps there (HybridLu::prepare); infinite where its memory is not known.
inline double device_block_column_capacity(const Rates::Device& dev, int m, int nb, double word) {
  nb = std::max(1, nb);
  return std::floor((device_column_capacity(dev, m, word) - 2.0 * nb) / nb);
}

// Whether PRBT on the device keeps two copies of A there (prbt_device.hpp): its factors then stay
// on the device, where it solves and refines; else they come back and the CPUs do it. A capacity
// not known counts as enough.
bool prbt_solves_on_device(const Rates& rates, int n, double word);

// The one of `devices` devices that the deal of a d = 0 plan over n columns gives every block
// column (as HybridLu::deal finds it: that one runs alone), else -1; -1 for one device or d > 0.
int sole_owner(const Plan& plan, int devices, int n);

// Hybrid LU as HybridLu runs it (solvers/hybrid_lu.hpp; async-calu Algorithm 2): the CPUs own a
// window of the plan's d block columns that moves right one block column per step. At step K the
// panel goes to the device, which updates block column K + d first and sends it back (the window
// moves), then the rest; meanwhile the CPUs update block columns K + 1 .. K + d - 1 and factor
// panel K + 1. Once fewer than d block columns are left, the device has none and drops out. With
// the panel on the device (d = 0), the device does everything.
// factors_stay: mixed precision refining on the device (mixed_device.hpp), whose single factors
// never come back; PRBT's stay where the device holds two copies of A, whatever this says.
// upload_word: bytes per entry of the upload beside the steps (d = 0), where it differs from the
// factorization's word: mixed precision's A goes up in double and each batch is rounded to single
// where it lands, on the upload's queue (Backend::round_from_wide).
// prbt_on_device false: PRBT's GENP of a copy the CPUs randomized, as GEPP's hybrid LU runs
// (mixed precision where one device cannot hold A in double beside the single factors: lu_factors.cpp).
HybridTimes hybrid_lu_seconds(const MachineProfile& profile, const Rates& rates, Solver solver, int m, int n,
                              const Plan& plan, const ModelParams& params, double word, bool factors_stay = false,
                              double upload_word = 0, bool prbt_on_device = true);

// Whether mixed precision refines on its device (mixed_device.hpp): one device, and its memory
// holds A in double beside the single factors. A capacity not known counts as enough.
bool mixed_refines_on_device(const Rates& rates, int n);

// Mixed precision beyond its single factorization (as mixed_extra_seconds; the factorization
// priced with its factors left on the device) when refining on the device. With the panel on the
// device (rounded_on_device) A went up in double as the factorization's own upload and was rounded
// there (hybrid_lu_seconds prices both); else the host rounds A and A in double goes up beside the
// factorization on the same link after the single copy (what outlasts the factorization counts).
// Then the first solve and each step's solve and residual read the factors or A in device memory,
// with the latencies of their copies (a solve: up and down; a residual: X and B up, R and the row
// omegas down) and a solve's latency per row (ModelParams::device_triangular_solve_row_us). The host backend's team
// reads them at the CPUs' rates, as mixed_extra_seconds prices them. PRBT's randomization of the single copy on the
// device reads and writes it once (Backend::butterflies_two_sided).
double mixed_device_extra_seconds(const MachineProfile& profile, const Rates& rates, int n, Solver solver,
                                  const ModelParams& params, double factorization_seconds, bool rounded_on_device);

// PRBT's extra work (as prbt_extra_seconds) on the hybrid target, as prbt_hybrid.cpp and
// prbt_device.hpp do it: the host uploads A (zero lines, finiteness and ||A||_1 read as it packs
// each column: no pass of their own, which took 0.16 s at n = 32768 on the H100 machine), and the
// device keeps a copy and randomizes the other; the condition estimate, each solve and each
// residual read the factors and A in device memory. The host backend's team runs the CPUs' kernels
// for these, priced as the CPUs' passes after three copies; a GPU's at its memory bandwidth. Where
// the device holds one copy only, it randomizes that one and the CPUs solve with the factors sent
// back.
double prbt_hybrid_extra_seconds(const MachineProfile& profile, const Rates& rates, int n, Precision precision,
                                 const ModelParams& params);

// How vendor_lu_seconds prices it, in words for --explain.
std::string vendor_lu_terms(const Rates& r);

// Panel s on device i of several, as owner_panels factors it there: a GPU's is latency-bound,
// column by column; a host backend's team runs the CPUs' kernel (priced from the profile's panel
// probes; without a profile, at its GEMM rate).
double owner_panel_seconds(const MachineProfile* profile, const Rates& rates, std::size_t i, const Step& s,
                           const ModelParams& params);

}  // namespace hetlu::model
