// LAPACK's getrf / getrs / gesv (s, d, c, z) with its Fortran ABI and semantics: arguments checked in LAPACK's
// order, a bad one reported through xerbla_ with LAPACK's INFO number; info > 0 for an exactly-zero
// pivot; 1-based pivots, applied row interchanges; NaN and Inf propagate rather than being refused.
// Plans come from the tuning database like any hetlu call (cached per process and size); below the
// small-matrix crossover (hetlu::small_matrix_crossover) getrf, getrs and gesv take the small path:
// hetlu's own loops up to order 32, the BLAS library's own routines above.
#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "hetlu/detail/utf8.hpp"
#include "hetlu/hetlu.hpp"

namespace {

using Xerbla = void (*)(const char* srname, const int* info, std::size_t srname_len);

// Whether `handle`'s object itself (not a dependency of it) defines `symbol`; *found is its address.
// A non-PIE program that takes a function's address holds an undefined entry for it (a PLT stub that
// leads back to the definition): not a definition.
bool defines(void* handle, const link_map* object, const char* symbol, void** found = nullptr) {
  void* address = dlsym(handle, symbol);
  Dl_info info;
  link_map* owner = nullptr;
  ElfW(Sym)* entry = nullptr;
  if (!address || !dladdr1(address, &info, reinterpret_cast<void**>(&owner), RTLD_DL_LINKMAP) || owner != object ||
      !dladdr1(address, &info, reinterpret_cast<void**>(&entry), RTLD_DL_SYMENT) || !entry ||
      entry->st_shndx == SHN_UNDEF)
    return false;
  if (found) *found = address;
  return true;
}

const link_map* this_library() {
  static const link_map* self = [] {
    Dl_info info;
    link_map* object = nullptr;
    return dladdr1(reinterpret_cast<void*>(&this_library), &info, reinterpret_cast<void**>(&object), RTLD_DL_LINKMAP)
               ? object
               : nullptr;
  }();
  return self;
}

// The xerbla_ the caller's program would have had without the drop-in: the first loaded object that
// defines one, is not a BLAS or LAPACK library (nor this one) and has one in its scope. NumPy's, which raises
// ValueError, lives in a module loaded locally: a preloaded library's references never reach it, and its BLAS library's
// xerbla_ (print and return) answered instead. Looked for at each report (an error path): such a module may be loaded
// after the first call.
Xerbla overriding_xerbla() {
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* object, std::size_t, void* out) {
        try {
          static_cast<std::vector<std::string>*>(out)->emplace_back(object->dlpi_name ? object->dlpi_name : "");
        } catch (...) {
          return 1;  // out of memory: what was listed is searched
        }
        return 0;
      },
      &names);
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (k > 0 && names[k].empty()) continue;  // the program itself comes first, unnamed
    void* handle = dlopen(k == 0 ? nullptr : names[k].c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!handle) continue;
    link_map* object = nullptr;
    void* found = nullptr;
    // Its scope (the object and what it loaded) must hold a BLAS library: without the drop-in, a
    // module's xerbla_ answers only the BLAS it brought in (NumPy's); a plugin that defines one and
    // uses no BLAS (its handler exits) was never asked.
    const bool candidate = dlinfo(handle, RTLD_DI_LINKMAP, &object) == 0 && object != this_library() &&
                           defines(handle, object, "xerbla_", &found) && !defines(handle, object, "dgemm_") &&
                           !defines(handle, object, "dgetrf_") && dlsym(handle, "dgemm_") != nullptr;
    dlclose(handle);
    if (candidate) return reinterpret_cast<Xerbla>(found);
  }
  return nullptr;
}

// Whether the global scope's xerbla_ is this library's own (by its owner: &xerbla_ here is the
// program's where the program defines one).
bool process_xerbla_is_this_librarys() {
  void* global = dlsym(RTLD_DEFAULT, "xerbla_");
  Dl_info info;
  link_map* owner = nullptr;
  return global && dladdr1(global, &info, reinterpret_cast<void**>(&owner), RTLD_DL_LINKMAP) && owner == this_library();
}

// Whether this thread is inside xerbla_ below: re-entered (an override that calls xerbla_ by name, or
// a cycle of them), the report goes onward, never back. A handler that leaves by longjmp (R's) leaves
// it set; the drop-in's own reports clear it (illegal), and the BLAS library's then go to the next.
thread_local bool reporting = false;
}  // namespace

// LAPACK's error handler, exported so that the BLAS library's calls reach it too under LD_PRELOAD.
// Where this is the process's xerbla_ (nothing before it in the global scope defines one), the
// program's own override in a module loaded locally (above) answers; else the next in the search
// order (the BLAS library's: it prints LAPACK's message and returns); else that message here. A
// xerbla_ before this one in the global scope already answers every call: this one is reached only
// from it, passing the report on (dlsym(RTLD_NEXT)), and hands it to the next, never back.
extern "C" void xerbla_(const char* srname, const int* info, std::size_t srname_len) {
  Xerbla handler = nullptr;
  if (!reporting && process_xerbla_is_this_librarys()) handler = overriding_xerbla();
  if (!handler) handler = reinterpret_cast<Xerbla>(dlsym(RTLD_NEXT, "xerbla_"));
  if (!handler) {
    std::fprintf(stderr, " ** On entry to %.*s parameter number %d had an illegal value\n",
                 static_cast<int>(std::min<std::size_t>(srname_len, 6)), srname, *info);
    return;
  }
  struct Inside {  // restored however the handler returns (Octave's throws)
    bool was = reporting;
    Inside() { reporting = true; }
    ~Inside() { reporting = was; }
  } inside;
  handler(srname, info, srname_len);
}

namespace {

// Reports a bad argument the LAPACK way; returns the negative INFO.
int illegal(const char* routine, int argument) {
  reporting = false;  // a new report, whatever a handler left by longjmp
  xerbla_(routine, &argument, std::char_traits<char>::length(routine));
  return -argument;
}

// Set HETLU_LAPACK_VERBOSE=1 to see, once per routine, that calls reach hetlu (e.g. under LD_PRELOAD).
void announce(const char* routine) {
  static const bool verbose = [] {
    const char* v = std::getenv("HETLU_LAPACK_VERBOSE");
    return v && *v && *v != '0';
  }();
  if (!verbose) return;
  static std::mutex mutex;
  static std::set<std::string> announced;
  std::lock_guard lock(mutex);
  try {  // no exception (out of memory for the set) may cross the Fortran ABI
    if (announced.insert(routine).second) std::fprintf(stderr, "hetlu: LAPACK %s served by libhetlu_lapack\n", routine);
  } catch (...) {
  }
}

// Where the drop-in's calls run, read once per process: HETLU_TARGET (cpu, the default, or hybrid)
// and HETLU_DEVICES (hybrid's devices: e.g. cuda, host:4 or cuda,host:4; HETLU_BACKEND, cuda or
// host, is the one-device form; unset: cuda when a GPU is usable, else host, a team of CPU
// threads). A value that is none of these, a device this machine cannot run, or a bad
// HETLU_HOST_BACKEND_THREADS or _MEMORY_MIB for a host device, is said once on stderr and the calls
// run on the CPUs: a LAPACK must still answer.
hetlu::Options placement_from_environment() {
  hetlu::Options o;
  auto refuse = [](const std::string& why) {
    // The values quoted in `why` come from the environment: shown printable, and cut.
    std::fprintf(stderr, "hetlu: %s; the LAPACK calls run on the CPUs\n",
                 hetlu::detail::printable_value(why, 400).c_str());
    return hetlu::Options{};
  };
  const char* target = std::getenv("HETLU_TARGET");
  const char* backend = std::getenv("HETLU_BACKEND");
  const char* devices = std::getenv("HETLU_DEVICES");
  try {
    if (target && *target) o.target = hetlu::from_string<hetlu::Target>(target);
    if (backend && *backend && devices && *devices)
      throw hetlu::InvalidArgument("set HETLU_DEVICES or HETLU_BACKEND, not both");
    if (backend && *backend) o.overrides.devices = hetlu::from_string<hetlu::BackendKind>(backend);
    if (devices && *devices) o.overrides.devices = hetlu::from_string<hetlu::DeviceSet>(devices);
  } catch (const std::exception& e) {
    return refuse(std::string("HETLU_TARGET, HETLU_DEVICES or HETLU_BACKEND: ") + e.what());
  }
  if (o.target != hetlu::Target::hybrid) return o;
  try {  // named or not, the devices and their settings checked now
    // default_devices() only where none is named: it loads the CUDA plugin to look for a GPU.
    const hetlu::DeviceSet named = o.overrides.devices ? *o.overrides.devices : hetlu::default_devices();
    std::string why;
    if (!hetlu::devices_available(named, &why))
      return refuse("devices " + hetlu::to_string(named) + " are not available: " + why);
  } catch (const std::exception& e) {
    return refuse(std::string("the hybrid target's devices: ") + e.what());
  } catch (...) {
    return refuse("the hybrid target's devices: an exception of unknown type");
  }
  return o;
}

const hetlu::Options& placed_options() {
  static const hetlu::Options placed = placement_from_environment();
  return placed;
}

hetlu::Options lapack_options() {
  hetlu::Options o = placed_options();
  o.input_check = hetlu::InputCheck::none;
  return o;
}

// Below this order a call on the CPU target goes to the BLAS library's own getrf or gesv (the
// small-matrix path: no plan, no allocation, no thread wake-up); resolved once per process. 0 on
// the hybrid target, which the caller chose, or when the crossover cannot be resolved.
// HETLU_SMALL_MATRIX_CROSSOVER=N sets it (0: every call through hetlu's solvers), as for every
// interface (hetlu::small_matrix_crossover reads it).
template <class T>
int small_matrix_below() {
  static const int below = [] {
    if (placed_options().target != hetlu::Target::cpu) return 0;
    try {
      // A complex call takes the crossover of its real type (measured for it; complex's is not yet).
      // (sizeof(std::complex<float>) == sizeof(double): the type itself decides, not its size.)
      const auto precision = std::is_same_v<T, double> || std::is_same_v<T, std::complex<double>>
                                 ? hetlu::Precision::double_
                                 : hetlu::Precision::single;
      return hetlu::small_matrix_crossover(precision, placed_options()).below;
    } catch (...) {
      return 0;
    }
  }();
  return below;
}

// A failure that is not the caller's (out of memory, a broken installation) has no LAPACK INFO
// value: say what it was and stop, as reference LAPACK stops in xerbla.
// Called inside a catch block: whatever was thrown, no exception crosses the Fortran ABI.
[[noreturn]] void fatal(const char* routine) {
  std::string what = "an exception of unknown type";
  try {
    throw;
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  std::fprintf(stderr, "hetlu: %s failed: %s\n", routine, what.c_str());
  std::abort();
}

template <class T>
void getrf(const char* routine, const int* m, const int* n, T* A, const int* lda, int* ipiv, int* info) {
  announce(routine);
  if (*m < 0)
    *info = illegal(routine, 1);
  else if (*n < 0)
    *info = illegal(routine, 2);
  else if (*lda < std::max(1, *m))
    *info = illegal(routine, 4);
  else {
    try {  // the small path too (it keeps a copy of A while the library factors it)
      if (hetlu::below_small_matrix_crossover(*m, *n, small_matrix_below<T>()) &&
          hetlu::blas_library_getrf(*m, *n, A, *lda, ipiv, info))
        return;
      *info = hetlu::getrf(hetlu::Solver::gepp, *m, *n, A, *lda, ipiv, lapack_options()).info;
    } catch (...) {
      fatal(routine);
    }
  }
}

// getrs where a pivot lies outside [1, n], which no getrf gives (the caller's error; LAPACK does
// not check): hetlu's getrs refused it and the program aborted. Pivots up to LDB are interchanges
// inside B's array, which LAPACK's dgetrs makes (dlaswp: before the solves, or after them in
// reverse for trans T and C): made so here around a solve with no interchanges. A pivot outside
// [1, LDB] would address outside B: IPIV (argument 6) is reported as illegal through xerbla.
template <class T>
void getrs_with_pivots_past_n(const char* routine, hetlu::Transpose op, int n, int nrhs, const T* A, int lda,
                              const int* ipiv, T* B, int ldb, int* info) {
  if (!std::all_of(ipiv, ipiv + n, [&](int p) { return p >= 1 && p <= ldb; })) {
    *info = illegal(routine, 6);
    return;
  }
  auto interchange = [&](int k) {
    for (int j = 0; j < nrhs; ++j)
      std::swap(B[k + static_cast<long long>(j) * ldb], B[ipiv[k] - 1 + static_cast<long long>(j) * ldb]);
  };
  std::vector<int> none(n);
  for (int k = 0; k < n; ++k) none[k] = k + 1;
  if (op == hetlu::Transpose::no)
    for (int k = 0; k < n; ++k) interchange(k);
  try {
    hetlu::getrs(op, n, nrhs, A, lda, none.data(), B, ldb, lapack_options());
  } catch (...) {
    fatal(routine);
  }
  if (op != hetlu::Transpose::no)
    for (int k = n - 1; k >= 0; --k) interchange(k);
}

template <class T>
void getrs(const char* routine, const char* trans, const int* n, const int* nrhs, const T* A, const int* lda,
           const int* ipiv, T* B, const int* ldb, int* info) {
  announce(routine);
  const auto op = hetlu::transpose_from_char(*trans);
  if (!op)
    *info = illegal(routine, 1);
  else if (*n < 0)
    *info = illegal(routine, 2);
  else if (*nrhs < 0)
    *info = illegal(routine, 3);
  else if (*lda < std::max(1, *n))
    *info = illegal(routine, 5);
  else if (*ldb < std::max(1, *n))
    *info = illegal(routine, 8);
  else {
    *info = 0;
    if (*n == 0 || *nrhs == 0) return;  // LAPACK returns at once (ipiv is not read)
    if (!std::all_of(ipiv, ipiv + *n, [&](int p) { return p >= 1 && p <= *n; })) {
      getrs_with_pivots_past_n(routine, *op, *n, *nrhs, A, *lda, ipiv, B, *ldb, info);
      return;
    }
    // Below the crossover as getrf (and one column up to hetlu::small_path_getrs order): a solve
    // costs n^2 a column, so the front end's fixed cost showed
    // (8.7x OpenBLAS's dgetrs_ at n = 1, 1.2x at 256).
    try {
      if (hetlu::small_path_getrs(*n, *nrhs, small_matrix_below<T>()) &&
          hetlu::blas_library_getrs(*op, *n, *nrhs, A, *lda, ipiv, B, *ldb))
        return;
      hetlu::getrs(*op, *n, *nrhs, A, *lda, ipiv, B, *ldb, lapack_options());
    } catch (...) {
      fatal(routine);
    }
  }
}

// The checks gesv, dsgesv and zcgesv share, in LAPACK's order (N, NRHS, LDA, LDB: arguments 1, 2,
// 4, 7); sets info and returns false at the first bad one.
bool gesv_arguments_ok(const char* routine, const int* n, const int* nrhs, const int* lda, const int* ldb, int* info) {
  if (*n < 0)
    *info = illegal(routine, 1);
  else if (*nrhs < 0)
    *info = illegal(routine, 2);
  else if (*lda < std::max(1, *n))
    *info = illegal(routine, 4);
  else if (*ldb < std::max(1, *n))
    *info = illegal(routine, 7);
  else
    return true;
  return false;
}

template <class T>
void gesv(const char* routine, const int* n, const int* nrhs, T* A, const int* lda, int* ipiv, T* B, const int* ldb,
          int* info) {
  announce(routine);
  if (!gesv_arguments_ok(routine, n, nrhs, lda, ldb, info)) return;
  try {
    if (hetlu::below_small_matrix_crossover(*n, *n, small_matrix_below<T>()) &&
        hetlu::blas_library_gesv(*n, *nrhs, A, *lda, ipiv, B, *ldb, info))
      return;
    *info = hetlu::gesv(hetlu::Solver::gepp, *n, *nrhs, A, *lda, ipiv, B, *ldb, lapack_options()).info;
  } catch (...) {
    fatal(routine);
  }
}

// Whether the memory of two n x nrhs arrays (leading dimensions ldp, ldq) lies within one span: a
// coarse test (interleaved columns meet without sharing an entry), for what is only ever copied.
template <class T>
bool spans_meet(const T* P, int ldp, const T* Q, int ldq, int n, int nrhs) {
  const T* p_end = P + (static_cast<long long>(nrhs) - 1) * ldp + n;
  const T* q_end = Q + (static_cast<long long>(nrhs) - 1) * ldq + n;
  return std::less<const T*>()(P, q_end) && std::less<const T*>()(Q, p_end);
}

// LAPACK's dsgesv and zcgesv: the arguments checked in its order, then hetlu::mixed_gesv (a
// single-precision LU, refinement in double, the double solver where that fails). WORK, SWORK (and
// zcgesv's RWORK) are LAPACK's workspace; hetlu keeps its own.
template <class T>
void mixed_gesv(const char* routine, const int* n, const int* nrhs, T* A, const int* lda, int* ipiv, const T* B,
                const int* ldb, T* X, const int* ldx, int* iter, int* info) {
  announce(routine);
  *iter = 0;
  if (!gesv_arguments_ok(routine, n, nrhs, lda, ldb, info)) return;
  if (*ldx < std::max(1, *n)) {
    *info = illegal(routine, 9);
    return;
  }
  try {
    hetlu::Options options = lapack_options();  // its devices too (they were dropped: a hostile test)
    options.measure_time = false;
    options.mixed_double_accuracy = false;  // LAPACK's convergence test and ITER, exactly
    // Below the crossover as gesv_: GEPP's LUs by the BLAS library's routines, as its dsgesv would
    // (n = 2: 6.6 us through hetlu's planned GEPP, 0.4 OpenBLAS's dsgesv).
    options.small_matrix_path = hetlu::below_small_matrix_crossover(*n, *n, small_matrix_below<T>());
    // X over B (LAPACK forbids it; OpenBLAS returned garbage with ITER -31): X is zeroed before B is
    // read, and the answer was X = 0 with ITER 0. B is read from a copy wherever the two arrays'
    // spans meet, which answers the in-place solve the caller meant.
    std::vector<T> b_copy;
    if (*n > 0 && *nrhs > 0 && spans_meet(B, *ldb, X, *ldx, *n, *nrhs)) {
      b_copy.resize(static_cast<std::size_t>(*n) * *nrhs);
      for (int j = 0; j < *nrhs; ++j)
        std::copy_n(B + static_cast<long long>(j) * *ldb, *n, b_copy.data() + static_cast<std::size_t>(j) * *n);
      B = b_copy.data();
      ldb = n;
    }
    *info = hetlu::mixed_gesv(hetlu::Solver::gepp, *n, *nrhs, A, *lda, ipiv, B, *ldb, X, *ldx, iter, options).info;
  } catch (...) {
    fatal(routine);
  }
}

}  // namespace

extern "C" {

void dsgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, const double* b, const int* ldb,
             double* x, const int* ldx, double* /*work*/, float* /*swork*/, int* iter, int* info) {
  mixed_gesv("DSGESV", n, nrhs, a, lda, ipiv, b, ldb, x, ldx, iter, info);
}

void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info) {
  getrf("DGETRF", m, n, a, lda, ipiv, info);
}
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info) {
  getrf("SGETRF", m, n, a, lda, ipiv, info);
}
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, std::size_t /*trans_len*/) {
  getrs("DGETRS", trans, n, nrhs, a, lda, ipiv, b, ldb, info);
}
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
             float* b, const int* ldb, int* info, std::size_t /*trans_len*/) {
  getrs("SGETRS", trans, n, nrhs, a, lda, ipiv, b, ldb, info);
}
void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb, int* info) {
  gesv("DGESV", n, nrhs, a, lda, ipiv, b, ldb, info);
}
void sgesv_(const int* n, const int* nrhs, float* a, const int* lda, int* ipiv, float* b, const int* ldb, int* info) {
  gesv("SGESV", n, nrhs, a, lda, ipiv, b, ldb, info);
}

// Complex: Fortran's COMPLEX*16 and COMPLEX are std::complex<double> and <float> (two reals each).
using zcomplex = std::complex<double>;
using ccomplex = std::complex<float>;
void zcgesv_(const int* n, const int* nrhs, zcomplex* a, const int* lda, int* ipiv, const zcomplex* b, const int* ldb,
             zcomplex* x, const int* ldx, zcomplex* /*work*/, ccomplex* /*swork*/, double* /*rwork*/, int* iter,
             int* info) {
  mixed_gesv("ZCGESV", n, nrhs, a, lda, ipiv, b, ldb, x, ldx, iter, info);
}
void zgetrf_(const int* m, const int* n, zcomplex* a, const int* lda, int* ipiv, int* info) {
  getrf("ZGETRF", m, n, a, lda, ipiv, info);
}
void cgetrf_(const int* m, const int* n, ccomplex* a, const int* lda, int* ipiv, int* info) {
  getrf("CGETRF", m, n, a, lda, ipiv, info);
}
void zgetrs_(const char* trans, const int* n, const int* nrhs, const zcomplex* a, const int* lda, const int* ipiv,
             zcomplex* b, const int* ldb, int* info, std::size_t /*trans_len*/) {
  getrs("ZGETRS", trans, n, nrhs, a, lda, ipiv, b, ldb, info);
}
void cgetrs_(const char* trans, const int* n, const int* nrhs, const ccomplex* a, const int* lda, const int* ipiv,
             ccomplex* b, const int* ldb, int* info, std::size_t /*trans_len*/) {
  getrs("CGETRS", trans, n, nrhs, a, lda, ipiv, b, ldb, info);
}
void zgesv_(const int* n, const int* nrhs, zcomplex* a, const int* lda, int* ipiv, zcomplex* b, const int* ldb,
            int* info) {
  gesv("ZGESV", n, nrhs, a, lda, ipiv, b, ldb, info);
}
void cgesv_(const int* n, const int* nrhs, ccomplex* a, const int* lda, int* ipiv, ccomplex* b, const int* ldb,
            int* info) {
  gesv("CGESV", n, nrhs, a, lda, ipiv, b, ldb, info);
}

}  // extern "C"
