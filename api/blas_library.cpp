// The BLAS library's own LU, solve and driver (vendor::), which the small-matrix path and the
// LAPACK drop-in call below the crossover, and the process-wide resources: the workspace and the
// devices this build can drive.
#include <algorithm>
#include <string>

#include "hetlu/hetlu.hpp"
#include "solvers/backend.hpp"
#include "solvers/vendor_lapack.hpp"
#include "solvers/workspace.hpp"

namespace hetlu {

void release_workspace() {
  kernels::release_workspace();
}

template <class T>
bool blas_library_getrf(int m, int n, T* A, int lda, int* ipiv, int* info, bool own_loops) {
  return vendor::getrf(m, n, A, lda, ipiv, info, own_loops);
}
template <class T>
bool blas_library_gesv(int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb, int* info, bool own_loops) {
  return vendor::gesv(n, nrhs, A, lda, ipiv, B, ldb, info, own_loops);
}
template <class T>
bool blas_library_getrs(Transpose trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb,
                        bool own_loops) {
  for (int i = 0; i < n; ++i)
    if (ipiv[i] < 1 || ipiv[i] > n) return false;
  return vendor::getrs(trans, n, nrhs, LU, lda, ipiv, B, ldb, own_loops);
}
template bool blas_library_getrs<double>(Transpose, int, int, const double*, int, const int*, double*, int, bool);
template bool blas_library_getrs<float>(Transpose, int, int, const float*, int, const int*, float*, int, bool);
template bool blas_library_getrs<std::complex<double>>(Transpose, int, int, const std::complex<double>*, int,
                                                       const int*, std::complex<double>*, int, bool);
template bool blas_library_getrs<std::complex<float>>(Transpose, int, int, const std::complex<float>*, int, const int*,
                                                      std::complex<float>*, int, bool);
template bool blas_library_getrf<double>(int, int, double*, int, int*, int*, bool);
template bool blas_library_getrf<std::complex<double>>(int, int, std::complex<double>*, int, int*, int*, bool);
template bool blas_library_getrf<std::complex<float>>(int, int, std::complex<float>*, int, int*, int*, bool);
template bool blas_library_getrf<float>(int, int, float*, int, int*, int*, bool);
template bool blas_library_gesv<double>(int, int, double*, int, int*, double*, int, int*, bool);
template bool blas_library_gesv<std::complex<double>>(int, int, std::complex<double>*, int, int*, std::complex<double>*,
                                                      int, int*, bool);
template bool blas_library_gesv<std::complex<float>>(int, int, std::complex<float>*, int, int*, std::complex<float>*,
                                                     int, int*, bool);
template bool blas_library_gesv<float>(int, int, float*, int, int*, float*, int, int*, bool);

bool backend_available(BackendKind kind, std::string* why) {
  return backends::available(kind, why);
}

bool devices_available(const DeviceSet& devices, std::string* why) {
  // A bad setting is said here, not by the first solve: the team size where a host device has none
  // of its own ("host", not "host:K"), the memory limit for every host device.
  const bool reads_threads = std::any_of(devices.list.begin(), devices.list.end(),
                                         [](const Device& d) { return d.kind == BackendKind::host && d.number < 0; });
  if (devices.has(BackendKind::host)) try {
      if (reads_threads) backends::host_backend_threads();
      backends::host_backend_memory_limit();
    } catch (const InvalidArgument& e) {
      if (why) *why = e.what();
      return false;
    }
  for (const auto& d : devices.list) {
    std::string reason;
    if (!backends::available(d.kind, &reason)) {
      if (why) *why = "device '" + to_string(d) + "': " + reason;
      return false;
    }
    if (d.kind == BackendKind::cuda && d.number != 0) {
      if (why) *why = "device '" + to_string(d) + "': this build drives CUDA device 0 only";
      return false;
    }
  }
  return true;
}

DeviceSet default_devices() {
  return DeviceSet(backends::preferred());
}
}  // namespace hetlu
