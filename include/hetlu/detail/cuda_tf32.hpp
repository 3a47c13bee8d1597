// HETLU_CUDA_TF32=1 (default off): the cuda backend runs every single-precision GEMM in TF32 on the
// tensor cores (cuda/backend_cuda.cu); calibrate records it in each trial's environment and the
// model prices it (model::Problem::tf32). Read once by each library at its first use (libhetlu and
// the cuda plugin, which keeps its own copy of this inline function's static): set it before the
// first solve, as a change after it could reach one library and not the other.
#pragma once

#include "hetlu/detail/env_choice.hpp"

namespace hetlu::detail {

inline bool cuda_tf32_requested() {
  static const bool requested = env_choice("HETLU_CUDA_TF32", {"0", "1"}, "0") == "1";
  return requested;
}

}  // namespace hetlu::detail
