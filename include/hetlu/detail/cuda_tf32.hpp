// HETLU_CUDA_TF32=1 (default off): the cuda backend runs every single-precision GEMM in TF32 on the
// tensor cores (cuda/backend_cuda.cu); calibrate records it in each trial's environment and the
// model prices it (model::Problem::tf32). One reading of the variable for all, once per process,
// as the backend reads it once: a later change cannot make the model and the backend disagree.
#pragma once

#include "hetlu/detail/env_choice.hpp"

namespace hetlu::detail {

inline bool cuda_tf32_requested() {
  static const bool requested = env_choice("HETLU_CUDA_TF32", {"0", "1"}, "0") == "1";
  return requested;
}

}  // namespace hetlu::detail
