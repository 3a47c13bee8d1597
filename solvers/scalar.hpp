// What the solvers need to know about their element type, real or complex, in one place: its
// real type, LAPACK's cheap magnitude |re| + |im| (what izamax pivots on and zgerfs measures the
// backward error with), finiteness, conjugation, and the precision a plan for it names (a complex
// matrix uses the plan of its real type: the same BLAS rates and block sizes serve it, see DESIGN.md).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "hetlu/types.hpp"

namespace hetlu::scalar {

template <class T>
struct is_complex : std::false_type {};
template <class R>
struct is_complex<std::complex<R>> : std::true_type {};
template <class T>
inline constexpr bool is_complex_v = is_complex<T>::value;

template <class T>
struct real_of {
  using type = T;
};
template <class R>
struct real_of<std::complex<R>> {
  using type = R;
};
template <class T>
using real_t = typename real_of<T>::type;

// The type sums over T run in: double, or complex<double>.
template <class T>
using wide_t = std::conditional_t<is_complex_v<T>, std::complex<double>, double>;
// The single-precision type a mixed-precision solve of T factors in (float, complex<float>).
template <class T>
using low_t = std::conditional_t<is_complex_v<T>, std::complex<float>, float>;

// |re| + |im| for complex (LAPACK's CABS1), |x| for real.
template <class T>
inline double abs1(T x) {
  if constexpr (is_complex_v<T>)
    return std::abs(double(x.real())) + std::abs(double(x.imag()));
  else
    return std::abs(double(x));
}

// max(|re|, |im|) for complex, |x| for real: within a factor 2 of |x| and, unlike abs1, finite for
// every finite x (1e308 + 1e308i has abs1 Inf), for what takes only a magnitude's exponent.
template <class T>
inline double abs_max(T x) {
  if constexpr (is_complex_v<T>)
    return std::max(std::abs(double(x.real())), std::abs(double(x.imag())));
  else
    return std::abs(double(x));
}

// x 2^e, part by part for complex: exact where the result stays normal (scalings of whole systems).
template <class T>
inline T times_power_of_two(T x, int e) {
  if constexpr (is_complex_v<T>)
    return T(std::ldexp(x.real(), e), std::ldexp(x.imag(), e));
  else
    return std::ldexp(x, e);
}

// |2^-shift x| in double, the parts scaled before the modulus is taken: |1e308 + 1e308i| overflows
// where its parts are finite, and a complex<float>'s own modulus overflows beyond 3.4e38.
template <class T>
inline double scaled_abs(T x, int shift) {
  return std::abs(times_power_of_two(wide_t<T>(x), -shift));
}

// e with 2^(e-1) <= largest < 2^e: 2^-e brings entries up to `largest` into (1/2, 1]. Kept at or
// above -1022, so that 2^-e is a double; 0 where largest is 0 or not finite (no scaling helps).
inline int normalizing_exponent(double largest) {
  if (!(largest > 0) || !std::isfinite(largest)) return 0;
  int e = 0;
  std::frexp(largest, &e);
  return std::max(e, -1022);
}

// Whether dividing by p, or taking 1 / p, is out of reach of complex division as LAPACK is built
// (Smith's, gfortran's and GCC's -fcx-fortran-rules): its denominator |c| + |d| r can overflow where
// a part of p exceeds max / 2, and 1 / (1e308 + 1e308i) came out 0 (X = 0 for a system of
// condition 1). Either part beyond max / 4 is taken as out of reach. Real division has no such step.
template <class T>
inline bool beyond_complex_division(T p) {
  if constexpr (is_complex_v<T>) {
    constexpr real_t<T> quarter_max = std::numeric_limits<real_t<T>>::max() / 4;
    return std::abs(p.real()) > quarter_max || std::abs(p.imag()) > quarter_max;
  } else {
    return false;
  }
}

// x / p, with such a p and x divided in quarters (exact, p being far above the subnormals; x's own
// bits at worst lose what a subnormal quotient would), otherwise the compiler's division. A quotient
// beyond the range still overflows, as LAPACK's does.
template <class T>
inline T divide(T x, T p) {
  if (beyond_complex_division(p)) return (x * real_t<T>(0.25)) / (p * real_t<T>(0.25));
  return x / p;
}

template <class T>
inline bool is_finite(T x) {
  if constexpr (is_complex_v<T>)
    return std::isfinite(x.real()) && std::isfinite(x.imag());
  else
    return std::isfinite(x);
}

// Whether all `count` entries at x are finite, in one test: each real's exponent bits plus one
// exponent unit carry into the sign bit exactly when they are all ones (Inf, NaN), and the sums are
// or-ed together. No branch per entry, so the loop vectorizes (std::isfinite per entry does not:
// about 3x slower, a tenth of an n = 256 LU, #14.1).
template <class T>
inline bool all_finite(const T* x, long long count) {
  using Real = real_t<T>;
  using Bits = std::conditional_t<sizeof(Real) == 8, std::uint64_t, std::uint32_t>;
  constexpr int mantissa = std::numeric_limits<Real>::digits - 1;
  constexpr Bits exponent = ((Bits(1) << (sizeof(Real) * 8 - 1)) - 1) & ~((Bits(1) << mantissa) - 1);
  const Real* reals = reinterpret_cast<const Real*>(x);  // a complex is two reals (its array guarantee)
  const long long n = count * (is_complex_v<T> ? 2 : 1);
  Bits carried = 0;
  for (long long i = 0; i < n; ++i) {
    Bits bits;
    std::memcpy(&bits, reals + i, sizeof bits);
    carried |= (bits & exponent) + (Bits(1) << mantissa);
  }
  return (carried >> (sizeof(Real) * 8 - 1)) == 0;
}

template <class T>
inline bool is_nan(T x) {
  if constexpr (is_complex_v<T>)
    return std::isnan(x.real()) || std::isnan(x.imag());
  else
    return std::isnan(x);
}

template <class T>
inline T conj(T x) {
  if constexpr (is_complex_v<T>)
    return std::conj(x);
  else
    return x;
}

// Widens to wide_t<T> (double or complex<double>) and back.
template <class T>
inline wide_t<T> widen(T x) {
  return wide_t<T>(x);
}
template <class T, class W>
inline T narrow(W x) {
  if constexpr (is_complex_v<T>)
    return T(static_cast<real_t<T>>(x.real()), static_cast<real_t<T>>(x.imag()));
  else
    return static_cast<T>(x);
}

// Whether x lies within Low's range, as LAPACK's dlag2s and zlag2c test it (a NaN passes).
template <class Low, class W>
inline bool fits(W x) {
  const double largest = std::numeric_limits<real_t<Low>>::max();
  auto within = [&](double v) { return !(v < -largest || v > largest); };
  if constexpr (is_complex_v<W>)
    return within(x.real()) && within(x.imag());
  else
    return within(x);
}
// x rounded to Low, or 0 where it lies outside Low's range: mixed precision's rounding of A, on the
// host and on a device alike (an entry beyond single's range is not narrowed to infinity; the
// caller, which knows from fits, answers with the double solver).
template <class Low, class W>
inline Low narrow_or_zero(W x) {
  return fits<Low>(x) ? narrow<Low>(x) : Low(0);
}

// x 2^e, exactly (both parts of a complex x).
template <class T>
inline T scale_by_power_of_two(T x, int e) {
  if constexpr (is_complex_v<T>)
    return T(std::ldexp(x.real(), e), std::ldexp(x.imag(), e));
  else
    return std::ldexp(x, e);
}

// Whether every entry of the m x n M (leading dimension ld) is finite, a column at a time.
template <class T>
inline bool all_finite(int m, int n, const T* M, long long ld) {
  for (int j = 0; j < n; ++j)
    if (!all_finite(M + j * ld, m)) return false;
  return true;
}

// The m x n M's row i times 2^exponent(i), exactly (unless it under- or overflows): dgesvx's R.
template <class T, class Exponent>
void scale_rows_by_powers_of_two(int m, int n, T* M, long long ld, Exponent&& exponent) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i)
      if (const int e = exponent(i)) M[i + j * ld] = scale_by_power_of_two(M[i + j * ld], e);
}

// max_i |x_i| (LAPACK's magnitude for complex), in double; infinity where an entry is Inf or NaN
// (std::max passes a NaN over, and a residual of NaNs read as 0).
template <class T>
inline double largest_magnitude(const T* x, long long count) {
  double largest = 0;
  for (long long i = 0; i < count; ++i) {
    const double a = std::abs(x[i]);
    if (!(a <= std::numeric_limits<double>::max())) return std::numeric_limits<double>::infinity();
    largest = std::max(largest, a);
  }
  return largest;
}

// ||R M||_1 of the n x n M with R's row i 2^exponent(i), summed without forming R M (in double:
// the scaling that keeps entries in range is what the sum would otherwise lose).
template <class T, class Exponent>
double norm1_of_scaled_rows(int n, const T* M, long long ld, Exponent&& exponent) {
  double largest = 0;
  for (int j = 0; j < n; ++j) {
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += double(std::abs(scale_by_power_of_two(M[i + j * ld], exponent(i))));
    largest = std::max(largest, sum);
  }
  return largest;
}

// The smallest normal magnitude of T's real type (LAPACK's safe minimum).
template <class T>
inline constexpr real_t<T> safe_minimum() {
  return std::numeric_limits<real_t<T>>::min();
}

// The precision a plan for T names: single for float and complex<float>, double for the others.
template <class T>
inline constexpr Precision plan_precision() {
  return std::is_same_v<real_t<T>, double> ? Precision::double_ : Precision::single;
}

// "double", "single", "complex double", "complex single": what error messages call T.
template <class T>
inline const char* name() {
  if constexpr (std::is_same_v<T, double>)
    return "double";
  else if constexpr (std::is_same_v<T, float>)
    return "single";
  else if constexpr (std::is_same_v<T, std::complex<double>>)
    return "complex double";
  else
    return "complex single";
}

}  // namespace hetlu::scalar
