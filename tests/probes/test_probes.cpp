#include <gtest/gtest.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <cmath>

#include "model/predict.hpp"
#include "probes/probes.hpp"
#include "solvers/backend.hpp"

using namespace hetlu;

TEST(Topology, FindsTheCores) {
  const MachineProfile p = probes::topology();
  EXPECT_GE(p.packages, 1);
  EXPECT_GE(p.cores, 1);
  EXPECT_GE(p.hardware_threads, p.cores);
  EXPECT_GE(p.numa_nodes, 1);
  EXPECT_FALSE(p.cpu_model.empty());
  EXPECT_FALSE(p.rates_measured);  // topology times nothing
}

TEST(Topology, NamesTheBlasLibrary) {
  EXPECT_NE(probes::blas_library().find("OpenBLAS"), std::string::npos);
}

// OpenBLAS's generic kernels on an AVX-512 or AVX2 CPU (seen on an H100 machine's Xeon) are said,
// with the core type to set; a recognized kernel set, or an old CPU, is not.
TEST(Topology, WarnsOfGenericBlasKernelsOnAWideCpu) {
  const auto warning = probes::blas_kernel_warning("OpenBLAS 0.3.21 (Prescott)", "avx512");
  EXPECT_NE(warning.find("Prescott"), std::string::npos) << warning;
  EXPECT_NE(warning.find("OPENBLAS_CORETYPE=SkylakeX"), std::string::npos) << warning;
  EXPECT_NE(probes::blas_kernel_warning("OpenBLAS 0.3.21 (Core2)", "avx2").find("OPENBLAS_CORETYPE=Haswell"),
            std::string::npos);
  EXPECT_NE(probes::blas_kernel_warning("OpenBLAS 0.3.21 (Sandybridge)", "avx2"), "");  // AVX without FMA
  EXPECT_EQ(probes::blas_kernel_warning("OpenBLAS 0.3.21 (SkylakeX)", "avx512"), "");
  EXPECT_EQ(probes::blas_kernel_warning("OpenBLAS 0.3.21 (Zen)", "avx2"), "");
  EXPECT_EQ(probes::blas_kernel_warning("OpenBLAS 0.3.21 (Prescott)", "sse"), "");
  EXPECT_EQ(probes::blas_kernel_warning("OpenBLAS 0.3.21", "avx512"), "");
  EXPECT_EQ(probes::blas_kernel_warning(") garbage (", "avx512"), "");
  // This machine's own BLAS: whatever it says names the fix or is empty.
  const MachineProfile p = probes::topology();
  const auto here = probes::blas_kernel_warning(p.blas_library, p.isa);
  EXPECT_TRUE(here.empty() || here.find("OPENBLAS_CORETYPE") != std::string::npos) << here;
}

// The triad's arrays: four times the last-level cache, at least 64 MiB, at most 512 MiB and a
// sixteenth of the memory each (a VM shown its host's 480 MiB L3 took three of 1.9 GiB).
TEST(TriadSize, FollowsTheCacheWithinLimits) {
  const long long MiB = 1LL << 20, GiB = 1LL << 30;
  EXPECT_EQ(probes::triad_array_doubles(32 * MiB, 64 * GiB), 128 * MiB / 8);
  EXPECT_EQ(probes::triad_array_doubles(480 * MiB, 24 * GiB), 512 * MiB / 8);
  EXPECT_EQ(probes::triad_array_doubles(480 * MiB, 4 * GiB), 256 * MiB / 8);
  EXPECT_EQ(probes::triad_array_doubles(1 * MiB, 64 * GiB), 64 * MiB / 8);
  EXPECT_EQ(probes::triad_array_doubles(1 * MiB, 0), 64 * MiB / 8);
}

TEST(GemmRate, MeasuresAPositiveRate) {
  const auto one = probes::measure_dgemm(128, 1, 3);
  EXPECT_GT(one.gflops, 0.1);
  EXPECT_EQ(one.size, 128);
  EXPECT_EQ(one.threads, 1);
  EXPECT_THROW(probes::measure_dgemm(0, 1), InvalidArgument);
  EXPECT_THROW(probes::measure_dgemm(64, 0), InvalidArgument);
}

TEST(ProbeMachine, MeasuredProfileIsPlausible) {
  probes::ProbeOptions options;
  options.gemm_size = 256;
  options.repetitions = 3;
  options.panel_rows = {256, 512};
  options.panel_widths = {32};
  options.tslu_leaf_widths = {16};
  options.pass_orders = {128};
  const auto p = probes::probe_machine(options);
  EXPECT_TRUE(p.rates_measured);
  EXPECT_GT(p.dgemm_gflops_one_core, 0);
  EXPECT_GT(p.dgemm_gflops_all_cores, 0);
  EXPECT_GT(p.sgemm_gflops_all_cores, 0);
  EXPECT_TRUE(p.dgemm_probe_size == 128 || p.dgemm_probe_size == 256);
  // Nothing measured beats the datasheet (10 % allowance for turbo clocks above the nominal one).
  ASSERT_GT(p.peak_gflops_per_core, 0);
  EXPECT_LE(p.dgemm_gflops_one_core, 1.1 * p.peak_gflops_per_core);
  EXPECT_LE(p.dgemm_gflops_all_cores, 1.1 * p.peak_gflops_per_core * p.cores);
  EXPECT_GT(p.memory_bandwidth_gbs, 0);
  EXPECT_FALSE(p.panel_rates.empty());
  for (const auto& r : p.panel_rates) EXPECT_GT(r.gflops, 0) << r.kind;
  EXPECT_TRUE(std::any_of(p.panel_rates.begin(), p.panel_rates.end(),
                          [](const PanelRate& r) { return r.kind == "tslu_leaf" && r.width == 16; }));
  ASSERT_EQ(p.pass_costs.size(), 4u);  // randomize, triangular_solve, transposed_solve, residual
  for (const auto& c : p.pass_costs) {
    EXPECT_EQ(c.n, 128) << c.kind;
    EXPECT_GT(c.ns_per_entry, 0) << c.kind;
  }
  bool triad = false;
  for (const auto& m : p.measurements) {
    EXPECT_GT(m.median, 0) << m.name;
    EXPECT_GE(m.spread, 0) << m.name;
    triad |= m.name == "triad_bandwidth";
  }
  EXPECT_TRUE(triad);
}

namespace {
// A short probe: GEMMs of order 128, one panel shape.
MachineProfile short_probe() {
  probes::ProbeOptions options;
  options.gemm_size = 128;
  options.repetitions = 2;
  options.panel_rows = {256};
  options.panel_widths = {32};
  options.tslu_leaf_widths = {16};
  options.pass_orders = {128};
  return probes::probe_machine(options);
}

// The all-cores GEMM rates timed on one thread and scaled to the cores, saying so; the rows the
// database reloads hold the stored rates; one thread's panels, and no team's.
void expect_one_threads_rates_scaled_to_the_cores(const MachineProfile& p) {
  double dgemm_rows = 0, sgemm_rows = 0;
  for (const auto& m : p.measurements) {
    if (m.name != "dgemm_all_cores" && m.name != "sgemm_all_cores") continue;
    EXPECT_NE(m.detail.find("threads=1 "), std::string::npos) << m.detail;
    EXPECT_NE(m.detail.find(probes::scaled_to_cores_detail + std::to_string(p.cores)), std::string::npos) << m.detail;
    double& rows = m.name == "dgemm_all_cores" ? dgemm_rows : sgemm_rows;
    rows = std::max(rows, m.median);
  }
  EXPECT_DOUBLE_EQ(p.dgemm_gflops_all_cores, dgemm_rows);
  EXPECT_DOUBLE_EQ(p.sgemm_gflops_all_cores, sgemm_rows);
  EXPECT_TRUE(
      std::any_of(p.panel_rates.begin(), p.panel_rates.end(), [](const PanelRate& r) { return r.kind == "gepp"; }));
  EXPECT_TRUE(std::any_of(p.panel_rates.begin(), p.panel_rates.end(),
                          [](const PanelRate& r) { return r.kind == "tslu_leaf"; }));
  for (const auto& r : p.panel_rates) EXPECT_EQ(r.threads, 1) << r.kind;
}
}  // namespace

// Bound to one CPU (taskset -c 0): two threads on one CPU had stored one CPU's rate as both cores'.
TEST(ProbeMachine, BoundToOneCpuTheAllCoresRatesAreScaledToTheCores) {
  const auto machine = probes::topology();
  cpu_set_t saved, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  if (machine.cores < 2 || CPU_COUNT(&saved) < 2) GTEST_SKIP() << "one CPU: nothing to bind away";
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &saved)) {
      CPU_SET(cpu, &one);
      break;
    }
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  MachineProfile p;
  try {
    p = short_probe();
  } catch (...) {
    sched_setaffinity(0, sizeof saved, &saved);
    throw;
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
  expect_one_threads_rates_scaled_to_the_cores(p);
}

// With no active OpenMP level left (OMP_MAX_ACTIVE_LEVELS=0) every team has one thread: one thread's
// rate had been stored as both cores', unscaled (a hostile helper).
TEST(ProbeMachine, WithNoActiveLevelTheAllCoresRatesAreScaledToTheCores) {
  if (probes::topology().cores < 2) GTEST_SKIP() << "one core: nothing to scale";
  const int saved = omp_get_max_active_levels();
  omp_set_max_active_levels(0);
  MachineProfile p;
  try {
    p = short_probe();
  } catch (...) {
    omp_set_max_active_levels(saved);
    throw;
  }
  omp_set_max_active_levels(saved);
  expect_one_threads_rates_scaled_to_the_cores(p);
}

TEST(ProbeMachine, IsaAndClockGiveThePeak) {
  const auto p = probes::topology();
  EXPECT_FALSE(p.isa.empty());
  EXPECT_GE(p.flops_per_cycle, 4);
  EXPECT_GT(p.frequency_ghz, 0.1);
  EXPECT_DOUBLE_EQ(p.peak_gflops_per_core, p.flops_per_cycle * p.frequency_ghz);
}

TEST(PanelRate, BothKindsMeasureAndBadArgumentsAreNamed) {
  EXPECT_GT(probes::measure_panel("gepp", 256, 32, 1, 2).median, 0);
  EXPECT_GT(probes::measure_panel("tslu", 256, 32, 2, 2).median, 0);
  EXPECT_GT(probes::measure_panel("tslu_leaf", 256, 32, 2, 2).median, 0);
  EXPECT_THROW(probes::measure_panel("qr", 256, 32, 1), InvalidArgument);
  EXPECT_THROW(probes::measure_panel("gepp", 16, 32, 1), InvalidArgument);
}

TEST(Triad, MeasuresBandwidth) {
  const auto r = probes::measure_triad(1 << 20, 3);
  EXPECT_GT(r.median, 0.1);
  EXPECT_THROW(probes::measure_triad(0), InvalidArgument);
}

TEST(Gpus, AMachineWithoutAGpuIsANormalAnswer) {
  // On the CI machines (no GPU, no driver) this reports none with a note; on a GPU machine it lists them.
  probes::GpuProbe probe;
  EXPECT_NO_THROW(probe = probes::gpus(false));
  if (probe.gpus.empty()) {
    EXPECT_FALSE(probe.note.empty());
  }
  for (const auto& g : probe.gpus) {
    EXPECT_FALSE(g.name.empty());
    EXPECT_GT(g.multiprocessors, 0);
  }
}

namespace {
// A device as the CUDA runtime describes it, with nothing measured.
GpuInfo device(const char* name, int major, int minor, int sms, double clock_mhz, double memory_mhz, int bus_bits,
               int pcie_generation) {
  GpuInfo g;
  g.name = name;
  g.compute_capability_major = major, g.compute_capability_minor = minor;
  g.multiprocessors = sms;
  g.clock_mhz = clock_mhz, g.memory_clock_mhz = memory_mhz, g.memory_bus_bits = bus_bits;
  g.pcie_generation = pcie_generation, g.pcie_lanes = 16;
  return g;
}
}  // namespace

TEST(GpuDatasheet, EstimatesTheVendorsFiguresFromTheProperties) {
  // The properties the runtime reports for three generations, and their datasheet figures.
  struct Case {
    GpuInfo gpu;
    double dgemm, sgemm, memory, link;  // GFlop/s, GFlop/s, GB/s, GB/s
  } cases[] = {
      // H100 SXM5: 67 TFlop/s FP64 tensor, 67 FP32, 3.35 TB/s HBM3, PCIe 5 x16.
      {device("NVIDIA H100 80GB HBM3", 9, 0, 132, 1980, 2619, 5120, 5), 66908, 66908, 3352, 63.0},
      // A100 SXM4 40 GB: 19.5 TFlop/s FP64 tensor, 19.5 FP32, 1555 GB/s HBM2, PCIe 4 x16.
      {device("NVIDIA A100-SXM4-40GB", 8, 0, 108, 1410, 1215, 5120, 4), 19492, 19492, 1555, 31.5},
      // Tesla M2090 (async-calu §4): 665 GFlop/s FP64, 1331 FP32, 177 GB/s GDDR5, PCIe 2 x16.
      {device("Tesla M2090", 2, 0, 16, 1301, 1848, 384, 2), 666, 1332, 177, 8.0},
  };
  for (auto& c : cases) {
    probes::estimate_from_properties(c.gpu);
    EXPECT_NEAR(c.gpu.dgemm_peak_gflops, c.dgemm, 0.01 * c.dgemm) << c.gpu.name;
    EXPECT_NEAR(c.gpu.sgemm_peak_gflops, c.sgemm, 0.01 * c.sgemm) << c.gpu.name;
    EXPECT_NEAR(c.gpu.peak_memory_bandwidth_gbs, c.memory, 0.01 * c.memory) << c.gpu.name;
    EXPECT_NEAR(c.gpu.peak_link_gbs, c.link, 0.01 * c.link) << c.gpu.name;
  }
  // Measured or given figures are never overwritten; an unknown generation stays unknown.
  GpuInfo given = device("what-if", 9, 0, 132, 1980, 2619, 5120, 5);
  given.dgemm_peak_gflops = 123;
  probes::estimate_from_properties(given);
  EXPECT_EQ(given.dgemm_peak_gflops, 123);
  GpuInfo future = device("future", 99, 0, 200, 2000, 3000, 8192, 7);
  probes::estimate_from_properties(future);
  EXPECT_EQ(future.dgemm_peak_gflops, 0);
  EXPECT_EQ(future.peak_link_gbs, 0);
}

TEST(GpuDatasheet, AnUnprobedGpuGetsTheDevicesShareAndSaysDatasheet) {
  // A 16-core machine with an H100 nobody has probed: the model gives the device block columns
  // (before, its rate was 0 and every column went to the CPUs) and says where its rates came from.
  MachineProfile p;
  p.cores = 16;
  p.peak_gflops_per_core = 40;
  p.memory_bandwidth_gbs = 100;
  p.gpus = {device("NVIDIA H100 80GB HBM3", 9, 0, 132, 1980, 2619, 5120, 5)};
  probes::estimate_from_properties(p.gpus[0]);
  const auto prediction =
      model::predict(p, model::Problem{Solver::gepp, Precision::double_, Target::hybrid, 16384, 16384});
  const int blocks = block_columns(16384, prediction.plan.nb);
  EXPECT_LT(prediction.plan.cpu_block_columns, blocks);
  EXPECT_GT(prediction.rates.device.gflops, 50000);
  EXPECT_NE(prediction.rates.device.source.find("datasheet"), std::string::npos);
  EXPECT_NE(prediction.rates.link.source.find("datasheet: PCIe 5 x16"), std::string::npos);
  EXPECT_NE(prediction.plan.source_detail.find("datasheet"), std::string::npos) << prediction.plan.source_detail;
  bool explained = false;
  for (const auto& line : prediction.reasoning) explained |= line.find("datasheet") != std::string::npos;
  EXPECT_TRUE(explained);
}

TEST(GpuDatasheet, PcieLinkOfAMissingDeviceIsUnknown) {
  EXPECT_EQ(probes::pcie_link(0xffff, 0xff, 0x1f), (std::pair<int, int>{0, 0}));
}

// The solvers' staged copies, timed on the host backend (a GPU's in device_run.sh's probe stage):
// a rate each way, finite and positive, and the copy a real one.
TEST(StagedCopies, MeasureARateEachWayOnTheHostBackend) {
  auto& device = backends::backend<double>(BackendKind::host);
  const probes::StagedRates rates = probes::measure_staged_copies(device, 512, 300, 2);
  for (const probes::Rate& r : {rates.upload, rates.download}) {
    EXPECT_GT(r.median, 0);
    EXPECT_TRUE(std::isfinite(r.median));
    EXPECT_GE(r.spread, 0);
  }
}

TEST(PassCost, EveryPassMeasuresAndBadArgumentsAreNamed) {
  for (const char* kind : {"randomize", "triangular_solve", "transposed_solve", "residual"})
    EXPECT_GT(probes::measure_pass_cost(kind, 64, 2).median, 0) << kind;
  EXPECT_THROW(probes::measure_pass_cost("sort", 64), InvalidArgument);
  EXPECT_THROW(probes::measure_pass_cost("randomize", 63), InvalidArgument);  // the butterflies need n % 4 == 0
  EXPECT_THROW(probes::measure_pass_cost("residual", 0), InvalidArgument);
}
