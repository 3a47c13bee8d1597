// One backend of each kind per process and precision, made on first use: a CUDA context and
// cuBLAS handle take long to create, and the host backend's threads should not be respawned per
// solve.
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <vector>

#include "solvers/backend_host.hpp"
#include "solvers/blas_threads.hpp"
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

namespace {
// The loaded plugin, for cuSOLVER's timings; throws where it cannot be loaded.
const cuda_plugin::Entry& vendor_plugin() {
  std::string why;
  const auto* plugin = cuda_plugin::entry(&why);
  if (!plugin) throw NotAvailable("cuSOLVER is not available: " + why);
  return *plugin;
}
}  // namespace

VendorLuTiming time_vendor_lu(int m, int n, const double* A, int lda, int nrhs, int reps) {
  return vendor_plugin().time_vendor_lu(m, n, A, lda, nrhs, reps);
}
VendorLuTiming time_vendor_lu(int m, int n, const float* A, int lda, int nrhs, int reps) {
  return vendor_plugin().time_vendor_lu_float(m, n, A, lda, nrhs, reps);
}
VendorIrsTiming time_vendor_irs(int n, const double* A, int lda, const double* b, int reps,
                                VendorFactorPrecision factored) {
  return vendor_plugin().time_vendor_irs(n, A, lda, b, reps, factored);
}

namespace {

template <class T>
std::unique_ptr<Backend<T>> make_cuda_backend() {
  const auto* plugin = cuda_plugin::entry();  // available() said it loads
  if constexpr (std::is_same_v<T, float>)
    return plugin->make_float_backend();
  else if constexpr (std::is_same_v<T, double>)
    return plugin->make_double_backend();
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return plugin->make_complex_float_backend();
  else
    return plugin->make_complex_double_backend();
}

// A device of a device set, told apart from another of the same kind and number ("host:2,host:2"
// is two teams): (kind, number, copy).
using DeviceKey = std::tuple<BackendKind, int, int>;

DeviceKey key_of(const Device& device, int copy) {
  const int number = device.kind == BackendKind::host && device.number < 0 ? host_backend_threads() : device.number;
  return {device.kind, number, copy};
}

// The "device memory" a host team's backends share, every precision's (make_host_backend).
std::shared_ptr<std::atomic<std::size_t>> host_memory_in_use(const DeviceKey& key) {
  static std::mutex mutex;
  static std::map<DeviceKey, std::shared_ptr<std::atomic<std::size_t>>> counters;
  std::lock_guard lock(mutex);
  auto& counter = counters[key];
  if (!counter) counter = std::make_shared<std::atomic<std::size_t>>(0);
  return counter;
}

// The forks between the process that started and this one: 0 there, 1 in a child of fork(), and so
// on (a pthread_atfork child handler, registered on the first call: before any backend exists).
int forks_so_far() {
  static std::atomic<int> forks{0};
  [[maybe_unused]] static const int registered =
      pthread_atfork(nullptr, nullptr, [] { forks.fetch_add(1, std::memory_order_relaxed); });
  return forks.load(std::memory_order_relaxed);
}

// A child of fork() has none of its parent's backends' threads (the host team's worker) or device
// contexts: its solves waited forever on a worker that did not exist, and its exit joined it. The
// parent's are given up there, not destroyed, and the child makes its own.
template <class T>
void forget_a_parents_backends(std::map<DeviceKey, std::unique_ptr<Backend<T>>>& made, int& made_after_forks) {
  const int forks = forks_so_far();
  if (forks == made_after_forks) return;
  // Kept where a leak checker sees them still reachable, never destroyed.
  static auto* given_up = new std::vector<std::unique_ptr<Backend<T>>>();
  for (auto& entry : made) given_up->push_back(std::move(entry.second));
  made.clear();
  made_after_forks = forks;
}

}  // namespace

template <class T>
Backend<T>& backend(const Device& device, int copy) {
  static std::mutex mutex;
  static std::map<DeviceKey, std::unique_ptr<Backend<T>>> made;
  static int made_after_forks = forks_so_far();
  const DeviceKey key = key_of(device, copy);
  std::lock_guard lock(mutex);
  forget_a_parents_backends(made, made_after_forks);
  auto& slot = made[key];
  if (!slot) {
    std::string why;
    if (!available(device.kind, &why))
      throw NotAvailable("backend '" + to_string(device.kind) + "' is not available: " + why);
    // The plugin drives the CUDA runtime's current device, ordinal 0 (one GPU per process, #16).
    if (device.kind == BackendKind::cuda && device.number != 0)
      throw NotAvailable("device '" + to_string(device) + "': this build drives CUDA device 0 only");
    slot = device.kind == BackendKind::cuda ? make_cuda_backend<T>()
                                            : make_host_backend<T>(std::get<1>(key), host_memory_in_use(key));
    // Backends go before the CUDA runtime tears itself down at exit (cuBLAS and cuSOLVER handles,
    // streams and events are destroyed while it still exists): exit handlers run in reverse order
    // of registration, and the runtime (loaded with the plugin) registered its own before this one.
    static std::once_flag registered;
    std::call_once(registered, [] {
      std::atexit([] {
        std::lock_guard at_exit(mutex);
        forget_a_parents_backends(made, made_after_forks);
        made.clear();
      });
    });
  }
  return *slot;
}

template <class T>
Backend<T>& backend(BackendKind kind) {
  return backend<T>(DeviceSet(kind).front(), 0);
}

DeviceSet with_team_sizes(DeviceSet devices) {
  for (auto& d : devices.list)
    if (d.kind == BackendKind::host && d.number < 0) d.number = host_backend_threads();
  return devices;
}

int host_team_threads(const DeviceSet& devices) {
  int threads = 0;
  for (const auto& d : with_team_sizes(devices).list)
    if (d.kind == BackendKind::host) threads += d.number;
  return threads;
}

int cpu_threads_here(Target target, const DeviceSet& devices) {
  const int here = kernels::openmp_threads_here();
  return target == Target::hybrid ? std::max(1, here - host_team_threads(devices)) : here;
}

std::vector<int> device_copies(const DeviceSet& devices) {
  // Counted on the team sizes written out: "host,host:4" with a default team of 4 is two teams.
  const DeviceSet written = with_team_sizes(devices);
  std::vector<int> copies;
  for (std::size_t i = 0; i < written.size(); ++i)
    copies.push_back(static_cast<int>(std::count(written.list.begin(), written.list.begin() + i, written.list[i])));
  return copies;
}

std::vector<std::unique_lock<std::mutex>> lock_devices(const DeviceSet& devices) {
  static std::mutex guard;
  static std::map<DeviceKey, std::unique_ptr<std::mutex>> mutexes;
  const auto copies = device_copies(devices);
  std::vector<DeviceKey> keys;
  for (std::size_t i = 0; i < devices.size(); ++i) keys.push_back(key_of(devices.list[i], copies[i]));
  std::sort(keys.begin(), keys.end());  // one order for every caller: no two solves deadlock
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<std::mutex*> order;
  {
    std::lock_guard lock(guard);
    for (const auto& k : keys) {
      auto& m = mutexes[k];
      if (!m) m = std::make_unique<std::mutex>();
      order.push_back(m.get());
    }
  }
  std::vector<std::unique_lock<std::mutex>> locks;
  for (auto* m : order) locks.emplace_back(*m);
  return locks;
}

std::vector<std::unique_lock<std::mutex>> lock_backend(BackendKind kind) {
  return lock_devices(DeviceSet(kind));
}

template Backend<float>& backend<float>(const Device&, int);
template Backend<double>& backend<double>(const Device&, int);
template Backend<std::complex<double>>& backend<std::complex<double>>(const Device&, int);
template Backend<std::complex<float>>& backend<std::complex<float>>(const Device&, int);
template Backend<float>& backend<float>(BackendKind);
template Backend<double>& backend<double>(BackendKind);
template Backend<std::complex<double>>& backend<std::complex<double>>(BackendKind);
template Backend<std::complex<float>>& backend<std::complex<float>>(BackendKind);

}  // namespace hetlu::backends
