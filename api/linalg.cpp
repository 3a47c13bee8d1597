// Front ends of the batched solve and the condition estimate (hetlu.hpp): arguments checked here
// (solvers/checks.hpp names what is wrong), then the solvers' kernels.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "hetlu/hetlu.hpp"
#include "solvers/backend.hpp"
#include "solvers/blas_threads.hpp"
#include "solvers/checks.hpp"
#include "solvers/condition.hpp"
#include "solvers/lu.hpp"
#include "solvers/variants.hpp"

namespace hetlu {
namespace {

// The batch's arrays must lie within the address space: with stride 2^62, system 1 wrapped past the
// end of memory and was read and written wherever the pointer landed (a crash, or success).
template <class E>
void batch_within_memory(const char* stride_name, const E* base, int batch, std::int64_t stride, std::int64_t span) {
  if (span == 0) return;  // nothing of it is read or written
  const auto most = static_cast<std::int64_t>(std::numeric_limits<std::ptrdiff_t>::max() / sizeof(E));
  std::int64_t last = 0, end = 0;
  const bool overflows = __builtin_mul_overflow(std::int64_t(batch) - 1, stride, &last) ||
                         __builtin_add_overflow(last, span, &end) || end > most ||
                         reinterpret_cast<std::uintptr_t>(base) >
                             std::numeric_limits<std::uintptr_t>::max() - static_cast<std::uintptr_t>(end) * sizeof(E);
  if (overflows)
    throw InvalidArgument(std::string(stride_name) + " = " + std::to_string(stride) + ": the last of " +
                          std::to_string(batch) + " systems would lie beyond the address space");
}

// Batch matrices of rows x cols (leading dimension ld) `stride` apart must not overlap: each after
// the last one's entries (they span ld (cols - 1) + rows; the next may begin in the last column's
// padding), or all stacked down the rows of one tall array (rows <= stride, the last within ld).
template <class E>
void systems_apart(const char* stride_name, int batch, int rows, int cols, int ld, std::int64_t stride, const E* base) {
  const std::int64_t span = rows > 0 && cols > 0 ? std::int64_t(ld) * (cols - 1) + rows : 0;
  const bool after = stride >= span;
  // (batch - 1) stride + rows <= ld, without forming a product that could overflow.
  const bool stacked = !after && stride >= rows && stride <= (std::int64_t(ld) - rows) / std::max(1, batch - 1);
  if (!after && !stacked)
    throw InvalidArgument(std::string(stride_name) + " = " + std::to_string(stride) +
                          " makes systems overlap: it must be >= " + std::to_string(span) +
                          " (the leading dimension x (columns - 1) + n), or the systems stacked down the rows (" +
                          stride_name + " >= n and (batch - 1) x " + stride_name + " + n <= the leading dimension)");
  batch_within_memory(stride_name, base, batch, stride, span);
}

// A batch has no plan: nb, d, the panel and the rest are refused rather than ignored.
void refuse_plan_overrides(const PlanOverrides& o) {
  if (o.nb || o.ib || o.cpu_block_columns || o.panel_threads || o.lookahead || o.refinement || o.panel_location)
    throw InvalidArgument(
        "a batched solve has no plan to override: only the target and the device (backend or devices) apply");
}

// The device a batch runs on (options.target = hybrid): the one of overrides.devices, else a GPU
// where there is one, else the host backend.
template <class T>
DeviceSet batch_device(const Options& options) {
  const DeviceSet devices = options.overrides.devices.value_or(default_devices());
  if (devices.size() != 1)
    throw InvalidArgument("a batched solve runs on one device; " + std::to_string(devices.size()) + " were given");
  return devices;
}

}  // namespace

template <class T>
void gesv_batched(int batch, int n, int nrhs, T* A, int lda, std::int64_t stride_a, int* ipiv, std::int64_t stride_ipiv,
                  T* B, int ldb, std::int64_t stride_b, int* info, const Options& options) {
  refuse_plan_overrides(options.overrides);
  checks::non_negative("batch", batch);
  checks::non_negative("n", n);
  checks::non_negative("nrhs", nrhs);
  checks::at_least("lda", lda, "max(1, n)", std::max(1, n));
  checks::at_least("ldb", ldb, "max(1, n)", std::max(1, n));
  checks::not_null("info", info, batch);
  if (batch > 1) {  // systems may not overlap (a batch of one needs no stride)
    systems_apart("stride_a", batch, n, n, lda, stride_a, A);
    checks::at_least("stride_ipiv", stride_ipiv, "n", n);
    batch_within_memory("stride_ipiv", ipiv, batch, stride_ipiv, n);
    systems_apart("stride_b", batch, n, nrhs, ldb, stride_b, B);
  }
  if (options.input_check == InputCheck::finite) {  // B, the pivots and info are written while A is read
    const auto a = checks::Entries::of("A", A, lda, n, n, stride_a, batch);
    const auto b = checks::Entries::of("B", B, ldb, nrhs, n, stride_b, batch);
    const auto pivots = checks::Entries::of("ipiv", ipiv, n, 1, n, stride_ipiv, batch);
    const auto infos = checks::Entries::of("info", info, batch, 1, batch);
    checks::entries_apart(b, a);  // system 0's B inside the last system's A: success with a wrong X
    for (const auto& written : {pivots, infos}) {
      checks::entries_apart(written, a);
      checks::entries_apart(written, b);
    }
    checks::entries_apart(infos, pivots);
  }
  const long long systems = n > 0 ? batch : 0;
  checks::not_null("A", A, systems);
  checks::not_null("ipiv", ipiv, systems);
  checks::not_null("B", B, systems * nrhs);
  if (n == 0) {
    std::fill(info, info + batch, 0);
    return;
  }
  // As gesv refuses them: a system with a NaN or Inf is left as it is (info -3 for A, -6 for B) and
  // named once the others are solved (its X came back NaN with info 0). InputCheck::none: they
  // propagate, as in LAPACK.
  const InputCheck check = options.input_check;
  const bool hybrid = options.target == Target::hybrid;
  const DeviceSet device = hybrid ? batch_device<T>(options) : DeviceSet{};
  // A batch of one on the host backend is solved as the CPUs' batch: the backend's worker runs a
  // lone system with one-threaded BLAS (SingleThreadedBlas), 1.25x the time at n = 2000 on 2 cores.
  const bool lone_system_on_host = batch == 1 && device.front().kind == BackendKind::host;
  // Before the device's lock, as every hybrid solve takes them (a batch that took the device first,
  // then waited on a worker that waited for the BLAS a hybrid solve held, never ended: a review).
  const kernels::BlasHold hold(options.target);
  if (hybrid && !lone_system_on_host) {
    auto lock = backends::lock_devices(device);
    solvers::gesv_batched_on(backends::backend<T>(device.front()), batch, n, nrhs, A, lda, stride_a, ipiv, stride_ipiv,
                             B, ldb, stride_b, info, check);
  } else {
    solvers::gesv_batched(batch, n, nrhs, A, lda, stride_a, ipiv, stride_ipiv, B, ldb, stride_b, info, check);
  }
  if (check != InputCheck::finite) return;
  for (int i = 0; i < batch; ++i)
    if (info[i] < 0)
      throw BatchInputNotFinite("system " + std::to_string(i) + ": " + (info[i] == -3 ? "A" : "B") +
                                " holds a NaN or Inf; the input must be finite (info[" + std::to_string(i) +
                                "] = " + std::to_string(info[i]) + "; the other systems are solved)");
}

template <class T>
double rcond_estimate(int n, const T* LU, int lda, const int* ipiv, double anorm) {
  checks::non_negative("n", n);
  checks::at_least("lda", lda, "max(1, n)", std::max(1, n));
  checks::not_null("LU", LU, static_cast<long long>(n) * n);
  checks::not_null("ipiv", ipiv, n);
  checks::pivots("ipiv", n, ipiv);  // the solves with the factors index rows by them
  if (!(anorm >= 0)) throw InvalidArgument("anorm = " + std::to_string(anorm) + " must be >= 0 (||A||_1)");
  return variants::lu_reciprocal_condition(n, LU, lda, ipiv, anorm);
}

#define HETLU_INSTANTIATE_BATCHED(T)                                                                                   \
  template void gesv_batched<T>(int, int, int, T*, int, std::int64_t, int*, std::int64_t, T*, int, std::int64_t, int*, \
                                const Options&);
HETLU_INSTANTIATE_BATCHED(float)
HETLU_INSTANTIATE_BATCHED(double)
HETLU_INSTANTIATE_BATCHED(std::complex<double>)
HETLU_INSTANTIATE_BATCHED(std::complex<float>)
#undef HETLU_INSTANTIATE_BATCHED
template double rcond_estimate<float>(int, const float*, int, const int*, double);
template double rcond_estimate<double>(int, const double*, int, const int*, double);
template double rcond_estimate<std::complex<double>>(int, const std::complex<double>*, int, const int*, double);
template double rcond_estimate<std::complex<float>>(int, const std::complex<float>*, int, const int*, double);

}  // namespace hetlu
