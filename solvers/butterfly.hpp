// Recursive butterfly transformations of depth 2 (hybrid-calu-prbt-gepp §2.2), in packed storage:
// W = diag(B_1, B_2) B_0, each butterfly B = 1/sqrt(2) [R S; R -S] with random diagonals R, S whose
// entries are exp(r / 10), r uniform in [-1/2, 1/2]. 2n numbers describe W; applying it costs O(n^2)
// on a matrix, O(n) on a vector.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "hetlu/detail/prbt_order.hpp"

namespace hetlu::kernels {

template <class T>
struct Butterfly {
  int n = 0;              // a multiple of 4
  std::vector<T> values;  // R0, S0 (n/2 each), then R1, S1, R2, S2 (n/4 each)

  static Butterfly random(int n, std::uint64_t seed);
  // PRBT's pair for the padded order np, from fixed seeds: the same input gives the same answer, run
  // after run, and the same matrix is randomized the same way in every precision and on every target.
  static Butterfly prbt_left(int np) { return random(np, 2012u + 2u * static_cast<unsigned>(np)); }
  static Butterfly prbt_right(int np) { return random(np, 2013u + 2u * static_cast<unsigned>(np)); }
};

// W held as G (float to double, complex<float> to complex<double>): the same butterflies applied in
// G's precision (GMRES-based refinement's preconditioner).
template <class G, class F>
Butterfly<G> widened(const Butterfly<F>& W) {
  Butterfly<G> out;
  out.n = W.n;
  out.values.assign(W.values.begin(), W.values.end());
  return out;
}

// PRBT's padded order (include/hetlu/detail/prbt_order.hpp): diag(A, s I).
using detail::prbt_padded_order;

// A <- W^T A for the n x ncols column-major A.
template <class T>
void apply_transpose_left(const Butterfly<T>& W, int ncols, T* A, int lda);

// A <- A W for the nrows x n column-major A.
template <class T>
void apply_right(const Butterfly<T>& W, int nrows, T* A, int lda);

// Ar <- U^T diag(A, s I) V in one pass over A (PRBT's randomization): U and V are n x n, A is
// a x a with a <= n (s I pads it to n, s = padding_value: x's first a entries are A's solution).
// Columns g, g + n/4, g + n/2 and g + 3n/4 meet only one another in both products, so each such
// group is read once, transformed in cache and written once; the groups run in parallel (and
// first-touch Ar's pages from the thread that uses them). In place when Ar == A (then a == n and
// ldar == lda). Returns false when diag(A, I) has an exactly zero row or column (A is singular
// however it is randomized). With a_norm1, ||A||_1 from the same pass (PRBT's condition estimate
// needs it: a pass of its own, on one thread, took 1 s of a 2.3 s solve at n = 32768 on an H100).
template <class T>
bool randomize_two_sided(const Butterfly<T>& U, const Butterfly<T>& V, int a, const T* A, int lda, T* Ar, int ldar,
                         double* a_norm1 = nullptr);

// The padding's diagonal s in diag(A, s I): a power of two at A's typical magnitude, the mean
// binary exponent of the nonzero entries on 64 wrapped diagonals (64 a reads spread over every row
// and column, before the one pass: a mean of exponents, so that one huge or tiny entry does not set
// it), 1 where those are all zero. With s = 1, a well-conditioned A of entries near 1e-20 and
// n = 50 lost GENP's pivots to the padding once randomized, and refinement did not converge (n a
// multiple of 4, no padding, did); the largest entry of a few diagonals missed hollow matrices.
// padding_value_as<Out>: the same s within Out's range, for A held in a wider T (mixed precision's
// device path pads the single copy it rounds from A in double: mixed_device.hpp).
template <class Out, class T>
Out padding_value_as(int a, const T* A, int lda);
template <class T>
T padding_value(int a, const T* A, int lda) {
  return padding_value_as<T>(a, A, lda);
}

// The same zero row or column check and ||A||_1 without writing anything, column by column as
// another pass over A reads it (PRBT on one device, which takes A straight from the caller's memory
// and randomizes it itself: the upload's packing, Staging::to_device's visitor). column(j, x) may
// be called from several threads at once, for distinct columns j < cols.
template <class T>
class LineScan {
 public:
  LineScan(int rows, int cols) : row_nonzero_(rows), column_sums_(cols, -1.0) {}
  void column(int j, const T* x);
  // Every row and every column has a nonzero entry (every column visited).
  bool nonsingular_lines() const;
  // ||A||_1: infinite where an entry is NaN or Inf (or a column's sum overflows).
  double norm_1() const;

 private:
  std::vector<std::atomic<unsigned char>> row_nonzero_;
  std::vector<double> column_sums_;  // -1 until visited
};

// X <- W X for n x ncols X (e.g. x = V y).
template <class T>
void apply_left(const Butterfly<T>& W, int ncols, T* X, int ldx);

}  // namespace hetlu::kernels
