// Checks of CUDA runtime, cuBLAS and cuSOLVER status codes, shared by the cuda backend and the GPU
// probe: a failure throws hetlu::Error naming the library, the call and the reason. And the one
// device-time timer both use.
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

// Device time of work enqueued on the default stream, between two events.
class EventTimer {
 public:
  EventTimer() {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    const cudaError_t status = cudaEventCreate(&stop_);
    if (status != cudaSuccess) cudaEventDestroy(start_);
    check(status, "cudaEventCreate");
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  template <class Run>
  double seconds(Run&& run) {
    check(cudaEventRecord(start_), "cudaEventRecord");
    run();
    check(cudaEventRecord(stop_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms / 1e3;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace hetlu::cuda
