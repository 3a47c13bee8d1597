// Checks of CUDA runtime, cuBLAS and cuSOLVER status codes, shared by the cuda backend and the GPU
// probe: a failure throws hetlu::Error naming the library, the call and the reason.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <string>

#include "hetlu/types.hpp"

namespace hetlu::cuda {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw Error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(status));
}
inline void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string("cuBLAS: ") + what + ": " + cublasGetStatusString(status));
}
inline void check(cusolverStatus_t status, const char* what) {
  if (status != CUSOLVER_STATUS_SUCCESS)
    throw Error(std::string("cuSOLVER: ") + what + ": status " + std::to_string(int(status)));
}
// A kernel launch: the launch error, if any, is the last error.
inline void check_launch(const char* kernel) {
  check(cudaGetLastError(), kernel);
}

}  // namespace hetlu::cuda
