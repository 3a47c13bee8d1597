// Types shared by every layer of hetlu: the enums of a plan, the Plan itself, the machine profile
// the probes measure and the model reads, and the exceptions hetlu throws.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hetlu {

// ---- errors -------------------------------------------------------------------------------------

// Base of every exception hetlu throws.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A bad argument from the caller: the message names the argument and what is wrong with it.
struct InvalidArgument : Error {
  using Error::Error;
};

// gesv_batched's refusal of a system whose A or B holds a NaN or Inf, thrown once the other systems
// are solved (their infos and answers stand): an InvalidArgument a caller can tell from a refusal of
// the call's own arguments, which solves nothing.
struct BatchInputNotFinite : InvalidArgument {
  using InvalidArgument::InvalidArgument;
};

// A hybrid run's device cannot hold what it needs. Thrown before the run changes A or B, so the
// caller may run the same problem on the CPUs instead (the API does, and says so).
struct DeviceOutOfMemory : Error {
  using Error::Error;
};

// A device or backend this process cannot run (no GPU or no cuSOLVER here, a CUDA device other
// than 0): the C API's HETLU_ERROR_NOT_AVAILABLE.
struct NotAvailable : Error {
  using Error::Error;
};

// A long call (a calibration) stopped because its caller asked (Ctrl-C in Python): what it had
// stored is kept and consistent, and a rerun resumes.
struct Interrupted : Error {
  using Error::Error;
};

// Polled between steps of long calls: throws Interrupted when `requested` says so.
inline void stop_if_requested(const std::function<bool()>& requested) {
  if (requested && requested()) throw Interrupted("interrupted");
}

// ---- enums, each with one to_string / from_string used by YAML, CLI, DB and logs ----------------

enum class Solver { gepp, calu, prbt };
// mixed: a double answer from a single-precision factorization refined in double (classical, then
// GMRES-based refinement; the double solver where both fail): its plan is the single factorization's.
enum class Precision { single, double_, mixed };
// Bytes of one real entry as the factorization holds it (mixed factors in single): what the model
// prices every copy, pass and memory footprint by.
constexpr int entry_bytes(Precision precision) {
  return precision == Precision::double_ ? 8 : 4;
}
enum class Target { cpu, hybrid };
// Where a plan's values came from, strongest first in the resolution chain.
enum class PlanSource { override_, tuned, model, default_ };
enum class CalibrationLevel { estimate, quick, measure, patient, exhaustive };
// Where the hybrid algorithms factor the panel: on the CPUs (MAGMA's choice) or on the device,
// when the device is so much faster that a CPU panel would stall it.
enum class PanelLocation { cpu, device };
// What stands in for "the device" of the hybrid algorithms: a CUDA GPU, or a second team of CPU
// threads with its own queues and memory (machines without a GPU; tests).
enum class BackendKind : std::uint8_t { host, cuda };
// Iterative refinement after a solve: none, or in working precision (PRBT always refines: it is
// how GENP's accuracy is restored; GEPP and CALU refine when the plan asks).
enum class Refinement { none, working };
// Which system getrs solves with the factors of A: A X = B, A^T X = B, or A^H X = B (LAPACK's
// 'N', 'T', 'C'; for a real A, conjugate is the same as yes).
enum class Transpose { no, yes, conjugate };
// LAPACK's TRANS character, 'N', 'T' or 'C' in either case; nullopt for any other. The one parser
// of it: the C API throws on nullopt, the drop-in returns LAPACK's info, the small path declines.
inline std::optional<Transpose> transpose_from_char(char trans) noexcept {
  switch (trans) {
    case 'N':
    case 'n':
      return Transpose::no;
    case 'T':
    case 't':
      return Transpose::yes;
    case 'C':
    case 'c':
      return Transpose::conjugate;
    default:
      return std::nullopt;
  }
}
// Whether a front end checks that every input value is finite before anything is written (the
// mixed path tests A on its pass rounding A to single). The LAPACK drop-in turns it off: LAPACK
// propagates NaN and Inf instead of refusing them.
enum class InputCheck { finite, none };

namespace detail {
template <class E, std::size_t N>
struct EnumNames {
  std::string_view kind;
  std::array<std::pair<E, std::string_view>, N> names;

  constexpr std::string_view to_string(E value) const {
    for (const auto& [e, name] : names)
      if (e == value) return name;
    return "?";
  }
  E from_string(std::string_view text) const {
    for (const auto& [e, name] : names)
      if (name == text) return e;
    std::string allowed;
    for (const auto& [e, name] : names) allowed += (allowed.empty() ? "" : ", ") + std::string(name);
    throw InvalidArgument("unknown " + std::string(kind) + " '" + std::string(text) + "' (expected one of: " + allowed +
                          ")");
  }
  std::vector<std::string> all() const {
    std::vector<std::string> out;
    for (const auto& [e, name] : names) out.emplace_back(name);
    return out;
  }
};

inline constexpr EnumNames<Solver, 3> solver_names{
    "solver", {{{Solver::gepp, "gepp"}, {Solver::calu, "calu"}, {Solver::prbt, "prbt"}}}};
inline constexpr EnumNames<Precision, 3> precision_names{
    "precision", {{{Precision::single, "single"}, {Precision::double_, "double"}, {Precision::mixed, "mixed"}}}};
inline constexpr EnumNames<Target, 2> target_names{"target", {{{Target::cpu, "cpu"}, {Target::hybrid, "hybrid"}}}};
inline constexpr EnumNames<PlanSource, 4> plan_source_names{"plan source",
                                                            {{{PlanSource::override_, "override"},
                                                              {PlanSource::tuned, "tuned"},
                                                              {PlanSource::model, "model"},
                                                              {PlanSource::default_, "default"}}}};
inline constexpr EnumNames<PanelLocation, 2> panel_location_names{
    "panel location", {{{PanelLocation::cpu, "cpu"}, {PanelLocation::device, "device"}}}};
inline constexpr EnumNames<BackendKind, 2> backend_names{"backend",
                                                         {{{BackendKind::host, "host"}, {BackendKind::cuda, "cuda"}}}};
inline constexpr EnumNames<Refinement, 2> refinement_names{
    "refinement", {{{Refinement::none, "none"}, {Refinement::working, "working"}}}};
inline constexpr EnumNames<CalibrationLevel, 5> level_names{"calibration level",
                                                            {{{CalibrationLevel::estimate, "estimate"},
                                                              {CalibrationLevel::quick, "quick"},
                                                              {CalibrationLevel::measure, "measure"},
                                                              {CalibrationLevel::patient, "patient"},
                                                              {CalibrationLevel::exhaustive, "exhaustive"}}}};
}  // namespace detail

inline std::string to_string(Solver v) {
  return std::string(detail::solver_names.to_string(v));
}
inline std::string to_string(Precision v) {
  return std::string(detail::precision_names.to_string(v));
}
inline std::string to_string(Target v) {
  return std::string(detail::target_names.to_string(v));
}
inline std::string to_string(PlanSource v) {
  return std::string(detail::plan_source_names.to_string(v));
}
inline std::string to_string(PanelLocation v) {
  return std::string(detail::panel_location_names.to_string(v));
}
inline std::string to_string(BackendKind v) {
  return std::string(detail::backend_names.to_string(v));
}
inline std::string to_string(Refinement v) {
  return std::string(detail::refinement_names.to_string(v));
}
inline std::string to_string(CalibrationLevel v) {
  return std::string(detail::level_names.to_string(v));
}

template <class E>
E from_string(std::string_view text);
template <>
inline Solver from_string<Solver>(std::string_view t) {
  return detail::solver_names.from_string(t);
}
template <>
inline Precision from_string<Precision>(std::string_view t) {
  return detail::precision_names.from_string(t);
}
template <>
inline Target from_string<Target>(std::string_view t) {
  return detail::target_names.from_string(t);
}
template <>
inline PlanSource from_string<PlanSource>(std::string_view t) {
  return detail::plan_source_names.from_string(t);
}
template <>
inline PanelLocation from_string<PanelLocation>(std::string_view t) {
  return detail::panel_location_names.from_string(t);
}
template <>
inline BackendKind from_string<BackendKind>(std::string_view t) {
  return detail::backend_names.from_string(t);
}
template <>
inline Refinement from_string<Refinement>(std::string_view t) {
  return detail::refinement_names.from_string(t);
}
template <>
inline CalibrationLevel from_string<CalibrationLevel>(std::string_view t) {
  return detail::level_names.from_string(t);
}

// ---- the devices ---------------------------------------------------------------------------------

// One device of a hybrid plan: a CUDA GPU (number: its CUDA ordinal; "cuda" is ordinal 0) or a host
// backend, a team of this machine's cores standing in for a device or another socket (number: its
// team's threads; "host", -1, takes $HETLU_HOST_BACKEND_THREADS or half the cores).
struct Device {  // 4 bytes: a plan holds max_devices of them in place
  BackendKind kind = BackendKind::host;
  std::int16_t number = -1;
  bool operator==(const Device& o) const { return kind == o.kind && number == o.number; }
  bool operator!=(const Device& o) const { return !(*this == o); }
};

inline constexpr int max_devices = 16;

// At most max_devices devices held in place: every Plan holds one, and a small solve's plan may not
// cost a heap allocation (#14's per-call cost).
class DeviceList {
 public:
  DeviceList() = default;
  DeviceList(std::initializer_list<Device> devices) {
    for (const auto& d : devices) push_back(d);
  }
  void push_back(const Device& d) {
    if (size_ == items_.size()) throw InvalidArgument("at most " + std::to_string(max_devices) + " devices");
    items_[size_++] = d;
  }
  void clear() { size_ = 0; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const Device* begin() const { return items_.data(); }
  const Device* end() const { return items_.data() + size_; }
  Device* begin() { return items_.data(); }
  Device* end() { return items_.data() + size_; }
  const Device& operator[](std::size_t i) const { return items_[i]; }
  Device& operator[](std::size_t i) { return items_[i]; }
  const Device& front() const { return items_[0]; }
  bool operator==(const DeviceList& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }
  bool operator!=(const DeviceList& o) const { return !(*this == o); }

 private:
  std::array<Device, max_devices> items_{};
  std::size_t size_ = 0;
};

// The devices a hybrid plan drives beside the CPUs, in the order their columns are dealt; one
// device is a list of one. Written "cuda", "host:4", "cuda:0,host:4" (to_string / from_string).
struct DeviceSet {
  DeviceList list{Device{}};

  DeviceSet() = default;
  DeviceSet(BackendKind kind)  // one, of that kind
      : list{Device{kind, static_cast<std::int16_t>(kind == BackendKind::cuda ? 0 : -1)}} {}
  explicit DeviceSet(DeviceList devices) : list(devices) {}
  bool operator==(const DeviceSet& o) const { return list == o.list; }
  bool operator!=(const DeviceSet& o) const { return !(*this == o); }
  bool operator==(BackendKind kind) const { return *this == DeviceSet(kind); }
  bool operator!=(BackendKind kind) const { return !(*this == kind); }

  std::size_t size() const { return list.size(); }
  const Device& front() const { return list.front(); }
  bool has(BackendKind kind) const {
    return std::any_of(list.begin(), list.end(), [kind](const Device& d) { return d.kind == kind; });
  }
};

// (Appended piece by piece: GCC 12 warned of an overlapping memcpy, falsely, in "," + text.)
inline std::string to_string(const Device& d) {
  const bool default_number = d.kind == BackendKind::cuda ? d.number == 0 : d.number < 0;
  std::string text = to_string(d.kind);
  if (!default_number) text.append(":").append(std::to_string(d.number));
  return text;
}
inline std::string to_string(const DeviceSet& set) {
  std::string text;
  for (const auto& d : set.list) text.append(text.empty() ? "" : ",").append(to_string(d));
  return text;
}

// The largest host team (host:K) and GPU ordinal (cuda:N) a device list may name.
inline constexpr int max_host_team = 1024, max_gpu_ordinal = 63;

// "cuda", "cuda:1", "host", "host:4", comma-separated; anything else is an InvalidArgument that
// quotes it.
template <>
inline DeviceSet from_string<DeviceSet>(std::string_view text) {
  const auto bad = [&](const std::string& why) {
    return InvalidArgument("devices '" + std::string(text) + "': " + why +
                           " (expected e.g. cuda, host:4 or cuda:0,host:4)");
  };
  DeviceList list;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    const std::size_t colon = item.find(':');
    Device d;
    try {
      d.kind = from_string<BackendKind>(item.substr(0, colon));
    } catch (const InvalidArgument&) {
      throw bad("'" + std::string(item) + "' is not cuda or host");
    }
    d.number = d.kind == BackendKind::cuda ? 0 : -1;
    if (colon != std::string_view::npos) {
      std::string_view digits = item.substr(colon + 1);
      while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);  // host:0004 is host:4
      const int most = d.kind == BackendKind::cuda ? max_gpu_ordinal : max_host_team;
      if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        throw bad("'" + std::string(item) + "' needs a whole number after ':'");
      const int least = d.kind == BackendKind::cuda ? 0 : 1;
      // More than 4 digits (after leading zeros) is out of range (host:99999 read as no number at all).
      const int number = digits.size() > 4 ? most + 1 : std::stoi(std::string(digits));
      if (number < least || number > most)
        throw bad("'" + std::string(item) + "': " + (d.kind == BackendKind::cuda ? "a GPU ordinal" : "a team") +
                  " in [" + std::to_string(least) + ", " + std::to_string(most) + "]");
      d.number = static_cast<std::int16_t>(number);
    }
    if (d.kind == BackendKind::cuda && std::count(list.begin(), list.end(), d) > 0)
      throw bad("'" + std::string(item) + "' named twice");
    if (list.size() == static_cast<std::size_t>(max_devices))
      throw bad("at most " + std::to_string(max_devices) + " devices");
    list.push_back(d);
    start = comma + 1;
  }
  return DeviceSet(list);
}

// ---- the plan ------------------------------------------------------------------------------------

// The deepest look-ahead the solvers run: one panel (any lookahead > 0 runs as 1); the tuner
// searches 0 and 1, and a stored plan holds no more.
inline constexpr int most_lookahead = 1;

// The most threads a plan's panel team or a rank's BLAS may have: far beyond any node's cores, and a
// bound that a damaged database row or a mistyped flag cannot pass to ask for millions.
inline constexpr int most_threads = 4096;

// Everything a solver needs to know about how to run. Solvers take a resolved Plan and never look
// anywhere else for parameters.
struct Plan {
  Solver solver = Solver::gepp;
  Precision precision = Precision::double_;
  Target target = Target::cpu;
  int nb = 128;               // outer panel width B (columns per block column)
  int ib = 32;                // inner panel width b (CALU's CPU-cache blocking)
  int cpu_block_columns = 0;  // d: block columns kept by the CPUs (hybrid only;
                              // 0: panels too on the device, see panel_location)
  int panel_threads = 1;      // P_r: threads (and least row blocks) of the TSLU panel (CALU)
  int lookahead = 1;          // panels factored ahead of the trailing update (0 or most_lookahead)
  DeviceSet devices;          // hybrid only: what runs the device's part, one or several
  // Hybrid on several devices: each device's share of the block columns right of the CPUs' d,
  // dealt in proportion (heterogeneous-column-block §3.2); from their measured rates when resolved,
  // empty for equal shares (cusolverMg's and MAGMA's 1-D block cyclic).
  std::vector<double> device_shares;
  Refinement refinement = Refinement::none;  // GEPP and CALU; PRBT always refines

  PlanSource source = PlanSource::default_;  // where the plan as a whole came from
  // Where the fields the caller did not set came from, once `source` reads "override" (set only
  // there, by the resolution's overrides).
  PlanSource source_before_override = PlanSource::default_;
  std::string source_detail;                // e.g. "tuned at m=n=2000 (exact)"
  std::vector<std::string> overridden;      // fields the caller set explicitly
  std::optional<double> predicted_seconds;  // the model's prediction, when it made one
};

// Block columns of width nb in n columns (the N of the hybrid split d / N).
inline int block_columns(int n, int nb) {
  nb = nb < 1 ? 1 : nb;
  return static_cast<int>(((n < 0 ? 0LL : n) + nb - 1LL) / nb);
}

// The columns of block column J (0-based) of width nb in n columns: nb, or what is left in the last.
inline int block_column_width(int J, int n, int nb) {
  const long long first = static_cast<long long>(J) * nb;
  return static_cast<int>(std::min<long long>(n, first + nb) - first);
}

// A block wider than the matrix is the whole matrix: nb and ib beyond max(m, n) are taken as
// max(m, n), so that no block arithmetic (j + nb, (k + nb - 1) / nb) can overflow an int whatever
// width a caller asks for; and a d beyond the block columns is all of them (reported as run: a
// d of 1000000 for one block column was reported as given). CALU's inner panel is at most the
// outer one (its solver runs min(ib, nb): bench --nb 64 --ib 128 reported ib 128).
inline void clamp_blocks_to_matrix(Plan& plan, int m, int n) {
  const int widest = std::max(1, std::max(m, n));
  plan.nb = std::min(plan.nb, widest);
  plan.ib = std::min(plan.ib, plan.nb);
  if (n > 0) plan.cpu_block_columns = std::min(plan.cpu_block_columns, block_columns(n, plan.nb));
}

// The plan with every field that its solver and target do not read set to the default: two plans
// that run the same way are then equal, and key one tuning trial, not two.
inline Plan without_unused_fields(Plan plan) {
  const Plan defaults;
  if (plan.solver != Solver::calu) plan.ib = defaults.ib, plan.panel_threads = defaults.panel_threads;
  if (plan.target == Target::hybrid) {
    plan.lookahead = defaults.lookahead;  // the hybrid target always looks one panel ahead
  } else {
    plan.cpu_block_columns = defaults.cpu_block_columns;
    plan.devices = defaults.devices;
    plan.device_shares.clear();
  }
  return plan;
}

// The CPUs' share d of `from` block columns carried over to `to` block columns (another nb or
// another n): 0 stays 0 (everything on the device); any other share keeps at least one block column
// and at most all of them.
inline int same_cpu_share(int d, int from, int to) {
  if (d <= 0) return 0;
  // Clamped before the cast: d = 2^31 - 1 scaled up overflowed to one block column.
  const double scaled = std::round(double(d) * to / (from < 1 ? 1 : from));
  return static_cast<int>(std::clamp(scaled, 1.0, double(to < 1 ? 1 : to)));
}

// Where a hybrid plan factors its panels: a fact of d, not a field beside it, so that no plan can
// say "d = 3 with the panel on the device". The CPUs own the block column they factor; with d = 0
// they own none, and the device factors every panel. The CPU target factors on the CPUs.
inline PanelLocation panel_location(const Plan& plan) {
  return plan.target == Target::hybrid && plan.cpu_block_columns <= 0 ? PanelLocation::device : PanelLocation::cpu;
}

// The fields the caller set, as a report lists them ("nb, cpu_block_columns").
inline std::string overridden_fields(const Plan& plan) {
  std::string fields;
  for (const auto& f : plan.overridden) fields += (fields.empty() ? "" : ", ") + f;
  return fields;
}

// Where one field's value came from, for a report: "override" where the caller set that field,
// else where the rest of the plan came from (hetlu solve --d 2 printed "nb = 64 (override)" for the
// model's nb).
inline std::string origin_of(const Plan& plan, const std::string& field) {
  for (const auto& f : plan.overridden)
    if (f == field) return to_string(PlanSource::override_);
  return to_string(plan.source == PlanSource::override_ ? plan.source_before_override : plan.source);
}

// Caller overrides: every set field wins over the DB, the model and the defaults.
struct PlanOverrides {
  std::optional<int> nb;
  std::optional<int> ib;
  std::optional<int> cpu_block_columns;
  std::optional<int> panel_threads;
  std::optional<int> lookahead;
  std::optional<Refinement> refinement;
  std::optional<PanelLocation> panel_location;
  std::optional<DeviceSet> devices;

  bool none() const {
    return !nb && !ib && !cpu_block_columns && !panel_threads && !lookahead && !refinement && !panel_location &&
           !devices;
  }
};

// ---- the machine -----------------------------------------------------------------------------------

struct CacheInfo {
  int level = 0;
  long long bytes = 0;
  int count = 0;  // how many instances of this cache the machine has
};

// One timed probe: the median of its samples and their spread (median absolute deviation / median).
struct ProbeMeasurement {
  std::string name;  // e.g. "dgemm_all_cores", "triad_bandwidth", "panel_gepp"
  double median = 0;
  double spread = 0;
  std::string unit;    // "GFlop/s", "GB/s", "us"
  std::string detail;  // e.g. "n=2048", "rows=4096 width=128 threads=1"
};

// The order of the square matrix whose cuSOLVER getrf `hetlu probe` times (GpuInfo::dgetrf_gflops,
// sgetrf_gflops; a machine file's rates are taken at this order too).
constexpr int vendor_lu_probe_order = 8192;

struct GpuInfo {
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessors = 0;
  long long memory_bytes = 0;
  double dgemm_gflops = 0;  // measured with cuBLAS; 0 when not measured
  double sgemm_gflops = 0;
  double dgemm_peak_gflops = 0;  // datasheet (estimated from the properties below, or a what-if machine's)
  // cuSOLVER dgetrf of a resident matrix of order vendor_lu_probe_order; 0 when not measured. Its
  // rate grows with the order (an H100: 9.3 TFlop/s at 8192, 20.7 at 16384, 32.6 at 32768), so
  // the model prices other orders from it as updates plus a latency per column (model::rates_of).
  double dgetrf_gflops = 0;
  double sgetrf_gflops = 0;  // the same in single precision (mixed precision's one-panel plans)
  // cuBLAS SGEMM on the tensor cores in TF32 (CUBLAS_TF32_TENSOR_OP_MATH, as HETLU_CUDA_TF32=1 runs
  // it); 0 when not measured
  double tf32_gemm_gflops = 0;
  double h2d_bandwidth_gbs = 0;  // pinned host to device
  double d2h_bandwidth_gbs = 0;
  double h2d_latency_us = 0;
  double d2h_latency_us = 0;
  double memory_bandwidth_gbs = 0;  // device memory: a large device-to-device copy, bytes read + written
  // A double matrix from pageable host memory through the solvers' pinned slots to the device, and
  // back (solvers/staging.hpp: the host's packing and the link together, as an upload beside the
  // steps and the factors' download run); 0 when not measured.
  double staged_upload_gbs = 0, staged_download_gbs = 0;
  std::vector<ProbeMeasurement> measurements;  // the timed probes above, with their spreads

  // What the device says of itself (no timing), and the datasheet rates estimated from it
  // (probes::estimate_from_properties); the model uses these where nothing was measured. 0: unknown.
  double clock_mhz = 0;         // SM clock, peak
  double memory_clock_mhz = 0;  // as the driver reports it; data moves on both edges
  int memory_bus_bits = 0;
  int pcie_generation = 0, pcie_lanes = 0;
  double sgemm_peak_gflops = 0;
  double peak_memory_bandwidth_gbs = 0;  // bytes read + written
  double peak_link_gbs = 0;              // PCIe, one direction, before protocol overhead

  // The host backend standing in for a device (model::with_host_backend): its team's threads, whose
  // panels run as the CPUs' do; 0 for a GPU.
  int host_team_threads = 0;
};

// Measured rate of a panel factorization kernel: GEPP (recursive) or TSLU (tournament).
struct PanelRate {
  std::string kind;  // "gepp", "tslu_leaf" (one TSLU, CALU's leaf) or "tslu" (CALU's panel at ib 32: older probes)
  int rows = 0, width = 0, threads = 0;
  double gflops = 0;
};

// Measured cost of one of PRBT's O(n^2) passes over an n x n double matrix, as prbt.cpp runs them:
// "randomize" (U^T A V, both butterflies fused), "triangular_solve" (one right-hand side through
// L and U: the condition estimate and each refinement step), "transposed_solve" (through U^T and
// L^T: the condition estimate's other half) and "residual" (B - A X with omega).
struct PassCost {
  std::string kind;
  int n = 0;
  double ns_per_entry = 0;  // seconds / n^2, in nanoseconds
};

// The refinement steps the mixed path took after its single factorization, as `hetlu calibrate`
// measured them for a solver and order (the tuned plan on a random matrix; GMRES's iterations
// count as steps). PRBT's GENP grows in single precision and needs many more than GEPP.
struct RefinementSteps {
  Solver solver = Solver::gepp;
  int n = 0;
  double steps = 0;
};

// What the probes found. Rates are measured unless the name says otherwise.
struct MachineProfile {
  std::string cpu_model;
  std::string hostname;
  int packages = 0;
  int cores = 0;
  int hardware_threads = 0;
  int numa_nodes = 0;
  // The node's installed memory (hwloc's total; a machine file's cpu memory_gb); 0: not known. The
  // distributed model says where a plan's blocks would not fit in it.
  long long memory_bytes = 0;
  std::vector<CacheInfo> caches;
  std::string blas_library;  // e.g. "OpenBLAS 0.3.21"
  std::vector<GpuInfo> gpus;

  std::string isa;                  // widest vector extension: "avx512", "avx2", "avx", "sse"
  int flops_per_cycle = 0;          // double precision per core: 2 (FMA) x vector doubles x FMA pipes
  double frequency_ghz = 0;         // nominal (maximum where the OS tells it)
  double peak_gflops_per_core = 0;  // datasheet-style: flops per cycle x clock; 0 if unknown

  double dgemm_gflops_one_core = 0;  // 0 when not measured (estimate level)
  double dgemm_gflops_all_cores = 0;
  double sgemm_gflops_one_core = 0;
  double sgemm_gflops_all_cores = 0;
  int dgemm_probe_size = 0;         // n of the square DGEMM that reached the plateau
  double memory_bandwidth_gbs = 0;  // STREAM triad on all cores
  std::vector<PanelRate> panel_rates;
  std::vector<PassCost> pass_costs;  // PRBT's O(n^2) passes; empty when not probed
  // The order from which hetlu's GEPP is at least as fast as the BLAS's own getrf (hetlu calibrate);
  // 0 when not measured.
  int getrf_crossover_double = 0, getrf_crossover_single = 0;
  std::vector<RefinementSteps> mixed_refinement_steps;  // empty until mixed precision is tuned
  bool rates_measured = false;                          // false: the rates above were not measured
  std::vector<ProbeMeasurement> measurements;           // every timed probe, with its spread

  long long cache_bytes(int level) const {
    for (const auto& c : caches)
      if (c.level == level) return c.bytes;
    return 0;
  }
};

}  // namespace hetlu
