// cuSOLVER's getrf and its workspace query for the real precisions, by the element type: the cuda
// backend (which adds the complex ones) and the GPU probe call the same overloads.
#pragma once

#include <cusolverDn.h>

namespace hetlu::cuda {

inline cusolverStatus_t getrf_buffer(cusolverDnHandle_t h, int m, int n, double* A, int lda, int* size) {
  return cusolverDnDgetrf_bufferSize(h, m, n, A, lda, size);
}
inline cusolverStatus_t getrf_buffer(cusolverDnHandle_t h, int m, int n, float* A, int lda, int* size) {
  return cusolverDnSgetrf_bufferSize(h, m, n, A, lda, size);
}
inline cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, double* A, int lda, double* work, int* ipiv,
                              int* info) {
  return cusolverDnDgetrf(h, m, n, A, lda, work, ipiv, info);
}
inline cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, float* A, int lda, float* work, int* ipiv,
                              int* info) {
  return cusolverDnSgetrf(h, m, n, A, lda, work, ipiv, info);
}

}  // namespace hetlu::cuda
