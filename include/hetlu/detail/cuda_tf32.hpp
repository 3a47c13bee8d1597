// HETLU_CUDA_TF32=1 (default off): the cuda backend runs every single-precision GEMM in TF32 on the
// tensor cores (cuda/backend_cuda.cu); calibrate records it in each trial's environment and the
// model prices it (model::Problem::tf32). One reading of the variable for all, once per process,
// as the backend reads it once: a later change cannot make the model and the backend disagree.
#pragma once

#include <cstdlib>
#include <cstring>

namespace hetlu::detail {

inline bool cuda_tf32_requested() {
  static const bool requested = [] {
    const char* value = std::getenv("HETLU_CUDA_TF32");
    return value && std::strcmp(value, "1") == 0;
  }();
  return requested;
}

}  // namespace hetlu::detail
