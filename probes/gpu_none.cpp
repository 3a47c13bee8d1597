// Built when hetlu is configured without CUDA.
#include "probes/probes.hpp"

namespace hetlu::probes {

GpuProbe gpus(bool) {
  return {{}, "hetlu was built without CUDA"};
}
bool built_with_cuda() {
  return false;
}

}  // namespace hetlu::probes
