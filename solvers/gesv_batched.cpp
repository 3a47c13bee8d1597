// Many small independent systems at once (#14.5): a NumPy stack, a finite-element assembly. One
// system is too small for a parallel LU (n = 16 is 2.7 kFlop: a thread wake-up costs more), so the
// batch is what runs in parallel: each OpenMP thread takes systems in turn and solves each on its
// own, with the BLAS library's own gesv (its small-matrix kernel, single-threaded inside the
// region) or, where the library has none, hetlu's recursive GEPP and its triangular solves.
#include <omp.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "hetlu/detail/flops.hpp"
#include "solvers/blas_threads.hpp"
#include "solvers/copy_block.hpp"
#include "solvers/gepp_kernels.hpp"
#include "solvers/lu.hpp"
#include "solvers/scalar.hpp"
#include "solvers/variants.hpp"
#include "solvers/vendor_lapack.hpp"

namespace hetlu::solvers {

namespace {

// Systems handed out a few at a time: about 64 Ki flops per grab, so that small ones do not contend
// for the counter and large ones still balance.
int systems_per_grab(int n, int nrhs) {
  const double flops = std::max(1.0, detail::gesv_flops(n, nrhs));
  return static_cast<int>(std::clamp(65536.0 / flops, 1.0, 64.0));
}

template <class T>
void solve_one(int n, int nrhs, T* a, int lda, int* p, T* b, int ldb, int* info) {
  if (vendor::gesv(n, nrhs, a, lda, p, b, ldb, info)) return;
  *info = n > 0 ? kernels::getrf_recursive(n, n, a, lda, p) : 0;
  if (*info == 0) variants::lu_getrs(Transpose::no, n, nrhs, a, lda, p, b, ldb);
}

// solve_one inside an OpenMP region, which no exception may leave: the first, naming its system,
// is kept for the caller to rethrow after the region.
template <class T>
void solve_one_within_region(int i, int n, int nrhs, T* a, int lda, int* p, T* b, int ldb, int* info,
                             std::exception_ptr& failure) {
  try {
    solve_one(n, nrhs, a, lda, p, b, ldb, info);
  } catch (const std::exception& e) {
#pragma omp critical(hetlu_batch_failure)
    if (!failure) failure = std::make_exception_ptr(Error("system " + std::to_string(i) + ": " + e.what()));
  }
}

}  // namespace

template <class T>
int batch_input_info(int n, int nrhs, const T* a, int lda, const T* b, int ldb, InputCheck check) {
  if (check != InputCheck::finite) return 0;
  return !scalar::all_finite(n, n, a, lda) ? -3 : !scalar::all_finite(n, nrhs, b, ldb) ? -6 : 0;
}

template <class T>
void gesv_batched(int batch, int n, int nrhs, T* A, int lda, std::int64_t stride_a, int* ipiv, std::int64_t stride_ipiv,
                  T* B, int ldb, std::int64_t stride_b, int* info, InputCheck check) {
  if (batch <= 0) return;
  const kernels::SharedBlas hold;  // a region of one thread is not active: its BLAS calls run threaded
  const int threads = std::max(1, std::min(omp_get_max_threads(), batch));
  std::exception_ptr failure;  // none may leave the parallel region: the first is rethrown after it
#pragma omp parallel for num_threads(threads) schedule(dynamic, systems_per_grab(n, nrhs))
  for (int i = 0; i < batch; ++i) {
    // Without right-hand sides B's stride is never used, whatever it is (i * stride overflowed: UBSan).
    T *a = A + i * stride_a, *b = nrhs > 0 ? B + i * stride_b : B;
    info[i] = batch_input_info(n, nrhs, a, lda, b, ldb, check);
    if (info[i] == 0) solve_one_within_region(i, n, nrhs, a, lda, ipiv + i * stride_ipiv, b, ldb, &info[i], failure);
  }
  if (failure) std::rethrow_exception(failure);
}

template <class T>
void gesv_batched_row_major(int batch, int n, int nrhs, const T* A, const T* B, T* X, int* info) {
  if (batch <= 0) return;
  const kernels::SharedBlas hold;
  const std::int64_t a_size = std::int64_t(n) * n, b_size = std::int64_t(n) * nrhs;
  const int threads = std::max(1, std::min(omp_get_max_threads(), batch));
  std::exception_ptr failure;
#pragma omp parallel num_threads(threads)
  {
    // Each thread's system, column-major, in cache: the transposing copies cost no pass of their own.
    std::vector<T> a(std::max<std::int64_t>(1, a_size)), b(std::max<std::int64_t>(1, b_size));
    std::vector<int> p(std::max(1, n));
#pragma omp for schedule(dynamic, systems_per_grab(n, nrhs))
    for (int i = 0; i < batch; ++i) {
      const int ld = std::max(1, n);
      kernels::transpose_block(n, n, A + i * a_size, ld, a.data(), ld);
      kernels::transpose_block(nrhs, n, B + i * b_size, std::max(1, nrhs), b.data(), ld);
      solve_one_within_region(i, n, nrhs, a.data(), ld, p.data(), b.data(), ld, &info[i], failure);
      kernels::transpose_block(n, nrhs, b.data(), ld, X + i * b_size, std::max(1, nrhs));
    }
  }
  if (failure) std::rethrow_exception(failure);
}

template int batch_input_info<float>(int, int, const float*, int, const float*, int, InputCheck);
template int batch_input_info<double>(int, int, const double*, int, const double*, int, InputCheck);
template int batch_input_info<std::complex<float>>(int, int, const std::complex<float>*, int,
                                                   const std::complex<float>*, int, InputCheck);
template int batch_input_info<std::complex<double>>(int, int, const std::complex<double>*, int,
                                                    const std::complex<double>*, int, InputCheck);
template void gesv_batched<float>(int, int, int, float*, int, std::int64_t, int*, std::int64_t, float*, int,
                                  std::int64_t, int*, InputCheck);
template void gesv_batched<double>(int, int, int, double*, int, std::int64_t, int*, std::int64_t, double*, int,
                                   std::int64_t, int*, InputCheck);
template void gesv_batched<std::complex<double>>(int, int, int, std::complex<double>*, int, std::int64_t, int*,
                                                 std::int64_t, std::complex<double>*, int, std::int64_t, int*,
                                                 InputCheck);
template void gesv_batched<std::complex<float>>(int, int, int, std::complex<float>*, int, std::int64_t, int*,
                                                std::int64_t, std::complex<float>*, int, std::int64_t, int*,
                                                InputCheck);
template void gesv_batched_row_major<float>(int, int, int, const float*, const float*, float*, int*);
template void gesv_batched_row_major<double>(int, int, int, const double*, const double*, double*, int*);
template void gesv_batched_row_major<std::complex<double>>(int, int, int, const std::complex<double>*,
                                                           const std::complex<double>*, std::complex<double>*, int*);
template void gesv_batched_row_major<std::complex<float>>(int, int, int, const std::complex<float>*,
                                                          const std::complex<float>*, std::complex<float>*, int*);

}  // namespace hetlu::solvers
