// The C API of include/hetlu/hetlu.h: every C++ exception becomes a status and a per-thread message.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <string>

#include "api/small_path.hpp"
#include "hetlu/detail/c_guard.hpp"
#include "hetlu/detail/utf8.hpp"
#include "hetlu/hetlu.h"
#include "hetlu/hetlu.hpp"
#include "solvers/checks.hpp"
#include "solvers/scalar.hpp"

namespace {
thread_local std::string last_error;
// Whether last_error holds a message: a plain flag, read without the string's thread-local
// initialization check, so that a call after a call that succeeded touches nothing else.
thread_local bool error_said = false;
// Whether any thread has said an error yet. Until one has, clearing touches no thread-local at all
// (a thread-local look-up in a shared library is a __tls_get_addr call: #14.1's n = 1 cost). A
// thread sets it before its own flag, so a thread that said an error always sees it set.
std::atomic<bool> any_error_said{false};
}  // namespace

void hetlu::detail::clear_last_error() {
  if (!any_error_said.load(std::memory_order_relaxed) || !error_said) return;
  last_error.clear();
  error_said = false;
}

void hetlu::detail::set_last_error(const std::string& message) {
  any_error_said.store(true, std::memory_order_relaxed);
  last_error = printable(message);  // one line, whatever a quoted argument holds (devices = "host\n1" split it)
  error_said = !message.empty();
}

namespace {

template <class Body>
hetlu_status guarded(Body&& body) {
  return hetlu::detail::c_guarded(std::forward<Body>(body));
}

hetlu::Solver solver_of(hetlu_solver s) {
  switch (s) {
    case HETLU_SOLVER_GEPP:
      return hetlu::Solver::gepp;
    case HETLU_SOLVER_CALU:
      return hetlu::Solver::calu;
    case HETLU_SOLVER_PRBT:
      return hetlu::Solver::prbt;
    case HETLU_SOLVER_AUTO:
      throw hetlu::InvalidArgument("options->solver = HETLU_SOLVER_AUTO applies to hetlu_?solve_checked only");
  }
  throw hetlu::InvalidArgument("options->solver = " + std::to_string(static_cast<int>(s)) + " is not a hetlu_solver");
}

// The C options as C++ ones. Without a report to fill, a call is not timed and a small one takes
// the small-matrix path (no plan to report, so none is resolved).
hetlu::Options options_of(const hetlu_options* c, const hetlu_report* report = nullptr) {
  hetlu::Options o;
  o.measure_time = report != nullptr;
  o.small_matrix_path = report == nullptr;
  if (!c) return o;
  if (c->db_path) o.db_path = c->db_path;
  if (c->nb < 0) throw hetlu::InvalidArgument("options->nb = " + std::to_string(c->nb) + " must be >= 0");
  if (c->nb > 0) o.overrides.nb = c->nb;
  switch (c->target) {
    case HETLU_TARGET_CPU:
      o.target = hetlu::Target::cpu;
      break;
    case HETLU_TARGET_HYBRID:
      o.target = hetlu::Target::hybrid;
      break;
    default:
      throw hetlu::InvalidArgument("options->target = " + std::to_string(static_cast<int>(c->target)) +
                                   " is not a hetlu_target");
  }
  switch (c->backend) {
    case HETLU_BACKEND_DEFAULT:
      break;
    case HETLU_BACKEND_CUDA:
      o.overrides.devices = hetlu::BackendKind::cuda;
      break;
    case HETLU_BACKEND_HOST:
      o.overrides.devices = hetlu::BackendKind::host;
      break;
    default:
      throw hetlu::InvalidArgument("options->backend = " + std::to_string(static_cast<int>(c->backend)) +
                                   " is not a hetlu_backend");
  }
  if (c->devices) {
    if (c->backend != HETLU_BACKEND_DEFAULT)
      throw hetlu::InvalidArgument("options->devices and options->backend: set one, not both");
    o.overrides.devices = hetlu::from_string<hetlu::DeviceSet>(c->devices);
  }
  if (o.target != hetlu::Target::hybrid) {  // a placement on the CPU target is a mistake, never ignored
    if (c->backend != HETLU_BACKEND_DEFAULT || c->panel != HETLU_PANEL_DEFAULT || c->devices)
      throw hetlu::InvalidArgument("options->backend, devices and panel apply to the hybrid target only");
    if (c->cpu_block_columns != -1)
      throw hetlu::InvalidArgument("options->cpu_block_columns = " + std::to_string(c->cpu_block_columns) +
                                   " applies to the hybrid target only (hetlu_options_init sets -1)");
  }
  if (c->cpu_block_columns >= 0)
    o.overrides.cpu_block_columns = c->cpu_block_columns;
  else if (c->cpu_block_columns != -1)
    throw hetlu::InvalidArgument("options->cpu_block_columns = " + std::to_string(c->cpu_block_columns) +
                                 " must be >= 0, or -1 to resolve it");
  switch (c->panel) {
    case HETLU_PANEL_DEFAULT:
      break;
    case HETLU_PANEL_CPU:
      o.overrides.panel_location = hetlu::PanelLocation::cpu;
      break;
    case HETLU_PANEL_DEVICE:
      o.overrides.panel_location = hetlu::PanelLocation::device;
      break;
    default:
      throw hetlu::InvalidArgument("options->panel = " + std::to_string(static_cast<int>(c->panel)) +
                                   " is not a hetlu_panel");
  }
  return o;
}

void copy_plan(const hetlu::Plan& p, hetlu_plan* out) {
  if (!out) return;
  out->solver = static_cast<hetlu_solver>(static_cast<int>(p.solver));
  out->nb = p.nb;
  out->ib = p.ib;
  out->cpu_block_columns = p.cpu_block_columns;
  out->panel_threads = p.panel_threads;
  out->lookahead = p.lookahead;
  auto text = [](char* field, size_t size, const std::string& value) {
    std::snprintf(field, size, "%s", value.c_str());
  };
  text(out->precision, sizeof out->precision, hetlu::to_string(p.precision));
  text(out->target, sizeof out->target, hetlu::to_string(p.target));
  text(out->backend, sizeof out->backend, hetlu::to_string(p.devices.front().kind));
  text(out->devices, sizeof out->devices, hetlu::to_string(p.devices));
  text(out->panel_location, sizeof out->panel_location, hetlu::to_string(hetlu::panel_location(p)));
  text(out->refinement, sizeof out->refinement, hetlu::to_string(p.refinement));
  std::snprintf(out->source, sizeof out->source, "%s", hetlu::to_string(p.source).c_str());
  std::snprintf(out->source_detail, sizeof out->source_detail, "%s", p.source_detail.c_str());
  out->predicted_seconds = p.predicted_seconds ? *p.predicted_seconds : -1.0;
}

hetlu_status finish(const hetlu::SolveReport& r, int* info, hetlu_report* report) {
  if (info) *info = r.info;
  if (report) {
    copy_plan(r.plan, &report->plan);
    report->seconds = r.seconds;
    report->gflops = r.gflops;
  }
  if (r.info > 0) {
    hetlu::detail::set_last_error("the matrix is singular: U(" + std::to_string(r.info) + "," + std::to_string(r.info) +
                                  ") is exactly zero");
    return HETLU_ERROR_SINGULAR;
  }
  return HETLU_SUCCESS;
}

// A call's body guarded, with the outputs a C caller reads whatever happened. First `apart` checks
// the outputs apart from each other and from what the call reads (scalars_apart, info first): a
// refusal there writes none of them, except info where it was found apart from everything (it
// then says the refusal, as the header promises: a report over B left a stale info that read as
// "singular at k"; a hostile helper's finding). Then the report is cleared (no plan,
// predicted_seconds -1), so that a failure leaves none of an earlier call's in it, and the body
// runs with *info set as c_guarded_info sets it.
template <class Apart, class Body>
hetlu_status with_outputs(int* info, hetlu_report* report, Apart&& apart, Body&& body) {
  bool info_apart = false;
  if (const hetlu_status refused = hetlu::detail::c_guarded([&] {
        apart(info_apart);
        return HETLU_SUCCESS;
      });
      refused != HETLU_SUCCESS) {
    if (info && info_apart) *info = -static_cast<int>(refused);
    return refused;
  }
  if (report) {
    *report = hetlu_report{};
    report->plan.predicted_seconds = -1;
  }
  return hetlu::detail::c_guarded_info(info, std::forward<Body>(body));
}

// info, iter and the report, written when the call ends, apart from the arrays it reads and writes
// and from the options it reads (info inside A changed a factor's last digits, inside ipiv a pivot,
// inside the report a plan field, with success; a report over B was cleared before B was read, a
// backward_error over options->db_path crashed: hostile helpers' findings); a null one (allowed
// where the header says so) is not written.
// The first scalar is info: first_apart says it met none of the others.
void scalars_apart(std::initializer_list<hetlu::checks::Entries> scalars,
                   std::initializer_list<hetlu::checks::Entries> arrays, bool& first_apart) {
  for (auto scalar = scalars.begin(); scalar != scalars.end(); ++scalar) {
    if (!scalar->base) continue;
    for (const auto& array : arrays) hetlu::checks::entries_apart(*scalar, array);
    for (auto other = scalar + 1; other != scalars.end(); ++other) hetlu::checks::entries_apart(*scalar, *other);
    if (scalar == scalars.begin()) first_apart = true;
  }
}
template <class T>
hetlu::checks::Entries matrix(const char* name, const T* M, int ld, int columns, int rows) {
  return hetlu::checks::Entries::of(name, M, ld, columns, rows);
}
hetlu::checks::Entries scalar(const char* name, const int* p) {
  return hetlu::checks::Entries::of(name, p, 1, 1, 1);
}
// One object (a double, the report, the options) as one entry of its size; none where p is null.
template <class T>
hetlu::checks::Entries whole(const char* name, const T* p) {
  return hetlu::checks::Entries::of(name, p, 1, 1, p ? 1 : 0);
}

// A character a message can carry as it is, else its code (a NUL ended the message there).
std::string said_as(char c) {
  const bool printable = c > ' ' && c < 127;
  return printable ? std::string("'") + c + "'" : "char " + std::to_string(int(c));
}

hetlu::Transpose transpose_of(char trans) {
  if (const auto op = hetlu::transpose_from_char(trans)) return *op;
  throw hetlu::InvalidArgument("trans = " + said_as(trans) + " must be 'N', 'T' or 'C'");
}

// Options that ask for nothing: hetlu_options_init's values, or none at all.
bool asks_nothing(const hetlu_options* o) {
  return !o ||
         (o->solver == HETLU_SOLVER_GEPP && !o->db_path && !o->devices && o->nb == 0 && o->target == HETLU_TARGET_CPU &&
          o->backend == HETLU_BACKEND_DEFAULT && o->cpu_block_columns == -1 && o->panel == HETLU_PANEL_DEFAULT);
}

// A singular factorization said as every other call says it. Apart, so that the fast call above
// holds no SolveReport in its stack frame.
[[gnu::noinline]] hetlu_status say_singular(int zero_pivot, int* info) {
  return guarded([&] {
    hetlu::SolveReport singular;
    singular.info = zero_pivot;
    return finish(singular, info, nullptr);
  });
}

template <class T>
hetlu_status getrf_c_full(int m, int n, T* A, int lda, int* ipiv, int* info, const hetlu_options* o, hetlu_report* r);

template <class T>
hetlu_status getrf_c(int m, int n, T* A, int lda, int* ipiv, int* info, const hetlu_options* o, hetlu_report* r) {
  // A small call with nothing asked builds no Options (#14.1's per-call cost); info inside A or the
  // pivots goes the full way, which refuses it.
  const auto written = scalar("info", info);
  if (!r && asks_nothing(o) &&
      !(info && (hetlu::checks::entries_meet(written, matrix("A", A, lda, n, m)) ||
                 hetlu::checks::entries_meet(written, hetlu::checks::getrf_pivots(m, n, ipiv))))) {
    int small_info = -1;
    try {
      small_info = hetlu::detail::small_path_getrf_default(m, n, A, lda, ipiv);
    } catch (...) {  // e.g. no memory for the copy of A the library's call keeps: said, not thrown
      return hetlu::detail::c_guarded_info(info, []() -> hetlu_status { throw; });
    }
    if (small_info == 0) {
      hetlu::detail::clear_last_error();
      if (info) *info = 0;
      return HETLU_SUCCESS;
    }
    if (small_info > 0) return say_singular(small_info, info);
  }
  return getrf_c_full(m, n, A, lda, ipiv, info, o, r);
}

// Everything else: Options built, the small path or the solvers. Apart, so that the call above
// does not set up this one's stack frame (a fifth of an n = 1 call).
template <class T>
[[gnu::noinline]] hetlu_status getrf_c_full(int m, int n, T* A, int lda, int* ipiv, int* info, const hetlu_options* o,
                                            hetlu_report* r) {
  const auto apart = [&](bool& info_apart) {
    scalars_apart({scalar("info", info), whole("report", r)},
                  {matrix("A", A, lda, n, m), hetlu::checks::getrf_pivots(m, n, ipiv), whole("options", o)},
                  info_apart);
  };
  return with_outputs(info, r, apart, [&] {
    const auto solver = o ? solver_of(o->solver) : hetlu::Solver::gepp;
    const hetlu::Options options = options_of(o, r);
    int small_info = 0;  // without a report, the small path needs no SolveReport
    if (!r && hetlu::detail::small_path_getrf(solver, m, n, A, lda, ipiv, options, &small_info)) {
      if (small_info <= 0) {
        if (info) *info = small_info;
        return HETLU_SUCCESS;
      }
      hetlu::SolveReport singular;  // only to say so, as every other call does
      singular.info = small_info;
      return finish(singular, info, r);
    }
    return finish(hetlu::getrf(solver, m, n, A, lda, ipiv, options), info, r);
  });
}

// The first column of the n x nrhs X (ldx) holding an Inf or NaN, else -1.
template <class T>
int first_non_finite_column(int n, int nrhs, const T* X, int ldx) {
  for (int j = 0; j < nrhs; ++j)
    if (!hetlu::scalar::all_finite(X + static_cast<long long>(j) * ldx, n)) return j;
  return -1;
}

// HETLU_ERROR_NOT_FINITE where the n x nrhs X (ldx) holds an Inf or NaN, naming the first: the
// input was checked finite, so the factors or the substitutions overflowed, and LAPACK's INFO = 0
// would have passed it as an answer (a Wilkinson-growth matrix scaled near 1e308).
template <class T>
hetlu_status finite_or_error(hetlu_status status, int n, int nrhs, const T* X, int ldx) {
  if (status != HETLU_SUCCESS || n <= 0 || nrhs <= 0 || !X) return status;
  const int j = first_non_finite_column(n, nrhs, X, ldx);
  if (j < 0) return status;
  const T* x = X + static_cast<long long>(j) * ldx;
  int i = 0;
  while (hetlu::scalar::is_finite(x[i])) ++i;
  hetlu::detail::set_last_error("X(" + std::to_string(i + 1) + "," + std::to_string(j + 1) +
                                ") is not finite although A and B were: the factorization or the solve overflowed");
  return HETLU_ERROR_NOT_FINITE;
}

// The k (1-based) of the first exactly zero U(k,k) of factors getrs could otherwise use, else 0:
// they would divide by it. Arguments the solve refuses (nrhs = 0 reads nothing, as LAPACK) are left
// to it, which names them; out-of-range pivots (PRBT's zeroed ones) are named first.
template <class T>
int zero_pivot_of_usable_factors(char trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, const T* B,
                                 int ldb) {
  if (n <= 0 || nrhs <= 0 || !LU || lda < n || !B || ldb < n || !ipiv || !hetlu::transpose_from_char(trans)) return 0;
  hetlu::checks::pivots("ipiv", n, ipiv);
  return hetlu::checks::first_zero_pivot(n, LU, lda);
}

template <class T>
hetlu_status getrs_c(char trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb) {
  return guarded([&] {
    if (n > 0 && nrhs > 0 && lda >= n && ldb >= n) {  // B is written while LU and the pivots are read
      hetlu::checks::apart("B", B, ldb, nrhs, "LU", LU, lda, n, n);
      hetlu::checks::entries_apart(hetlu::checks::Entries::of("B", B, ldb, nrhs, n),
                                   hetlu::checks::pivot_entries(ipiv, n));
    }
    if (const int k = zero_pivot_of_usable_factors(trans, n, nrhs, LU, lda, ipiv, B, ldb)) {
      hetlu::detail::set_last_error("the factors are singular: U(" + std::to_string(k) + "," + std::to_string(k) +
                                    ") is exactly zero; B is unchanged");
      return HETLU_ERROR_SINGULAR;
    }
    // Below the crossover with every argument plain: no Options, report or plan built (#14.1).
    if (!hetlu::detail::small_path_getrs_default(trans, n, nrhs, LU, lda, ipiv, B, ldb))
      hetlu::getrs(transpose_of(trans), n, nrhs, LU, lda, ipiv, B, ldb, options_of(nullptr));
    return finite_or_error(HETLU_SUCCESS, n, nrhs, B, ldb);
  });
}

template <class T>
hetlu_status gecon_c(int n, const T* LU, int lda, const int* ipiv, double anorm, double* rcond) {
  return guarded([&] {
    hetlu::checks::not_null("rcond", rcond, 1);
    // As LAPACK 3.12's ?gecon (INFO = -5, RCOND = 0): an infinite ||A||_1 is no norm to divide by.
    if (n > 0 && std::isinf(anorm) && anorm > 0) {  // n = 0: rcond 1 whatever anorm is, as LAPACK
      *rcond = 0;
      throw hetlu::InvalidArgument("anorm = inf must be finite (||A||_1 of the matrix factored)");
    }
    *rcond = hetlu::rcond_estimate(n, LU, lda, ipiv, anorm);
    return HETLU_SUCCESS;
  });
}

template <class T>
hetlu_status gesv_c(int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb, int* info, const hetlu_options* o,
                    hetlu_report* r) {
  const auto apart = [&](bool& info_apart) {
    scalars_apart({scalar("info", info), whole("report", r)},
                  {matrix("A", A, lda, n, n), matrix("B", B, ldb, nrhs, n), hetlu::checks::pivot_entries(ipiv, n),
                   whole("options", o)},
                  info_apart);
  };
  return with_outputs(info, r, apart, [&] {
    const auto solver = o ? solver_of(o->solver) : hetlu::Solver::gepp;
    return finite_or_error(finish(hetlu::gesv(solver, n, nrhs, A, lda, ipiv, B, ldb, options_of(o, r)), info, r), n,
                           nrhs, B, ldb);
  });
}

// What the checked solve's report says, as a status: the hetlu command's verdicts (its exit statuses
// 3, 4 and 5), with ?gesvx's info = n + 1 for singular to working precision.
template <class T>
hetlu_status checked_verdict(int n, const hetlu::SolveReport& r, int* info) {
  if (r.info > 0) return HETLU_ERROR_SINGULAR;  // finish said so
  char line[200];
  if (!r.accurate) {
    std::snprintf(line, sizeof line,
                  "backward error %.2e above the tolerance 30 (n + 1) eps = %.2e on every try: X is the most accurate "
                  "found",
                  r.backward_error.value_or(std::numeric_limits<double>::infinity()), hetlu::accuracy_tolerance<T>(n));
    hetlu::detail::set_last_error(line);
    return HETLU_ERROR_INACCURATE;
  }
  if (r.singular_to_working_precision) {
    if (info) *info = n + 1;
    std::snprintf(line, sizeof line,
                  "A is singular to working precision (rcond %.1e below eps): X may have no correct digit",
                  r.rcond.value_or(0));
    hetlu::detail::set_last_error(line);
    return HETLU_ERROR_ILL_CONDITIONED;
  }
  return HETLU_SUCCESS;
}

template <class T>
hetlu_status solve_checked_c(int n, int nrhs, const T* A, int lda, T* B, int ldb, int* info, double* backward_error,
                             double* rcond, const hetlu_options* o, hetlu_report* r) {
  const auto apart = [&](bool& info_apart) {
    scalars_apart(
        {scalar("info", info), whole("report", r), whole("backward_error", backward_error), whole("rcond", rcond)},
        {matrix("A", A, lda, n, n), matrix("B", B, ldb, nrhs, n), whole("options", o)}, info_apart);
  };
  return with_outputs(info, r, apart, [&] {
    const std::optional<hetlu::Solver> solver = !o || o->solver != HETLU_SOLVER_AUTO
                                                    ? std::optional(o ? solver_of(o->solver) : hetlu::Solver::gepp)
                                                    : std::nullopt;
    const hetlu::Options options = options_of(o, r);
    for (double* out : {backward_error, rcond})
      if (out) *out = -1;  // until X is written
    const hetlu::SolveReport report = hetlu::solve_checked(solver, n, nrhs, A, lda, B, ldb, options);
    const hetlu_status status = finish(report, info, r);
    if (report.info == 0) {
      if (backward_error) *backward_error = n == 0 || nrhs == 0 ? 0 : report.backward_error.value_or(-1);
      if (rcond) *rcond = n == 0 ? 1 : report.rcond.value_or(-1);
    }
    const hetlu_status finite = finite_or_error(status, n, nrhs, B, ldb);
    return finite != HETLU_SUCCESS ? finite : checked_verdict<T>(n, report, info);
  });
}

template <class T>
hetlu_status mixed_gesv_c(int n, int nrhs, T* A, int lda, int* ipiv, const T* B, int ldb, T* X, int ldx, int* iter,
                          int* info, const hetlu_options* o, hetlu_report* r) {
  const auto apart = [&](bool& info_apart) {
    scalars_apart({scalar("info", info), scalar("iter", iter), whole("report", r)},
                  {matrix("A", A, lda, n, n), matrix("B", B, ldb, nrhs, n), matrix("X", X, ldx, nrhs, n),
                   hetlu::checks::pivot_entries(ipiv, n), whole("options", o)},
                  info_apart);
  };
  return with_outputs(info, r, apart, [&] {
    if (iter) *iter = 0;  // as LAPACK's dsgesv sets it first: a call refused below leaves no earlier call's
    const auto solver = o ? solver_of(o->solver) : hetlu::Solver::gepp;
    const hetlu::Options options = options_of(o, r);
    int steps = 0;
    const hetlu_status status =
        finish(hetlu::mixed_gesv(solver, n, nrhs, A, lda, ipiv, B, ldb, X, ldx, &steps, options), info, r);
    if (iter) *iter = steps;
    return finite_or_error(status, n, nrhs, X, ldx);
  });
}

template <class T>
hetlu_status auto_precision_gesv_c(int n, int nrhs, T* A, int lda, int* ipiv, const T* B, int ldb, T* X, int ldx,
                                   int* info, const hetlu_options* o, hetlu_report* r) {
  const auto apart = [&](bool& info_apart) {
    scalars_apart({scalar("info", info), whole("report", r)},
                  {matrix("A", A, lda, n, n), matrix("B", B, ldb, nrhs, n), matrix("X", X, ldx, nrhs, n),
                   hetlu::checks::pivot_entries(ipiv, n), whole("options", o)},
                  info_apart);
  };
  return with_outputs(info, r, apart, [&] {
    const auto solver = o ? solver_of(o->solver) : hetlu::Solver::gepp;
    return finite_or_error(
        finish(hetlu::auto_precision_gesv(solver, n, nrhs, A, lda, ipiv, B, ldb, X, ldx, options_of(o, r)), info, r), n,
        nrhs, X, ldx);
  });
}

template <class T>
hetlu_status gesv_batched_c(int batch, int n, int nrhs, T* A, int lda, long long stride_a, int* ipiv,
                            long long stride_ipiv, T* B, int ldb, long long stride_b, int* info,
                            const hetlu_options* options = nullptr) {
  return guarded([&] {
    if (options && options->solver != HETLU_SOLVER_GEPP)
      throw hetlu::InvalidArgument("options->solver = " + std::to_string(static_cast<int>(options->solver)) +
                                   ": a batch factors each system with partial pivoting (HETLU_SOLVER_GEPP) only");
    std::string input_refused;  // a system's NaN or Inf input, named once every X is checked
    try {
      hetlu::gesv_batched(batch, n, nrhs, A, lda, stride_a, ipiv, stride_ipiv, B, ldb, stride_b, info,
                          options_of(options));
    } catch (const hetlu::BatchInputNotFinite& e) {
      input_refused = e.what();
    }
    // Each solved system's X (info 0, its input checked finite) checked as gesv's, in parallel as
    // the batch was solved (a serial pass cost a quarter of a batch of 2 x 2 systems on 2 cores):
    // the first that overflowed is named and the others counted, also beside a refused input (they
    // went unsaid, each with info 0: a hostile helper's finding).
    int first = batch, overflowed = 0;
    if (n > 0 && nrhs > 0) {
#pragma omp parallel for schedule(static) reduction(min : first) reduction(+ : overflowed) if (static_cast <long long>(batch) * n * nrhs > 65536)
      for (int i = 0; i < batch; ++i) {
        // A singular or refused system's B is as it was.
        if (info[i] == 0 && first_non_finite_column(n, nrhs, B + i * stride_b, ldb) >= 0)
          first = std::min(first, i), ++overflowed;
      }
    }
    const std::string others =
        overflowed > 1 ? " (" + std::to_string(overflowed) + " systems in all, each with info 0 as LAPACK's)" : "";
    if (!input_refused.empty())
      throw hetlu::InvalidArgument(input_refused + (first < batch ? "; the X of system " + std::to_string(first) +
                                                                        " is not finite either" + others
                                                                  : std::string()));
    if (first < batch) {
      const hetlu_status status = finite_or_error(HETLU_SUCCESS, n, nrhs, B + first * stride_b, ldb);
      std::string message = "system " + std::to_string(first) + ": ";
      message += hetlu_last_error();
      hetlu::detail::set_last_error(message + others);
      return status;
    }
    return HETLU_SUCCESS;
  });
}

}  // namespace

extern "C" {

void hetlu_options_init(hetlu_options* options) {
  if (!options) return;
  options->solver = HETLU_SOLVER_GEPP;
  options->db_path = nullptr;
  options->devices = nullptr;
  options->nb = 0;
  options->target = HETLU_TARGET_CPU;
  options->backend = HETLU_BACKEND_DEFAULT;
  options->cpu_block_columns = -1;
  options->panel = HETLU_PANEL_DEFAULT;
}

hetlu_status hetlu_dgetrf(int m, int n, double* A, int lda, int* ipiv, int* info, const hetlu_options* options,
                          hetlu_report* report) {
  return getrf_c(m, n, A, lda, ipiv, info, options, report);
}
hetlu_status hetlu_sgetrf(int m, int n, float* A, int lda, int* ipiv, int* info, const hetlu_options* options,
                          hetlu_report* report) {
  return getrf_c(m, n, A, lda, ipiv, info, options, report);
}
hetlu_status hetlu_dgetrs(char trans, int n, int nrhs, const double* LU, int lda, const int* ipiv, double* B, int ldb) {
  return getrs_c(trans, n, nrhs, LU, lda, ipiv, B, ldb);
}
hetlu_status hetlu_sgetrs(char trans, int n, int nrhs, const float* LU, int lda, const int* ipiv, float* B, int ldb) {
  return getrs_c(trans, n, nrhs, LU, lda, ipiv, B, ldb);
}
hetlu_status hetlu_dgecon(int n, const double* LU, int lda, const int* ipiv, double anorm, double* rcond) {
  return gecon_c(n, LU, lda, ipiv, anorm, rcond);
}
hetlu_status hetlu_sgecon(int n, const float* LU, int lda, const int* ipiv, double anorm, double* rcond) {
  return gecon_c(n, LU, lda, ipiv, anorm, rcond);
}
hetlu_status hetlu_zgecon(int n, const hetlu_complex_double* LU, int lda, const int* ipiv, double anorm,
                          double* rcond) {
  return gecon_c(n, LU, lda, ipiv, anorm, rcond);
}
hetlu_status hetlu_cgecon(int n, const hetlu_complex_float* LU, int lda, const int* ipiv, double anorm, double* rcond) {
  return gecon_c(n, LU, lda, ipiv, anorm, rcond);
}
hetlu_status hetlu_dgesv(int n, int nrhs, double* A, int lda, int* ipiv, double* B, int ldb, int* info,
                         const hetlu_options* options, hetlu_report* report) {
  return gesv_c(n, nrhs, A, lda, ipiv, B, ldb, info, options, report);
}
hetlu_status hetlu_sgesv(int n, int nrhs, float* A, int lda, int* ipiv, float* B, int ldb, int* info,
                         const hetlu_options* options, hetlu_report* report) {
  return gesv_c(n, nrhs, A, lda, ipiv, B, ldb, info, options, report);
}

hetlu_status hetlu_zgetrf(int m, int n, hetlu_complex_double* A, int lda, int* ipiv, int* info,
                          const hetlu_options* options, hetlu_report* report) {
  return getrf_c(m, n, A, lda, ipiv, info, options, report);
}
hetlu_status hetlu_cgetrf(int m, int n, hetlu_complex_float* A, int lda, int* ipiv, int* info,
                          const hetlu_options* options, hetlu_report* report) {
  return getrf_c(m, n, A, lda, ipiv, info, options, report);
}
hetlu_status hetlu_zgetrs(char trans, int n, int nrhs, const hetlu_complex_double* LU, int lda, const int* ipiv,
                          hetlu_complex_double* B, int ldb) {
  return getrs_c(trans, n, nrhs, LU, lda, ipiv, B, ldb);
}
hetlu_status hetlu_cgetrs(char trans, int n, int nrhs, const hetlu_complex_float* LU, int lda, const int* ipiv,
                          hetlu_complex_float* B, int ldb) {
  return getrs_c(trans, n, nrhs, LU, lda, ipiv, B, ldb);
}
hetlu_status hetlu_zgesv(int n, int nrhs, hetlu_complex_double* A, int lda, int* ipiv, hetlu_complex_double* B, int ldb,
                         int* info, const hetlu_options* options, hetlu_report* report) {
  return gesv_c(n, nrhs, A, lda, ipiv, B, ldb, info, options, report);
}
hetlu_status hetlu_cgesv(int n, int nrhs, hetlu_complex_float* A, int lda, int* ipiv, hetlu_complex_float* B, int ldb,
                         int* info, const hetlu_options* options, hetlu_report* report) {
  return gesv_c(n, nrhs, A, lda, ipiv, B, ldb, info, options, report);
}

hetlu_status hetlu_dsolve_checked(int n, int nrhs, const double* A, int lda, double* B, int ldb, int* info,
                                  double* backward_error, double* rcond, const hetlu_options* options,
                                  hetlu_report* report) {
  return solve_checked_c(n, nrhs, A, lda, B, ldb, info, backward_error, rcond, options, report);
}
hetlu_status hetlu_ssolve_checked(int n, int nrhs, const float* A, int lda, float* B, int ldb, int* info,
                                  double* backward_error, double* rcond, const hetlu_options* options,
                                  hetlu_report* report) {
  return solve_checked_c(n, nrhs, A, lda, B, ldb, info, backward_error, rcond, options, report);
}
hetlu_status hetlu_zsolve_checked(int n, int nrhs, const hetlu_complex_double* A, int lda, hetlu_complex_double* B,
                                  int ldb, int* info, double* backward_error, double* rcond,
                                  const hetlu_options* options, hetlu_report* report) {
  return solve_checked_c(n, nrhs, A, lda, B, ldb, info, backward_error, rcond, options, report);
}
hetlu_status hetlu_csolve_checked(int n, int nrhs, const hetlu_complex_float* A, int lda, hetlu_complex_float* B,
                                  int ldb, int* info, double* backward_error, double* rcond,
                                  const hetlu_options* options, hetlu_report* report) {
  return solve_checked_c(n, nrhs, A, lda, B, ldb, info, backward_error, rcond, options, report);
}

hetlu_status hetlu_dsgesv(int n, int nrhs, double* A, int lda, int* ipiv, const double* B, int ldb, double* X, int ldx,
                          int* iter, int* info, const hetlu_options* options, hetlu_report* report) {
  return mixed_gesv_c(n, nrhs, A, lda, ipiv, B, ldb, X, ldx, iter, info, options, report);
}
hetlu_status hetlu_zcgesv(int n, int nrhs, hetlu_complex_double* A, int lda, int* ipiv, const hetlu_complex_double* B,
                          int ldb, hetlu_complex_double* X, int ldx, int* iter, int* info, const hetlu_options* options,
                          hetlu_report* report) {
  return mixed_gesv_c(n, nrhs, A, lda, ipiv, B, ldb, X, ldx, iter, info, options, report);
}

hetlu_status hetlu_dgesv_auto_precision(int n, int nrhs, double* A, int lda, int* ipiv, const double* B, int ldb,
                                        double* X, int ldx, int* info, const hetlu_options* options,
                                        hetlu_report* report) {
  return auto_precision_gesv_c(n, nrhs, A, lda, ipiv, B, ldb, X, ldx, info, options, report);
}
hetlu_status hetlu_zgesv_auto_precision(int n, int nrhs, hetlu_complex_double* A, int lda, int* ipiv,
                                        const hetlu_complex_double* B, int ldb, hetlu_complex_double* X, int ldx,
                                        int* info, const hetlu_options* options, hetlu_report* report) {
  return auto_precision_gesv_c(n, nrhs, A, lda, ipiv, B, ldb, X, ldx, info, options, report);
}

hetlu_status hetlu_dgesv_batched(int batch, int n, int nrhs, double* A, int lda, long long stride_a, int* ipiv,
                                 long long stride_ipiv, double* B, int ldb, long long stride_b, int* info) {
  return gesv_batched_c(batch, n, nrhs, A, lda, stride_a, ipiv, stride_ipiv, B, ldb, stride_b, info);
}
hetlu_status hetlu_zgesv_batched(int batch, int n, int nrhs, hetlu_complex_double* A, int lda, long long stride_a,
                                 int* ipiv, long long stride_ipiv, hetlu_complex_double* B, int ldb, long long stride_b,
                                 int* info) {
  return gesv_batched_c(batch, n, nrhs, A, lda, stride_a, ipiv, stride_ipiv, B, ldb, stride_b, info);
}
hetlu_status hetlu_cgesv_batched(int batch, int n, int nrhs, hetlu_complex_float* A, int lda, long long stride_a,
                                 int* ipiv, long long stride_ipiv, hetlu_complex_float* B, int ldb, long long stride_b,
                                 int* info) {
  return gesv_batched_c(batch, n, nrhs, A, lda, stride_a, ipiv, stride_ipiv, B, ldb, stride_b, info);
}
hetlu_status hetlu_sgesv_batched(int batch, int n, int nrhs, float* A, int lda, long long stride_a, int* ipiv,
                                 long long stride_ipiv, float* B, int ldb, long long stride_b, int* info) {
  return gesv_batched_c(batch, n, nrhs, A, lda, stride_a, ipiv, stride_ipiv, B, ldb, stride_b, info);
}

hetlu_status hetlu_dgesv_batched_x(int batch, int n, int nrhs, double* A, int lda, long long stride_a, int* ipiv,
                                   long long stride_ipiv, double* B, int ldb, long long stride_b, int* info,
                                   const hetlu_options* options) {
  return gesv_batched_c(batch, n, nrhs, A, lda, stride_a, ipiv, stride_ipiv, B, ldb, stride_b, info, options);
}
hetlu_status hetlu_sgesv_batched_x(int batch, int n, int nrhs, float* A, int lda, long long stride_a, int* ipiv,
                                   long long stride_ipiv, float* B, int ldb, long long stride_b, int* info,
                                   const hetlu_options* options) {
  return gesv_batched_c(batch, n, nrhs, A, lda, stride_a, ipiv, stride_ipiv, B, ldb, stride_b, info, options);
}
hetlu_status hetlu_zgesv_batched_x(int batch, int n, int nrhs, hetlu_complex_double* A, int lda, long long stride_a,
                                   int* ipiv, long long stride_ipiv, hetlu_complex_double* B, int ldb,
                                   long long stride_b, int* info, const hetlu_options* options) {
  return gesv_batched_c(batch, n, nrhs, A, lda, stride_a, ipiv, stride_ipiv, B, ldb, stride_b, info, options);
}
hetlu_status hetlu_cgesv_batched_x(int batch, int n, int nrhs, hetlu_complex_float* A, int lda, long long stride_a,
                                   int* ipiv, long long stride_ipiv, hetlu_complex_float* B, int ldb,
                                   long long stride_b, int* info, const hetlu_options* options) {
  return gesv_batched_c(batch, n, nrhs, A, lda, stride_a, ipiv, stride_ipiv, B, ldb, stride_b, info, options);
}

hetlu_status hetlu_recommend(char precision, int m, int n, const hetlu_options* options, hetlu_plan* plan) {
  return guarded([&] {
    if (!plan) throw hetlu::InvalidArgument("plan is a null pointer");
    hetlu::Precision p;
    if (precision == 'd' || precision == 'D')
      p = hetlu::Precision::double_;
    else if (precision == 's' || precision == 'S')
      p = hetlu::Precision::single;
    else
      throw hetlu::InvalidArgument("precision = " + said_as(precision) + " must be 'd' or 's'");
    const auto solver = options ? solver_of(options->solver) : hetlu::Solver::gepp;
    copy_plan(hetlu::resolve_plan(solver, p, m, n, options_of(options)).plan, plan);
    return HETLU_SUCCESS;
  });
}

const char* hetlu_strerror(hetlu_status status) {
  switch (status) {
    case HETLU_SUCCESS:
      return "success";
    case HETLU_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case HETLU_ERROR_SINGULAR:
      return "the matrix is singular";
    case HETLU_ERROR_NOT_AVAILABLE:
      return "not available in this build";
    case HETLU_ERROR_OUT_OF_MEMORY:
      return "out of memory";
    case HETLU_ERROR_INTERNAL:
      return "internal error";
    case HETLU_ERROR_NOT_FINITE:
      return "the solution is not finite (an overflow)";
    case HETLU_ERROR_INACCURATE:
      return "the solution is not accurate (its backward error is above the tolerance)";
    case HETLU_ERROR_ILL_CONDITIONED:
      return "the matrix is singular to working precision (the solution may have no correct digit)";
  }
  return "unknown status";
}

const char* hetlu_last_error(void) {
  return last_error.c_str();
}

}  // extern "C"
