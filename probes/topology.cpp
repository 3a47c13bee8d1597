#include <hwloc.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "probes/probes.hpp"

namespace hetlu::probes {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};

int count(hwloc_topology_t t, hwloc_obj_type_t type) {
  int n = hwloc_get_nbobjs_by_type(t, type);
  return n < 0 ? 0 : n;
}

std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto value = line.substr(colon + 1);
        value.erase(0, value.find_first_not_of(" \t"));
        return value;
      }
    }
  }
  return "";
}

struct Isa {
  std::string name;
  int flops_per_cycle;  // double precision: 2 (multiply-add) x doubles per vector x FMA pipes
};

// The widest vector extension and its datasheet rate. Two FMA pipes is what server cores with
// AVX2 or AVX-512 have had since Haswell and Skylake-SP; the measured GEMM rate says what is real.
Isa isa_of(const std::string& flag_list) {
  std::set<std::string> flags;
  std::istringstream words(flag_list);
  for (std::string w; words >> w;) flags.insert(w);
  auto has = [&](const char* f) { return flags.count(f) > 0; };
  if (has("avx512f")) return {"avx512", 2 * 8 * 2};
  if (has("avx2") && has("fma")) return {"avx2", 2 * 4 * 2};
  if (has("avx")) return {"avx", 4 * 2};  // separate multiply and add pipes, 4 doubles each
  return {"sse", 2 * 2};
}

// Nominal clock: the OS's maximum frequency when it tells it, else what /proc/cpuinfo reports now.
double frequency_ghz() {
  std::ifstream max_freq("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  double khz = 0;
  if (max_freq >> khz && khz > 0) return khz / 1e6;
  return std::atof(cpuinfo_field("cpu MHz").c_str()) / 1000;
}

}  // namespace

MachineProfile topology() {
  MachineProfile profile;
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw Error("hwloc: cannot initialise the topology");
  std::unique_ptr<hwloc_topology, TopologyDeleter> topo(raw);
  if (hwloc_topology_load(raw) != 0) throw Error("hwloc: cannot load the topology");

  profile.packages = count(raw, HWLOC_OBJ_PACKAGE);
  profile.cores = count(raw, HWLOC_OBJ_CORE);
  profile.hardware_threads = count(raw, HWLOC_OBJ_PU);
  profile.numa_nodes = std::max(1, count(raw, HWLOC_OBJ_NUMANODE));
  profile.memory_bytes = static_cast<long long>(hwloc_get_root_obj(raw)->total_memory);

  const std::pair<int, hwloc_obj_type_t> cache_types[] = {
      {1, HWLOC_OBJ_L1CACHE}, {2, HWLOC_OBJ_L2CACHE}, {3, HWLOC_OBJ_L3CACHE}};
  for (auto [level, type] : cache_types) {
    int n = count(raw, type);
    if (n == 0) continue;
    hwloc_obj_t obj = hwloc_get_obj_by_type(raw, type, 0);
    profile.caches.push_back({level, static_cast<long long>(obj->attr->cache.size), n});
  }

  if (hwloc_obj_t pkg = hwloc_get_obj_by_type(raw, HWLOC_OBJ_PACKAGE, 0))
    if (const char* model = hwloc_obj_get_info_by_name(pkg, "CPUModel")) profile.cpu_model = model;
  if (profile.cpu_model.empty()) profile.cpu_model = cpuinfo_field("model name");
  if (profile.cpu_model.empty()) profile.cpu_model = "unknown CPU";

  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) profile.hostname = host;

  const Isa isa = isa_of(cpuinfo_field("flags"));
  profile.isa = isa.name;
  profile.flops_per_cycle = isa.flops_per_cycle;
  profile.frequency_ghz = frequency_ghz();
  profile.peak_gflops_per_core = profile.flops_per_cycle * profile.frequency_ghz;
  profile.blas_library = blas_library();
  return profile;
}

}  // namespace hetlu::probes
