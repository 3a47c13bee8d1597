#include <cblas.h>

#include <cstdlib>
#include <set>
#include <sstream>

#include "hetlu/detail/utf8.hpp"
#include "probes/probes.hpp"

namespace hetlu::probes {

std::string blas_library() {
  // openblas_get_config() reads like "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64":
  // the name and version are the hard key, the kernel set tells which code path runs.
  std::istringstream config(openblas_get_config());
  std::string name, version;
  config >> name >> version;
  return name + " " + version + " (" + openblas_get_corename() + ")";
}

std::string blas_kernel_warning(const std::string& blas, const std::string& isa) {
  // OpenBLAS's DYNAMIC_ARCH picks its kernels by CPUID; a CPU it does not know (a new model, or a
  // virtual machine's masked CPUID: an H100 machine's 16-core Xeon, 2026-11-26) falls back to the
  // generic SSE3 kernels, a fifth of the AVX-512 rate (DGEMM 12 GFlop/s per core against 67).
  // Sandybridge's kernels have AVX but no FMA: half an AVX2 core's rate.
  static const std::set<std::string> generic = {"Prescott", "Core2",     "Penryn", "Dunnington", "Nehalem",
                                                "Katmai",   "Northwood", "Banias", "Atom",       "Sandybridge"};
  const auto open = blas.rfind('('), close = blas.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  const std::string core = blas.substr(open + 1, close - open - 1);
  if (blas.rfind("OpenBLAS", 0) != 0 || !generic.count(core) || (isa != "avx512" && isa != "avx2")) return "";
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  const std::string why = forced && *forced ? "OPENBLAS_CORETYPE=" + detail::printable_value(forced) + " chose them"
                                            : "it did not recognize the CPU";
  return "OpenBLAS runs its " + core + " kernels on this " + isa + " CPU (" + why + "): set " +
         "OPENBLAS_CORETYPE=" + (isa == "avx512" ? "SkylakeX" : "Haswell") +
         " before starting (a DYNAMIC_ARCH build, as Debian's; else use an OpenBLAS built for this CPU)";
}

}  // namespace hetlu::probes
