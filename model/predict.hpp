// The model's predictions: the time of a plan, and the plan with the least predicted time, with the
// terms and the reasoning that produced it (hetlu recommend --explain).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "hetlu/types.hpp"
#include "model/params.hpp"

namespace hetlu::model {

struct Problem {
  Solver solver = Solver::gepp;
  Precision precision = Precision::double_;
  Target target = Target::cpu;
  int m = 0, n = 0;
  // Hybrid: the devices the plan drives, the first `devices` of the profile's gpus (with_devices
  // puts a device set's in its order); the rest stay idle.
  int devices = 1;
  // Single precision's GEMMs on a GPU in TF32 (HETLU_CUDA_TF32=1, as the cuda backend reads it):
  // priced at the TF32 rate, but its panels and a plan of one panel (cuSOLVER's getrf takes no
  // TF32) at the rate without it.
  // The model reads no environment: its callers pass detail::cuda_tf32_requested().
  bool tf32 = false;
};

// A rate the model works from, and where it came from ("measured", "datasheet x 0.8", ...).
struct RateUsed {
  double gflops = 0;
  std::string source;
};
struct BandwidthUsed {
  double gbs = 0;
  std::string source;  // measured, datasheet, default
};

// The rates of a machine as the model sees them.
struct Rates {
  RateUsed cpu_all;  // GEMM, all cores (P g1)
  RateUsed cpu_one;  // GEMM, one core (g1)
  // The device the executor drives, the first of several (each one's in `devices`).
  std::string device_name;
  int devices_idle = 0;  // the profile's devices the plan does not drive
  RateUsed device;       // its GEMM (g2); 0 without a device
  // The vendor's LU of a whole resident matrix on it (a plan of one panel): its updates' rate, and
  // a latency per column on top (vendor_lu_seconds).
  RateUsed device_lu;
  double device_lu_column_seconds = 0;
  bool device_tf32 = false;        // its GEMM rate is TF32's (Problem::tf32, single precision, a GPU)
  double device_panel_gflops = 0;  // its GEMM rate without TF32: its panels (cuSOLVER's getrf) take none
  int device_host_threads = 0;     // the host backend's team (its panels priced as CPU panels); 0: a GPU
  BandwidthUsed link;              // host <-> device, the slowest direction; 0 without a device
  double link_latency_us = 0;      // the slower direction
  BandwidthUsed device_memory;     // bytes read + written; 0 without a device
  // The solvers' staged copies to and from the device, measured (GpuInfo::staged_upload_gbs); 0:
  // priced from the link and the host's bandwidth alone.
  BandwidthUsed staged_upload, staged_download;
  double device_memory_bytes = 0;         // its capacity (GpuInfo::memory_bytes); 0 when unknown
  double device_memory_usable_bytes = 0;  // what a plan may fill of it (ModelParams::usable_device_memory_share)
  double memory_gbs = 0;                  // STREAM triad, else ModelParams::default_host_memory_gbs(_per_core)
  int cores = 1;

  // Every device driven, in order, each priced on its own (#16): its GEMM, link and latency.
  struct Device {
    std::string name;
    RateUsed gemm;
    BandwidthUsed link;
    double link_latency_us = 0;
    int host_threads = 0;     // a host backend's team; 0: a GPU
    BandwidthUsed memory;     // its memory (bytes read + written)
    double panel_gflops = 0;  // its GEMM rate without TF32, for its panels
    // What a plan may fill of its memory (ModelParams::usable_device_memory_share of its
    // capacity); 0 when not known (a host backend's team, a device that reports none).
    double memory_usable_bytes = 0;
  };
  std::vector<Device> devices;
};
// Seconds of the vendor's LU of a resident m x n matrix on the device `rates` describes.
double vendor_lu_seconds(const Rates& rates, double m, double n);

// `devices`: how many of the profile's gpus the plan drives (the first ones).
Rates rates_of(const MachineProfile& profile, Precision precision, const ModelParams& params, int devices = 1,
               bool tf32 = false);

// The machine as a hybrid plan on `devices` sees it: profile.gpus holds one entry per device, in
// the set's order (a host backend: with_host_backend's team of this machine's cores, its number of
// threads, -1 for half the cores; cuda:N: the profile's GPU N), and the CPUs keep the cores no team
// takes. host_team_memory_bytes: each host team's "device memory" where a cap limits it (the host
// backend's $HETLU_HOST_BACKEND_MEMORY_MIB, backends::host_backend_memory_limit()); 0 or SIZE_MAX
// for none. Throws InvalidArgument naming a GPU the profile does not have.
MachineProfile with_devices(const MachineProfile& profile, const DeviceSet& devices,
                            std::size_t host_team_memory_bytes = 0);

// Each device's share of the block columns right of the CPUs' d that makes every device's
// predicted time equal over the factorization: device i's transfers L_i at its link (every panel,
// and an equal part of the block columns that go back to the CPUs), and its share s_i of the device
// update flops F at its GEMM rate g_i, L_i + s_i F / g_i = T for all i (the least T with shares
// summing to 1; a device whose transfers alone exceed T gets none).
// With d = 0 each device also factors its share of the panels (priced from `profile`'s panel
// probes for a host backend's team where given). A device whose memory cannot hold its balanced
// share keeps what it holds, the others balance the rest; where the devices together hold too
// little, the shares exceed someone's memory and plan_fits_device refuses the plan.
std::vector<double> balanced_device_shares(const Rates& rates, int m, int n, int nb, int cpu_block_columns,
                                           Precision precision, const ModelParams& params,
                                           const MachineProfile* profile = nullptr);

// The deals of the block columns right of d among several devices that the model tries for a plan
// of width nb and CPU share d: the one balanced_device_shares gives and, with d = 0, each device
// given every block column (it then runs alone): the balance prices transfers and updates only, and
// a device that memory leaves out of it can make the set faster, never slower. One empty deal for
// one device.
std::vector<std::vector<double>> candidate_deals(const MachineProfile& profile, const Rates& rates,
                                                 const Problem& problem, int nb, int cpu_block_columns,
                                                 const ModelParams& params);

// Of `plan`'s candidate deals (its nb and d kept), the one of least predicted time that the
// devices' memory holds; none where no deal fits. For one device, its empty deal where the plan
// fits its memory.
std::optional<std::vector<double>> best_fitting_deal(const MachineProfile& profile, const Problem& problem,
                                                     const Plan& plan, const ModelParams& params);

// The host backend (a second team of `team_threads` of this machine's cores standing in for a
// device) as the model sees it: a "device" with those cores' GEMM rate and main memory as its
// link; the CPUs keep the remaining cores.
MachineProfile with_host_backend(const MachineProfile& profile, int team_threads);

// The GEMM rate of `busy` cores, each at one core's rate, up to the probed all-cores rate and never
// above it (all_cores <= 0: none probed, no cap); in the units given. The rule for threads and
// ranks sharing a node's cores (with_threads, the distributed model's ranks).
double busy_cores_rate(double one_core, double all_cores, double busy);

// The machine as a CPU solve on `threads` threads sees it (the OpenMP threads of the calling thread,
// OMP_NUM_THREADS, OMP_THREAD_LIMIT or an affinity mask fewer than the cores): that many cores, the
// all-cores GEMM rates busy_cores_rate's. The profile as it is for threads <= 0 or at least its
// cores. The callers read the threads (backends::cpu_threads_here()): the model reads no environment.
MachineProfile with_threads(const MachineProfile& profile, int threads);

// GFlop/s of one rows x width panel factorization on the CPU: the measured rate of the nearest
// probed shape (in log rows + log width) for this kind and thread count; else one thread's (probed,
// or modelled) times panel_thread_speedup.
double cpu_panel_gflops(const MachineProfile& profile, const Rates& rates, Solver solver, double rows, int width,
                        int threads, const ModelParams& params);

// How much `threads` (> 1; fewer: 1) speed a rows x width panel of `kind` ("gepp", "tslu") up
// against one thread: as the probes of the nearest shape say (its rate on the most threads probed
// against one thread's, linear in the threads up to those, flat past them); unprobed, sqrt(threads)
// for GEPP's column-by-column updates and linear for TSLU's independent leaves. A team probed more
// than 4x below one thread was disturbed: taken as no speedup. One rule for the single-node panels
// and ScaLAPACK's p?getf2 in the distributed model.
double panel_thread_speedup(const MachineProfile& profile, const std::string& kind, double rows, int width,
                            double threads);

// Seconds of one CPU panel of rows x width on `threads` threads: at the probed panel rate, and for
// widths beyond the widest probe, recursively (two halves and a GEMM of inner dimension width/2).
// Without a probe, the generic rate holds for the whole panel, unless leaf_width > 0: then it holds
// up to that width and wider panels recurse (the one-panel plan, a recursive LU of the matrix).
double cpu_panel_seconds(const MachineProfile& profile, const Rates& rates, Solver solver, double rows, int width,
                         int threads, const ModelParams& params, int leaf_width = 0);

// Whether TSLU leaves were probed (newer probes; older ones measured CALU's whole panel at ib = 32
// as "tslu").
bool has_tslu_leaf_rates(const MachineProfile& profile);

// Seconds of CALU's panel of rows x width with inner width `inner` (plan.ib), as calu.cpp runs it:
// split about half (the left part whole leaves), recursively, down to TSLU leaves at their probed
// rate nearest leaf_threads threads; the TRSM and GEMM between halves at the one-core GEMM rate, or the
// all-core one when threaded_blas (a panel outside the look-ahead's tasks).
double calu_panel_seconds(const MachineProfile& profile, const Rates& rates, double rows, int width, int inner,
                          int leaf_threads, bool threaded_blas, const ModelParams& params);

struct Term {
  std::string name;
  double seconds = 0;
};

// Several devices: one of them driven alone, beside the CPUs.
struct AlonePrediction {
  std::string device;  // its name, as the rates say it
  Plan plan;           // the model's plan for it alone (d = 0 where the panel belongs on it)
  double seconds = 0;
};

struct Prediction {
  Plan plan;  // predicted_seconds set, source = model
  double seconds = 0, gflops = 0;
  double d_fraction = 1;  // the CPUs' share of the block columns: 1 on the CPU target
  // The paper's closed-form share d / N = P g1 / (P g1 + g2), g2 every driven device's GEMM rate
  // (async-calu §4, Eq. 1); 1 where no device is priced.
  double closed_form_d_fraction = 1;
  std::vector<Term> terms;  // the parts of the time, adding up to it (what the schedule overlaps: a negative term)
  std::vector<std::string> reasoning;
  Rates rates;
  // Several devices: the fastest one alone, where the model prices it faster than the whole set,
  // or the set's own plan where its deal gives the first device every block column (d = 0: that
  // one runs alone, the others idle; seconds then equal the set's). With every panel on the CPUs,
  // the H100 and a host backend of 8 cores measured 1.53 s at n = 16384 against 0.27 s for the H100.
  std::optional<AlonePrediction> faster_alone;
};

// The refinement steps a mixed-precision solve is priced with: those `hetlu calibrate --precision
// mixed` measured for the solver (at the measured order nearest n), else ModelParams' default for
// it (PRBT's own: GENP in single needs many more). `source` says which, for the explanation.
struct MixedSteps {
  double steps = 0;
  std::string source;
};
MixedSteps mixed_refinement_steps(const MachineProfile& profile, Solver solver, int n, const ModelParams& params);

// "the model says <device> alone ... is predicted ... faster than these N devices ...", where
// faster_alone is set; "" otherwise.
std::string faster_alone_note(const Prediction& prediction);

// Whether one device's memory holds what the hybrid plan keeps there (predict leaves out the plans
// that it does not; a capacity not known, several devices or a plan without a device's share: true).
bool device_holds(const MachineProfile& profile, const Problem& problem, const Plan& plan, const ModelParams& params);

// Predicted seconds of `plan` on the problem; terms filled when given.
double predict_seconds(const MachineProfile& profile, const Problem& problem, const Plan& plan,
                       const ModelParams& params, std::vector<Term>* terms = nullptr);

// The plan with the least predicted time over the parameters the model chooses (nb; for hybrid
// also where the panel runs and d). Throws hetlu::Error when the profile has no rate at all.
Prediction predict(const MachineProfile& profile, const Problem& problem, const ModelParams& params = {});

// The widest of params' panel widths that leaves a k-column matrix at least four panels (the widest
// the model prices short of one panel, widest_priced_nb); the narrowest where none does.
int widest_priced_candidate(const ModelParams& params, int k);

}  // namespace hetlu::model
