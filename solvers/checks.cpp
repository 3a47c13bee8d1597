#include "solvers/checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "solvers/backend.hpp"
#include "solvers/scalar.hpp"

namespace hetlu::checks {

void non_negative(const char* name, long long value) {
  if (value < 0) throw InvalidArgument(std::string(name) + " = " + std::to_string(value) + " must be >= 0");
}

void positive(const char* name, long long value) {
  if (value < 1) throw InvalidArgument(std::string(name) + " = " + std::to_string(value) + " must be >= 1");
}

void at_least(const char* name, long long value, const char* bound_name, long long bound) {
  if (value < bound)
    throw InvalidArgument(std::string(name) + " = " + std::to_string(value) + " must be >= " + bound_name + " = " +
                          std::to_string(bound));
}

void refuse_overlap(const Entries& written, const Entries& other) {
  throw InvalidArgument(std::string(written.name) + " overlaps " + other.name + ": " + written.name +
                        " must be an array of its own");
}

bool entries_meet_within(const Entries& written, const Entries& other) {
  const long long shift = static_cast<long long>(reinterpret_cast<std::intptr_t>(other.base) -
                                                 reinterpret_cast<std::intptr_t>(written.base));
  const long long other_end = other.block_end(other.count - 1);
  const long long span = other.block_end(0), stride = other.count > 1 ? other.stride * other.entry : 0;
  const long long ld = other.ld * other.entry, column = other.rows * other.entry;
  for (long long i = 0; i < written.count; ++i)
    for (long long k = 0; k < written.columns; ++k) {  // written's column k of block i, in other's frame
      const long long lo = written.block(i) + k * written.ld * written.entry - shift;
      const long long hi = lo + written.rows * written.entry;
      if (hi <= 0 || lo >= other_end) continue;
      const long long first_block = stride > 0 ? std::max(0LL, (lo - span) / stride) : 0;
      const long long last_block = stride > 0 ? std::min(other.count - 1, (hi - 1) / stride) : 0;
      for (long long j = first_block; j <= last_block; ++j) {
        const long long from = lo - j * stride, to = hi - j * stride;  // in block j's frame
        if (to <= 0) continue;
        for (long long c = std::max(0LL, (from - column) / ld); c <= std::min(other.columns - 1, (to - 1) / ld); ++c)
          if (from < c * ld + column && c * ld < to) return true;
      }
    }
  return false;
}

void square_system(int n, int nrhs, const void* A, int lda, const void* B, int ldb) {
  non_negative("n", n);
  non_negative("nrhs", nrhs);
  at_least("lda", lda, "max(1, n)", std::max(1, n));
  at_least("ldb", ldb, "max(1, n)", std::max(1, n));
  not_null("A", A, static_cast<long long>(n) * n);
  not_null("B", B, static_cast<long long>(n) * nrhs);
}

void factorization(int m, int n, const void* A, int lda, const int* ipiv) {
  non_negative("m", m);
  non_negative("n", n);
  at_least("lda", lda, "max(1, m)", std::max(1, m));
  not_null("A", A, static_cast<long long>(m) * n);
  not_null("ipiv", ipiv, std::min(m, n));
}

void pivots(const char* name, int n, const int* ipiv) {
  for (int i = 0; i < n; ++i)
    if (ipiv[i] < 1 || ipiv[i] > n)
      throw InvalidArgument(std::string(name) + "(" + std::to_string(i + 1) + ") = " + std::to_string(ipiv[i]) +
                            " is not a row number in [1, " + std::to_string(n) + "]");
}

void not_null(const char* name, const void* pointer, long long elements) {
  if (pointer == nullptr && elements > 0) throw InvalidArgument(std::string(name) + " is a null pointer");
}

// How a non-finite entry reads: NaN, Inf or -Inf (a complex one: NaN or Inf).
template <class T>
std::string non_finite_name(T v) {
  if (scalar::is_nan(v)) return "NaN";
  if constexpr (scalar::is_complex_v<T>)
    return "Inf";
  else
    return v < 0 ? "-Inf" : "Inf";
}

template <class T>
void finite(const char* name, int m, int n, const T* A, int lda) {
  // A parallel pass (it runs before every solve); the error names the first bad entry in column order.
  int first_bad_column = n;
  auto column_is_finite = [&](int j) { return scalar::all_finite(A + static_cast<long long>(j) * lda, m); };
  if (static_cast<long long>(m) * n > 65536) {
#pragma omp parallel for schedule(static) reduction(min : first_bad_column)
    for (int j = 0; j < n; ++j)
      if (!column_is_finite(j)) first_bad_column = std::min(first_bad_column, j);
  } else {  // no OpenMP region at all: even one with if(false) costs a team's set-up, ~0.1 us
    for (int j = 0; j < n && first_bad_column == n; ++j)
      if (!column_is_finite(j)) first_bad_column = j;
  }
  if (first_bad_column == n) return;
  const T* column = A + static_cast<long long>(first_bad_column) * lda;
  const int i = static_cast<int>(std::find_if(column, column + m, [](T v) { return !scalar::is_finite(v); }) - column);
  const T v = column[i];
  throw InvalidArgument(std::string(name) + "(" + std::to_string(i + 1) + "," + std::to_string(first_bad_column + 1) +
                        ") is " + non_finite_name(v) + "; the input must be finite");
}

template <class T>
void precision_matches(const Plan& plan) {
  if (plan.precision != scalar::plan_precision<T>())
    throw InvalidArgument("plan.precision is " + to_string(plan.precision) + " but the matrix is " + scalar::name<T>());
}

void plan(const Plan& plan) {
  positive("plan.nb", plan.nb);
  if (plan.solver == Solver::calu) {
    positive("plan.ib", plan.ib);
    positive("plan.panel_threads", plan.panel_threads);
  }
  if (plan.target == Target::hybrid) {
    non_negative("plan.cpu_block_columns", plan.cpu_block_columns);
    devices(plan);
  }
}

void devices(const Plan& plan) {
  const auto& list = plan.devices.list;
  if (list.empty()) throw InvalidArgument("plan.devices is empty: a hybrid plan needs at least one device");
  if (list.size() > static_cast<std::size_t>(max_devices))
    throw InvalidArgument("plan.devices has " + std::to_string(list.size()) + " devices (at most " +
                          std::to_string(max_devices) + ")");
  if (!plan.device_shares.empty()) {
    if (plan.device_shares.size() != list.size())
      throw InvalidArgument("plan.device_shares has " + std::to_string(plan.device_shares.size()) + " shares for " +
                            std::to_string(list.size()) + " devices");
    for (double share : plan.device_shares)
      if (!std::isfinite(share) || share < 0)
        throw InvalidArgument("plan.device_shares: " + std::to_string(share) + " is not a share (finite, >= 0)");
  }
  for (const auto& d : list) {
    std::string why;
    if (!backends::available(d.kind, &why))
      throw NotAvailable("backend '" + to_string(d.kind) + "' is not available: " + why);
  }
}

template void finite<float>(const char*, int, int, const float*, int);
template void finite<double>(const char*, int, int, const double*, int);
template void finite<std::complex<double>>(const char*, int, int, const std::complex<double>*, int);
template void finite<std::complex<float>>(const char*, int, int, const std::complex<float>*, int);
template void precision_matches<float>(const Plan&);
template void precision_matches<double>(const Plan&);
template void precision_matches<std::complex<double>>(const Plan&);
template void precision_matches<std::complex<float>>(const Plan&);

}  // namespace hetlu::checks
