// One backend of each kind per process and precision, made on first use: a CUDA context and
// cuBLAS handle take long to create, and the host backend's threads should not be respawned per
// solve.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "solvers/backend_host.hpp"

namespace hetlu::backends {

std::string describe_bytes(std::size_t bytes) {
  char text[32];
  if (bytes >= (std::size_t(1) << 30))
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / double(1 << 30));
  else if (bytes >= (std::size_t(1) << 20))
    std::snprintf(text, sizeof text, "%.1f MiB", bytes / double(1 << 20));
  else
    std::snprintf(text, sizeof text, "%zu KiB", (bytes + 1023) >> 10);
  return text;
}

bool available(BackendKind kind, std::string* why) {
  if (kind == BackendKind::host) return true;
#ifdef HETLU_HAVE_CUDA
  return cuda_device_present(why);
#else
  if (why) *why = "this build of hetlu has no CUDA support (configure with HETLU_WITH_CUDA=ON where nvcc exists)";
  return false;
#endif
}

BackendKind preferred() {
  return available(BackendKind::cuda) ? BackendKind::cuda : BackendKind::host;
}

#ifndef HETLU_HAVE_CUDA
VendorLuTiming time_vendor_lu(int, int, const double*, int, int, int) {
  throw Error("cuSOLVER is not available: this build of hetlu has no CUDA support");
}
#endif

template <class T>
Backend<T>& backend(BackendKind kind) {
  static std::mutex mutex;
  static std::map<BackendKind, std::unique_ptr<Backend<T>>> made;
  std::lock_guard lock(mutex);
  auto& slot = made[kind];
  if (!slot) {
    std::string why;
    if (!available(kind, &why)) throw Error("backend '" + to_string(kind) + "' is not available: " + why);
#ifdef HETLU_HAVE_CUDA
    slot = kind == BackendKind::cuda ? make_cuda_backend<T>() : make_host_backend<T>(host_backend_threads());
#else
    slot = make_host_backend<T>(host_backend_threads());
#endif
    // Backends go before the CUDA runtime tears itself down at exit (cuBLAS and cuSOLVER handles,
    // streams and events are destroyed while it still exists): exit handlers run in reverse order
    // of registration, and the runtime registered its own at its first call, before this one.
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

}  // namespace hetlu::backends
