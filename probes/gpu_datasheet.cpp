// Datasheet rates of a GPU from the properties it reports: what the model uses on a machine whose
// GPU has not been probed yet, so that an uncalibrated GPU still gets its share of the work.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "probes/probes.hpp"

namespace hetlu::probes {

int fp64_fmas_per_sm_clock(int major, int minor) {
  switch (major) {
    case 2:
      return minor == 0 ? 16 : 4;  // Fermi: GF100/GF110 (M2090) 1/2 rate, GF10x 1/12
    case 3:
      return minor >= 5 ? 64 : 8;  // Kepler: GK110/GK210 1/3 rate, GK10x 1/24
    case 5:
      return 4;  // Maxwell: 1/32
    case 6:
      return minor == 0 ? 32 : 4;  // Pascal: P100 1/2, the others 1/32
    case 7:
      return minor == 5 ? 2 : 32;  // Volta 1/2 (V100, Xavier); Turing 1/32
    case 8:
      return minor == 0 ? 64 : 2;  // A100: FP64 tensor cores (19.5 TFlop/s); GA10x, AD10x 1/64
    case 9:
      return 128;  // H100/H200: FP64 tensor cores (67 TFlop/s on SXM)
    case 10:
      return 64;  // B200: FP64 at the FP64 core rate (40 TFlop/s)
    case 12:
      return 2;  // consumer Blackwell 1/64
    default:
      return 0;
  }
}

int fp32_fmas_per_sm_clock(int major, int minor) {
  switch (major) {
    case 2:
      return minor == 0 ? 32 : 48;
    case 3:
      return 192;
    case 5:
      return 128;
    case 6:
      return minor == 0 ? 64 : 128;
    case 7:
      return 64;
    case 8:
      return minor == 0 ? 64 : 128;
    case 9:
      return 128;
    case 10:
      return 128;
    case 12:
      return 128;
    default:
      return 0;
  }
}

namespace {
// GB/s of one PCIe lane, one direction, after line coding (8b/10b to gen 2, 128b/130b from gen 3).
double pcie_lane_gbs(int generation) {
  switch (generation) {
    case 1:
      return 0.25;
    case 2:
      return 0.5;
    case 3:
      return 0.985;
    case 4:
      return 1.969;
    case 5:
      return 3.938;
    case 6:
      return 7.563;
    default:
      return 0;
  }
}
}  // namespace

void estimate_from_properties(GpuInfo& g) {
  const double sm_clocks = double(g.multiprocessors) * g.clock_mhz * 1e6;
  if (g.dgemm_peak_gflops <= 0)
    g.dgemm_peak_gflops =
        2.0 * sm_clocks * fp64_fmas_per_sm_clock(g.compute_capability_major, g.compute_capability_minor) / 1e9;
  if (g.sgemm_peak_gflops <= 0)
    g.sgemm_peak_gflops =
        2.0 * sm_clocks * fp32_fmas_per_sm_clock(g.compute_capability_major, g.compute_capability_minor) / 1e9;
  if (g.peak_memory_bandwidth_gbs <= 0)
    g.peak_memory_bandwidth_gbs = 2.0 * g.memory_clock_mhz * 1e6 * (g.memory_bus_bits / 8.0) / 1e9;
  if (g.peak_link_gbs <= 0) g.peak_link_gbs = pcie_lane_gbs(g.pcie_generation) * g.pcie_lanes;
}

std::pair<int, int> pcie_link(int domain, int bus, int device) {
  char address[32];
  std::snprintf(address, sizeof address, "%04x:%02x:%02x.0", domain, bus, device);
  const std::string dir = std::string("/sys/bus/pci/devices/") + address + "/";
  auto read = [&](const char* name) {
    std::ifstream in(dir + name);
    std::string text;
    std::getline(in, text);
    return text;
  };
  // An idle GPU lowers its link speed: the maximum is what a copy gets; the width is the slot's.
  const double gts = std::atof(read("max_link_speed").c_str());  // "32.0 GT/s PCIe"
  const int lanes = std::atoi(read("current_link_width").c_str());
  const int generation = gts >= 60 ? 6 : gts >= 30 ? 5 : gts >= 15 ? 4 : gts >= 7 ? 3 : gts >= 4 ? 2 : gts > 0 ? 1 : 0;
  return generation > 0 && lanes > 0 ? std::pair{generation, lanes} : std::pair{0, 0};
}

}  // namespace hetlu::probes
