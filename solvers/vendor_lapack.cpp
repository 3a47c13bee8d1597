#include "solvers/vendor_lapack.hpp"

#include <cblas.h>
#include <dlfcn.h>

#include <complex>
#include <cstring>
#include <string>
#include <type_traits>

namespace hetlu::vendor {
namespace {

using getrf_fn = void (*)(const int*, const int*, void*, const int*, int*, int*);
using gesv_fn = void (*)(const int*, const int*, void*, const int*, int*, void*, const int*, int*);

struct Routines {
  getrf_fn dgetrf = nullptr, sgetrf = nullptr, zgetrf = nullptr, cgetrf = nullptr;
  gesv_fn dgesv = nullptr, sgesv = nullptr, zgesv = nullptr, cgesv = nullptr;
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

template <class T>
bool getrf(int m, int n, T* A, int lda, int* ipiv, int* info) {
  const Routines& r = routines();
  const getrf_fn f = pick<T>(r.dgetrf, r.sgetrf, r.zgetrf, r.cgetrf);
  if (!f) return false;
  f(&m, &n, A, &lda, ipiv, info);
  return true;
}

template <class T>
bool gesv(int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb, int* info) {
  // OpenBLAS's gesv returns at once when nrhs = 0, leaving A and ipiv as they were; LAPACK's
  // factors A whatever nrhs is, and so do hetlu's callers (the drop-in's dgesv_, the batch).
  if (nrhs == 0) return getrf(n, n, A, lda, ipiv, info);
  const Routines& r = routines();
  const gesv_fn f = pick<T>(r.dgesv, r.sgesv, r.zgesv, r.cgesv);
  if (!f) return false;
  f(&n, &nrhs, A, &lda, ipiv, B, &ldb, info);
  return true;
}

template bool getrf<double>(int, int, double*, int, int*, int*);
template bool getrf<std::complex<double>>(int, int, std::complex<double>*, int, int*, int*);
template bool getrf<std::complex<float>>(int, int, std::complex<float>*, int, int*, int*);
template bool getrf<float>(int, int, float*, int, int*, int*);
template bool gesv<double>(int, int, double*, int, int*, double*, int, int*);
template bool gesv<std::complex<double>>(int, int, std::complex<double>*, int, int*, std::complex<double>*, int, int*);
template bool gesv<std::complex<float>>(int, int, std::complex<float>*, int, int*, std::complex<float>*, int, int*);
template bool gesv<float>(int, int, float*, int, int*, float*, int, int*);

}  // namespace hetlu::vendor
