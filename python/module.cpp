// Python bindings: NumPy arrays in, results with the plan and the backward error out.
//
// Copies: A is factored in place, so it is copied once unless overwrite_a=True and it already is a
// Fortran-ordered array of the right type; a C-ordered A (A^T in column-major) with overwrite_a is
// factored as it lies and solved with the transposed solve, so that it is not copied either.
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "db/database.hpp"  // DatabaseError, mapped to OSError
#include "hetlu/detail/flops.hpp"
#include "hetlu/detail/utf8.hpp"
#include "hetlu/hetlu.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/checks.hpp"
#include "solvers/condition.hpp"
#include "solvers/copy_block.hpp"
#include "solvers/lu.hpp"
#include "solvers/scalar.hpp"

namespace py = pybind11;
using namespace hetlu;
using namespace pybind11::literals;

namespace {

// Every field, as the CLI's JSON has it (one serializer: hetlu::plan_json).
py::dict plan_dict(const Plan& p) {
  return py::module_::import("json").attr("loads")(plan_json(p));
}

// A solver named in Python: a refusal lists "auto" too, which every function here takes.
Solver named_solver(const std::string& name) {
  try {
    return from_string<Solver>(name);
  } catch (const InvalidArgument&) {
    std::string allowed = "auto";
    for (const auto& s : detail::solver_names.all()) allowed += ", " + s;
    throw InvalidArgument("unknown solver '" + name + "' (expected one of: " + allowed + ")");
  }
}

// "auto": the solver whose plan predicts the least time for this problem (as hetlu solve --solver auto).
Solver solver_of(const std::string& name, int m = 0, int n = 0, const Options& options = {},
                 Precision precision = Precision::double_) {
  return name == "auto" ? choose_solver(precision, m, n, options, nullptr) : named_solver(name);
}

// Where and how a call runs, as the CLI's options: target "cpu" or "hybrid"; on the hybrid target
// backend "cuda", "host" or several devices, "cuda,host:4" (None: cuda when a GPU is present, else
// host), d the CPUs' block columns and panel "cpu" or "device" (None: resolved from the database or the model).
struct Placement {
  std::string target = "cpu";
  std::optional<std::string> backend, panel;
  std::optional<int> d;
};

// nb and d as Python gives them: any int (NumPy's too), said out of range as a ValueError (pybind's
// own int conversion raised a TypeError with the whole signature for nb=10**12).
using PyWhole = std::optional<py::object>;
std::optional<int> int_of(const char* name, const PyWhole& value) {
  if (!value || value->is_none()) return std::nullopt;
  const auto index = py::reinterpret_steal<py::object>(PyNumber_Index(value->ptr()));
  if (!index) {
    PyErr_Clear();
    throw py::type_error(std::string(name) + " must be an int, not " +
                         py::type::of(*value).attr("__name__").cast<std::string>());
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow != 0 || v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw InvalidArgument(std::string(name) + " = " + py::repr(index).cast<std::string>() +
                          " is out of range (an int from " + std::to_string(std::numeric_limits<int>::min()) + " to " +
                          std::to_string(std::numeric_limits<int>::max()) + ")");
  return static_cast<int>(v);
}

// A database path as Python gives it: str or os.PathLike (pathlib.Path), embedded NULs refused
// (pybind11's filesystem caster, os.fsencode's rules) rather than the path cut at them.
using DbPath = std::optional<std::filesystem::path>;

Options options_of(const DbPath& db, std::optional<int> nb, const Placement& where = {}) {
  Options o;
  if (db) o.db_path = db->string();
  if (nb) o.overrides.nb = *nb;
  o.target = from_string<Target>(where.target);
  if (o.target != Target::hybrid && (where.backend || where.panel || where.d))
    throw InvalidArgument("backend, d and panel apply to the hybrid target only (target='hybrid')");
  if (where.backend) try {
      o.overrides.devices = from_string<DeviceSet>(*where.backend);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(std::string("backend: ") + e.what());
    }
  if (where.panel) o.overrides.panel_location = from_string<PanelLocation>(*where.panel);
  if (where.d) {
    if (*where.d < 0) throw InvalidArgument("d = " + std::to_string(*where.d) + " must be >= 0");
    o.overrides.cpu_block_columns = *where.d;
  }
  return o;
}

[[noreturn]] void raise_singular(int info) {
  const std::string message = "the matrix is singular: U(" + std::to_string(info) + "," + std::to_string(info) +
                              ") is exactly zero (zero pivot at column " + std::to_string(info) + ")";
  PyErr_SetString(py::module_::import("numpy.linalg").attr("LinAlgError").ptr(), message.c_str());
  throw py::error_already_set();
}

struct SolveResult {
  py::array x;
  py::dict plan;
  std::optional<double> backward_error;  // None after overwrite_a=True factored A in place (not PRBT's)
  double seconds = 0, gflops = 0;
  int refinement_steps = 0;
  bool fell_back_to_gepp = false;
  std::vector<std::string> warnings;
  std::vector<std::pair<std::string, double>> phase_seconds;  // (phase, seconds), in order
  std::optional<int> iter;  // precision='mixed': LAPACK's ITER (< 0: the double solver answered, why)
  std::string note;         // precision='mixed': the refinement steps of each kind, or why double answered
  // SolveReport::rcond where the solve estimated it (PRBT, precision='mixed', 'auto' when mixed ran), else None
  std::optional<double> rcond;
};

struct LUFactorization {
  py::array lu;   // L (unit, below the diagonal) and U, Fortran order
  py::array piv;  // 0-based: row i was interchanged with row piv[i], as SciPy's lu_factor
  py::dict plan;
  double seconds = 0, gflops = 0;
};

// The value of a SolveResult or LUFactorization from Python. One made by T.__new__ alone (pickle's
// way in, before __setstate__) holds none, and pybind11 read uninitialized memory in its place: a
// segfault from pure Python (`hetlu.LUFactorization.__new__(hetlu.LUFactorization).lu`; a hostile
// helper's finding). Now a TypeError.
template <class T>
const T& initialized(py::handle self, const char* name) {
  if (!py::isinstance<T>(self))  // a getter called on another type (SolveResult.x.fget(5))
    throw py::type_error(std::string("expected a hetlu.") + name + ", not a " +
                         py::str(py::type::of(self).attr("__name__")).cast<std::string>());
  auto* instance = reinterpret_cast<py::detail::instance*>(self.ptr());
  const auto held = instance->get_value_and_holder(py::detail::get_type_info(typeid(T)));
  if (!held.holder_constructed())
    throw py::type_error(std::string("this ") + name + " was made by __new__ alone and holds nothing");
  return *held.template value_ptr<T>();
}

// A read-only attribute of T, through initialized().
template <class T, class Field>
auto field_of(Field T::*member, const char* name) {
  return [member, name](py::handle self) -> Field { return initialized<T>(self, name).*member; };
}

// Whether a's data lies on its type's alignment: NumPy allows arrays that do not (a buffer at an odd
// offset), which hetlu's kernels, reading T*, must never be given (a vectorized load of an
// unaligned float32 matrix crashed the process).
bool aligned(const py::array& a) {
  return (a.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_) != 0;
}

// A as a float array of type T: Fortran order, aligned and writable. Copies unless overwrite and it already is.
template <class T>
py::array_t<T, py::array::f_style> fortran_copy(const py::array& A, bool overwrite) {
  if (overwrite && py::isinstance<py::array_t<T, py::array::f_style>>(A) && A.writeable() && aligned(A))
    return py::reinterpret_borrow<py::array_t<T, py::array::f_style>>(A);
  py::array_t<T, py::array::f_style> out({A.shape(0), A.ndim() > 1 ? A.shape(1) : py::ssize_t(1)});
  py::object numpy = py::module_::import("numpy");
  py::object source = A.ndim() == 1 ? A.attr("reshape")(A.shape(0), 1) : py::object(A);
  numpy.attr("copyto")(out, source, "casting"_a = "same_kind");
  return out;
}

// An argument as NumPy reads it, as SciPy's functions take lists and other array-likes; a masked
// array is refused, as scipy.linalg refuses it (its masked-out values would be solved with).
py::array array_argument(const py::object& value, const char* name) {
  static PyObject* const ndarray =
      py::object(py::module_::import("numpy").attr("ndarray")).release().ptr();  // kept for good
  if (Py_TYPE(value.ptr()) == reinterpret_cast<PyTypeObject*>(ndarray)) return py::reinterpret_borrow<py::array>(value);
  static PyObject* const masked = py::object(py::module_::import("numpy.ma").attr("MaskedArray")).release().ptr();
  if (PyObject_IsInstance(value.ptr(), masked) == 1)
    throw InvalidArgument(std::string(name) +
                          " is a masked array: hetlu does not solve with masks (as scipy.linalg); give its filled() "
                          "array");
  if (py::isinstance<py::array>(value)) return py::reinterpret_borrow<py::array>(value);
  try {
    return py::module_::import("numpy").attr("asarray")(value);
  } catch (py::error_already_set& e) {
    throw InvalidArgument(std::string(name) + " cannot be read as an array: " + e.what());
  }
}

void check_matrix(const py::array& A, const char* name) {
  if (A.ndim() != 2)
    throw InvalidArgument(std::string(name) + " must be 2-dimensional, not " + std::to_string(A.ndim()) +
                          "-dimensional");
}

// True when A already holds T values contiguously in the given order, aligned.
template <class T, int order>
bool is_contiguous_as(const py::array& A) {
  return py::isinstance<py::array_t<T, order>>(A) && A.dtype().is(py::dtype::of<T>()) && aligned(A);
}

// A as a backward error reads it: where it lies when it has T's type in either order (C order is
// A^T column-major: transposed), else a Fortran-ordered copy of T, held here.
template <class T>
struct OriginalA {
  const T* data = nullptr;
  bool transposed = false;
  py::array_t<T, py::array::f_style> copy;
};
template <class T>
OriginalA<T> original_of(const py::array& A) {
  OriginalA<T> o;
  const bool f_order = is_contiguous_as<T, py::array::f_style>(A);
  o.transposed = !f_order && is_contiguous_as<T, py::array::c_style>(A);
  if (f_order || o.transposed) {
    o.data = static_cast<const T*>(A.data());
  } else {
    o.copy = fortran_copy<T>(A, false);  // another type or strided
    o.data = o.copy.data();
  }
  return o;
}

// n and nrhs of A x = b: A square, b with n rows (one or more columns); else a ValueError saying so.
// a.shape(axis) as an int, the solvers' orders; beyond INT_MAX (an empty array may claim any
// length) an error naming it, where a cast wrapped (0 x 2^32 + 2 was solved as 0 x 2).
int dimension(const py::array& a, int axis, const char* name) {
  const py::ssize_t extent = a.shape(axis);
  if (extent > std::numeric_limits<int>::max())
    throw InvalidArgument(std::string(name) + " has " + std::to_string(extent) + " " +
                          (axis == 0 ? "rows" : "columns") + "; hetlu's orders and right-hand sides are at most " +
                          std::to_string(std::numeric_limits<int>::max()));
  return static_cast<int>(extent);
}

std::pair<int, int> system_shape(const py::array& A_in, const py::array& b_in) {
  const int n = dimension(A_in, 0, "A");
  if (A_in.shape(1) != A_in.shape(0))
    throw InvalidArgument("A is " + std::to_string(A_in.shape(0)) + " x " + std::to_string(A_in.shape(1)) +
                          "; it must be square");
  if (b_in.ndim() < 1 || b_in.ndim() > 2)
    throw InvalidArgument("b must be 1- or 2-dimensional (n or n x nrhs), not " + std::to_string(b_in.ndim()) +
                          "-dimensional");
  if (b_in.shape(0) != A_in.shape(0))
    throw InvalidArgument("b has " + std::to_string(b_in.shape(0)) + " rows but A is " + std::to_string(n) + " x " +
                          std::to_string(n) + "; they must match");
  return {n, b_in.ndim() == 2 ? dimension(b_in, 1, "b") : 1};
}

// hetlu.HetluWarning (a UserWarning), made by the module's init.
PyObject* hetlu_warning = nullptr;

// The report's warnings that name the tuning database in use (one that could not be read: a folder,
// not SQLite, locked; stale or skipped tuned entries), raised as hetlu.HetluWarning: the model
// answered, and only the result's warnings said why. The answer's own notes keep their rule (a
// LinAlgWarning where x cannot be trusted, nothing where it can). Raises where the caller's warning
// filters make a warning an error.
void warn_of_the_database(const std::vector<std::string>& warnings, const Options& options) {
  const std::string path = tuning_database_path(options);
  if (path.empty()) return;
  for (const auto& w : warnings)
    if (w.find("'" + path + "'") != std::string::npos && PyErr_WarnEx(hetlu_warning, w.c_str(), 1) != 0)
      throw py::error_already_set();
}

// Says where X cannot be trusted, in r.warnings and as hetlu.linalg.LinAlgWarning (SciPy's where
// SciPy is there): X not finite, its backward error above accuracy_tolerance (LAPACK's gesv returns
// such an X as a success: the hetlu command equilibrates and escalates instead), or A singular to
// working precision (said already in the report's warnings). Raises where the caller's warning
// filters make a warning an error.
template <class T>
void warn_where_untrustworthy(SolveResult& r, int n, const T* X, long long entries, bool singular,
                              std::vector<std::string> said = {}) {
  bool finite = true;
  for (long long i = 0; i < entries && finite; ++i) finite = scalar::is_finite(X[i]);
  char line[240];
  if (!finite) {
    said.push_back(
        "x is not finite: A or b lies near an end of the floating-point range (x may lie beyond it), or A is "
        "singular to working precision");
  } else if (r.backward_error && !(*r.backward_error <= accuracy_tolerance<T>(n))) {
    std::snprintf(line, sizeof line, "x is inaccurate: componentwise backward error %.2e above %.2e (30 (n + 1) eps)",
                  *r.backward_error, accuracy_tolerance<T>(n));
    said.push_back(line);
  }
  std::vector<std::string> raised = said;
  if (singular)
    for (const auto& w : r.warnings)
      if (w.find("singular to working precision") != std::string::npos) raised.push_back(w);
  r.warnings.insert(r.warnings.end(), said.begin(), said.end());
  if (raised.empty()) return;
  const py::object category = py::module_::import("hetlu.linalg").attr("LinAlgWarning");
  for (const auto& w : raised)
    if (PyErr_WarnEx(category.ptr(), w.c_str(), 1) != 0) throw py::error_already_set();
}

// A column-major copy of the caller's A where it lies transposed (a C-ordered array read in place).
template <class T>
const T* column_major_a(const T* A, bool transposed, int n, std::vector<T>& storage) {
  if (!transposed) return A;
  const int ld = std::max(1, n);
  storage.resize(static_cast<size_t>(ld) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) storage[i + static_cast<size_t>(j) * ld] = A[j + static_cast<size_t>(i) * ld];
  return storage.data();
}

// The answer checked as the hetlu command checks it. Not finite or not accurate: solved again as
// the command solves (solve_checked: equilibrated by powers of two where A's rows or columns need
// it, an explicit solver once and then refined where it fails, auto escalating) and kept where better: float32 rows
// scaled 1e+-30 gave an x of Inf and NaN (LAPACK's sgetrs overflows the same way on these factors) where R A's factors
// give x to 1e-8. Accurate but "singular to working precision" from an rcond of A unequilibrated (5.8e-42 for rows
// scaled 1e+-20, x right to 1e-15): dgerfs' forward error bound decides, as in the command. A is the caller's
// (column-major, or its transpose where `transposed`); B the right-hand sides as given, in T. Returns whether the
// answer was replaced.
template <class T>
bool check_as_the_command(SolveResult& r, SolveReport& report, const std::string& solver, const Options& options, int n,
                          int nrhs, const T* A, bool transposed, const py::array& b_in, const T* B,
                          py::array_t<T, py::array::f_style>& X) {
  const double before = r.backward_error.value_or(std::numeric_limits<double>::infinity());
  const bool accurate = before <= accuracy_tolerance<T>(n);
  // An accurate answer is judged where rcond is below eps, or near enough for its estimate to err.
  const bool near_eps = forward_error_decides<T>(report.rcond);
  if (accurate && !report.singular_to_working_precision && !near_eps) return false;
  const int ld = std::max(1, n);
  std::vector<T> storage;
  py::array_t<T, py::array::f_style> again_x;
  if (!accurate) again_x = fortran_copy<T>(b_in, false);
  SolveReport again;
  try {  // a check that fails (a database, memory) keeps the first answer, and says so
    py::gil_scoped_release release;
    const T* a = column_major_a(A, transposed, n, storage);
    if (accurate) {
      judge_singularity_with_forward_error(report, n, nrhs, a, ld, X.data(), ld, B, ld, options);
      return false;
    }
    const std::optional<Solver> asked = solver == "auto" ? std::nullopt : std::optional<Solver>(named_solver(solver));
    again = solve_checked(asked, n, nrhs, a, ld, again_x.mutable_data(), ld, options);
  } catch (const Error& e) {
    report.warnings.push_back(std::string("the answer could not be checked as the hetlu command checks it: ") +
                              e.what());
    return false;
  }
  if (again.info != 0 || !again.backward_error || !(*again.backward_error < before)) return false;
  char line[200];
  std::snprintf(line, sizeof line,
                "solved again as the hetlu command solves (equilibrated, checked): omega %.2e, where the first "
                "answer's was %.2e",
                *again.backward_error, before);
  X = again_x;
  r.backward_error = again.backward_error;
  clear_working_precision_singularity(report);  // the first answer's verdict: the second's counts
  std::vector<std::string> warnings = std::move(report.warnings);
  warnings.push_back(line);
  warnings.insert(warnings.end(), again.warnings.begin(), again.warnings.end());
  const double first_seconds = report.seconds;
  report = std::move(again);  // plan, phases, steps, rcond and verdict of the answer returned
  report.warnings = std::move(warnings);
  if (report.note.empty()) report.note = line;  // the first answer's note was of an answer not returned
  report.seconds += first_seconds;
  return true;
}

// rcond = 1 / (||A|| ||A^-1||) from the factors, for a norm given as value 2^exponent.
template <class T>
double rcond_from_factors(int n, const T* LU, int ld, const int* ipiv, kernels::ScaledNorm anorm) {
  return anorm.rcond(rcond_estimate(n, LU, ld, ipiv, anorm.value));
}

// V <- 2^e V for an m x n block V.
template <class T>
void scale_block(int m, int n, T* V, int ld, int e) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      T& v = V[i + static_cast<long long>(j) * ld];
      v = scalar::times_power_of_two(v, e);
    }
}

// A system whose largest entry lies below min / eps (2^-970 in double, 2^-103 in single) is scaled
// up by a power of two to entries of at most 1: an LU in subnormal arithmetic loses digits that
// LAPACK's does not report (A and b of subnormal entries: x wrong by 8 %, in silence, in SciPy too).
// Exact: the entries only gain exponent. The right-hand sides are scaled by as much as keeps them
// finite (b near the top of the range beside a tiny A: x came out NaN), and the rest of the scaling
// is returned, for x: x = 2^returned X. The norm and the columns' maxima are scaled with A, so that
// rcond and the pivot growth are A's.
template <class T>
int scale_up_a_tiny_system(int n, int nrhs, T* A, T* X, int ld, std::vector<double>& a_maxima,
                           kernels::ScaledNorm& norm) {
  using R = scalar::real_t<T>;
  const double largest = a_maxima.empty() ? 0 : *std::max_element(a_maxima.begin(), a_maxima.end());
  constexpr double tiny = double(std::numeric_limits<R>::min()) / std::numeric_limits<R>::epsilon();
  if (!(largest > 0) || !(largest < tiny)) return 0;
  const int a_shift = -scalar::normalizing_exponent(largest);
  double b_largest = 0;
  for (int j = 0; j < nrhs; ++j)
    for (int i = 0; i < n; ++i) b_largest = std::max(b_largest, scalar::abs_max(X[i + static_cast<long long>(j) * ld]));
  // Up to b's exponent room below the largest R, less two for |re| + |im| and the rounding.
  const int b_room =
      b_largest > 0 ? std::numeric_limits<R>::max_exponent - 2 - scalar::normalizing_exponent(b_largest) : a_shift;
  const int b_shift = std::min(a_shift, b_room);
  scale_block(n, n, A, ld, a_shift);
  scale_block(n, nrhs, X, ld, b_shift);
  for (double& m : a_maxima) m = std::ldexp(m, a_shift);
  norm.value = std::ldexp(norm.value, a_shift);
  return a_shift - b_shift;
}

// The pivot growth above which GEPP's answer may fail the tolerance 30 (n + 1) eps: its backward
// error is about growth eps / 10 on Wilkinson's matrices (n = 20: growth 5e5, omega 9e-12), while
// random matrices grow about n^(2/3). hetlu.linalg reads it too (_pivot_growth_limit).
double pivot_growth_limit(int n) {
  return 100.0 * (n + 1);
}

// Where A was factored in place (overwrite_a=True) nothing can check the answer against A: LAPACK's
// reciprocal pivot growth (dgesvx's rpvgrw, min over columns of max|A(:,j)| / max|U(:,j)|) is what
// the factors still tell. Wilkinson's matrix at n = 60 (growth 2^59) gave omega 0.1 in silence.
// The factors of an m x n A (U's upper trapezoid: rows up to min(j, m - 1) of column j).
template <class T>
double pivot_growth(int m, int n, const std::vector<double>& a_maxima, const T* LU, int ld) {
  double growth = 1;
  for (int j = 0; j < n; ++j) {
    double u = 0;
    for (int i = 0; i <= std::min(j, m - 1); ++i)
      u = std::max(u, double(scalar::abs1(LU[i + static_cast<size_t>(j) * ld])));
    if (a_maxima[j] > 0) growth = std::max(growth, u / a_maxima[j]);
  }
  return growth;
}

template <class T>
SolveResult solve_typed(const py::array& A_in, const py::array& b_in, const std::string& solver, const Options& options,
                        bool overwrite_a) {
  const auto [n, nrhs] = system_shape(A_in, b_in);
  const int ld = std::max(1, n);
  auto X = fortran_copy<T>(b_in, false);

  const bool f_order = is_contiguous_as<T, py::array::f_style>(A_in);
  const bool c_order = !f_order && is_contiguous_as<T, py::array::c_style>(A_in);
  // The factors: A itself when the caller allows it and it has the right type and layout (a C-ordered A
  // is A^T column-major: factored as it lies and solved transposed); otherwise one Fortran-ordered copy.
  const bool in_place = overwrite_a && (f_order || c_order) && A_in.writeable();
  const bool transposed = in_place && c_order;
  py::array_t<T, py::array::f_style> copy;
  T* a = nullptr;
  if (in_place) {
    a = static_cast<T*>(py::array(A_in).mutable_data());
  } else {
    copy = fortran_copy<T>(A_in, false);
    a = copy.mutable_data();
  }
  // The backward error needs the original A: read it where it lies; after an in-place factorization
  // it is gone, and the result says so (backward_error is None).
  OriginalA<T> original;
  if (!in_place) original = original_of<T>(A_in);
  const T* a_original = original.data;
  bool original_transposed = original.transposed;
  py::array_t<T, py::array::f_style> B = fortran_copy<T>(b_in, true);  // no copy when b is already T, F-ordered

  std::vector<int> ipiv(ld);
  SolveReport report;
  std::optional<double> growth;  // factored in place (A gone): the factors' pivot growth
  {
    py::gil_scoped_release release;
    const Solver chosen = solver_of(solver, n, n, options, scalar::plan_precision<T>());
    if (chosen == Solver::prbt) {
      // PRBT solves from A itself (unchanged) and refines; it has no factorization to reuse.
      std::vector<T> column_major;  // a C-ordered A given in place: PRBT needs it column-major
      const T* a_in = column_major_a(a, transposed, n, column_major);
      report = gesv(Solver::prbt, n, nrhs, const_cast<T*>(a_in), ld, ipiv.data(), X.mutable_data(), ld, options);
      // A given in place is still A: the answer is checked and repaired against it, as without
      // overwrite_a (rows scaled by 1e30 in float32 came back with omega 0.68 unchecked).
      if (!a_original) a_original = a, original_transposed = transposed;
    } else {
      std::vector<double> a_maxima;  // where A is about to go: its columns' largest entries, in the same pass
      const kernels::ScaledNorm anorm =
          kernels::overflow_safe_norm(a_original ? kernels::norm1(n, n, a, ld)  // of A^T where transposed
                                                 : kernels::norm1(n, n, a, ld, a_maxima),
                                      n, a, ld, false);
      report = getrf(chosen, n, n, a, ld, ipiv.data(), options);
      if (!a_original && report.info == 0) growth = pivot_growth(n, n, a_maxima, a, ld);
      if (report.info == 0) {
        // How singular A is, as scipy.linalg.solve and the hetlu command tell it (dgecon from the
        // factors): Hilbert 14 came back wrong by 0.18 in silence.
        report.rcond = rcond_from_factors(n, a, ld, ipiv.data(), anorm);
        check_working_precision_singularity<T>(report);
        const SolveReport solve = getrs(transposed ? Transpose::yes : Transpose::no, n, nrhs, a, ld, ipiv.data(),
                                        X.mutable_data(), ld, options);
        report.phase_seconds = {{"factorization", report.seconds}, {"solve", solve.seconds}};
        report.seconds += solve.seconds;
      }
    }
  }
  if (report.info > 0) raise_singular(report.info);

  SolveResult r;
  if (a_original)
    r.backward_error =
        accuracy::backward_error(n, nrhs, a_original, ld, X.data(), ld, B.data(), ld, original_transposed);
  if (a_original)
    check_as_the_command<T>(r, report, solver, options, n, nrhs, a_original, original_transposed, b_in, B.data(), X);
  std::vector<std::string> unchecked;  // raised as LinAlgWarnings below
  if (growth && *growth > pivot_growth_limit(n)) {
    char line[240];
    std::snprintf(line, sizeof line,
                  "x may be inaccurate: pivot growth %.1e (1 / dgesvx's rpvgrw) is above 100 (n + 1), and with "
                  "overwrite_a=True A is gone and x cannot be checked: solve with overwrite_a=False to check and "
                  "repair it",
                  *growth);
    unchecked.push_back(line);
  }
  r.plan = plan_dict(report.plan);
  r.seconds = report.seconds;
  r.gflops = detail::gflops(detail::gesv_flops(n, nrhs, scalar::is_complex_v<T>), report.seconds);
  r.warnings = report.warnings;
  r.rcond = report.rcond;
  r.refinement_steps = report.refinement_steps;
  r.fell_back_to_gepp = report.fell_back_to_gepp;
  r.phase_seconds = report.phase_seconds;
  warn_of_the_database(report.warnings, options);
  warn_where_untrustworthy(r, n, X.data(), static_cast<long long>(n) * nrhs, report.singular_to_working_precision,
                           std::move(unchecked));
  r.x = b_in.ndim() == 1 ? py::array(X.attr("reshape")(n)) : py::array(X);
  return r;
}

// precision='mixed' (#15): a single-precision factorization refined in double (mixed_gesv), for
// float64 and complex128 systems; precision='auto': that or the double solver, as
// auto_precision_gesv decides. A and b are read, never overwritten.
template <class T>
SolveResult solve_mixed_typed(const py::array& A_in, const py::array& b_in, const std::string& solver,
                              const Options& options, bool automatic) {
  const auto [n, nrhs] = system_shape(A_in, b_in);
  const int ld = std::max(1, n);
  auto A = fortran_copy<T>(A_in, false);  // the double solver, if it answers, overwrites its copy
  // omega reads A where it lies (a second 128 MB copy at n = 4000 cost its page faults, a tenth of
  // the solve).
  const OriginalA<T> original = original_of<T>(A_in);
  const auto B = fortran_copy<T>(b_in, false);
  py::array_t<T, py::array::f_style> X({py::ssize_t(n), py::ssize_t(nrhs)});
  std::vector<int> ipiv(ld);
  SolveReport report;
  int iter = 0;
  {
    py::gil_scoped_release release;
    const Solver chosen = solver == "auto" ? Solver::gepp : named_solver(solver);
    if (automatic) {
      report = auto_precision_gesv(chosen, n, nrhs, A.mutable_data(), ld, ipiv.data(), B.data(), ld, X.mutable_data(),
                                   ld, options);
      iter = report.refinement_steps;
    } else {
      report = mixed_gesv(chosen, n, nrhs, A.mutable_data(), ld, ipiv.data(), B.data(), ld, X.mutable_data(), ld, &iter,
                          options);
    }
  }
  if (report.info > 0) raise_singular(report.info);
  // Where the double solver answered with GEPP's or CALU's factors (left in A), dgecon's estimate
  // from them, never above what X proves, as the hetlu command: auto's double solver estimates only
  // where the mixed certificate failed, and Hilbert 14 came back wrong by 0.18 in silence.
  const bool double_factors_in_a =
      report.info == 0 && report.plan.precision == Precision::double_ && report.plan.solver != Solver::prbt;
  if (double_factors_in_a && (!report.rcond || automatic)) {
    py::gil_scoped_release release;
    // ||A||_1 read where A lies: a C-ordered A is A^T column-major, whose row sums are A's column
    // sums. A transposed copy for it cost 200 ms of auto's 0.76 s at n = 4000 (a hostile helper's
    // finding: auto 1.36x the double solver where the library's own times were equal).
    std::vector<double> column_maxima;
    const double norm = original.transposed ? kernels::norm_inf(n, n, original.data, ld, column_maxima)
                                            : kernels::norm1(n, n, original.data, ld);
    const kernels::ScaledNorm anorm = kernels::overflow_safe_norm(norm, n, original.data, ld, original.transposed);
    report.rcond = std::min(report.rcond.value_or(1.0),
                            kernels::solution_rcond(n, nrhs, X.data(), ld, B.data(), ld, anorm, [&](double norm) {
                              return rcond_estimate(n, A.data(), ld, ipiv.data(), norm);
                            }));
    check_working_precision_singularity<T>(report);
  }
  SolveResult r;
  r.backward_error =
      accuracy::backward_error(n, nrhs, original.data, ld, X.data(), ld, B.data(), ld, original.transposed);
  const bool solved_again = check_as_the_command<T>(r, report, solver, options, n, nrhs, original.data,
                                                    original.transposed, b_in, B.data(), X);
  r.plan = plan_dict(report.plan);
  r.seconds = report.seconds;
  r.gflops = detail::gflops(detail::gesv_flops(n, nrhs, scalar::is_complex_v<T>), report.seconds);
  r.warnings = report.warnings;
  r.rcond = report.rcond;
  r.refinement_steps = solved_again ? report.refinement_steps : std::max(0, iter);
  r.phase_seconds = report.phase_seconds;
  if (!automatic) r.iter = iter;  // LAPACK's ITER is dsgesv's; auto's report says which precision answered
  r.note = automatic ? report.auto_choice + (report.note.empty() ? "" : "; " + report.note) : report.note;
  warn_of_the_database(report.warnings, options);
  warn_where_untrustworthy(r, n, X.data(), static_cast<long long>(n) * nrhs, report.singular_to_working_precision);
  r.x = b_in.ndim() == 1 ? py::array(X.attr("reshape")(n)) : py::array(X);
  return r;
}

// Whether a dtype holds numbers hetlu solves with: float, integer, bool or complex.
bool numeric(const py::dtype& type) {
  return std::string("fiubc").find(type.kind()) != std::string::npos;
}

// The dtype of `name`'s array, unless it holds numbers: an error naming it.
void require_numeric(const py::dtype& type, const char* name) {
  if (!numeric(type))
    throw InvalidArgument(std::string(name) + " has dtype " + type.attr("name").cast<std::string>() +
                          "; hetlu solves real and complex systems (float32, float64, complex64, complex128)");
}
void require_numeric(const py::array& a, const char* name) {
  require_numeric(a.dtype(), name);
}

// A long double (real or complex) is solved in double: a finite entry beyond double's range is
// refused as such, not as the Inf it rounds to ("A(1,1) is Inf" of 1e400, with NumPy's cast warning).
void require_fits_double(const py::array& a, const char* name) {
  const char kind = a.dtype().char_();
  if (kind != 'g' && kind != 'G') return;
  const py::module_ np = py::module_::import("numpy");
  const py::object wide_finite = np.attr("isfinite")(a);
  py::object rounded;
  {
    const py::object errstate = np.attr("errstate")(py::arg("over") = "ignore", py::arg("invalid") = "ignore");
    errstate.attr("__enter__")();
    rounded = a.attr("astype")(kind == 'g' ? "float64" : "complex128");
    errstate.attr("__exit__")(py::none(), py::none(), py::none());
  }
  const py::object lost = np.attr("logical_and")(wide_finite, np.attr("logical_not")(np.attr("isfinite")(rounded)));
  if (!lost.attr("any")().cast<bool>()) return;
  const py::tuple where = np.attr("argwhere")(lost).attr("__getitem__")(0).attr("tolist")().cast<py::list>();
  std::string index;
  for (const auto& i : where) index += (index.empty() ? "" : ",") + std::to_string(i.cast<long long>() + 1);
  throw InvalidArgument(std::string(name) + "(" + index +
                        ") is a finite long double beyond double's range; hetlu solves long doubles in double");
}

// body(T{}) for the type a system of dtype `type` is solved in: float32, complex64, complex128 as
// they are, every other real or integer type in float64.
template <class Body>
auto dispatch_type(const py::dtype& type, Body&& body) {
  require_numeric(type, "A");
  const auto kind = type.kind();
  if (type.is(py::dtype::of<float>())) return body(float{});
  if (type.is(py::dtype::of<std::complex<float>>())) return body(std::complex<float>{});
  if (kind == 'c') return body(std::complex<double>{});
  return body(double{});
}

template <class Body>
auto dispatch(const py::array& A, Body&& body) {
  return dispatch_type(A.dtype(), body);
}

SolveResult solve(const py::object& A_in, const py::object& b_in, const std::string& solver, const DbPath& db,
                  const PyWhole& nb, bool overwrite_a, const std::string& target,
                  const std::optional<std::string>& backend, const PyWhole& d, const std::optional<std::string>& panel,
                  const std::optional<std::string>& precision) {
  const py::array A = array_argument(A_in, "A"), b = array_argument(b_in, "b");
  check_matrix(A, "A");
  require_fits_double(A, "A");
  require_fits_double(b, "b");
  const Options options = options_of(db, int_of("nb", nb), {target, backend, panel, int_of("d", d)});
  // 'double' as the command's --precision double: float32 arrays solved in float64 (a script moving
  // between the two met "give 'mixed', 'auto'"); 'single' rounds nothing here: pass float32.
  if (precision && *precision != "mixed" && *precision != "auto" && *precision != "double")
    throw InvalidArgument("precision='" + *precision +
                          "': give 'double', 'mixed', 'auto' or leave it out (the arrays' own precision; float32 or "
                          "complex64 arrays solve in single)");
  require_numeric(b, "b");
  // NumPy's promotion of the two, as SciPy's: a float32 A with a float64 b is solved in float64, not
  // b rounded to float32 (1e-50 became 0, 1e300 Inf); a complex b makes a complex system of a real A.
  const py::module_ np = py::module_::import("numpy");
  py::dtype type = numeric(A.dtype()) ? py::dtype(np.attr("result_type")(A.dtype(), b.dtype())) : A.dtype();
  const bool in_double = precision && *precision == "double";
  if (in_double && numeric(type)) type = py::dtype(np.attr("result_type")(type, py::dtype::of<double>()));
  return dispatch_type(type, [&](auto t) {
    using T = decltype(t);
    if (precision && !in_double) {
      if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::complex<double>>)
        return solve_mixed_typed<T>(A, b, solver, options, *precision == "auto");
      else
        throw InvalidArgument("precision='" + *precision +
                              "' answers in double: A and b must be float64 or complex128 (or integers), not " +
                              type.attr("name").cast<std::string>());
    }
    return solve_typed<T>(A, b, solver, options, overwrite_a);
  });
}

LUFactorization lu_factor(const py::object& A_in, const std::string& solver, const DbPath& db, const PyWhole& nb,
                          bool overwrite_a, const std::string& target, const std::optional<std::string>& backend,
                          const PyWhole& d, const std::optional<std::string>& panel) {
  const py::array A = array_argument(A_in, "A");
  check_matrix(A, "A");
  require_fits_double(A, "A");
  const Options options = options_of(db, int_of("nb", nb), {target, backend, panel, int_of("d", d)});
  return dispatch(A, [&](auto t) {
    using T = decltype(t);
    const int m = dimension(A, 0, "A"), n = dimension(A, 1, "A");
    const Solver chosen = solver == "auto" ? Solver::gepp : named_solver(solver);
    if (chosen == Solver::prbt)
      throw InvalidArgument(
          "solver 'prbt' has no P A = L U factorization (it factors a randomized A): use hetlu.solve, or lu_factor "
          "with solver 'gepp' or 'calu'");
    auto LU = fortran_copy<T>(A, overwrite_a);
    std::vector<int> ipiv(std::max(1, std::min(m, n)));
    SolveReport report;
    double growth = 1;
    {
      py::gil_scoped_release release;
      std::vector<double> a_maxima;  // A's columns' largest entries, read before A is factored
      kernels::norm1(m, n, LU.data(), std::max(1, m), a_maxima);
      report = getrf(chosen, m, n, LU.mutable_data(), std::max(1, m), ipiv.data(), options);
      if (report.info == 0) growth = pivot_growth(m, n, a_maxima, LU.data(), std::max(1, m));
    }
    if (report.info > 0) raise_singular(report.info);
    // The factors cannot be checked against A once lu_solve uses them; their growth is what tells a
    // wrong x ahead (Wilkinson's matrix at n = 64: growth 9e18, lu_solve's x off by 0.45 in silence).
    if (growth > pivot_growth_limit(std::min(m, n))) {
      char line[240];
      std::snprintf(line, sizeof line,
                    "pivot growth %.1e (1 / dgesvx's rpvgrw) is above 100 (n + 1): lu_solve's x from these factors "
                    "may be inaccurate; hetlu.solve checks and repairs the answer",
                    growth);
      report.warnings.push_back(line);
      const py::object category = py::module_::import("hetlu.linalg").attr("LinAlgWarning");
      if (PyErr_WarnEx(category.ptr(), line, 1) != 0) throw py::error_already_set();
    }
    warn_of_the_database(report.warnings, options);
    py::array_t<int> piv(std::min(m, n));
    for (int i = 0; i < std::min(m, n); ++i) piv.mutable_at(i) = ipiv[i] - 1;
    py::dict plan = plan_dict(report.plan);
    plan["warnings"] = report.warnings;
    return LUFactorization{LU, piv, plan, report.seconds, report.gflops};
  });
}

// The 1-based pivots of a 0-based piv for an n x n factorization, each checked.
std::vector<int> one_based_pivots(const py::array& piv_in, int n) {
  if (piv_in.dtype().kind() == 'f' && piv_in.ndim() == 1) {  // a NaN or 2.5 would be cast to some integer
    auto real = piv_in.cast<py::array_t<double, py::array::forcecast>>();
    for (py::ssize_t i = 0; i < real.shape(0); ++i)
      if (!(real.at(i) == std::floor(real.at(i))))
        throw InvalidArgument("piv[" + std::to_string(i) + "] = " + std::string(py::str(py::float_(real.at(i)))) +
                              " is not a row index (a whole number)");
  }
  auto piv = piv_in.cast<py::array_t<long long, py::array::forcecast>>();
  if (piv.ndim() != 1 || piv.shape(0) != n)
    throw InvalidArgument("piv has shape " + std::string(py::str(piv_in.attr("shape"))) + "; it must be (" +
                          std::to_string(n) + ",)");
  std::vector<int> ipiv(std::max(1, n));
  for (int i = 0; i < n; ++i) {
    if (piv.at(i) < 0 || piv.at(i) >= n)
      throw InvalidArgument("piv[" + std::to_string(i) + "] = " + std::to_string(piv.at(i)) +
                            " is not a row index in [0, " + std::to_string(n) + ")");
    ipiv[i] = static_cast<int>(piv.at(i)) + 1;
  }
  return ipiv;
}

// SciPy's trans: 0 A, 1 A^T, 2 A^H (the same as A^T for real types).
Transpose transpose_of(int trans) {
  if (trans < 0 || trans > 2) throw InvalidArgument("trans = " + std::to_string(trans) + " must be 0, 1 or 2");
  return trans == 0 ? Transpose::no : trans == 1 ? Transpose::yes : Transpose::conjugate;
}

// lu_solve's trans as a Python caller gives it: SciPy's 0, 1 or 2 (False and True are 0 and 1), or
// LAPACK's 'N', 'T' or 'C'. It was a bool, and 2 (A^H) became True (A^T): a wrong x for complex A.
Transpose transpose_of(const py::handle& trans) {
  if (py::isinstance<py::str>(trans)) {
    const auto text = trans.cast<std::string>();
    if (text == "N" || text == "n") return Transpose::no;
    if (text == "T" || text == "t") return Transpose::yes;
    if (text == "C" || text == "c") return Transpose::conjugate;
    throw InvalidArgument("trans = '" + text.substr(0, 20) + "' must be 0, 1 or 2, or 'N', 'T' or 'C'");
  }
  static PyObject* const numpy_bool = py::object(py::module_::import("numpy").attr("bool_")).release().ptr();
  if (PyObject_IsInstance(trans.ptr(), numpy_bool) == 1)  // numpy.True_: its __index__ is deprecated
    return PyObject_IsTrue(trans.ptr()) == 1 ? Transpose::yes : Transpose::no;
  if (PyIndex_Check(trans.ptr())) {  // int, bool, numpy integers
    const auto index = py::reinterpret_steal<py::object>(PyNumber_Index(trans.ptr()));
    if (!index) throw py::error_already_set();
    const long long value = index.cast<long long>();
    if (value < 0 || value > 2) throw InvalidArgument("trans = " + std::to_string(value) + " must be 0, 1 or 2");
    return transpose_of(static_cast<int>(value));
  }
  throw InvalidArgument("trans must be 0, 1 or 2, or 'N', 'T' or 'C', not a " +
                        py::str(py::type::handle_of(trans).attr("__name__")).cast<std::string>());
}

py::array lu_solve(py::handle factorization, const py::object& b_in, const py::object& trans_in) {
  if (!py::isinstance<LUFactorization>(factorization))
    throw py::type_error("lu_solve: the factorization must be hetlu.lu_factor's LUFactorization, not a " +
                         py::str(py::type::of(factorization).attr("__name__")).cast<std::string>());
  const LUFactorization& f = initialized<LUFactorization>(factorization, "LUFactorization");
  const py::array b = array_argument(b_in, "b");
  const Transpose trans = transpose_of(trans_in);
  const int n = dimension(f.lu, 0, "lu");
  if (f.lu.ndim() != 2 || f.lu.shape(1) != n) throw InvalidArgument("lu_solve needs the factors of a square matrix");
  if (b.ndim() < 1 || b.ndim() > 2)
    throw InvalidArgument("b must be 1- or 2-dimensional (n or n x nrhs), not " + std::to_string(b.ndim()) +
                          "-dimensional");
  if (b.shape(0) != n)
    throw InvalidArgument("b has " + std::to_string(b.shape(0)) + " rows but the factors are " + std::to_string(n) +
                          " x " + std::to_string(n));
  require_numeric(f.lu, "lu");
  require_numeric(b, "b");
  if (b.dtype().kind() == 'c' && f.lu.dtype().kind() != 'c')
    throw InvalidArgument("b is complex but the factors are real: factor a complex matrix to solve with it");
  // 0-based as SciPy's; checked here, before the +1 (a pivot near INT_MAX would wrap), and again by getrs.
  const std::vector<int> ipiv = one_based_pivots(f.piv, n);
  // In the factors' type, or b's where it is wider (float32 factors and a float64 b: solved in
  // float64 with the factors widened, as SciPy's lu_solve does, not b rounded to float32).
  const py::dtype type(py::module_::import("numpy").attr("result_type")(f.lu.dtype(), b.dtype()));
  return dispatch_type(type, [&](auto t) -> py::array {
    using T = decltype(t);
    auto LU = f.lu.cast<py::array_t<T, py::array::f_style | py::array::forcecast>>();
    auto X = fortran_copy<T>(b, false);
    const int nrhs = b.ndim() == 2 ? dimension(b, 1, "b") : 1;
    // Factors with an exactly zero U(k,k) (edited, or another library's) would divide by it: said as
    // lu_factor says a singular matrix, as the C API's getrs refuses them.
    if (const int k =
            nrhs > 0 ? checks::first_zero_pivot(n, LU.data(), std::max(1, n)) : 0)  // none: getrs reads nothing
      raise_singular(k);
    getrs(trans, n, nrhs, LU.data(), std::max(1, n), ipiv.data(), X.mutable_data(), std::max(1, n));
    // x Inf or NaN (an overflow in the substitutions, or a NaN or Inf in the factors or b, which
    // lu_solve does not scan): said as solve says it.
    const T* x = X.data();
    if (!scalar::all_finite(x, static_cast<long long>(n) * nrhs)) {
      const py::object category = py::module_::import("hetlu.linalg").attr("LinAlgWarning");
      if (PyErr_WarnEx(category.ptr(),
                       "x is not finite: the factors or b hold an Inf or NaN, lie near an end of the floating-point "
                       "range, or are singular to working precision",
                       1) != 0)
        throw py::error_already_set();
    }
    return b.ndim() == 1 ? py::array(X.attr("reshape")(n)) : py::array(X);
  });
}

// The order of a plan asked for from Python, whose ints have no bound: one outside [0, INT_MAX] is
// named (pybind11's own conversion said only "incompatible function arguments").
int order_of(const char* name, long long value) {
  if (value < 0 || value > std::numeric_limits<int>::max())
    throw InvalidArgument(std::string(name) + " = " + std::to_string(value) + " is not an order in [0, " +
                          std::to_string(std::numeric_limits<int>::max()) + "]");
  return static_cast<int>(value);
}

py::dict recommend(long long m_in, long long n_in, const std::string& solver, const std::string& precision,
                   const DbPath& db, const std::string& target, const std::optional<std::string>& backend,
                   const PyWhole& d, const std::optional<std::string>& panel) {
  const int m = order_of("m", m_in), n = order_of("n", n_in);
  const Options options = options_of(db, std::nullopt, {target, backend, panel, int_of("d", d)});
  const Precision p = from_string<Precision>(precision);
  const Resolution r = resolve_plan(solver_of(solver, m, n, options, p), p, m, n, options);
  py::dict plan = plan_dict(r.plan);
  plan["m"] = m;
  plan["n"] = n;
  plan["cpu_threads"] = r.cpu_threads;  // as recommend --json: the threads tuned plans answer for
  plan["warnings"] = r.warnings;
  return plan;
}

py::list calibrate_py(const std::string& level_name, const std::optional<std::vector<int>>& sizes,
                      const DbPath& db_path, const std::string& target, const std::optional<std::string>& backend) {
  CalibrationOptions options;
  options.level = from_string<CalibrationLevel>(level_name);
  options.target = from_string<Target>(target);
  if (backend) options.devices = from_string<DeviceSet>(*backend);
  if (sizes && sizes->empty()) throw InvalidArgument("calibrate: sizes is empty (None: the level's sizes)");
  if (sizes) options.sizes = *sizes;
  if (db_path) options.db_path = db_path->string();
  // Ctrl-C: the signal handler only sets a flag while the GIL is released; the calibration polls it
  // between probes and timed runs, stops, and Python sees KeyboardInterrupt.
  options.stop_requested = [] {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() == 0) return false;
    PyErr_Clear();
    return true;
  };
  CalibrationReport report;
  try {
    py::gil_scoped_release release;
    report = hetlu::calibrate(options);
  } catch (const Interrupted&) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  // As the command exits non-zero: a size whose every trial failed is an error, after the rest is stored.
  for (const auto& m : report.without_plan)
    if (!m.resumable)
      throw Error("calibrate: no plan stored for " + to_string(m.solver) + " n=" + std::to_string(m.n) + ": " + m.why);
  py::list out;
  for (const auto& e : report.entries) {
    py::dict d;
    d["m"] = e.m;
    d["n"] = e.n;
    d["plan"] = plan_dict(e.plan);
    d["median_seconds"] = e.median_seconds;
    d["gflops"] = e.gflops;
    d["trials_measured"] = e.trials_measured;
    d["trials_reused"] = e.trials_reused;
    d["trials_pruned"] = e.trials_pruned;
    d["trials_left_by_budget"] = e.trials_left_by_budget;
    out.append(d);
  }
  return out;
}

// ---- hetlu.linalg's kernels (python/hetlu/linalg.py gives them SciPy's shape) ---------------------
// They work in place on arrays linalg.py prepared (the right type and layout, writable) and refuse
// anything else, never copying behind its back.

template <class T>
bool holds(const py::array& a) {
  return a.dtype().is(py::dtype::of<T>());
}

bool holds_lapack_type(const py::array& a) {
  return holds<float>(a) || holds<double>(a) || holds<std::complex<float>>(a) || holds<std::complex<double>>(a);
}

void require_in_place(const py::array& a, const char* name, int ndim, bool fortran) {
  const int flag = fortran ? py::array::f_style : py::array::c_style;
  if (a.ndim() != ndim || !(a.flags() & flag) || !a.writeable() || !aligned(a))
    throw InvalidArgument(std::string(name) + " must be a writable, aligned " + (fortran ? "Fortran" : "C") +
                          "-ordered " + std::to_string(ndim) + "-dimensional array");
  if (!holds_lapack_type(a))
    throw InvalidArgument(std::string(name) + " must be float32, float64, complex64 or complex128");
}

// hetlu.linalg's calls: no finiteness check (check_finite is the caller's choice, as in SciPy), no
// clock, and the small-matrix path below the crossover, as the LAPACK drop-in.
Options linalg_options(const Placement& where = {}) {
  Options options = options_of(std::nullopt, std::nullopt, where);
  options.input_check = InputCheck::none;
  options.measure_time = false;
  options.small_matrix_path = options.target == Target::cpu;
  options.small_own_loops = false;  // SciPy's tests compare lu_factor with its getrf bit for bit
  return options;
}

// SciPy's check_finite, made on the array hetlu computes in rather than with NumPy ufuncs (two
// ufunc calls cost more than a small matrix's whole LU: #14.1). Before anything is written.
template <class T>
void require_finite(const py::array& a) {
  if (!scalar::all_finite(static_cast<const T*>(a.data()), a.size()))
    throw py::value_error("array must not contain infs or NaNs");
}

// P A = L U in place: (piv, info), piv 0-based int32 as SciPy's. Below the small-matrix crossover
// the BLAS library's own getrf (Options::small_matrix_path), as the LAPACK drop-in does.
// a <- P A = L U in place -> (piv, info, growth): the factors' pivot growth (1 / dgesvx's rpvgrw)
// where asked for (A's columns read once more before the factorization), else 1.
py::tuple getrf_in_place(const py::array& a, bool check_finite, bool with_growth) {
  require_in_place(a, "a", 2, true);
  const int m = dimension(a, 0, "a"), n = dimension(a, 1, "a"), k = std::min(m, n);
  py::array_t<int> piv(k);
  int info = 0;
  double growth = 1;
  auto run = [&](auto t) {
    using T = decltype(t);
    if (check_finite) require_finite<T>(a);
    T* data = static_cast<T*>(py::array(a).mutable_data());
    int* p = piv.mutable_data();
    const int lda = std::max(1, m);
    const Options options = linalg_options();
    py::gil_scoped_release release;
    std::vector<double> a_maxima;
    if (with_growth) kernels::norm1(m, n, data, lda, a_maxima);
    info = getrf(Solver::gepp, m, n, data, lda, p, options).info;
    if (with_growth && info == 0) growth = pivot_growth(m, n, a_maxima, data, lda);
    for (int i = 0; i < k; ++i) p[i] -= 1;
  };
  dispatch(a, run);
  return py::make_tuple(piv, info, growth);
}

// scipy.linalg.solve's LAPACK sequence in one call (a Python call per step costs microseconds on
// small systems): ||A||_1 of a, then a <- its factors, x <- the solution (trans 0: A; 1 or 2: A^T),
// the reciprocal condition estimate and the factors' pivot growth (1 / dgesvx's rpvgrw: Wilkinson's
// matrix at n = 60 in float32 came back wrong by 1.0 in silence, with SciPy too). Returns (info,
// rcond, growth); x is untouched when info > 0.
py::tuple gesv_in_place(const py::array& a, const py::array& x, int trans, bool check_finite, const std::string& target,
                        const std::optional<std::string>& backend) {
  require_in_place(a, "a", 2, true);
  require_in_place(x, "x", 2, true);
  const int n = dimension(a, 0, "a"), nrhs = dimension(x, 1, "x");
  if (a.shape(1) != n || x.shape(0) != n || !a.dtype().is(x.dtype()))
    throw InvalidArgument("a must be square and x have its rows and type");
  const Transpose op = transpose_of(trans);
  int info = 0;
  double rcond = 0, growth = 1;
  auto run = [&](auto t) {
    using T = decltype(t);
    if (check_finite) {
      require_finite<T>(a);
      require_finite<T>(x);
    }
    T* A = static_cast<T*>(py::array(a).mutable_data());
    T* X = static_cast<T*>(py::array(x).mutable_data());
    const int ld = std::max(1, n);
    std::vector<int> ipiv(ld);
    const Options options = linalg_options({target, backend});  // the factorization where target says
    py::gil_scoped_release release;
    // The system's matrix is A^T where transposed: its 1-norm condition, as SciPy's gecon with norm
    // 'I' (A's 1-norm one missed SciPy's LinAlgWarning by up to n^2: rcond 1e-16 against 6e-22).
    // A read once for its norm and its columns' largest entries (the factors' pivot growth against them).
    std::vector<double> a_maxima;
    kernels::ScaledNorm anorm =
        op == Transpose::no ? kernels::overflow_safe_norm(kernels::norm1(n, n, A, ld, a_maxima), n, A, ld, false)
                            : kernels::overflow_safe_norm(kernels::norm_inf(n, n, A, ld, a_maxima), n, A, ld, true);
    const int x_shift = scale_up_a_tiny_system(n, nrhs, A, X, ld, a_maxima, anorm);
    info = getrf(Solver::gepp, n, n, A, ld, ipiv.data(), options).info;
    if (info != 0) return;
    growth = pivot_growth(n, n, a_maxima, A, ld);
    getrs(op, n, nrhs, A, ld, ipiv.data(), X, ld, linalg_options());
    if (x_shift != 0) scale_block(n, nrhs, X, ld, x_shift);  // the part of A's scaling b could not take
    if (op == Transpose::no) {
      rcond = rcond_from_factors(n, A, ld, ipiv.data(), anorm);
    } else {  // ||A^-T||_1 from solves with A^-T and, for its transpose, A^-1
      auto solve_with = [&](Transpose t) {
        return [&, t](T* v) { getrs(t, n, 1, A, ld, ipiv.data(), v, ld, linalg_options()); };
      };
      const double inverse_norm = kernels::inverse_norm1_estimate<T>(n, solve_with(op), solve_with(Transpose::no));
      rcond = n == 0 ? 1
              : anorm.value > 0 && inverse_norm > 0 && std::isfinite(inverse_norm)
                  ? anorm.rcond(1 / (anorm.value * inverse_norm))
                  : 0;
    }
  };
  dispatch(a, run);
  return py::make_tuple(info, rcond, growth);
}

// B <- A^-1 B (trans 0), A^-T B (1) or A^-H B (2) in place, from getrf_in_place's factors.
void getrs_in_place(const py::array& lu, const py::array& piv, const py::array& b, int trans, bool check_finite) {
  require_in_place(b, "b", 2, true);
  const int n = dimension(lu, 0, "lu");
  if (lu.ndim() != 2 || lu.shape(1) != n || !(lu.flags() & py::array::f_style) || !lu.dtype().is(b.dtype()) ||
      !aligned(lu))
    throw InvalidArgument("lu must be a square, aligned, Fortran-ordered array of b's type");
  if (b.shape(0) != n)
    throw InvalidArgument("b has " + std::to_string(b.shape(0)) + " rows; lu is of order " + std::to_string(n));
  const Transpose op = transpose_of(trans);
  const std::vector<int> ipiv = one_based_pivots(piv, n);
  const int nrhs = dimension(b, 1, "b");
  auto run = [&](auto t) {
    using T = decltype(t);
    // b and U's diagonal before, the rest of lu only where X came out not finite: an Inf or NaN
    // off the diagonal reaches X (times 0 too), as a NaN pivot does, while an Inf pivot makes its
    // x 0. A scan of lu first cost as much as the solve (2x SciPy's lu_solve at n = 256..1024,
    // which checks b alone).
    if (check_finite) {
      require_finite<T>(b);
      const T* diagonal = static_cast<const T*>(lu.data());
      for (int i = 0; i < n; ++i)
        if (!scalar::is_finite(diagonal[static_cast<long long>(i) * (n + 1)]))
          throw py::value_error("array must not contain infs or NaNs");
    }
    const T* factors = static_cast<const T*>(lu.data());
    T* x = static_cast<T*>(py::array(b).mutable_data());
    {
      py::gil_scoped_release release;
      getrs(op, n, nrhs, factors, std::max(1, n), ipiv.data(), x, std::max(1, n), linalg_options());
    }
    if (check_finite && !scalar::all_finite(x, static_cast<long long>(n) * nrhs)) require_finite<T>(lu);
  };
  dispatch(b, run);
}

// The stack on a device (target 'hybrid', #14 item 5): each system transposed into column-major
// copies (C order holds A^T), hetlu::gesv_batched on the device, the solutions transposed into X.
// A part of the stack at a time, so that the copies hold at most about stack_part_bytes beside the
// caller's arrays (they held the whole stack again).
constexpr std::int64_t stack_part_bytes = std::int64_t(64) << 20;
template <class T>
void gesv_stack_on_device(int batch, int n, int k, const T* A, const T* B, T* X, int* infos, const Options& options) {
  const std::int64_t a_size = std::int64_t(n) * n, b_size = std::int64_t(n) * k;
  const std::int64_t per_system = std::int64_t(sizeof(T)) * (a_size + b_size) + std::int64_t(sizeof(int)) * n;
  const int part =
      static_cast<int>(std::clamp<std::int64_t>(stack_part_bytes / std::max<std::int64_t>(1, per_system), 1, batch));
  std::vector<T> a(a_size * part), b(b_size * part);
  std::vector<int> ipiv(std::int64_t(n) * part);
  const int ld = std::max(1, n), ld_rows = std::max(1, k);
  for (int first = 0; first < batch; first += part) {
    const int count = std::min(part, batch - first);
    for (std::int64_t i = 0; i < count; ++i) {
      kernels::transpose_block(n, n, A + (first + i) * a_size, ld, a.data() + i * a_size, ld);
      kernels::transpose_block(k, n, B + (first + i) * b_size, ld_rows, b.data() + i * b_size, ld);
    }
    hetlu::gesv_batched(count, n, k, a.data(), ld, a_size, ipiv.data(), n, b.data(), ld, b_size, infos + first,
                        options);
    for (std::int64_t i = 0; i < count; ++i)
      kernels::transpose_block(n, k, b.data() + i * b_size, ld, X + (first + i) * b_size, ld_rows);
  }
}

// Each solved system's normwise backward error, from the stack as NumPy holds it (row-major); 0 for a
// singular one (info > 0: raised). A batched solve has no check of its own: a float32 stack of
// 1e-30 I gave x NaN and Inf in silence, and Wilkinson's matrix (pivot growth 2^(n-1)) an x wrong in
// every digit, where the same systems alone warned. Normwise, not componentwise: GEPP is not
// componentwise stable (a sparse A with B = A gave omega 1.0 for an x right to 1e-16).
template <class T>
void stack_backward_errors(int batch, int n, int k, const T* A, const T* B, const T* X, const int* infos, double* eta) {
  const std::int64_t a_size = std::int64_t(n) * n, b_size = std::int64_t(n) * k;
  std::vector<T> x(b_size), b(b_size);  // column-major copies of one system's x and b
  for (int i = 0; i < batch; ++i) {
    eta[i] = 0;
    if (infos[i] != 0) continue;
    kernels::transpose_block(k, n, X + i * b_size, k, x.data(), n);
    kernels::transpose_block(k, n, B + i * b_size, k, b.data(), n);
    eta[i] = accuracy::normwise_backward_error(n, k, A + i * a_size, n, x.data(), n, b.data(), n, true);
  }
}

// A C-ordered stack as NumPy holds it: a (batch, n, n), b (batch, n, k) of one type, left as they
// are; returns (x of b's shape, each system's info, each system's normwise backward error, the tolerance
// hetlu calls accurate at order n). target 'hybrid': on one device (backend).
py::tuple gesv_stack(const py::array& a, const py::array& b, const std::string& target,
                     const std::optional<std::string>& backend) {
  Options options = options_of(std::nullopt, std::nullopt, {target, backend});
  options.input_check = InputCheck::none;  // hetlu.linalg checked them where check_finite asked
  for (const auto* array : {&a, &b})
    if (array->ndim() != 3 || !(array->flags() & py::array::c_style) || !aligned(*array) || !holds_lapack_type(*array))
      throw InvalidArgument(
          "a and b must be C-ordered, aligned 3-dimensional float32, float64, complex64 or complex128 arrays");
  const py::ssize_t batch = a.shape(0), n = a.shape(1), k = b.shape(2);
  if (a.shape(2) != n || b.shape(0) != batch || b.shape(1) != n || !a.dtype().is(b.dtype()))
    throw InvalidArgument("a must be (batch, n, n) and b (batch, n, k) of a's type");
  if (batch > std::numeric_limits<int>::max() || n > std::numeric_limits<int>::max() ||
      k > std::numeric_limits<int>::max())
    throw InvalidArgument("the stack is too large for 32-bit LAPACK sizes");
  py::array_t<int> info(batch);
  py::array_t<double> eta(batch);
  double tolerance = 0;
  py::array x(b.dtype(), {batch, n, k});
  auto run = [&](auto t) {
    using T = decltype(t);
    const T* A = static_cast<const T*>(a.data());
    const T* B = static_cast<const T*>(b.data());
    T* X = static_cast<T*>(x.mutable_data());
    int* infos = info.mutable_data();
    py::gil_scoped_release release;
    if (options.target == Target::hybrid)
      gesv_stack_on_device(static_cast<int>(batch), static_cast<int>(n), static_cast<int>(k), A, B, X, infos, options);
    else
      solvers::gesv_batched_row_major(static_cast<int>(batch), static_cast<int>(n), static_cast<int>(k), A, B, X,
                                      infos);
    stack_backward_errors(static_cast<int>(batch), static_cast<int>(n), static_cast<int>(k), A, B, X, infos,
                          eta.mutable_data());
    tolerance = accuracy_tolerance<T>(static_cast<int>(n));
  };
  dispatch(a, run);
  return py::make_tuple(x, info, eta, tolerance);
}

// Pickling (multiprocessing, joblib, a cache on disk): a versioned tuple of the fields. A state is
// checked field by field, as any input: a damaged or foreign one is a ValueError or TypeError, and
// lu_solve checks the factors it is given again.
constexpr int pickle_version = 1;

// The state as a tuple of N fields whose first is the int pickle_version: compared as Python ints, so
// a version past a C int's range, or True (an int subclass), is a foreign state, not an overflow.
template <std::size_t N>
py::tuple require_state(const py::object& state, const char* what) {
  auto ours = [&] {
    if (!py::isinstance<py::tuple>(state) || py::len(state) != N) return false;
    const py::object version = py::reinterpret_borrow<py::tuple>(state)[0];
    return Py_IS_TYPE(version.ptr(), &PyLong_Type) && version.equal(py::int_(pickle_version));
  };
  if (!ours())
    throw InvalidArgument(std::string("not a pickled ") + what + " of this hetlu (version " +
                          std::to_string(pickle_version) + ", " + std::to_string(N) + " fields)");
  return py::reinterpret_borrow<py::tuple>(state);
}

// A NumPy array itself (a masked array's mask would be dropped unseen, as solve refuses it), of a
// number kind: 'i' or 'u' for pivots, 'f' or 'c' otherwise (a str or complex piv was cast quietly).
py::array state_array(const py::handle& h, const char* what, bool integers = false) {
  static const py::handle ndarray = py::object(py::module_::import("numpy").attr("ndarray")).release();
  if (!py::type::handle_of(h).is(ndarray))
    throw InvalidArgument(std::string("a pickled ") + what + " that is not an array");
  const char kind = py::reinterpret_borrow<py::array>(h).dtype().kind();
  const bool number = integers ? kind == 'i' || kind == 'u' : kind == 'f' || kind == 'c';
  if (!number)
    throw InvalidArgument(std::string("a pickled ") + what + " of dtype kind '" + kind + "' (" +
                          (integers ? "integers" : "real or complex numbers") + " expected)");
  return py::reinterpret_borrow<py::array>(h);
}

template <class V>
V state_field(const py::handle& h, const char* name) {
  try {
    return h.cast<V>();
  } catch (const py::cast_error&) {
    throw InvalidArgument(std::string("a pickled ") + name + " of the wrong type (" +
                          py::str(py::type::handle_of(h).attr("__name__")).cast<std::string>() + ")");
  }
}

py::object factorization_state(const LUFactorization& f) {
  return py::make_tuple(pickle_version, f.lu, f.piv, f.plan, f.seconds, f.gflops);
}

LUFactorization factorization_from_state(const py::object& state) {
  const py::tuple t = require_state<6>(state, "LUFactorization");
  LUFactorization f;
  f.lu = state_array(t[1], "lu");
  f.piv = state_array(t[2], "piv", true);
  f.plan = state_field<py::dict>(t[3], "plan");
  f.seconds = state_field<double>(t[4], "seconds");
  f.gflops = state_field<double>(t[5], "gflops");
  return f;
}

py::object solve_result_state(const SolveResult& r) {
  return py::make_tuple(pickle_version, r.x, r.plan, r.backward_error, r.seconds, r.gflops, r.refinement_steps,
                        r.fell_back_to_gepp, r.warnings, r.phase_seconds, r.iter, r.note, r.rcond);
}

SolveResult solve_result_from_state(const py::object& state) {
  const py::tuple t = require_state<13>(state, "SolveResult");
  SolveResult r;
  r.x = state_array(t[1], "x");
  r.plan = state_field<py::dict>(t[2], "plan");
  r.backward_error = state_field<std::optional<double>>(t[3], "backward_error");
  r.seconds = state_field<double>(t[4], "seconds");
  r.gflops = state_field<double>(t[5], "gflops");
  r.refinement_steps = state_field<int>(t[6], "refinement_steps");
  r.fell_back_to_gepp = state_field<bool>(t[7], "fell_back_to_gepp");
  r.warnings = state_field<std::vector<std::string>>(t[8], "warnings");
  r.phase_seconds = state_field<std::vector<std::pair<std::string, double>>>(t[9], "phase_seconds");
  r.iter = state_field<std::optional<int>>(t[10], "iter");
  r.note = state_field<std::string>(t[11], "note");
  r.rcond = state_field<std::optional<double>>(t[12], "rcond");
  return r;
}

}  // namespace

PYBIND11_MODULE(_hetlu, m) {
  m.doc() = "hetlu: auto-tuned dense LU solvers";
  // The types, as in C++: both derive from Error, and each from the standard exception a caller
  // would catch. Made without pybind11's translators: the one below raises them all.
  const py::exception<Error> error(m, "Error", PyExc_RuntimeError);
  const py::exception<db::DatabaseError> database_error(m, "DatabaseError",
                                                        py::make_tuple(error, py::handle(PyExc_OSError)));
  const py::exception<InvalidArgument> invalid_argument(m, "InvalidArgument",
                                                        py::make_tuple(error, py::handle(PyExc_ValueError)));
  // Raised with the message printable, as the command and the C API say it: one line, whatever a
  // quoted argument holds (solver="ca\nlu" had split it). The most derived first.
  static PyObject* const error_type = error.ptr();
  static PyObject* const database_error_type = database_error.ptr();
  static PyObject* const invalid_argument_type = invalid_argument.ptr();
  py::register_exception_translator([](std::exception_ptr raised) {
    if (!raised) return;
    try {
      std::rethrow_exception(raised);
    } catch (const InvalidArgument& e) {
      PyErr_SetString(invalid_argument_type, detail::printable(e.what()).c_str());
    } catch (const db::DatabaseError& e) {
      PyErr_SetString(database_error_type, detail::printable(e.what()).c_str());
    } catch (const Error& e) {
      PyErr_SetString(error_type, detail::printable(e.what()).c_str());
    }
  });
  hetlu_warning = PyErr_NewExceptionWithDoc(
      "hetlu.HetluWarning",
      "What the hetlu command says as a warning of a call: a database that could not be read, stale tuned entries, "
      "an answer that could not be checked. The result's warnings list holds the same lines.",
      PyExc_UserWarning, nullptr);
  if (!hetlu_warning) throw py::error_already_set();
  m.attr("HetluWarning") = py::handle(hetlu_warning);

  constexpr const char* solve_result = "SolveResult";
  constexpr const char* factorization = "LUFactorization";
  py::class_<SolveResult>(m, solve_result)
      .def_property_readonly("x", field_of(&SolveResult::x, solve_result))
      .def_property_readonly("plan", field_of(&SolveResult::plan, solve_result))
      .def_property_readonly("backward_error", field_of(&SolveResult::backward_error, solve_result))
      .def_property_readonly("seconds", field_of(&SolveResult::seconds, solve_result))
      .def_property_readonly("gflops", field_of(&SolveResult::gflops, solve_result))
      .def_property_readonly("warnings", field_of(&SolveResult::warnings, solve_result))
      .def_property_readonly("refinement_steps", field_of(&SolveResult::refinement_steps, solve_result))
      .def_property_readonly("iter", field_of(&SolveResult::iter, solve_result))
      .def_property_readonly("note", field_of(&SolveResult::note, solve_result))
      .def_property_readonly("rcond", field_of(&SolveResult::rcond, solve_result))
      .def_property_readonly("fell_back_to_gepp", field_of(&SolveResult::fell_back_to_gepp, solve_result))
      .def_property_readonly("phase_seconds", field_of(&SolveResult::phase_seconds, solve_result))
      .def(py::pickle([](py::handle self) { return solve_result_state(initialized<SolveResult>(self, solve_result)); },
                      &solve_result_from_state))
      .def("__repr__", [](py::handle self) {
        const SolveResult& r = initialized<SolveResult>(self, solve_result);
        return "SolveResult(solver=" + py::str(r.plan["solver"]).cast<std::string>() +
               ", source=" + py::str(r.plan["source"]).cast<std::string>() +
               ", backward_error=" + (r.backward_error ? std::to_string(*r.backward_error) : "None") + ")";
      });
  py::class_<LUFactorization>(m, factorization)
      .def_property_readonly("lu", field_of(&LUFactorization::lu, factorization))
      .def_property_readonly("piv", field_of(&LUFactorization::piv, factorization))
      .def_property_readonly("plan", field_of(&LUFactorization::plan, factorization))
      .def_property_readonly("seconds", field_of(&LUFactorization::seconds, factorization))
      .def_property_readonly("gflops", field_of(&LUFactorization::gflops, factorization))
      .def(py::pickle(
          [](py::handle self) { return factorization_state(initialized<LUFactorization>(self, factorization)); },
          &factorization_from_state));

  m.def("solve", &solve, "Solve A x = b; returns x with the plan and the componentwise backward error", "A"_a, "b"_a,
        "solver"_a = "auto", "db"_a = py::none(), "nb"_a = py::none(), "overwrite_a"_a = false, "target"_a = "cpu",
        "backend"_a = py::none(), "d"_a = py::none(), "panel"_a = py::none(), "precision"_a = py::none());
  m.def("lu_factor", &lu_factor, "P A = L U; piv is 0-based as in SciPy", "A"_a, "solver"_a = "gepp",
        "db"_a = py::none(), "nb"_a = py::none(), "overwrite_a"_a = false, "target"_a = "cpu", "backend"_a = py::none(),
        "d"_a = py::none(), "panel"_a = py::none());
  m.def("lu_solve", &lu_solve,
        "Solve with the factors of lu_factor: trans 0 (or 'N', False) A x = b, 1 ('T', True) A^T x = b, 2 ('C') A^H "
        "x = b",
        "factorization"_a, "b"_a, "trans"_a = 0);
  m.def("recommend", &recommend, "The plan hetlu would use for an m x n problem", "m"_a, "n"_a, "solver"_a = "gepp",
        "precision"_a = "double", "db"_a = py::none(), "target"_a = "cpu", "backend"_a = py::none(), "d"_a = py::none(),
        "panel"_a = py::none());
  m.def("_getrf", &getrf_in_place,
        "hetlu.linalg: P A = L U in place of a Fortran-ordered array -> (piv, info, pivot growth or 1)", "a"_a,
        "check_finite"_a = false, "growth"_a = false);
  m.def("_pivot_growth_limit", &pivot_growth_limit, "the pivot growth above which GEPP's x may be inaccurate", "n"_a);
  m.def("_gesv", &gesv_in_place, "hetlu.linalg: ||a||_1, a <- LU, x <- solution, rcond -> (info, rcond)", "a"_a, "x"_a,
        "trans"_a = 0, "check_finite"_a = false, "target"_a = "cpu", "backend"_a = py::none());
  m.def("_getrs", &getrs_in_place, "hetlu.linalg: solve in place of b with getrf's factors", "lu"_a, "piv"_a, "b"_a,
        "trans"_a = 0, "check_finite"_a = false);
  m.def("_gesv_stack", &gesv_stack, "hetlu.linalg: a C-ordered stack of systems -> (x, info)", "a"_a, "b"_a,
        "target"_a = "cpu", "backend"_a = py::none());
  m.def("calibrate", &calibrate_py,
        "Probe and tune this machine into the database (target='hybrid': the CPU share d and nb of the hybrid "
        "target, on backend 'cuda', 'host' or several devices, e.g. 'cuda,host:4')",
        "level"_a = "quick", "sizes"_a = py::none(), "db"_a = py::none(), "target"_a = "cpu", "backend"_a = py::none());
}
