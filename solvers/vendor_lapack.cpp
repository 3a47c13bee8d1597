#include "solvers/vendor_lapack.hpp"

#include <cblas.h>
#include <dlfcn.h>

#include <cstring>
#include <string>

namespace hetlu::vendor {
namespace {

using getrf_fn = void (*)(const int*, const int*, void*, const int*, int*, int*);
using gesv_fn = void (*)(const int*, const int*, void*, const int*, int*, void*, const int*, int*);

struct Routines {
  getrf_fn dgetrf = nullptr, sgetrf = nullptr;
  gesv_fn dgesv = nullptr, sgesv = nullptr;
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
  if (!r.dgetrf || !r.sgetrf || !r.dgesv || !r.sgesv) {
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

template <class T>
bool getrf(int m, int n, T* A, int lda, int* ipiv, int* info) {
  const getrf_fn f = sizeof(T) == sizeof(double) ? routines().dgetrf : routines().sgetrf;
  if (!f) return false;
  f(&m, &n, A, &lda, ipiv, info);
  return true;
}

template <class T>
bool gesv(int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb, int* info) {
  const gesv_fn f = sizeof(T) == sizeof(double) ? routines().dgesv : routines().sgesv;
  if (!f) return false;
  f(&n, &nrhs, A, &lda, ipiv, B, &ldb, info);
  return true;
}

template bool getrf<double>(int, int, double*, int, int*, int*);
template bool getrf<float>(int, int, float*, int, int*, int*);
template bool gesv<double>(int, int, double*, int, int*, double*, int, int*);
template bool gesv<float>(int, int, float*, int, int*, float*, int, int*);

}  // namespace hetlu::vendor
