// GMRES (Saad and Schultz) for one right-hand side, left-preconditioned: it minimizes
// ||M^-1 (r - A d)||_2 over the Krylov space of M^-1 A, from d = 0, without restarts. GMRES-based
// iterative refinement (Carson and Higham, SISC 2017 and 2018) runs it on each correction
// equation A d = r with M = the low-precision LU factors applied in the working precision: where
// kappa(A) u_low is near or above 1 the factors no longer give a contraction, but M^-1 A is still
// close enough to the identity that a few Krylov steps solve for d. Modified Gram-Schmidt, Givens
// rotations (complex ones for complex T).
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "solvers/scalar.hpp"

namespace hetlu::kernels {

struct GmresResult {
  int iterations = 0;
  double relative_residual = 1;  // ||M^-1 (r - A d)|| / ||M^-1 r||, GMRES's own estimate
  bool converged = false;
};

// d (n) <- the GMRES solution of M^-1 A d = M^-1 r after at most max_iterations steps, stopping at
// relative_residual <= tolerance. apply(const T* v, T* w) writes w = M^-1 A v; precondition(T* w)
// does w <- M^-1 w in place.
template <class T, class Apply, class Precondition>
GmresResult gmres(int n, const T* r, T* d, Apply&& apply, Precondition&& precondition, double tolerance,
                  int max_iterations) {
  GmresResult result;
  using Real = scalar::real_t<T>;
  std::fill(d, d + n, T(0));
  auto dot = [n](const T* x, const T* y) {  // x^H y
    T sum = 0;
    for (int i = 0; i < n; ++i) sum += scalar::conj(x[i]) * y[i];
    return sum;
  };
  auto norm2 = [&](const T* x) { return std::sqrt(std::abs(dot(x, x))); };
  const int m = std::max(0, std::min(max_iterations, n));
  std::vector<T> V(static_cast<size_t>(n) * (m + 1)), H(static_cast<size_t>(m + 1) * std::max(1, m)), g(m + 1, T(0));
  std::vector<Real> c(m);
  std::vector<T> s(m);
  auto h = [&](int i, int j) -> T& { return H[i + static_cast<size_t>(j) * (m + 1)]; };
  std::copy(r, r + n, V.begin());
  precondition(V.data());
  const Real beta = norm2(V.data());
  if (!(beta > 0) || !std::isfinite(beta)) {
    result.relative_residual = beta == 0 ? 0 : 1;
    result.converged = beta == 0;
    return result;
  }
  for (int i = 0; i < n; ++i) V[i] /= beta;
  g[0] = beta;
  int k = 0;
  for (; k < m; ++k) {
    T* w = V.data() + static_cast<size_t>(k + 1) * n;
    apply(V.data() + static_cast<size_t>(k) * n, w);
    for (int i = 0; i <= k; ++i) {  // modified Gram-Schmidt
      const T* vi = V.data() + static_cast<size_t>(i) * n;
      h(i, k) = dot(vi, w);
      for (int l = 0; l < n; ++l) w[l] -= h(i, k) * vi[l];
    }
    const Real wnorm = norm2(w);
    h(k + 1, k) = wnorm;
    if (wnorm > 0)
      for (int l = 0; l < n; ++l) w[l] /= wnorm;
    for (int i = 0; i < k; ++i) {  // the earlier rotations on the new column
      const T a = h(i, k), b = h(i + 1, k);
      h(i, k) = c[i] * a + s[i] * b;
      h(i + 1, k) = -scalar::conj(s[i]) * a + c[i] * b;
    }
    // The rotation that zeroes h(k + 1, k).
    const T a = h(k, k), b = h(k + 1, k);
    const Real abs_a = std::abs(a), t = std::hypot(abs_a, Real(std::abs(b)));
    if (t == 0) {
      c[k] = 1, s[k] = 0;
    } else if (abs_a == 0) {
      c[k] = 0, s[k] = scalar::conj(b) / Real(std::abs(b));
    } else {
      c[k] = abs_a / t, s[k] = (a / abs_a) * scalar::conj(b) / t;
    }
    h(k, k) = c[k] * a + s[k] * b;
    h(k + 1, k) = 0;
    g[k + 1] = -scalar::conj(s[k]) * g[k];
    g[k] = c[k] * g[k];
    result.relative_residual = std::abs(g[k + 1]) / beta;
    if (!std::isfinite(result.relative_residual)) break;
    if (result.relative_residual <= tolerance || wnorm == 0) {
      ++k;
      break;
    }
  }
  result.iterations = k;
  result.converged = result.relative_residual <= tolerance;
  // y <- H(0:k, 0:k)^-1 g, then d = V y.
  std::vector<T> y(g.begin(), g.begin() + k);
  for (int i = k - 1; i >= 0; --i) {
    for (int j = i + 1; j < k; ++j) y[i] -= h(i, j) * y[j];
    y[i] /= h(i, i);
  }
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < n; ++i) d[i] += V[i + static_cast<size_t>(j) * n] * y[j];
  return result;
}

}  // namespace hetlu::kernels
