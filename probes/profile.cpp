#include <cblas.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "probes/probes.hpp"
#include "solvers/backend.hpp"

namespace hetlu::probes {

MachineProfile probe_machine(const ProbeOptions& options) {
  MachineProfile profile = topology();
  GpuProbe gpu = gpus(options.measure);
  profile.gpus = gpu.gpus;
  if (!options.measure) return profile;

  // All cores: at least the machine's, also where OMP_NUM_THREADS gives the BLAS fewer (a probe under
  // OMP_NUM_THREADS=1 had stored one thread's rate as all cores', and the distributed model priced
  // 16 one-thread ranks 7x slow from it: a review); never past OMP_THREAD_LIMIT, under which
  // OpenBLAS's OpenMP build waits for threads that never come (a hostile test: a hang).
  const int all =
      std::min(std::max({1, openblas_get_num_threads(), profile.cores}), std::max(1, omp_get_thread_limit()));
  auto record = [&](const std::string& name, const Rate& r, const char* unit, const std::string& detail) {
    profile.measurements.push_back({name, r.median, r.spread, unit, detail});
    stop_if_requested(options.stop_requested);
    return r.median;
  };

  // GEMM at two sizes: the larger rate is the plateau the model works from.
  const int sizes[] = {std::max(16, options.gemm_size / 2), options.gemm_size};
  auto plateau = [&](auto type_tag, const std::string& name, int threads) {
    using T = decltype(type_tag);
    double best = 0;
    for (int n : sizes) {
      const double rate = record(name, measure_gemm<T>(n, threads, options.repetitions), "GFlop/s",
                                 "n=" + std::to_string(n) + " threads=" + std::to_string(threads));
      if (rate > best) {
        best = rate;
        if constexpr (std::is_same_v<T, double>) profile.dgemm_probe_size = n;
      }
    }
    return best;
  };
  profile.dgemm_gflops_one_core = plateau(double{}, "dgemm_one_core", 1);
  profile.dgemm_gflops_all_cores = plateau(double{}, "dgemm_all_cores", all);
  profile.sgemm_gflops_one_core = plateau(float{}, "sgemm_one_core", 1);
  profile.sgemm_gflops_all_cores = plateau(float{}, "sgemm_all_cores", all);

  long long cache = 0;
  for (const auto& c : profile.caches) cache = std::max(cache, c.bytes * std::max(1, c.count));
  const long long memory = static_cast<long long>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  const long long doubles = triad_array_doubles(cache, memory);
  profile.memory_bandwidth_gbs = record("triad_bandwidth", measure_triad(doubles, options.repetitions, all), "GB/s",
                                        "doubles=" + std::to_string(doubles) + " threads=" + std::to_string(all));

  for (int rows : options.panel_rows)
    for (int width : options.panel_widths) {
      if (width > rows) continue;
      for (const auto& [kind, threads] : {std::pair<std::string, int>{"gepp", 1}, {"gepp", all}}) {
        if (threads == all && all == 1) continue;  // the same as one thread
        const std::string detail =
            "rows=" + std::to_string(rows) + " width=" + std::to_string(width) + " threads=" + std::to_string(threads);
        const double rate =
            record("panel_" + kind, measure_panel(kind, rows, width, threads, options.repetitions), "GFlop/s", detail);
        profile.panel_rates.push_back({kind, rows, width, threads, rate});
      }
    }
  for (int rows : options.panel_rows)
    for (int width : options.tslu_leaf_widths) {
      if (width > rows) continue;
      for (int threads : {1, all}) {
        if (threads == all && all == 1) continue;
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
  for (int threads : {1, all}) {
    double& rate = threads == 1 ? profile.dgemm_gflops_one_core : profile.dgemm_gflops_all_cores;
    rate = std::max(
        rate,
        record(threads == 1 ? "dgemm_one_core" : "dgemm_all_cores",
               measure_gemm<double>(profile.dgemm_probe_size, threads, options.repetitions), "GFlop/s",
               "n=" + std::to_string(profile.dgemm_probe_size) + " threads=" + std::to_string(threads) + " again"));
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
