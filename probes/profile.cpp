#include <cblas.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "probes/probes.hpp"
#include "solvers/backend.hpp"
#include "solvers/blas_threads.hpp"

namespace hetlu::probes {

MachineProfile probe_machine(const ProbeOptions& options) {
  MachineProfile profile = topology();
  GpuProbe gpu = gpus(options.measure);
  profile.gpus = gpu.gpus;
  if (!options.measure) return profile;

  // All cores: at least the machine's, also where OMP_NUM_THREADS gives the BLAS fewer (a probe under
  // OMP_NUM_THREADS=1 had stored one thread's rate as all cores', and the distributed model priced
  // 16 one-thread ranks 7x slow from it: a review); never past OMP_THREAD_LIMIT, under which
  // OpenBLAS's OpenMP build waits for threads that never come (a hostile test: a hang), nor past the
  // CPUs this process may run on. Timed on fewer threads than cores (taskset, the limits), the
  // all-cores GEMM rates are those threads' scaled to the cores: under taskset -c 0, two threads on
  // one CPU had stored one CPU's rate as both cores', and every later plan was priced so.
  // (OMP_MAX_ACTIVE_LEVELS counts too: under OMP_MAX_ACTIVE_LEVELS=0 one thread's rate had been stored
  // as both cores', unscaled: a hostile helper.)
  const int all = kernels::threads_runnable_here(std::max({1, openblas_get_num_threads(), profile.cores}));
  const double to_all_cores = all < profile.cores ? double(profile.cores) / all : 1.0;
  const std::string all_scaled = to_all_cores > 1 ? scaled_to_cores_detail + std::to_string(profile.cores) : "";
  // An all-cores GEMM rate as stored (the database reloads the rows): scaled where timed on fewer.
  auto as_all_cores = [&](Rate r) {
    r.median *= to_all_cores;
    return r;
  };
  auto record = [&](const std::string& name, const Rate& r, const char* unit, const std::string& detail) {
    profile.measurements.push_back({name, r.median, r.spread, unit, detail});
    stop_if_requested(options.stop_requested);
    return r.median;
  };

  // One GEMM of order n on one thread or all, timed and recorded as stored (scaled where all is fewer
  // than the cores).
  auto gemm_rate = [&](auto type_tag, const std::string& name, int n, bool all_cores, const std::string& note) {
    const int threads = all_cores ? all : 1;
    const Rate timed = measure_gemm<decltype(type_tag)>(n, threads, options.repetitions);
    return record(
        name, all_cores ? as_all_cores(timed) : timed, "GFlop/s",
        "n=" + std::to_string(n) + " threads=" + std::to_string(threads) + note + (all_cores ? all_scaled : ""));
  };
  // GEMM at two sizes: the larger rate is the plateau the model works from.
  const int sizes[] = {std::max(16, options.gemm_size / 2), options.gemm_size};
  auto plateau = [&](auto type_tag, const std::string& name, bool all_cores) {
    using T = decltype(type_tag);
    double best = 0;
    for (int n : sizes) {
      const double rate = gemm_rate(type_tag, name, n, all_cores, "");
      if (rate > best) {
        best = rate;
        if constexpr (std::is_same_v<T, double>) profile.dgemm_probe_size = n;
      }
    }
    return best;
  };
  profile.dgemm_gflops_one_core = plateau(double{}, "dgemm_one_core", false);
  profile.dgemm_gflops_all_cores = plateau(double{}, "dgemm_all_cores", true);
  profile.sgemm_gflops_one_core = plateau(float{}, "sgemm_one_core", false);
  profile.sgemm_gflops_all_cores = plateau(float{}, "sgemm_all_cores", true);

  long long cache = 0;
  for (const auto& c : profile.caches) cache = std::max(cache, c.bytes * std::max(1, c.count));
  const long long memory = static_cast<long long>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  const long long doubles = triad_array_doubles(cache, memory);
  profile.memory_bandwidth_gbs = record("triad_bandwidth", measure_triad(doubles, options.repetitions, all), "GB/s",
                                        "doubles=" + std::to_string(doubles) + " threads=" + std::to_string(all));

  // Panels on one thread and on all (one count where all is one: both had been skipped there, and a
  // probe bound to one CPU stored no panel rate at all).
  const std::vector<int> panel_teams = all > 1 ? std::vector<int>{1, all} : std::vector<int>{1};
  for (int rows : options.panel_rows)
    for (int width : options.panel_widths) {
      if (width > rows) continue;
      for (int threads : panel_teams) {
        const std::string detail =
            "rows=" + std::to_string(rows) + " width=" + std::to_string(width) + " threads=" + std::to_string(threads);
        const double rate =
            record("panel_gepp", measure_panel("gepp", rows, width, threads, options.repetitions), "GFlop/s", detail);
        profile.panel_rates.push_back({"gepp", rows, width, threads, rate});
      }
    }
  for (int rows : options.panel_rows)
    for (int width : options.tslu_leaf_widths) {
      if (width > rows) continue;
      for (int threads : panel_teams) {
        const std::string detail =
            "rows=" + std::to_string(rows) + " width=" + std::to_string(width) + " threads=" + std::to_string(threads);
        const double rate =
            record("panel_tslu_leaf", measure_panel("tslu_leaf", rows, width, threads, options.repetitions), "GFlop/s",
                   detail);
        profile.panel_rates.push_back({"tslu_leaf", rows, width, threads, rate});
      }
    }
  for (int n : options.pass_orders)
    for (const char* kind : {"randomize", "triangular_solve", "transposed_solve", "residual"}) {
      const Rate r = measure_pass_cost(kind, n, options.repetitions);
      record(std::string("pass_") + kind, r, "Gentries/s", "n=" + std::to_string(n));
      profile.pass_costs.push_back({kind, n, r.median > 0 ? 1 / r.median : 0});
    }
  // The double GEMM rates again, last: a neighbour's burst on a shared machine slows a probe, never
  // speeds it up, so the larger of the two is the machine's (the database keeps the larger too).
  for (bool all_cores : {false, true}) {
    double& rate = all_cores ? profile.dgemm_gflops_all_cores : profile.dgemm_gflops_one_core;
    rate = std::max(rate, gemm_rate(double{}, all_cores ? "dgemm_all_cores" : "dgemm_one_core",
                                    profile.dgemm_probe_size, all_cores, " again"));
  }
  // The solvers' staged copies on the first GPU (the cuda backend's device, CUDA's ordinal 0), with
  // every core packing as an upload beside the steps does: 512 MiB each way.
  if (!profile.gpus.empty() && backends::available(BackendKind::cuda)) try {
      const auto lock = backends::lock_backend(BackendKind::cuda);  // no solve shares its queues meanwhile
      const StagedRates staged =
          measure_staged_copies(backends::backend<double>(BackendKind::cuda), 8192, 8192, options.repetitions);
      GpuInfo& g = profile.gpus.front();
      g.staged_upload_gbs = staged.upload.median, g.staged_download_gbs = staged.download.median;
      g.measurements.push_back({"gpu_staged_upload", staged.upload.median, staged.upload.spread, "GB/s", "n=8192"});
      g.measurements.push_back(
          {"gpu_staged_download", staged.download.median, staged.download.spread, "GB/s", "n=8192"});
    } catch (const std::exception&) {
      // Not measured (the device too small, pinned memory refused): the model prices the copies from
      // the link's and the triad's rates, as before this probe.
    }
  // The GPU probes keep their own medians and spreads; here they are tagged with the device.
  for (size_t g = 0; g < profile.gpus.size(); ++g)
    for (ProbeMeasurement m : profile.gpus[g].measurements) {
      m.detail = "gpu=" + std::to_string(g) + (m.detail.empty() ? "" : " " + m.detail);
      profile.measurements.push_back(m);
    }
  profile.rates_measured = true;
  return profile;
}

}  // namespace hetlu::probes
