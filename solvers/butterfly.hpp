// Recursive butterfly transformations of depth 2 (hybrid-calu-prbt-gepp §2.2), in packed storage:
// W = diag(B_1, B_2) B_0, each butterfly B = 1/sqrt(2) [R S; R -S] with random diagonals R, S whose
// entries are exp(r / 10), r uniform in [-1/2, 1/2]. 2n numbers describe W; applying it costs O(n^2)
// on a matrix, O(n) on a vector.
#pragma once

#include <cstdint>
#include <vector>

namespace hetlu::kernels {

template <class T>
struct Butterfly {
  int n = 0;              // a multiple of 4
  std::vector<T> values;  // R0, S0 (n/2 each), then R1, S1, R2, S2 (n/4 each)

  static Butterfly random(int n, std::uint64_t seed);
};

// A <- W^T A for the n x ncols column-major A.
template <class T>
void apply_transpose_left(const Butterfly<T>& W, int ncols, T* A, int lda);

// A <- A W for the nrows x n column-major A.
template <class T>
void apply_right(const Butterfly<T>& W, int nrows, T* A, int lda);

// X <- W X for n x ncols X (e.g. x = V y).
template <class T>
void apply_left(const Butterfly<T>& W, int ncols, T* X, int ldx);

}  // namespace hetlu::kernels
