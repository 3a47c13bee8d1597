#include "solvers/butterfly.hpp"

#include <cmath>
#include <random>
#include <stdexcept>

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

// x <- B^T x on `size` entries of one column: [R (x1 + x2); S (x1 - x2)] / sqrt(2).
template <class T>
void transpose_on_column(Diagonals<T> d, int size, T* x) {
  const int k = size / 2;
  for (int i = 0; i < k; ++i) {
    const T a = x[i], b = x[i + k];
    x[i] = T(inv_sqrt2) * d.R[i] * (a + b);
    x[i + k] = T(inv_sqrt2) * d.S[i] * (a - b);
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
    T* x = A + static_cast<long long>(j) * lda;
    transpose_on_column(level1(W, 0), n / 2, x);
    transpose_on_column(level1(W, 1), n / 2, x + n / 2);
    transpose_on_column(level0(W), n, x);
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

template struct Butterfly<float>;
template struct Butterfly<double>;
template void apply_transpose_left<float>(const Butterfly<float>&, int, float*, int);
template void apply_transpose_left<double>(const Butterfly<double>&, int, double*, int);
template void apply_right<float>(const Butterfly<float>&, int, float*, int);
template void apply_right<double>(const Butterfly<double>&, int, double*, int);
template void apply_left<float>(const Butterfly<float>&, int, float*, int);
template void apply_left<double>(const Butterfly<double>&, int, double*, int);

}  // namespace hetlu::kernels
