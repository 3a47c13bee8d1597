// The cuda backend: cuBLAS for trsm and gemm, cuSOLVER for a panel on the device, hetlu's own
// kernels for row interchanges and PRBT's butterflies; one CUDA stream per queue, events between
// them, page-locked host memory for asynchronous copies. Every CUDA, cuBLAS and cuSOLVER call and
// every kernel launch is checked (cuda/cuda_check.hpp); a failure throws hetlu::Error saying what
// failed.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <cuda/std/complex>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/cuda_parts.hpp"
#include "cuda/cusolver_getrf.hpp"
#include "hetlu/detail/cuda_tf32.hpp"
#include "hetlu/detail/env_choice.hpp"
#include "hetlu/detail/statistics.hpp"
#include "solvers/row_omega.hpp"

namespace hetlu::backends {
namespace {

using cuda::check;
using cuda::check_launch;

// ---- elements on the device --------------------------------------------------------------------

// How the kernels see an element: std::complex as ::cuda::std::complex (the same layout, two reals,
// with arithmetic in device code), the real types as they are. The backend's interface keeps the
// host's types; each launch passes device_view of its pointers.
template <class T>
struct on_device_of {
  using type = T;
};
template <class R>
struct on_device_of<std::complex<R>> {
  using type = ::cuda::std::complex<R>;
};
template <class T>
using device_t = typename on_device_of<T>::type;
template <class T>
device_t<T>* device_view(T* p) {
  return reinterpret_cast<device_t<T>*>(p);
}
template <class T>
const device_t<T>* device_view(const T* p) {
  return reinterpret_cast<const device_t<T>*>(p);
}
// cuda::std::complex<double> is 16-aligned, std::complex<double> 8: every device pointer the kernels
// get is a whole number of elements from a cudaMalloc base (256-aligned), never a sub-allocation.
static_assert(sizeof(device_t<std::complex<double>>) == sizeof(std::complex<double>), "complex layouts differ");
static_assert(sizeof(device_t<std::complex<float>>) == sizeof(std::complex<float>), "complex layouts differ");

// The type a device element's sums run in: double, or complex<double> (as scalar::wide_t on the host).
template <class T>
struct wide_of {
  using type = double;
};
template <class R>
struct wide_of<::cuda::std::complex<R>> {
  using type = ::cuda::std::complex<double>;
};
template <class T>
using wide_on_device_t = typename wide_of<T>::type;

// LAPACK's magnitude |re| + |im| (|x| for a real x), as scalar::abs1 on the host.
__device__ inline double abs1(double x) {
  return fabs(x);
}
__device__ inline double abs1(::cuda::std::complex<double> x) {
  return fabs(x.real()) + fabs(x.imag());
}

// Within single's range, as scalar::fits on the host (a NaN fits; a complex fits when both parts do).
__device__ inline bool fits_single(double x) {
  constexpr double largest = 3.4028234663852886e38;  // FLT_MAX
  return !(x < -largest || x > largest);
}
__device__ inline bool fits_single(::cuda::std::complex<double> x) {
  return fits_single(x.real()) && fits_single(x.imag());
}

// ---- kernels --------------------------------------------------------------------------------------

// Row interchanges of one column, in order (1-based pivots, relative to k1): LAPACK's laswp.
template <class T>
__device__ void swap_in_order(T* column, int k1, int count, const int* pivots) {
  for (int t = 0; t < count; ++t) {
    const int i = k1 + t, p = k1 + pivots[t] - 1;
    if (p != i) {
      const T a = column[i];
      column[i] = column[p];
      column[p] = a;
    }
  }
}

// One thread per column, the swaps in order: what the gather below does where its plan does not
// apply, and all of it where HETLU_CUDA_LASWP=in_order.
template <class T>
__global__ void laswp_kernel(int cols, T* A, long long lda, int k1, int count, const int* pivots) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < cols) swap_in_order(A + j * lda, k1, count, pivots);
}

// Row interchanges as one gather. The in-order kernel's swaps depend on each other, one thread per
// column, a sector apart: at 32768 on an H100 they were 16 % of the factorization (352 bytes of
// memory time an interchange, 2026-11-26). The swaps of count LAPACK pivots (row t's pivot p_t >= t)
// move at most 2 count rows: the block's own and those they were swapped with. A plan, worked out
// once per call, says where each of those rows' final content comes from; every column then moves
// them at once, coalesced over the block's rows.
//
// The plan, relative to k1: plan[0] is 1 where it applies (every p_t >= t), then 2 count sources,
// then 2 count destinations (-1: no move). Entry t is row t; entry count + t the row p_t >= count
// below the block, once, for the last t that names it.
//
// Row t is final after swap t (later swaps touch rows beyond t). What sits at row `row` >= `time`
// just before swap `time`: the content row s held just before swap s, for the last s < time with
// p_s = row, else row's own.
__device__ int content_before_swap(const int* pivots, int row, int time) {
  for (;;) {
    int s = time - 1;
    while (s >= 0 && pivots[s] - 1 != row) --s;
    if (s < 0) return row;
    row = s, time = s;
  }
}

// One block; the pivots in shared memory (every thread searches them).
__global__ void interchange_plan_kernel(int count, const int* global_pivots, int* plan) {
  extern __shared__ int pivots[];
  int* source = plan + 1;
  int* destination = plan + 1 + 2 * count;
  int out_of_order = 0;
  for (int t = threadIdx.x; t < count; t += blockDim.x) {
    pivots[t] = global_pivots[t];
    out_of_order |= pivots[t] - 1 < t;
  }
  out_of_order = __syncthreads_or(out_of_order);
  if (threadIdx.x == 0) plan[0] = !out_of_order;
  if (out_of_order) return;
  for (int t = threadIdx.x; t < count; t += blockDim.x) {
    const int p = pivots[t] - 1;
    source[t] = content_before_swap(pivots, p, t);
    destination[t] = t;
    bool last = p >= count;
    for (int s = t + 1; last && s < count; ++s) last = pivots[s] - 1 != p;
    source[count + t] = last ? content_before_swap(pivots, t, t) : 0;
    destination[count + t] = last ? p : -1;
  }
}

template <class T>
__global__ void interchange_kernel(int cols, int columns_per_block, T* A, long long lda, int k1, int count,
                                   const int* plan, const int* pivots) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* moved = reinterpret_cast<T*>(shared_bytes);
  const int first = blockIdx.x * columns_per_block, end = min(cols, first + columns_per_block);
  if (plan[0] == 0) {  // the same for every thread: no __syncthreads below is skipped by some
    for (int j = first + threadIdx.x; j < end; j += blockDim.x) swap_in_order(A + j * lda, k1, count, pivots);
    return;
  }
  const int entries = 2 * count;
  const int* source = plan + 1;
  const int* destination = plan + 1 + entries;
  for (int j = first; j < end; ++j) {
    T* column = A + j * lda + k1;
    for (int e = threadIdx.x; e < entries; e += blockDim.x)
      if (destination[e] >= 0) moved[e] = column[source[e]];
    __syncthreads();
    for (int e = threadIdx.x; e < entries; e += blockDim.x)
      if (destination[e] >= 0) column[destination[e]] = moved[e];
    __syncthreads();
  }
}

// One butterfly mixing of a pair (a, b): [r (a + b); s (a - b)] / sqrt(2), the same for the rows
// (B^T from the left) and the columns (B from the right); see solvers/butterfly.cpp.
template <class T>
__device__ void mix(T& a, T& b, T r, T s) {
  const T c = T(0.70710678118654752440);
  const T x = a, y = b;
  a = c * r * (x + y);
  b = c * s * (x - y);
}

// The four indices {i, i + q, i + h, i + h + q} (q = n/4, h = n/2) are closed under a depth-2
// butterfly, so A <- U^T A V is a 4 x 4 transform of each such group of rows and columns: one
// thread per group, all in registers, in place, O(n^2) in one pass over A.
template <class T>
__device__ void depth2(T x[4], const T* w, int n, int i) {
  const int q = n / 4, h = n / 2;
  mix(x[0], x[1], w[n + i], w[n + q + i]);          // B_1 on the first half
  mix(x[2], x[3], w[n + h + i], w[n + h + q + i]);  // B_2 on the second half
  mix(x[0], x[2], w[i], w[h + i]);                  // B_0 on the whole
  mix(x[1], x[3], w[q + i], w[h + q + i]);
}

template <class T>
__global__ void butterflies_kernel(int n, const T* u, const T* v, T* A, long long lda) {
  const int q = n / 4;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // row group: consecutive threads, consecutive rows
  const int j = blockIdx.y * blockDim.y + threadIdx.y;  // column group
  if (i >= q || j >= q) return;
  const int rows[4] = {i, i + q, i + 2 * q, i + 3 * q};
  const int cols[4] = {j, j + q, j + 2 * q, j + 3 * q};
  T a[4][4];  // a[c][r]
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) a[c][r] = A[rows[r] + cols[c] * lda];
  for (int c = 0; c < 4; ++c) depth2(a[c], u, n, i);  // U^T from the left, on each column
  for (int r = 0; r < 4; ++r) {                       // V from the right, on each row
    T x[4] = {a[0][r], a[1][r], a[2][r], a[3][r]};
    depth2(x, v, n, j);
    for (int c = 0; c < 4; ++c) a[c][r] = x[c];
  }
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) A[rows[r] + cols[c] * lda] = a[c][r];
}

// Refinement's residual in two passes, so that every SM has work and the sums keep a fixed order.
// First: block (x, y) = (256 rows, one chunk of columns); each thread sums its row of the chunk
// in double (complex<double>), in column order (consecutive threads read consecutive rows of a
// column), and the magnitudes |a_ij x_j| in LAPACK's |re| + |im|.
template <class T>
__global__ void residual_chunks_kernel(int n, int chunk_width, const T* A, long long lda, const T* x,
                                       wide_on_device_t<T>* sums, double* magnitudes) {
  using W = wide_on_device_t<T>;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int first = blockIdx.y * chunk_width, last = min(n, first + chunk_width);
  W sum = W(0);
  double magnitude = 0;
  for (int j = first; j < last; ++j) {
    const W term = W(A[i + j * lda]) * W(x[j]);
    sum += term;
    magnitude += abs1(term);
  }
  const long long slot = static_cast<long long>(blockIdx.y) * n + i;
  sums[slot] = sum;
  magnitudes[slot] = magnitude;
}

// Second: r = b - (the chunks' sums, in chunk order), over b, and the row's share of omega,
// |r| / (|b| + their magnitudes), in double (row_omega.hpp). A row so small that underflow may hide
// its residual adds what it can hide, from its reach |b_i| + max_j |a_ij| ||x||_inf, as the CPUs'
// pass does (accuracy.cpp): a pass over the row and x, only in such rows (A and b of subnormal entries).
template <class T>
__global__ void residual_finish_kernel(int n, int chunks, const wide_on_device_t<T>* sums, const double* magnitudes,
                                       const T* A, long long lda, const T* x, T* r, T* w) {
  using W = wide_on_device_t<T>;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const W b = W(r[i]);
  W residual = b;
  double scale = abs1(b);
  for (int c = 0; c < chunks; ++c) {
    residual -= sums[static_cast<long long>(c) * n + i];
    scale += magnitudes[static_cast<long long>(c) * n + i];
  }
  double hidden = 0;
  if (accuracy::may_hide(n, scale)) {
    double row_largest = 0, x_largest = 0;
    for (int j = 0; j < n; ++j) {
      row_largest = fmax(row_largest, abs1(W(A[i + j * lda])));
      x_largest = fmax(x_largest, abs1(W(x[j])));
    }
    hidden = accuracy::underflow_hidden(n, abs1(b) + row_largest * x_largest);
  }
  r[i] = T(residual);
  w[i] = T(accuracy::row_omega(abs1(residual), scale, hidden));
}

// Mixed precision's conversions in device memory: A rounded to single where it landed in double
// (Backend::round_from_wide: an entry beyond single's range becomes 0, as scalar::narrow_or_zero
// makes it on the host; a NaN stays), and the single factors widened to double where they lie
// (widen_to_wide, exactly). Consecutive threads take consecutive rows of a column; the grid's rows
// of blocks stride the columns.
template <class From, class To>
__global__ void convert_kernel(int rows, int cols, const From* from, long long ldf, To* to, long long ldt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  for (long long j = blockIdx.y; j < cols; j += gridDim.y) {
    const From x = from[i + j * ldf];
    if constexpr (sizeof(To) < sizeof(From))
      to[i + j * ldt] = fits_single(x) ? To(x) : To(0);
    else
      to[i + j * ldt] = To(x);
  }
}

// The rows a distributed step's interchanges touch, gathered into a dense block (gather) or scattered
// back (Backend::gather_rows, scatter_rows): row t of `dense` is row rows[t] of A. Consecutive
// threads take consecutive entries of the list; the grid's rows of blocks stride the columns.
template <bool gather, class T>
__global__ void move_rows_kernel(int count, int cols, T* A, long long lda, const int* rows, T* dense, long long ldd) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= count) return;
  const long long row = rows[t];
  for (long long j = blockIdx.y; j < cols; j += gridDim.y)
    if constexpr (gather)
      dense[t + j * ldd] = A[row + j * lda];
    else
      A[row + j * lda] = dense[t + j * ldd];
}

// cuBLAS's batched LU takes arrays of pointers in device memory: system i's A and B.
template <class T>
__global__ void batch_pointers_kernel(int batch, T* A, long long stride_a, T* B, long long stride_b, T** pointers) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= batch) return;
  pointers[i] = A + i * stride_a;
  pointers[batch + i] = B + i * stride_b;
}

// ---- typed library calls ---------------------------------------------------------------------------

cublasStatus_t getrf_batched(cublasHandle_t h, int n, double* const A[], int lda, int* ipiv, int* info, int batch) {
  return cublasDgetrfBatched(h, n, A, lda, ipiv, info, batch);
}
cublasStatus_t getrf_batched(cublasHandle_t h, int n, float* const A[], int lda, int* ipiv, int* info, int batch) {
  return cublasSgetrfBatched(h, n, A, lda, ipiv, info, batch);
}
cublasStatus_t getrs_batched(cublasHandle_t h, int n, int nrhs, const double* const A[], int lda, const int* ipiv,
                             double* const B[], int ldb, int* info, int batch) {
  return cublasDgetrsBatched(h, CUBLAS_OP_N, n, nrhs, A, lda, ipiv, B, ldb, info, batch);
}
cublasStatus_t getrs_batched(cublasHandle_t h, int n, int nrhs, const float* const A[], int lda, const int* ipiv,
                             float* const B[], int ldb, int* info, int batch) {
  return cublasSgetrsBatched(h, CUBLAS_OP_N, n, nrhs, A, lda, ipiv, B, ldb, info, batch);
}

cublasStatus_t trsm(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t op, cublasDiagType_t diag, int m, int n,
                    const double* L, int ldl, double* B, int ldb) {
  const double one = 1;
  return cublasDtrsm(h, CUBLAS_SIDE_LEFT, uplo, op, diag, m, n, &one, L, ldl, B, ldb);
}
cublasStatus_t trsm(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t op, cublasDiagType_t diag, int m, int n,
                    const float* L, int ldl, float* B, int ldb) {
  const float one = 1;
  return cublasStrsm(h, CUBLAS_SIDE_LEFT, uplo, op, diag, m, n, &one, L, ldl, B, ldb);
}
cublasOperation_t operation(Transpose trans) {
  return trans == Transpose::yes ? CUBLAS_OP_T : trans == Transpose::conjugate ? CUBLAS_OP_C : CUBLAS_OP_N;
}
cublasStatus_t gemm_minus(cublasHandle_t h, int m, int n, int k, const double* A, int lda, const double* B, int ldb,
                          double* C, int ldc) {
  const double minus_one = -1, one = 1;
  return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &minus_one, A, lda, B, ldb, &one, C, ldc);
}
cublasStatus_t gemm_minus(cublasHandle_t h, int m, int n, int k, const float* A, int lda, const float* B, int ldb,
                          float* C, int ldc) {
  const float minus_one = -1, one = 1;
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &minus_one, A, lda, B, ldb, &one, C, ldc);
}
using cuda::getrf;  // the real precisions' (cusolver_getrf.hpp); the complex ones below
using cuda::getrf_buffer;
cusolverStatus_t getrs(cusolverDnHandle_t h, int n, int nrhs, const double* LU, int lda, const int* ipiv, double* B,
                       int ldb, int* info) {
  return cusolverDnDgetrs(h, CUBLAS_OP_N, n, nrhs, LU, lda, ipiv, B, ldb, info);
}
cusolverStatus_t getrs(cusolverDnHandle_t h, int n, int nrhs, const float* LU, int lda, const int* ipiv, float* B,
                       int ldb, int* info) {
  return cusolverDnSgetrs(h, CUBLAS_OP_N, n, nrhs, LU, lda, ipiv, B, ldb, info);
}

// The complex ones: std::complex and cuComplex share their layout.
using Cf = std::complex<float>;
using Zd = std::complex<double>;
cuComplex* cu(Cf* p) {
  return reinterpret_cast<cuComplex*>(p);
}
const cuComplex* cu(const Cf* p) {
  return reinterpret_cast<const cuComplex*>(p);
}
cuDoubleComplex* cu(Zd* p) {
  return reinterpret_cast<cuDoubleComplex*>(p);
}
const cuDoubleComplex* cu(const Zd* p) {
  return reinterpret_cast<const cuDoubleComplex*>(p);
}
cuComplex* const* cu(Cf* const* p) {
  return reinterpret_cast<cuComplex* const*>(p);
}
cuDoubleComplex* const* cu(Zd* const* p) {
  return reinterpret_cast<cuDoubleComplex* const*>(p);
}
const cuComplex* const* cu_const(Cf* const* p) {
  return reinterpret_cast<const cuComplex* const*>(p);
}
const cuDoubleComplex* const* cu_const(Zd* const* p) {
  return reinterpret_cast<const cuDoubleComplex* const*>(p);
}

cublasStatus_t getrf_batched(cublasHandle_t h, int n, Cf* const A[], int lda, int* ipiv, int* info, int batch) {
  return cublasCgetrfBatched(h, n, cu(A), lda, ipiv, info, batch);
}
cublasStatus_t getrf_batched(cublasHandle_t h, int n, Zd* const A[], int lda, int* ipiv, int* info, int batch) {
  return cublasZgetrfBatched(h, n, cu(A), lda, ipiv, info, batch);
}
cublasStatus_t getrs_batched(cublasHandle_t h, int n, int nrhs, Cf* const A[], int lda, const int* ipiv, Cf* const B[],
                             int ldb, int* info, int batch) {
  return cublasCgetrsBatched(h, CUBLAS_OP_N, n, nrhs, cu_const(A), lda, ipiv, cu(B), ldb, info, batch);
}
cublasStatus_t getrs_batched(cublasHandle_t h, int n, int nrhs, Zd* const A[], int lda, const int* ipiv, Zd* const B[],
                             int ldb, int* info, int batch) {
  return cublasZgetrsBatched(h, CUBLAS_OP_N, n, nrhs, cu_const(A), lda, ipiv, cu(B), ldb, info, batch);
}
cublasStatus_t trsm(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t op, cublasDiagType_t diag, int m, int n,
                    const Cf* L, int ldl, Cf* B, int ldb) {
  const cuComplex one{1, 0};
  return cublasCtrsm(h, CUBLAS_SIDE_LEFT, uplo, op, diag, m, n, &one, cu(L), ldl, cu(B), ldb);
}
cublasStatus_t trsm(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t op, cublasDiagType_t diag, int m, int n,
                    const Zd* L, int ldl, Zd* B, int ldb) {
  const cuDoubleComplex one{1, 0};
  return cublasZtrsm(h, CUBLAS_SIDE_LEFT, uplo, op, diag, m, n, &one, cu(L), ldl, cu(B), ldb);
}
cublasStatus_t gemm_minus(cublasHandle_t h, int m, int n, int k, const Cf* A, int lda, const Cf* B, int ldb, Cf* C,
                          int ldc) {
  const cuComplex minus_one{-1, 0}, one{1, 0};
  return cublasCgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &minus_one, cu(A), lda, cu(B), ldb, &one, cu(C), ldc);
}
cublasStatus_t gemm_minus(cublasHandle_t h, int m, int n, int k, const Zd* A, int lda, const Zd* B, int ldb, Zd* C,
                          int ldc) {
  const cuDoubleComplex minus_one{-1, 0}, one{1, 0};
  return cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &minus_one, cu(A), lda, cu(B), ldb, &one, cu(C), ldc);
}
cusolverStatus_t getrf_buffer(cusolverDnHandle_t h, int m, int n, Cf* A, int lda, int* size) {
  return cusolverDnCgetrf_bufferSize(h, m, n, cu(A), lda, size);
}
cusolverStatus_t getrf_buffer(cusolverDnHandle_t h, int m, int n, Zd* A, int lda, int* size) {
  return cusolverDnZgetrf_bufferSize(h, m, n, cu(A), lda, size);
}
cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, Cf* A, int lda, Cf* work, int* ipiv, int* info) {
  return cusolverDnCgetrf(h, m, n, cu(A), lda, cu(work), ipiv, info);
}
cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, Zd* A, int lda, Zd* work, int* ipiv, int* info) {
  return cusolverDnZgetrf(h, m, n, cu(A), lda, cu(work), ipiv, info);
}

// ---- the backend ------------------------------------------------------------------------------------

struct CudaEvent : Event {
  cudaEvent_t event = nullptr;
  ~CudaEvent() override {
    if (event) cudaEventDestroy(event);
  }
};

// cudaMalloc of `bytes` for `what` on `device`; out of memory is DeviceOutOfMemory, with the free
// memory said, so that callers that can do without (a batch's chunks, the mixed and PRBT device paths'
// fallback to the CPUs) catch it.
void* device_malloc(std::size_t bytes, const std::string& what, const std::string& device) {
  void* p = nullptr;
  const cudaError_t status = cudaMalloc(&p, bytes);
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky: clear it
    std::size_t free_bytes = 0, total = 0;
    const bool known = cudaMemGetInfo(&free_bytes, &total) == cudaSuccess;
    if (!known) cudaGetLastError();
    throw DeviceOutOfMemory(
        "cuda backend: out of device memory: " + what + " needs " + detail::readable_bytes(double(bytes)) + ", " +
        (known ? detail::readable_bytes(double(free_bytes)) : std::string("an unknown amount")) + " free on " + device);
  }
  check(status, "cudaMalloc");
  return p;
}

// Device scratch that grows on demand and is freed with the backend.
struct Scratch {
  void* pointer = nullptr;
  std::size_t bytes = 0;
  void* reserve(std::size_t want, const char* what, const std::string& device) {
    if (want <= bytes) return pointer;
    if (pointer) check(cudaFree(pointer), what);
    pointer = nullptr, bytes = 0;
    pointer = device_malloc(want, what, device);
    bytes = want;
    return pointer;
  }
  ~Scratch() {
    if (pointer) cudaFree(pointer);
  }
};

// Page-locked host blocks, recycled: cudaHostAlloc of a block column takes milliseconds (the pages
// are locked one by one), so the staging slots a plan's solve frees serve its next solve and every
// tuning trial after the first. Blocks go back to the driver beyond `keep_bytes` and with the backend.
class PinnedPool {
 public:
  explicit PinnedPool(std::size_t keep_bytes) : keep_bytes_(keep_bytes) {}
  ~PinnedPool() {
    for (auto& [bytes, p] : free_) cudaFreeHost(p);
  }
  void* take(std::size_t bytes) {
    {
      std::lock_guard lock(mutex_);
      // The smallest free block that fits, if not more than twice the size (a slot of a small solve
      // does not hold a large one's block).
      auto it = free_.lower_bound(bytes);
      if (it != free_.end() && it->first <= 2 * bytes) {
        void* p = it->second;
        held_ -= it->first;
        sizes_[p] = it->first;
        free_.erase(it);
        return p;
      }
    }
    void* p = nullptr;
    const cudaError_t status = cudaHostAlloc(&p, std::max<std::size_t>(1, bytes), cudaHostAllocPortable);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw Error("cuda backend: page-locking a staging buffer of " + detail::readable_bytes(double(bytes)) +
                  " failed");
    }
    check(status, "cudaHostAlloc (staging)");
    std::lock_guard lock(mutex_);
    sizes_[p] = std::max<std::size_t>(1, bytes);
    return p;
  }
  void give_back(void* p) {
    std::lock_guard lock(mutex_);
    const std::size_t bytes = sizes_.at(p);
    sizes_.erase(p);
    if (held_ + bytes <= keep_bytes_) {
      free_.emplace(bytes, p);
      held_ += bytes;
    } else {
      cudaFreeHost(p);
    }
  }

 private:
  std::mutex mutex_;
  std::size_t keep_bytes_, held_ = 0;
  std::multimap<std::size_t, void*> free_;
  std::map<void*, std::size_t> sizes_;
};

template <class T>
class CudaBackend final : public Backend<T> {
 public:
  CudaBackend() {
    try {
      create();
    } catch (...) {  // the destructor does not run for a constructor that throws: what was made goes here
      release();
      throw;
    }
  }
  ~CudaBackend() override { release(); }

 private:
  void create() {
    check(cudaGetDevice(&device_), "cudaGetDevice");
    cudaDeviceProp properties{};
    check(cudaGetDeviceProperties(&properties, device_), "cudaGetDeviceProperties");
    name_ = properties.name;
    // The panel queue at the highest priority: the look-ahead's panel is a chain of small,
    // latency-bound kernels that would otherwise wait behind the waves of the update's GEMM.
    int least = 0, greatest = 0;
    check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
    for (int q = 0; q < queue_count; ++q)
      check(cudaStreamCreateWithPriority(&streams_[q], cudaStreamNonBlocking,
                                         q == static_cast<int>(Queue::panel) ? greatest : least),
            "cudaStreamCreateWithPriority");
    check(cublasCreate(&blas_), "cublasCreate");
    check(cusolverDnCreate(&solver_), "cusolverDnCreate");
    // HETLU_CUDA_TF32=1 (read here, once per backend; default off): every single-precision GEMM on
    // this backend, real and complex, on the tensor cores in TF32 (10-bit mantissa; an H100 runs FP32 and FP64 GEMM
    // alike, about 55 TFlop/s, and TF32 several times faster). Meant for the mixed path, whose
    // refinement in double restores the accuracy or falls back to double (#15 item 5); a
    // --precision single solve loses what TF32 loses, and its backward error says so.
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, std::complex<float>>)
      if (detail::cuda_tf32_requested())
        check(cublasSetMathMode(blas_, CUBLAS_TF32_TENSOR_OP_MATH), "cublasSetMathMode (TF32)");
  }
  void release() {
    for (auto s : streams_)
      if (s) cudaStreamSynchronize(s);
    if (solver_) cusolverDnDestroy(solver_);
    if (blas_) cublasDestroy(blas_);
    for (auto s : streams_)
      if (s) cudaStreamDestroy(s);
    solver_ = nullptr, blas_ = nullptr;
    for (auto& s : streams_) s = nullptr;
  }

 public:
  BackendKind kind() const override { return BackendKind::cuda; }
  std::string device_name() const override { return name_; }

  DeviceMatrix<T> allocate(int rows, int cols) override {
    DeviceMatrix<T> m;
    m.rows = rows, m.cols = cols, m.ld = std::max(1, rows);
    const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(m.ld) * std::max(1, cols);
    void* p = device_malloc(bytes, "a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
    m.storage = std::shared_ptr<T>(static_cast<T*>(p), [](T* q) { cudaFree(q); });
    return m;
  }
  void* device_malloc(std::size_t bytes, const std::string& what) {
    return backends::device_malloc(bytes, what, name_);
  }

  std::shared_ptr<int> allocate_ints(int count) override {
    void* p = device_malloc(sizeof(int) * std::max(1, count), std::to_string(count) + " pivots");
    return std::shared_ptr<int>(static_cast<int*>(p), [](int* q) { cudaFree(q); });
  }
  void copy_ints_to_device(Queue q, int count, const int* host, int* device) override {
    if (count <= 0) return;
    check(cudaMemcpyAsync(device, host, sizeof(int) * count, cudaMemcpyHostToDevice, stream(q)),
          "cudaMemcpyAsync (pivots to the device)");
  }
  void copy_ints_to_host(Queue q, int count, const int* device, int* host) override {
    if (count <= 0) return;
    check(cudaMemcpyAsync(host, device, sizeof(int) * count, cudaMemcpyDeviceToHost, stream(q)),
          "cudaMemcpyAsync (pivots to the host)");
  }

  void copy_to_device(Queue q, int rows, int cols, const T* host, int ldh, T* device, int ldd) override {
    copy_2d(q, rows, cols, host, ldh, device, ldd, cudaMemcpyHostToDevice, "cudaMemcpy2DAsync to the device");
  }
  void copy_to_host(Queue q, int rows, int cols, const T* device, int ldd, T* host, int ldh) override {
    copy_2d(q, rows, cols, device, ldd, host, ldh, cudaMemcpyDeviceToHost, "cudaMemcpy2DAsync to the host");
  }
  void copy_on_device(Queue q, int rows, int cols, const T* from, int ldf, T* to, int ldt) override {
    copy_2d(q, rows, cols, from, ldf, to, ldt, cudaMemcpyDeviceToDevice, "cudaMemcpy2DAsync within the device");
  }

  void gather_rows(Queue q, int count, int cols, const T* A, int lda, const int* rows, T* out, int ldo) override {
    move_rows<true>(q, count, cols, const_cast<T*>(A), lda, rows, out, ldo);
  }
  void scatter_rows(Queue q, int count, int cols, const T* in, int ldi, const int* rows, T* A, int lda) override {
    move_rows<false>(q, count, cols, A, lda, rows, const_cast<T*>(in), ldi);
  }

  void round_from_wide(Queue q, int rows, int cols, const scalar::wide_t<T>* from, int ldf, T* to, int ldt) override {
    convert(q, rows, cols, from, ldf, to, ldt);
  }
  void widen_to_wide(Queue q, int rows, int cols, const T* from, int ldf, scalar::wide_t<T>* to, int ldt) override {
    convert(q, rows, cols, from, ldf, to, ldt);
  }
  // to <- from in To (convert_kernel); a copy where the types agree.
  template <class From, class To>
  void convert(Queue q, int rows, int cols, const From* from, int ldf, To* to, int ldt) {
    if constexpr (std::is_same_v<From, To>) {
      copy_on_device(q, rows, cols, from, ldf, to, ldt);
    } else {
      if (rows <= 0 || cols <= 0) return;
      const int threads = 256;
      const dim3 blocks((rows + threads - 1) / threads, std::min(cols, 4096));
      convert_kernel<<<blocks, threads, 0, stream(q)>>>(rows, cols, device_view(from), ldf, device_view(to), ldt);
      check_launch(sizeof(To) < sizeof(From) ? "rounding kernel" : "widening kernel");
    }
  }

  void laswp(Queue q, int cols, T* A, int lda, int k1, int k2, const int* pivots) override {
    const int count = k2 - k1;
    if (cols <= 0 || count <= 0) return;
    const std::size_t moved_bytes = sizeof(T) * 2 * static_cast<std::size_t>(count);
    if (interchanges_in_order_ || moved_bytes > 32 * 1024) {  // over 2048 pivots in double: beyond shared memory
      const int threads = 128;
      laswp_kernel<<<(cols + threads - 1) / threads, threads, 0, stream(q)>>>(cols, device_view(A), lda, k1, count,
                                                                              pivots);
      check_launch("laswp kernel");
      return;
    }
    int* plan = static_cast<int*>(interchange_plans_[int(q)].reserve(sizeof(int) * (1 + 4 * std::size_t(count)),
                                                                     "the interchanges' plan", name_));
    interchange_plan_kernel<<<1, std::min(1024, (count + 31) / 32 * 32), sizeof(int) * count, stream(q)>>>(
        count, pivots, plan);
    check_launch("interchange plan kernel");
    const int columns_per_block = 4;
    interchange_kernel<<<(cols + columns_per_block - 1) / columns_per_block, 256, moved_bytes, stream(q)>>>(
        cols, columns_per_block, device_view(A), lda, k1, count, plan, pivots);
    check_launch("interchange kernel");
  }

  void trsm_lower_unit(Queue q, int m, int n, const T* L, int ldl, T* B, int ldb, Transpose trans) override {
    if (m <= 0 || n <= 0) return;
    check(cublasSetStream(blas_, stream(q)), "cublasSetStream");
    check(trsm(blas_, CUBLAS_FILL_MODE_LOWER, operation(trans), CUBLAS_DIAG_UNIT, m, n, L, ldl, B, ldb), "trsm (L)");
  }
  void trsm_upper(Queue q, int m, int n, const T* U, int ldu, T* B, int ldb, Transpose trans) override {
    if (m <= 0 || n <= 0) return;
    check(cublasSetStream(blas_, stream(q)), "cublasSetStream");
    check(trsm(blas_, CUBLAS_FILL_MODE_UPPER, operation(trans), CUBLAS_DIAG_NON_UNIT, m, n, U, ldu, B, ldb),
          "trsm (U)");
  }
  void gemm_minus(Queue q, int m, int n, int k, const T* A, int lda, const T* B, int ldb, T* C, int ldc) override {
    if (m <= 0 || n <= 0 || k <= 0) return;
    check(cublasSetStream(blas_, stream(q)), "cublasSetStream");
    check(backends::gemm_minus(blas_, m, n, k, A, lda, B, ldb, C, ldc), "gemm");
  }

  void getrf_panel(Queue q, int rows, int cols, T* A, int lda, int* pivots, int* info, bool pivoting) override {
    if (rows <= 0 || cols <= 0) {
      check(cudaMemsetAsync(info, 0, sizeof(int), stream(q)), "cudaMemsetAsync (info)");
      return;
    }
    check(cusolverDnSetStream(solver_, stream(q)), "cusolverDnSetStream");
    int lwork = 0;
    check(getrf_buffer(solver_, rows, cols, A, lda, &lwork), "getrf_bufferSize");
    // Grown only between panels of different sizes: cudaFree waits for the device, which a
    // factorization's panels (the first is the widest) never ask for.
    T* work = static_cast<T*>(work_.reserve(sizeof(T) * std::max(1, lwork), "getrf's workspace", name_));
    // A null pivot array asks cuSOLVER for LU without pivoting (PRBT's GENP).
    check(getrf(solver_, rows, cols, A, lda, work, pivoting ? pivots : nullptr, info), "getrf (panel)");
  }

  void butterflies_two_sided(Queue q, int n, const T* u, const T* v, T* A, int lda) override {
    if (n <= 0) return;
    if (n % 4 != 0) throw InvalidArgument("butterflies: n = " + std::to_string(n) + " is not a multiple of 4");
    T* values = static_cast<T*>(butterfly_values_.reserve(sizeof(T) * 4 * n, "the butterflies", name_));
    check(cudaMemcpyAsync(values, u, sizeof(T) * 2 * n, cudaMemcpyHostToDevice, stream(q)), "cudaMemcpyAsync (U)");
    check(cudaMemcpyAsync(values + 2 * n, v, sizeof(T) * 2 * n, cudaMemcpyHostToDevice, stream(q)),
          "cudaMemcpyAsync (V)");
    const dim3 threads(64, 4);
    const int q4 = n / 4;
    const dim3 blocks((q4 + threads.x - 1) / threads.x, (q4 + threads.y - 1) / threads.y);
    butterflies_kernel<<<blocks, threads, 0, stream(q)>>>(n, device_view(values), device_view(values + 2 * n),
                                                          device_view(A), lda);
    check_launch("butterflies kernel");
  }

  void residual(Queue q, int n, int nrhs, const T* A, int lda, const T* X, int ldx, T* R, int ldr, T* W_,
                int ldw) override {
    if (n <= 0 || nrhs <= 0) return;
    // About 64 chunks of at least 256 columns: n = 32768 gives 128 x 64 blocks of 256 threads.
    using W = wide_on_device_t<device_t<T>>;
    const int chunks = std::max(1, std::min(64, n / 256));
    const int width = (n + chunks - 1) / chunks;
    const std::size_t slots = static_cast<std::size_t>(chunks) * n;
    W* sums = static_cast<W*>(
        residual_sums_[int(q)].reserve((sizeof(W) + sizeof(double)) * slots, "the residual's sums", name_));
    double* magnitudes = reinterpret_cast<double*>(sums + slots);
    const int threads = 256, row_blocks = (n + threads - 1) / threads;
    for (int r = 0; r < nrhs; ++r) {  // one right-hand side at a time: the sums' buffer is reused in order
      const long long column = static_cast<long long>(r);
      residual_chunks_kernel<<<dim3(row_blocks, chunks), threads, 0, stream(q)>>>(
          n, width, device_view(A), lda, device_view(X + column * ldx), sums, magnitudes);
      check_launch("residual kernel (chunks)");
      residual_finish_kernel<<<row_blocks, threads, 0, stream(q)>>>(
          n, chunks, sums, magnitudes, device_view(A), lda, device_view(X + column * ldx),
          device_view(R + column * ldr), device_view(W_ + column * ldw));
      check_launch("residual kernel (finish)");
    }
  }

  void gesv_batched(Queue q, int batch, int n, int nrhs, T* A, int lda, int stride_a, int* ipiv, T* B, int ldb,
                    int stride_b, int* info) override {
    if (batch <= 0 || n <= 0) return;
    // The pointer arrays in stream order: allocated, filled, read and freed on q, so that nothing
    // waits for the device here.
    void* memory = nullptr;
    check(cudaMallocAsync(&memory, sizeof(T*) * 2 * static_cast<std::size_t>(batch), stream(q)),
          "cudaMallocAsync (the batch's pointers)");
    std::unique_ptr<void, std::function<void(void*)>> release(memory,
                                                              [s = stream(q)](void* p) { cudaFreeAsync(p, s); });
    T** pointers = static_cast<T**>(memory);
    const int threads = 256;
    batch_pointers_kernel<<<(batch + threads - 1) / threads, threads, 0, stream(q)>>>(
        batch, device_view(A), stride_a, device_view(B), stride_b, reinterpret_cast<device_t<T>**>(pointers));
    check_launch("batch pointers kernel");
    check(cublasSetStream(blas_, stream(q)), "cublasSetStream");
    check(getrf_batched(blas_, n, pointers, lda, ipiv, info, batch), "getrfBatched");
    if (nrhs <= 0) return;
    int argument = 0;  // getrsBatched checks its arguments on the host; a singular system's B is left undefined
    check(getrs_batched(blas_, n, nrhs, pointers, lda, ipiv, pointers + batch, ldb, &argument, batch), "getrsBatched");
    if (argument != 0) throw Error("cuBLAS: getrsBatched rejected argument " + std::to_string(-argument));
  }

  EventPtr record(Queue q) override {
    auto e = std::make_shared<CudaEvent>();
    check(cudaEventCreateWithFlags(&e->event, cudaEventDisableTiming), "cudaEventCreate");
    check(cudaEventRecord(e->event, stream(q)), "cudaEventRecord");
    return e;
  }
  EventPtr record_timed(Queue q) override {
    auto e = std::make_shared<CudaEvent>();
    check(cudaEventCreate(&e->event), "cudaEventCreate");
    check(cudaEventRecord(e->event, stream(q)), "cudaEventRecord");
    return e;
  }
  double elapsed_seconds(const EventPtr& from, const EventPtr& to) override {
    float ms = 0;
    check(cudaEventSynchronize(cuda_event(to)), "cudaEventSynchronize");
    check(cudaEventElapsedTime(&ms, cuda_event(from), cuda_event(to)), "cudaEventElapsedTime");
    return ms * 1e-3;
  }
  void wait(Queue q, const EventPtr& event) override {
    check(cudaStreamWaitEvent(stream(q), cuda_event(event), 0), "cudaStreamWaitEvent");
  }
  void host_wait(const EventPtr& event) override {
    check(cudaEventSynchronize(cuda_event(event)), "cudaEventSynchronize");
  }
  void synchronize() override {
    for (auto s : streams_) check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    check(cudaGetLastError(), "a kernel on the device");
  }

 private:
  cudaStream_t stream(Queue q) const { return streams_[int(q)]; }
  // gather_rows (A only read) and scatter_rows (dense only read).
  template <bool gather>
  void move_rows(Queue q, int count, int cols, T* A, int lda, const int* rows, T* dense, int ldd) {
    if (count <= 0 || cols <= 0) return;
    const int threads = 128;
    const dim3 blocks((count + threads - 1) / threads, std::min(cols, 4096));
    move_rows_kernel<gather>
        <<<blocks, threads, 0, stream(q)>>>(count, cols, device_view(A), lda, rows, device_view(dense), ldd);
    check_launch(gather ? "gather rows kernel" : "scatter rows kernel");
  }
  // A rows x cols column-major block from `from` (leading dimension ldf) to `to` (ldt), queued on q.
  void copy_2d(Queue q, int rows, int cols, const T* from, int ldf, T* to, int ldt, cudaMemcpyKind kind,
               const char* what) {
    if (rows <= 0 || cols <= 0) return;
    // Contiguous: one plain copy (a batch's systems are rows = n^2 entries a "column", whose pitch
    // may pass cudaMemcpy2D's limit, 2^31 bytes on an H100, from n = 16384 in double).
    if (rows == ldf && rows == ldt) {
      check(cudaMemcpyAsync(to, from, sizeof(T) * std::size_t(rows) * std::size_t(cols), kind, stream(q)), what);
      return;
    }
    check(cudaMemcpy2DAsync(to, sizeof(T) * ldt, from, sizeof(T) * ldf, sizeof(T) * rows, cols, kind, stream(q)), what);
  }
  static cudaEvent_t cuda_event(const EventPtr& event) {
    auto e = std::dynamic_pointer_cast<CudaEvent>(event);
    if (!e) throw Error("cuda backend: waiting on an event of another backend");
    return e->event;
  }

  int device_ = 0;
  std::string name_;
  cudaStream_t streams_[queue_count] = {};
  cublasHandle_t blas_ = nullptr;
  cusolverDnHandle_t solver_ = nullptr;
  Scratch residual_sums_[queue_count], interchange_plans_[queue_count], work_, butterfly_values_;
  // HETLU_CUDA_LASWP=in_order (read once per backend; default unset: the gather): row interchanges
  // by the in-order kernel, to measure the gather against it in one run.
  const bool interchanges_in_order_ =
      detail::env_choice("HETLU_CUDA_LASWP", {"gather", "in_order"}, "gather") == "in_order";
  // Staging slots of one solve (a few block columns) and the next's: up to 4 GiB kept.
  std::shared_ptr<PinnedPool> pinned_ = std::make_shared<PinnedPool>(std::size_t(4) << 30);

 protected:
  std::shared_ptr<void> allocate_pinned_bytes(std::size_t bytes) override {
    void* p = pinned_->take(bytes);
    return std::shared_ptr<void>(p, [pool = pinned_](void* q) { pool->give_back(q); });
  }
};

}  // namespace

template <class T>
VendorLuTiming cuda_time_vendor_lu(int m, int n, const T* A, int lda, int nrhs, int reps) {
  std::string why;
  if (!cuda_device_present(&why)) throw Error("cuSOLVER reference: " + why);
  CudaBackend<T> device;  // its own handles and memory, freed on return
  // A goes up again before each getrf (timed: the upload a host caller pays).
  auto dLU = device.allocate(m, n), dB = device.allocate(std::max(1, n), nrhs);
  std::vector<T> ones(static_cast<std::size_t>(std::max(1, n)) * nrhs, T(1));
  device.copy_to_device(Queue::compute, n, nrhs, ones.data(), std::max(1, n), dB.data(), dB.ld);
  device.synchronize();
  cusolverDnHandle_t solver = nullptr;
  check(cusolverDnCreate(&solver), "cusolverDnCreate");
  std::shared_ptr<void> release(nullptr, [solver](void*) { cusolverDnDestroy(solver); });
  int lwork = 0;
  check(getrf_buffer(solver, m, n, dLU.data(), dLU.ld, &lwork), "getrf_bufferSize");
  auto work = device.allocate(std::max(1, lwork), 1);
  int* ints = nullptr;
  check(cudaMalloc(&ints, sizeof(int) * (std::min(m, n) + 1)), "cudaMalloc");
  std::shared_ptr<void> release_ints(nullptr, [ints](void*) { cudaFree(ints); });
  cuda::EventTimer timer;
  auto elapsed = [&](auto&& run) { return timer.seconds(run); };
  std::vector<double> factor, solve, upload, download;
  std::vector<T> factors(static_cast<std::size_t>(std::max(1, m)) * n);  // pageable, as a caller's
  for (int r = 0; r <= reps; ++r) {                                      // r = 0 warms up
    const double up = elapsed([&] {
      check(cudaMemcpy2D(dLU.data(), sizeof(T) * dLU.ld, A, sizeof(T) * lda, sizeof(T) * m, n, cudaMemcpyHostToDevice),
            "cudaMemcpy2D to the device");
    });
    const double f = elapsed(
        [&] { check(getrf(solver, m, n, dLU.data(), dLU.ld, work.data(), ints, ints + std::min(m, n)), "getrf"); });
    const double s = m == n ? elapsed([&] {
      check(getrs(solver, n, nrhs, dLU.data(), dLU.ld, ints, dB.data(), dB.ld, ints + std::min(m, n)), "getrs");
    })
                            : 0.0;
    const double down = elapsed([&] {
      check(cudaMemcpy2D(factors.data(), sizeof(T) * std::max(1, m), dLU.data(), sizeof(T) * dLU.ld, sizeof(T) * m, n,
                         cudaMemcpyDeviceToHost),
            "cudaMemcpy2D to the host");
    });
    if (r > 0) factor.push_back(f), solve.push_back(s), upload.push_back(up), download.push_back(down);
  }
  using detail::median;
  int version = 0;
  check(cusolverGetVersion(&version), "cusolverGetVersion");
  return {"cuSOLVER " + std::to_string(version), median(factor), median(solve), median(upload), median(download)};
}

bool cuda_device_present(std::string* why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    if (why) *why = std::string("no usable CUDA device (") + cudaGetErrorString(status) + ")";
    return false;
  }
  if (count == 0) {
    if (why) *why = "no CUDA device";
    return false;
  }
  return true;
}

template <class T>
std::unique_ptr<Backend<T>> make_cuda_backend() {
  return std::make_unique<CudaBackend<T>>();
}

template VendorLuTiming cuda_time_vendor_lu<float>(int, int, const float*, int, int, int);
template VendorLuTiming cuda_time_vendor_lu<double>(int, int, const double*, int, int, int);
template std::unique_ptr<Backend<float>> make_cuda_backend<float>();
template std::unique_ptr<Backend<double>> make_cuda_backend<double>();
template std::unique_ptr<Backend<std::complex<float>>> make_cuda_backend<std::complex<float>>();
template std::unique_ptr<Backend<std::complex<double>>> make_cuda_backend<std::complex<double>>();

}  // namespace hetlu::backends
