// One backend of each kind per process and precision, made on first use: a CUDA context and
// cuBLAS handle take long to create, and the host backend's threads should not be respawned per
// solve.
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <type_traits>

#include "solvers/backend_host.hpp"
#include "solvers/cuda_plugin.hpp"

namespace hetlu::backends {

bool available(BackendKind kind, std::string* why) {
  if (kind == BackendKind::host) return true;
  const auto* plugin = cuda_plugin::entry(why);
  return plugin && plugin->device_present(why);
}

BackendKind preferred() {
  return available(BackendKind::cuda) ? BackendKind::cuda : BackendKind::host;
}

VendorLuTiming time_vendor_lu(int m, int n, const double* A, int lda, int nrhs, int reps) {
  std::string why;
  const auto* plugin = cuda_plugin::entry(&why);
  if (!plugin) throw Error("cuSOLVER is not available: " + why);
  return plugin->time_vendor_lu(m, n, A, lda, nrhs, reps);
}

namespace {

template <class T>
std::unique_ptr<Backend<T>> make_cuda_backend() {
  const auto* plugin = cuda_plugin::entry();  // available() said it loads
  if constexpr (std::is_same_v<T, float>)
    return plugin->make_float_backend();
  else if constexpr (std::is_same_v<T, double>)
    return plugin->make_double_backend();
  else
    throw InvalidArgument(
        "the cuda backend has no complex precisions yet: use --backend host or the CPU target for a complex matrix");
}

}  // namespace

template <class T>
Backend<T>& backend(BackendKind kind) {
  static std::mutex mutex;
  static std::map<BackendKind, std::unique_ptr<Backend<T>>> made;
  std::lock_guard lock(mutex);
  auto& slot = made[kind];
  if (!slot) {
    std::string why;
    if (!available(kind, &why)) throw Error("backend '" + to_string(kind) + "' is not available: " + why);
    slot = kind == BackendKind::cuda ? make_cuda_backend<T>() : make_host_backend<T>(host_backend_threads());
    // Backends go before the CUDA runtime tears itself down at exit (cuBLAS and cuSOLVER handles,
    // streams and events are destroyed while it still exists): exit handlers run in reverse order
    // of registration, and the runtime (loaded with the plugin) registered its own before this one.
    static std::once_flag registered;
    std::call_once(registered, [] {
      std::atexit([] {
        std::lock_guard at_exit(mutex);
        made.clear();
      });
    });
  }
  return *slot;
}

std::unique_lock<std::mutex> lock_backend(BackendKind kind) {
  static std::mutex mutexes[2];
  return std::unique_lock(mutexes[static_cast<int>(kind)]);
}

template Backend<float>& backend<float>(BackendKind);
template Backend<double>& backend<double>(BackendKind);
template Backend<std::complex<double>>& backend<std::complex<double>>(BackendKind);
template Backend<std::complex<float>>& backend<std::complex<float>>(BackendKind);

}  // namespace hetlu::backends
