#include "solvers/vendor_lapack.hpp"

#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "hetlu/types.hpp"
#include "solvers/blas_threads.hpp"
#include "solvers/scalar.hpp"
#include "solvers/tiny_lu.hpp"

namespace hetlu::vendor {
namespace {

using getrf_fn = void (*)(const int*, const int*, void*, const int*, int*, int*);
using gesv_fn = void (*)(const int*, const int*, void*, const int*, int*, void*, const int*, int*);
using getrs_fn = void (*)(const char*, const int*, const int*, const void*, const int*, const int*, void*, const int*,
                          int*, std::size_t);

struct Routines {
  getrf_fn dgetrf = nullptr, sgetrf = nullptr, zgetrf = nullptr, cgetrf = nullptr;
  gesv_fn dgesv = nullptr, sgesv = nullptr, zgesv = nullptr, cgesv = nullptr;
  getrs_fn dgetrs = nullptr, sgetrs = nullptr, zgetrs = nullptr, cgetrs = nullptr;  // optional
  const char* why = nullptr;
};

// A symbol of the library that defines openblas_get_num_threads, and only if it is defined there.
void* own_symbol(void* library, const char* library_file, const char* name) {
  void* symbol = dlsym(library, name);
  Dl_info where{};
  if (!symbol || !dladdr(symbol, &where) || !where.dli_fname || std::strcmp(where.dli_fname, library_file) != 0)
    return nullptr;
  return symbol;
}

Routines find() {
  Routines r;
  Dl_info blas{};
  if (!dladdr(reinterpret_cast<void*>(&openblas_get_num_threads), &blas) || !blas.dli_fname) {
    r.why = "the BLAS library is not a shared library";
    return r;
  }
  void* library = dlopen(blas.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (!library) {
    r.why = "the BLAS library cannot be opened again";
    return r;
  }
  r.dgetrf = reinterpret_cast<getrf_fn>(own_symbol(library, blas.dli_fname, "dgetrf_"));
  r.sgetrf = reinterpret_cast<getrf_fn>(own_symbol(library, blas.dli_fname, "sgetrf_"));
  r.dgesv = reinterpret_cast<gesv_fn>(own_symbol(library, blas.dli_fname, "dgesv_"));
  r.sgesv = reinterpret_cast<gesv_fn>(own_symbol(library, blas.dli_fname, "sgesv_"));
  r.zgetrf = reinterpret_cast<getrf_fn>(own_symbol(library, blas.dli_fname, "zgetrf_"));
  r.cgetrf = reinterpret_cast<getrf_fn>(own_symbol(library, blas.dli_fname, "cgetrf_"));
  r.zgesv = reinterpret_cast<gesv_fn>(own_symbol(library, blas.dli_fname, "zgesv_"));
  r.cgesv = reinterpret_cast<gesv_fn>(own_symbol(library, blas.dli_fname, "cgesv_"));
  r.dgetrs = reinterpret_cast<getrs_fn>(own_symbol(library, blas.dli_fname, "dgetrs_"));
  r.sgetrs = reinterpret_cast<getrs_fn>(own_symbol(library, blas.dli_fname, "sgetrs_"));
  r.zgetrs = reinterpret_cast<getrs_fn>(own_symbol(library, blas.dli_fname, "zgetrs_"));
  r.cgetrs = reinterpret_cast<getrs_fn>(own_symbol(library, blas.dli_fname, "cgetrs_"));
  if (!r.dgetrf || !r.sgetrf || !r.dgesv || !r.sgesv || !r.zgetrf || !r.cgetrf || !r.zgesv || !r.cgesv) {
    r = Routines{};
    r.why = "the BLAS library has no LAPACK getrf and gesv of its own";
  }
  return r;  // the library stays open: it is hetlu's own dependency
}

const Routines& routines() {
  static const Routines found = find();
  return found;
}

}  // namespace

bool available(const char** why) {
  if (why) *why = routines().why;
  return routines().dgetrf != nullptr;
}

template <class T, class F>
F pick(F d, F s, F z, F c) {
  if constexpr (std::is_same_v<T, double>) return d;
  if constexpr (std::is_same_v<T, float>) return s;
  if constexpr (std::is_same_v<T, std::complex<double>>) return z;
  if constexpr (std::is_same_v<T, std::complex<float>>) return c;
}

// Whether count real values are all finite, each zero or at least min * 2^(2 digits), and, as the
// parts of complex entries, each below max / 4 (a complex pivot beyond that has no reciprocal in
// the library's complex division: scalar::beyond_complex_division), read by their exponent bits:
// branch-free integer adds, shifts and ors, which the compiler vectorizes even for SSE2 (with a
// compare per entry the scan ran at 1 ns an entry, a quarter of OpenBLAS's dgetrf at n = 16 to 64;
// 0.5 ns with these, 0.27 with AVX2's lanes). Each value also into copy, in the same pass: kept
// while the library factors (below).
template <class R, bool complex_parts>
__attribute__((always_inline)) inline bool plain_values_core(const R* x, long long count, R* copy) {
  using Bits = std::conditional_t<sizeof(R) == 8, std::uint64_t, std::uint32_t>;
  constexpr int mantissa = std::numeric_limits<R>::digits - 1;
  constexpr Bits exponent_mask = (Bits(1) << (sizeof(R) * 8 - 1 - mantissa)) - 1;  // all ones: Inf or NaN
  constexpr Bits lowest_exponent = 1 + 2 * std::numeric_limits<R>::digits;         // biased, of the bound
  constexpr int top = sizeof(Bits) * 8 - 1, exponent_bits = top - mantissa;
  constexpr Bits top_margin = complex_parts ? 3 : 1;  // the exponents counted as the top: all ones, or 3 of them
  Bits bad = 0;
  for (long long i = 0; i < count; ++i) {  // no compares: SSE2 has none for 64-bit lanes
    Bits bits;
    std::memcpy(&bits, x + i, sizeof bits);
    std::memcpy(copy + i, &bits, sizeof bits);
    const Bits exponent = (bits >> mantissa) & exponent_mask, magnitude = bits << 1;
    const Bits special = (exponent + top_margin) >> exponent_bits;    // Inf or NaN (complex: at least max / 4)
    const Bits below = (exponent - lowest_exponent) >> top;           // wraps around when lower
    const Bits nonzero = (magnitude | (Bits(0) - magnitude)) >> top;  // any bit but the sign
    bad |= special | (below & nonzero);
  }
  return bad == 0;
}

// The wide scans, built for AVX2 (64-bit lanes 4 wide) and for the baseline, chosen when loaded.
#if defined(__x86_64__) && defined(__GNUC__)
#define HETLU_SCAN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define HETLU_SCAN_CLONES
#endif
template <class R, bool complex_parts>
HETLU_SCAN_CLONES bool plain_values_wide(const R* x, long long count, R* copy) {
  return plain_values_core<R, complex_parts>(x, count, copy);
}

// A few values (n <= 3) skip the call through the clones' resolver.
template <bool complex_parts, class R>
bool plain_values(const R* x, long long count, R* copy) {
  return count < 16 ? plain_values_core<R, complex_parts>(x, count, copy)
                    : plain_values_wide<R, complex_parts>(x, count, copy);
}

// OpenBLAS's LU scales each column by the reciprocal of its pivot, where LAPACK's divides by a pivot
// whose reciprocal would overflow: a subnormal pivot (|p| < 1 / max) turned whole factors into NaN
// with INFO = 0 (n = 300, A(1, 1) = 1e-310), and its isamax passed over a NaN in single (the NaN
// stayed where it was, the rest finite). hetlu's own LU does neither. So the library gets A only
// where every entry is finite and each nonzero one at least min * 2^(2 digits) (and, complex, each
// part below max / 4); the rest goes to hetlu's LU. A pivot can still come out below 1 / max from
// entries far above that: a product of two (1e-160 x 1e-160 beside a zero, n = 40, found by a
// hostile test on 2026-11-27, where the drop-in then aborted the caller). So A (and gesv's B) is
// kept while the library works, U's diagonal checked after (O(n)), and where a pivot has no
// reciprocal both are put back and the call is hetlu's LU's.

// The caller's matrix, rows x cols at leading dimension ld, into a buffer of this thread's, or back.
// One buffer per use (A, B) and element type, kept between calls up to 8 MiB (the drop-in's orders
// below the crossover, 511 in complex double: no allocation per call), released after a larger one
// (a batch's systems can be of any order, on every thread of the team).
template <class T>
std::vector<T>& kept(int which) {
  thread_local std::vector<T> buffers[2];
  return buffers[which];
}
template <class T>
void release_if_large(std::vector<T>& buffer) {
  if (buffer.capacity() * sizeof(T) > (std::size_t(8) << 20)) std::vector<T>().swap(buffer);
}
// Serial copies, not kernels::copy_block: its OpenMP region (if false below its threshold) costs a
// team's set-up on every call of this per-call path.
template <class T>
void keep(int rows, int cols, const T* X, int ld, std::vector<T>& into) {
  const std::size_t count = static_cast<std::size_t>(rows) * cols;
  if (into.size() < count) into.resize(count);
  for (int j = 0; j < cols; ++j)
    std::copy_n(X + static_cast<long long>(j) * ld, rows, into.data() + std::size_t(j) * rows);
}
template <class T>
void put_back(int rows, int cols, const std::vector<T>& from, T* X, int ld) {
  for (int j = 0; j < cols; ++j)
    std::copy_n(from.data() + std::size_t(j) * rows, rows, X + static_cast<long long>(j) * ld);
}
// Whether the library may factor A (see above), A kept densely in `copy` by the same pass.
template <class T>
bool library_handles(int m, int n, const T* A, int lda, std::vector<T>& copy) {
  using R = scalar::real_t<T>;
  constexpr int parts = scalar::is_complex_v<T> ? 2 : 1;  // a complex entry: both parts, each as a real
  const std::size_t count = static_cast<std::size_t>(m) * n;
  if (copy.size() < count) copy.resize(count);
  R* into = reinterpret_cast<R*>(copy.data());
  if (lda == m)
    return plain_values<scalar::is_complex_v<T>>(reinterpret_cast<const R*>(A), static_cast<long long>(count) * parts,
                                                 into);
  for (int j = 0; j < n; ++j)
    if (!plain_values<scalar::is_complex_v<T>>(reinterpret_cast<const R*>(A + static_cast<long long>(j) * lda),
                                               static_cast<long long>(m) * parts, into + std::size_t(j) * m * parts))
      return false;
  return true;
}

// Whether every nonzero pivot of the library's factors has a finite reciprocal (1 / max itself has
// none, nor a complex pivot grown beyond its complex division), as its scaling needs to give
// LAPACK's factors.
template <class T>
bool pivots_scaled_right(int m, int n, const T* LU, int lda) {
  using R = scalar::real_t<T>;
  for (int j = 0; j < std::min(m, n); ++j) {
    const T pivot = LU[j + static_cast<long long>(j) * lda];
    const R p = std::abs(pivot);
    if ((p != R(0) && std::isinf(R(1) / p)) || scalar::beyond_complex_division(pivot)) return false;
  }
  return true;
}

// Orders up to tiny_lu_max_order (kernels::fits_tiny_lu): LAPACK's unblocked arithmetic in hetlu's
// own loops, which cost a fifth to a half of the library's call there (solvers/tiny_lu.hpp), need no
// scan (they divide by a subnormal pivot, as LAPACK does) and are there whatever the library has.

// The library's calls, out of line: inlined, they slowed the own loops' calls beside them by a
// third at order 32 (bench_percall_getrf, 2026-11-27).
template <class T>
__attribute__((noinline)) bool library_getrf(int m, int n, T* A, int lda, int* ipiv, int* info) {
  const Routines& r = routines();
  const getrf_fn f = pick<T>(r.dgetrf, r.sgetrf, r.zgetrf, r.cgetrf);
  std::vector<T>& a = kept<T>(0);
  if (!f || !library_handles(m, n, A, lda, a)) return false;
  f(&m, &n, A, &lda, ipiv, info);
  const bool right = pivots_scaled_right(m, n, A, lda);
  if (!right) put_back(m, n, a, A, lda);
  release_if_large(a);
  return right;
}

template <class T>
__attribute__((noinline)) bool library_gesv(int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb, int* info) {
  const Routines& r = routines();
  const gesv_fn f = pick<T>(r.dgesv, r.sgesv, r.zgesv, r.cgesv);
  std::vector<T>&a = kept<T>(0), &b = kept<T>(1);
  if (!f || !library_handles(n, n, A, lda, a)) return false;
  keep(n, nrhs, B, ldb, b);
  f(&n, &nrhs, A, &lda, ipiv, B, &ldb, info);
  const bool right = pivots_scaled_right(n, n, A, lda);
  if (!right) {
    put_back(n, n, a, A, lda);
    put_back(n, nrhs, b, B, ldb);
  }
  release_if_large(a);
  release_if_large(b);
  return right;
}

template <class T>
bool getrf(int m, int n, T* A, int lda, int* ipiv, int* info, bool own_loops) {
  if (own_loops && kernels::fits_tiny_lu(m, n)) {
    *info = kernels::getrf_tiny(m, n, A, lda, ipiv);
    return true;
  }
  const kernels::SharedBlas hold;
  return library_getrf(m, n, A, lda, ipiv, info);
}

template <class T>
bool gesv(int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb, int* info, bool own_loops) {
  // OpenBLAS's gesv returns at once when nrhs = 0, leaving A and ipiv as they were; LAPACK's
  // factors A whatever nrhs is, and so do hetlu's callers (the drop-in's dgesv_, the batch).
  if (nrhs == 0) return getrf(n, n, A, lda, ipiv, info, own_loops);
  if (own_loops && kernels::fits_tiny_lu(n, n)) {
    *info = kernels::getrf_tiny(n, n, A, lda, ipiv);
    if (*info == 0) kernels::getrs_tiny(Transpose::no, n, nrhs, A, lda, ipiv, B, ldb);
    return true;
  }
  const kernels::SharedBlas hold;
  return library_gesv(n, nrhs, A, lda, ipiv, B, ldb, info);
}

template <class T>
bool getrs(Transpose trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb, bool own_loops) {
  if (own_loops && kernels::fits_tiny_lu(n, n)) {
    kernels::getrs_tiny(trans, n, nrhs, LU, lda, ipiv, B, ldb);
    return true;
  }
  const Routines& r = routines();
  const getrs_fn f = pick<T>(r.dgetrs, r.sgetrs, r.zgetrs, r.cgetrs);
  if (!f) return false;
  // The library's triangular solves may multiply by each pivot's reciprocal (OpenBLAS's trsm and
  // complex trsv do): right only where every one is finite. With several columns they are looked at
  // first. With one, X is looked at instead, B kept to solve again: a pass down the diagonal (a
  // cache line and a page per column) cost 2-4 % of the call at n = 512, a copy of B a tenth of
  // that. An X not finite is declined whatever the pivots: OpenBLAS's ctrsv with trans 'C' gave Inf
  // from entries near 3e36 (n = 1000) where LAPACK's, dividing, stays finite.
  const char t = trans == Transpose::no ? 'N' : trans == Transpose::yes ? 'T' : 'C';
  int info = 0;
  const kernels::SharedBlas hold;
  if (nrhs != 1) {
    if (!kernels::pivots_have_reciprocals(n, LU, lda)) return false;
    f(&t, &n, &nrhs, LU, &lda, ipiv, B, &ldb, &info, 1);
    return info == 0;
  }
  // A complex pivot beyond the library's complex division gives a finite, wrong X (0 for
  // 1e308 + 1e308i): looked at first, where complex arithmetic makes the pass a smaller part.
  if (scalar::is_complex_v<T> && !kernels::pivots_have_reciprocals(n, LU, lda)) return false;
  thread_local std::vector<T> kept;  // grows to the largest n, never shrinks: no allocation per call
  if (kept.size() < static_cast<std::size_t>(n)) kept.resize(n);
  std::copy(B, B + n, kept.begin());
  f(&t, &n, &nrhs, LU, &lda, ipiv, B, &ldb, &info, 1);
  if (info == 0 && scalar::all_finite(B, n)) return true;
  std::copy(kept.begin(), kept.begin() + n, B);
  return false;
}

template bool getrf<double>(int, int, double*, int, int*, int*, bool);
template bool getrf<std::complex<double>>(int, int, std::complex<double>*, int, int*, int*, bool);
template bool getrf<std::complex<float>>(int, int, std::complex<float>*, int, int*, int*, bool);
template bool getrf<float>(int, int, float*, int, int*, int*, bool);
template bool gesv<double>(int, int, double*, int, int*, double*, int, int*, bool);
template bool gesv<std::complex<double>>(int, int, std::complex<double>*, int, int*, std::complex<double>*, int, int*,
                                         bool);
template bool gesv<std::complex<float>>(int, int, std::complex<float>*, int, int*, std::complex<float>*, int, int*,
                                        bool);
template bool gesv<float>(int, int, float*, int, int*, float*, int, int*, bool);

template bool getrs<double>(Transpose, int, int, const double*, int, const int*, double*, int, bool);
template bool getrs<float>(Transpose, int, int, const float*, int, const int*, float*, int, bool);
template bool getrs<std::complex<double>>(Transpose, int, int, const std::complex<double>*, int, const int*,
                                          std::complex<double>*, int, bool);
template bool getrs<std::complex<float>>(Transpose, int, int, const std::complex<float>*, int, const int*,
                                         std::complex<float>*, int, bool);

}  // namespace hetlu::vendor
