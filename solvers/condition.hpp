// The 1-norm condition estimate of LAPACK's dgecon: Hager's method with Higham's refinements
// (LAPACK dlacn2, Higham, "FORTRAN codes for estimating the one-norm of a real or complex matrix",
// 1988). It needs only products with A^-1 and A^-T, a few of each (at most 5 iterations and one
// extra), so O(n^2) with factors at hand, wherever they live. PRBT uses it to tell a singular
// matrix from one that randomization made merely ill-conditioned.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "solvers/scalar.hpp"
#include "solvers/scaled_norm.hpp"

namespace hetlu::kernels {

// A fixed right-hand side that reaches every direction of A, a null one included: entries of
// random size in [scale, 2 scale) and random sign from `seed` (a fixed +-1 vector lies in the range
// of half the matrices with two equal rows, s_i = s_j).
template <class T>
std::vector<T> random_probe(int n, unsigned seed, double scale = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> size(1, 2);
  std::vector<T> s(n);
  for (auto& x : s) x = T(scale * (rng() % 2 ? size(rng) : -size(rng)));
  return s;
}

// A seed from the bits of n values (FNV-1a over their bytes, folded to 32 bits): a probe seeded by
// what a solve with A's factors gave is one that nobody can know before A is factored, so that no
// A can be built with a null direction the probe misses (a fixed seed can be read in the source).
template <class T>
unsigned content_seed(const T* values, int n) {
  std::uint64_t hash = 14695981039346656037ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(values);
  for (std::size_t i = 0; i < sizeof(T) * static_cast<std::size_t>(n < 0 ? 0 : n); ++i)
    hash = (hash ^ bytes[i]) * 1099511628211ull;
  return static_cast<unsigned>(hash ^ (hash >> 32));
}

// dlacn2's sign of x (zlacn2's x / |x| for complex, 1 where |x| is below the safe minimum).
template <class T>
T lacn2_sign(T x) {
  if constexpr (scalar::is_complex_v<T>) {
    const auto magnitude = std::abs(x);
    return magnitude > scalar::safe_minimum<T>() ? x / magnitude : T(1);
  } else {
    return x >= T(0) ? T(1) : T(-1);
  }
}

// The index of x's first entry of largest magnitude.
template <class T>
int index_of_largest(const std::vector<T>& x) {
  return static_cast<int>(std::max_element(x.begin(), x.end(), [](T a, T b) { return std::abs(a) < std::abs(b); }) -
                          x.begin());
}

// An estimate (a lower bound, usually within a factor of 3) of ||A^-1||_1 for an n x n A, given
// solve(x): x <- A^-1 x and solve_transposed(x): x <- A^-T x on n-vectors (A^-H for complex A, as
// LAPACK's zlacn2, whose signs are x_i / |x_i|). Infinity when a product
// is not finite (A is singular to working precision).
template <class T, class Solve, class SolveTransposed>
double inverse_norm1_estimate(int n, Solve&& solve, SolveTransposed&& solve_transposed) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (n <= 0) return 0;
  std::vector<T> x(n, T(1) / T(n)), sign(n);
  auto norm1 = [&] {
    double sum = 0;
    for (const T& v : x) sum += double(std::abs(v));
    return std::isfinite(sum) ? sum : inf;
  };
  auto largest = [&] { return index_of_largest(x); };
  auto take_signs = [&] {  // sign <- sign(x); false when it did not change
    bool changed = false;
    for (int i = 0; i < n; ++i) {
      const T s = lacn2_sign(x[i]);
      changed = changed || s != sign[i];
      sign[i] = s;
    }
    return changed || scalar::is_complex_v<T>;  // zlacn2 has no repeated-sign test
  };
  solve(x.data());
  double estimate = norm1();
  if (n == 1 || estimate == inf) return estimate;
  take_signs();
  x = sign;
  solve_transposed(x.data());
  int j = largest();
  for (int iteration = 2; iteration <= 5; ++iteration) {
    std::fill(x.begin(), x.end(), T(0));
    x[j] = T(1);
    solve(x.data());
    const double previous = estimate;
    estimate = norm1();
    if (estimate == inf) return inf;
    // Converged (signs repeated) or cycling: the newest estimate stands, as dlacn2's. The larger
    // earlier one is the product of fewer exact steps: from x = 1 / n, rounding grown 2^99 in the
    // factors of Wilkinson's matrix (n = 100) gave ||A^-1||_1 = 32 where e_j's exact solve gives 1
    // (rcond 3e-4 against dgecon's 0.01 from the same factors; a hostile helper's finding).
    if (!take_signs() || estimate <= previous) break;
    x = sign;
    solve_transposed(x.data());
    const int last = j;
    j = largest();
    // dlacn2 compares x(jlast) itself with |x(j)| (zlacn2 both moduli).
    const bool same_largest = scalar::is_complex_v<T> ? std::abs(x[last]) == std::abs(x[j])
                                                      : double(std::real(x[last])) == double(std::abs(x[j]));
    if (same_largest) break;
  }
  // Higham's alternative vector guards against the cases Hager's iteration misses.
  for (int i = 0; i < n; ++i) x[i] = T((i % 2 ? -1 : 1) * (1 + double(i) / std::max(1, n - 1)));
  solve(x.data());
  const double alternative = 2 * norm1() / (3.0 * n);
  return std::max(estimate, alternative);
}

// dlacn2's second step from any y = A^-1 s: ||A^-1 e_j||_1 for the j where A^-T sign(y) (A^-H, as
// zlacn2's signs) is largest. A lower bound of ||A^-1||_1 that a y of random s (about ||A^-1||_1 /
// sqrt(n) of it) seldom reaches; two solves. Infinity where a product is not finite.
template <class T, class Solve, class SolveTransposed>
double inverse_norm1_step(int n, const T* y, Solve&& solve, SolveTransposed&& solve_transposed) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (n <= 0) return 0;
  std::vector<T> x(n);
  for (int i = 0; i < n; ++i) x[i] = lacn2_sign(y[i]);
  solve_transposed(x.data());
  const int j = index_of_largest(x);
  std::fill(x.begin(), x.end(), T(0));
  x[j] = T(1);
  solve(x.data());
  double sum = 0;
  for (const T& v : x) sum += double(std::abs(v));
  return std::isfinite(sum) ? sum : inf;
}

// ||A||_1: the largest column sum of |A|, in double. Columns in parallel where compiled with
// OpenMP (each sum in row order, so the same to the last bit on any thread count): one thread read
// 8 GiB in about 1 s at n = 32768.
template <class T>
double norm1(int m, int n, const T* A, int lda) {
  double largest = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(max : largest) if (static_cast <long long>(m) * n > (1 << 18))
#endif
  for (int j = 0; j < n; ++j) {
    double sum = 0;
    for (int i = 0; i < m; ++i) sum += double(std::abs(A[i + static_cast<long long>(j) * lda]));
    largest = std::max(largest, sum);
  }
  return largest;
}

// The same, keeping each column's largest entry too (|re| + |im|, as LAPACK's rpvgrw measures it):
// for the pivot growth of a matrix about to be factored in place, A read once.
template <class T>
double norm1(int m, int n, const T* A, int lda, std::vector<double>& column_maxima) {
  column_maxima.assign(std::max(0, n), 0.0);
  double largest = 0;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(max : largest) if (static_cast <long long>(m) * n > (1 << 18))
#endif
  for (int j = 0; j < n; ++j) {
    double sum = 0, biggest = 0;
    for (int i = 0; i < m; ++i) {
      const T a = A[i + static_cast<long long>(j) * lda];
      sum += double(std::abs(a));
      biggest = std::max(biggest, double(scalar::abs1(a)));
    }
    column_maxima[j] = biggest;
    largest = std::max(largest, sum);
  }
  return largest;
}

// ||A||_inf of an m x n A: its largest row sum of |a|, read by columns; and each column's largest
// entry (|re| + |im|, as norm1 keeps them) in the same pass: for a system solved transposed.
template <class T>
double norm_inf(int m, int n, const T* A, int lda, std::vector<double>& column_maxima) {
  std::vector<double> rows(std::max(0, m), 0.0);
  column_maxima.assign(std::max(0, n), 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      const T a = A[i + static_cast<long long>(j) * lda];
      rows[i] += double(std::abs(a));
      column_maxima[j] = std::max(column_maxima[j], double(scalar::abs1(a)));
    }
  return rows.empty() ? 0 : *std::max_element(rows.begin(), rows.end());
}

template <class T>
ScaledNorm overflow_safe_norm(double norm, int n, const T* A, int lda, bool by_rows) {
  if (std::isfinite(norm)) return {norm, 0};
  constexpr int shift = 64;  // n 2^-64 |a| < 2^1024 for any n a 32-bit LAPACK takes
  std::vector<double> sums(by_rows ? std::max(0, n) : 1, 0.0);
  double largest = 0;
  for (int j = 0; j < n; ++j) {
    if (!by_rows) sums[0] = 0;
    for (int i = 0; i < n; ++i)
      sums[by_rows ? i : 0] += scalar::scaled_abs(A[i + static_cast<long long>(j) * lda], shift);
    if (!by_rows) largest = std::max(largest, sums[0]);
  }
  if (by_rows && n > 0) largest = *std::max_element(sums.begin(), sums.end());
  return {largest, shift};
}

// What a solution proves of rcond: ||A^-1||_1 >= ||X_j||_1 / ||B_j||_1 for each column j of A X = B,
// so rcond <= min_j ||B_j||_1 / (||A||_1 ||X_j||_1), ||A||_1 given as value 2^exponent; 1 where X is
// zero. hetlu::rcond_bound is this with exponent 0.
template <class T>
double solution_rcond_bound(int n, int nrhs, const T* X, int ldx, const T* B, int ldb, ScaledNorm anorm) {
  double bound = 1;
  // Each norm as its largest entry times a sum of ratios in [1, n], their quotient taken before
  // ||A||_1: with B and X near 1e305, n = 130 and ||A||_1 = 100, the plain norms' product overflowed
  // and "proved" rcond = 0 of a well-conditioned A; entries divided by n underflowed at the other end.
  auto norm = [n](const T* v) -> std::pair<double, double> {  // (largest, sum of ratios to it)
    double largest = 0, sum = 0;
    for (int i = 0; i < n; ++i) largest = std::max(largest, double(std::abs(v[i])));
    if (largest > 0 && std::isfinite(largest))
      for (int i = 0; i < n; ++i) sum += double(std::abs(v[i])) / largest;
    return {largest, sum};
  };
  for (int k = 0; k < nrhs; ++k) {
    const auto [x_largest, x_sum] = norm(X + static_cast<long long>(k) * ldx);
    const auto [b_largest, b_sum] = norm(B + static_cast<long long>(k) * ldb);
    if (!(x_largest > 0) || !(anorm.value > 0)) continue;  // X = 0 proves nothing
    if (std::isinf(x_largest)) {                           // X overflowed on a finite B: ||A^-1|| beyond any bound
      if (std::isfinite(b_largest)) bound = 0;
      continue;
    }
    const double ratio = b_largest == 0 ? 0 : (b_largest / x_largest) * (b_sum / x_sum);
    bound = std::min(bound, anorm.rcond(ratio / anorm.value));
  }
  return bound;
}

// rcond as a solve with LU factors reports it: estimate(anorm.value), dgecon's from the factors for
// that norm, scaled back, never above what X proves. hetlu::rcond_of_solution is this with exponent 0.
template <class T, class Estimate>
double solution_rcond(int n, int nrhs, const T* X, int ldx, const T* B, int ldb, ScaledNorm anorm,
                      Estimate&& estimate) {
  return std::min(solution_rcond_bound(n, nrhs, X, ldx, B, ldb, anorm), anorm.rcond(estimate(anorm.value)));
}

}  // namespace hetlu::kernels
