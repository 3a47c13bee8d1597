#include "solvers/butterfly.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <stdexcept>

#include "solvers/scalar.hpp"

namespace hetlu::kernels {
namespace {

// The diagonals of the butterfly of `size` at `offset` in the packed values.
template <class T>
struct Diagonals {
  const T* R;
  const T* S;
};

template <class T>
Diagonals<T> level0(const Butterfly<T>& W) {
  return {W.values.data(), W.values.data() + W.n / 2};
}
template <class T>
Diagonals<T> level1(const Butterfly<T>& W, int half) {
  const T* base = W.values.data() + W.n + half * (W.n / 2);
  return {base, base + W.n / 4};
}

constexpr double inv_sqrt2 = 0.70710678118654752440;

// x <- W^T x on one column of W's size n, W of depth 2, in one pass: rows i, i + n/4, i + n/2 and
// i + 3n/4 meet only one another (the halves' butterflies first, then the whole one).
template <class T>
void transpose_depth2_on_column(const Butterfly<T>& W, T* x) {
  const int n = W.n, q = n / 4;
  const T* v = W.values.data();
  const T *R0 = v, *S0 = v + n / 2, *R1 = v + n, *S1 = R1 + q, *R2 = S1 + q, *S2 = R2 + q;
  const T h = T(inv_sqrt2);
  for (int i = 0; i < q; ++i) {
    const T a = x[i], b = x[i + q], c = x[i + 2 * q], d = x[i + 3 * q];
    const T a1 = h * R1[i] * (a + b), b1 = h * S1[i] * (a - b);
    const T c1 = h * R2[i] * (c + d), d1 = h * S2[i] * (c - d);
    x[i] = h * R0[i] * (a1 + c1);
    x[i + 2 * q] = h * S0[i] * (a1 - c1);
    x[i + q] = h * R0[i + q] * (b1 + d1);
    x[i + 3 * q] = h * S0[i + q] * (b1 - d1);
  }
}

// The four columns g + k n/4 (k = 0..3) of A <- A W, W of depth 2, in one pass over their rows.
template <class T>
void right_depth2_on_group(const Butterfly<T>& W, int g, int rows, T* const* col) {
  const int n = W.n, q = n / 4;
  const T* v = W.values.data();
  const T h = T(inv_sqrt2);
  const T r1 = h * v[n + g], s1 = h * v[n + q + g], r2 = h * v[n + 2 * q + g], s2 = h * v[n + 3 * q + g];
  const T r0a = h * v[g], s0a = h * v[n / 2 + g], r0b = h * v[g + q], s0b = h * v[n / 2 + g + q];
  T *c0 = col[0], *c1 = col[1], *c2 = col[2], *c3 = col[3];
  for (int i = 0; i < rows; ++i) {
    // diag(B_1, B_2) pairs g with g + n/4 and g + n/2 with g + 3n/4; B_0 then g with g + n/2 and
    // g + n/4 with g + 3n/4.
    const T a = c0[i], b = c1[i], c = c2[i], d = c3[i];
    const T a1 = r1 * (a + b), b1 = s1 * (a - b), c1v = r2 * (c + d), d1 = s2 * (c - d);
    c0[i] = r0a * (a1 + c1v);
    c2[i] = s0a * (a1 - c1v);
    c1[i] = r0b * (b1 + d1);
    c3[i] = s0b * (b1 - d1);
  }
}

// x <- B x on one column: [R x1 + S x2; R x1 - S x2] / sqrt(2).
template <class T>
void forward_on_column(Diagonals<T> d, int size, T* x) {
  const int k = size / 2;
  for (int i = 0; i < k; ++i) {
    const T a = d.R[i] * x[i], b = d.S[i] * x[i + k];
    x[i] = T(inv_sqrt2) * (a + b);
    x[i + k] = T(inv_sqrt2) * (a - b);
  }
}

// A <- A B on the `size` columns starting at A: column i and i + k combine, scaled by R_i and S_i.
template <class T>
void on_columns(Diagonals<T> d, int size, int nrows, T* A, int lda) {
  const int k = size / 2;
#pragma omp parallel for schedule(static) if (static_cast <long long>(nrows) * size > 65536)
  for (int i = 0; i < k; ++i) {
    T* left = A + static_cast<long long>(i) * lda;
    T* right = A + static_cast<long long>(i + k) * lda;
    const T r = T(inv_sqrt2) * d.R[i], s = T(inv_sqrt2) * d.S[i];
    for (int row = 0; row < nrows; ++row) {
      const T a = left[row], b = right[row];
      left[row] = r * (a + b);
      right[row] = s * (a - b);
    }
  }
}

// Column c of diag(A, s I) (a x a A padded to n, s = pad) into `to`, A's columns read into `scan`
// first (from may be to: in place).
template <class T>
void load_padded_column(int a, const T* A, int lda, int n, int c, T* to, LineScan<T>& scan, T pad) {
  if (c >= a) {
    std::fill(to, to + n, T(0));
    to[c] = pad;
    return;
  }
  const T* from = A + static_cast<long long>(c) * lda;
  scan.column(c, from);
  if (from != to) std::copy(from, from + a, to);
  std::fill(to + a, to + n, T(0));
}

}  // namespace

template <class T>
Butterfly<T> Butterfly<T>::random(int n, std::uint64_t seed) {
  if (n % 4 != 0 || n < 4) throw std::invalid_argument("butterfly size must be a positive multiple of 4");
  Butterfly W;
  W.n = n;
  W.values.resize(2 * static_cast<size_t>(n));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> r(-0.5, 0.5);
  for (auto& v : W.values) v = T(std::exp(r(rng) / 10));
  return W;
}

template <class T>
void apply_transpose_left(const Butterfly<T>& W, int ncols, T* A, int lda) {
  // W^T = B_0^T diag(B_1^T, B_2^T): the halves first, then the whole.
  const int n = W.n;
#pragma omp parallel for schedule(static) if (static_cast <long long>(n) * ncols > 65536)
  for (int j = 0; j < ncols; ++j) {
    transpose_depth2_on_column(W, A + static_cast<long long>(j) * lda);
  }
}

template <class T>
void apply_right(const Butterfly<T>& W, int nrows, T* A, int lda) {
  // A W = (A diag(B_1, B_2)) B_0.
  const int n = W.n;
  on_columns(level1(W, 0), n / 2, nrows, A, lda);
  on_columns(level1(W, 1), n / 2, nrows, A + static_cast<long long>(n / 2) * lda, lda);
  on_columns(level0(W), n, nrows, A, lda);
}

namespace {

// Loads diag(A, I) into Ar group by group (columns g + k n/4, k = 0..3) in parallel, calling
// transform(col) on each loaded group; false when a row or column of diag(A, I) is exactly zero
// (the padding's are not). With a_norm1, also ||A||_1 (LineScan's: the same to the last bit
// whatever the threads).
template <class T, class GroupTransform>
bool pass_over_groups(int a, const T* A, int lda, int n, T* Ar, int ldar, double* a_norm1, GroupTransform transform) {
  const int q = n / 4;
  const T pad = a < n ? padding_value(a, A, lda) : T(1);
  LineScan<T> scan(a, a);
#pragma omp parallel for schedule(static)
  for (int g = 0; g < q; ++g) {
    T* col[4];
    for (int k = 0; k < 4; ++k) {
      col[k] = Ar + static_cast<long long>(g + k * q) * ldar;
      load_padded_column(a, A, lda, n, g + k * q, col[k], scan, pad);
    }
    transform(g, col);
  }
  if (a_norm1) *a_norm1 = scan.norm_1();
  return scan.nonsingular_lines();
}

void check_sizes(int a, int n, bool in_place, int lda, int ldar) {
  if (n % 4 != 0 || a > n || (in_place && (a != n || ldar != lda)))
    throw std::invalid_argument("butterfly pass: an a x a matrix with a <= n, n a multiple of 4, is needed");
}

}  // namespace

template <class Out, class T>
Out padding_value_as(int a, const T* A, int lda) {
  constexpr int diagonals = 64;
  const int step = std::max(1, a / diagonals);
  double exponents = 0;
  long long counted = 0;
  for (int k = 0; k < std::min(a, diagonals); ++k)
    for (int j = 0; j < a; ++j) {
      const double x =
          double(std::abs(A[(j + static_cast<long long>(k) * step) % a + static_cast<long long>(j) * lda]));
      if (x > 0 && std::isfinite(x)) exponents += std::ilogb(x), ++counted;
    }
  if (counted == 0) return Out(1);
  using R = scalar::real_t<Out>;
  const int low = std::numeric_limits<R>::min_exponent, high = std::numeric_limits<R>::max_exponent - 2;
  return Out(std::ldexp(R(1), std::clamp(static_cast<int>(std::lround(exponents / counted)), low, high)));
}

template <class T>
bool randomize_two_sided(const Butterfly<T>& U, const Butterfly<T>& V, int a, const T* A, int lda, T* Ar, int ldar,
                         double* a_norm1) {
  const int n = U.n;
  if (V.n != n) throw std::invalid_argument("randomize_two_sided: U and V differ in size");
  check_sizes(a, n, Ar == A, lda, ldar);
  return pass_over_groups(a, A, lda, n, Ar, ldar, a_norm1, [&](int g, T* const* col) {
    for (int k = 0; k < 4; ++k) transpose_depth2_on_column(U, col[k]);
    right_depth2_on_group(V, g, n, col);
  });
}

template <class T>
void LineScan<T>::column(int j, const T* x) {
  double sum = 0;
  for (int i = 0; i < static_cast<int>(row_nonzero_.size()); ++i) {
    const double a = double(std::abs(x[i]));
    sum += a;
    // Relaxed: flags only go from 0 to 1, and the upload's parallel loop ends before they are read.
    if (a != 0 && !row_nonzero_[i].load(std::memory_order_relaxed)) row_nonzero_[i].store(1, std::memory_order_relaxed);
  }
  column_sums_[j] = std::isnan(sum) ? std::numeric_limits<double>::infinity() : sum;
}

template <class T>
bool LineScan<T>::nonsingular_lines() const {
  for (double s : column_sums_)
    if (!(s > 0)) return false;  // a zero column, or one not visited
  for (const auto& r : row_nonzero_)
    if (!r.load(std::memory_order_relaxed)) return false;
  return true;
}

template <class T>
double LineScan<T>::norm_1() const {
  double largest = 0;
  for (double s : column_sums_) largest = std::max(largest, s);
  return largest;
}

template <class T>
void apply_left(const Butterfly<T>& W, int ncols, T* X, int ldx) {
  // W X = diag(B_1, B_2) (B_0 X).
  const int n = W.n;
  for (int j = 0; j < ncols; ++j) {
    T* x = X + static_cast<long long>(j) * ldx;
    forward_on_column(level0(W), n, x);
    forward_on_column(level1(W, 0), n / 2, x);
    forward_on_column(level1(W, 1), n / 2, x + n / 2);
  }
}

template class LineScan<float>;
template class LineScan<double>;
template class LineScan<std::complex<float>>;
template class LineScan<std::complex<double>>;
template struct Butterfly<float>;
template struct Butterfly<double>;
template struct Butterfly<std::complex<double>>;
template struct Butterfly<std::complex<float>>;
template void apply_transpose_left<float>(const Butterfly<float>&, int, float*, int);
template void apply_transpose_left<double>(const Butterfly<double>&, int, double*, int);
template void apply_transpose_left<std::complex<double>>(const Butterfly<std::complex<double>>&, int,
                                                         std::complex<double>*, int);
template void apply_transpose_left<std::complex<float>>(const Butterfly<std::complex<float>>&, int,
                                                        std::complex<float>*, int);
template void apply_right<float>(const Butterfly<float>&, int, float*, int);
template void apply_right<double>(const Butterfly<double>&, int, double*, int);
template void apply_right<std::complex<double>>(const Butterfly<std::complex<double>>&, int, std::complex<double>*,
                                                int);
template void apply_right<std::complex<float>>(const Butterfly<std::complex<float>>&, int, std::complex<float>*, int);
template bool randomize_two_sided<float>(const Butterfly<float>&, const Butterfly<float>&, int, const float*, int,
                                         float*, int, double*);
template bool randomize_two_sided<double>(const Butterfly<double>&, const Butterfly<double>&, int, const double*, int,
                                          double*, int, double*);
template bool randomize_two_sided<std::complex<double>>(const Butterfly<std::complex<double>>&,
                                                        const Butterfly<std::complex<double>>&, int,
                                                        const std::complex<double>*, int, std::complex<double>*, int,
                                                        double*);
template bool randomize_two_sided<std::complex<float>>(const Butterfly<std::complex<float>>&,
                                                       const Butterfly<std::complex<float>>&, int,
                                                       const std::complex<float>*, int, std::complex<float>*, int,
                                                       double*);
template float padding_value_as<float>(int, const float*, int);
template double padding_value_as<double>(int, const double*, int);
template std::complex<double> padding_value_as<std::complex<double>>(int, const std::complex<double>*, int);
template std::complex<float> padding_value_as<std::complex<float>>(int, const std::complex<float>*, int);
template float padding_value_as<float>(int, const double*, int);
template std::complex<float> padding_value_as<std::complex<float>>(int, const std::complex<double>*, int);
template void apply_left<float>(const Butterfly<float>&, int, float*, int);
template void apply_left<double>(const Butterfly<double>&, int, double*, int);
template void apply_left<std::complex<double>>(const Butterfly<std::complex<double>>&, int, std::complex<double>*, int);
template void apply_left<std::complex<float>>(const Butterfly<std::complex<float>>&, int, std::complex<float>*, int);

}  // namespace hetlu::kernels
