#include <cblas.h>

#include <sstream>

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

}  // namespace hetlu::probes
