// A batch of small systems on one device (#14 item 5): cuBLAS's batched LU on a GPU, the CPUs'
// batch on a host backend's team. The batch goes in chunks that a staging buffer and the device's
// memory hold: each chunk's systems are packed (ld = n) into page-locked memory, go up in one copy,
// are solved there (Backend::gesv_batched), and come back the same way; the caller's arrays are
// written from the buffer as gesv writes them, a singular system's B left as it was.
#include <omp.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>

#include "solvers/backend.hpp"
#include "solvers/copy_block.hpp"
#include "solvers/lu.hpp"

namespace hetlu::solvers {

// Waits for the device's queues where the scope is left by an exception; the first failure is the
// one reported.
template <class T>
struct DrainOnFailure {
  backends::Backend<T>& device;
  int exceptions = std::uncaught_exceptions();
  ~DrainOnFailure() {
    if (std::uncaught_exceptions() > exceptions) try {
        device.synchronize();
      } catch (...) {
      }
  }
};

template <class T>
void gesv_batched_on(backends::Backend<T>& device, int batch, int n, int nrhs, T* A, int lda, std::int64_t stride_a,
                     int* ipiv, std::int64_t stride_ipiv, T* B, int ldb, std::int64_t stride_b, int* info,
                     InputCheck check, std::int64_t chunk_bytes) {
  if (batch <= 0) return;
  if (n == 0) {
    std::fill(info, info + batch, 0);
    return;
  }
  const std::int64_t a_size = std::int64_t(n) * n, b_size = std::int64_t(n) * nrhs;
  if (a_size > INT_MAX || b_size > INT_MAX)
    throw InvalidArgument("a batch on a device: n = " + std::to_string(n) + " with " + std::to_string(nrhs) +
                          " right-hand sides is too large for one system's copy; solve such systems one by one");
  const std::int64_t per_system = std::int64_t(sizeof(T)) * (a_size + b_size) + std::int64_t(sizeof(int)) * (n + 1);
  int chunk = static_cast<int>(std::clamp<std::int64_t>(chunk_bytes / per_system, 1, batch));
  // A device with less free memory than a chunk: half as many systems a chunk, down to one (which,
  // not fitting, is the error, naming the sizes).
  backends::DeviceMatrix<T> dA, dB;
  std::shared_ptr<int> d_ints;
  for (;;) try {
      dA = device.allocate(static_cast<int>(a_size), chunk);
      dB = device.allocate(static_cast<int>(std::max<std::int64_t>(1, b_size)), chunk);
      d_ints = device.allocate_ints((n + 1) * chunk);
      break;
    } catch (const DeviceOutOfMemory&) {
      dA = {}, dB = {}, d_ints.reset();
      if (chunk == 1) throw;
      chunk = (chunk + 1) / 2;
    }
  auto staged = device.allocate_pinned(sizeof(T) * static_cast<std::size_t>(a_size + b_size) * chunk);
  auto staged_ints = device.allocate_pinned(sizeof(int) * static_cast<std::size_t>(n + 1) * chunk);
  T* const a_slot = static_cast<T*>(staged.get());
  T* const b_slot = a_slot + a_size * chunk;
  int* const pivots = static_cast<int*>(staged_ints.get());
  int* const infos = pivots + std::int64_t(n) * chunk;
  // A failure part way leaves copies queued on the page-locked slots: they end before the slots go
  // back to the backend's pool (declared after them, the guard goes first).
  const DrainOnFailure<T> drain{device};
  using backends::Queue;
  for (int first = 0; first < batch; first += chunk) {
    const int count = std::min(chunk, batch - first);
#pragma omp parallel for schedule(static) if (count * a_size > 65536)
    for (int i = 0; i < count; ++i) {
      const std::int64_t s = first + i;
      const T *a = A + s * stride_a, *b = nrhs > 0 ? B + s * stride_b : B;  // stride_b unused without a B
      info[s] = batch_input_info(n, nrhs, a, lda, b, ldb, check);
      kernels::copy_block(n, n, a, lda, a_slot + i * a_size, n);
      kernels::copy_block(n, nrhs, b, ldb, b_slot + i * b_size, n);
    }
    const int a_rows = static_cast<int>(a_size), b_rows = static_cast<int>(b_size);
    device.copy_to_device(Queue::compute, a_rows, count, a_slot, a_rows, dA.data(), dA.ld);
    device.copy_to_device(Queue::compute, b_rows, count, b_slot, b_rows, dB.data(), dB.ld);
    device.gesv_batched(Queue::compute, count, n, nrhs, dA.data(), n, a_rows, d_ints.get(), dB.data(), n, b_rows,
                        d_ints.get() + std::int64_t(n) * count);
    device.copy_to_host(Queue::compute, a_rows, count, dA.data(), dA.ld, a_slot, a_rows);
    device.copy_to_host(Queue::compute, b_rows, count, dB.data(), dB.ld, b_slot, b_rows);
    device.copy_ints_to_host(Queue::compute, n * count, d_ints.get(), pivots);
    device.copy_ints_to_host(Queue::compute, count, d_ints.get() + std::int64_t(n) * count, infos);
    device.synchronize();
#pragma omp parallel for schedule(static) if (count * a_size > 65536)
    for (int i = 0; i < count; ++i) {
      const std::int64_t s = first + i;
      if (info[s] < 0) continue;  // a NaN or Inf: left as it is
      info[s] = infos[i];
      kernels::copy_block(n, n, a_slot + i * a_size, n, A + s * stride_a, lda);
      std::copy(pivots + std::int64_t(i) * n, pivots + std::int64_t(i + 1) * n, ipiv + s * stride_ipiv);
      if (infos[i] == 0 && nrhs > 0) kernels::copy_block(n, nrhs, b_slot + i * b_size, n, B + s * stride_b, ldb);
    }
  }
}

#define HETLU_INSTANTIATE(T)                                                                                        \
  template void gesv_batched_on<T>(backends::Backend<T>&, int, int, int, T*, int, std::int64_t, int*, std::int64_t, \
                                   T*, int, std::int64_t, int*, InputCheck, std::int64_t);
HETLU_INSTANTIATE(float)
HETLU_INSTANTIATE(double)
HETLU_INSTANTIATE(std::complex<float>)
HETLU_INSTANTIATE(std::complex<double>)
#undef HETLU_INSTANTIATE

}  // namespace hetlu::solvers
