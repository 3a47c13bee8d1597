#include <gtest/gtest.h>

#include "probes/probes.hpp"

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
  bool triad = false;
  for (const auto& m : p.measurements) {
    EXPECT_GT(m.median, 0) << m.name;
    EXPECT_GE(m.spread, 0) << m.name;
    triad |= m.name == "triad_bandwidth";
  }
  EXPECT_TRUE(triad);
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
