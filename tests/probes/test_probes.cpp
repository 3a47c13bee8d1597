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

TEST(ProbeMachine, MeasuredProfileHasRates) {
  probes::ProbeOptions options;
  options.gemm_size = 128;
  options.repetitions = 2;
  const auto p = probes::probe_machine(options);
  EXPECT_TRUE(p.rates_measured);
  EXPECT_GT(p.dgemm_gflops_one_core, 0);
  EXPECT_GT(p.dgemm_gflops_all_cores, 0);
  EXPECT_EQ(p.dgemm_probe_size, 128);
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
