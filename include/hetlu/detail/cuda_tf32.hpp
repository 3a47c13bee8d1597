// HETLU_CUDA_TF32=1 (default off): the cuda backend runs every single-precision GEMM in TF32 on the
// tensor cores (cuda/backend_cuda.cu); calibrate records it in each trial's environment. One
// reading of the variable for both.
#pragma once

#include <cstdlib>
#include <cstring>

namespace hetlu::detail {

inline bool cuda_tf32_requested() {
  const char* value = std::getenv("HETLU_CUDA_TF32");
  return value && std::strcmp(value, "1") == 0;
}

}  // namespace hetlu::detail
