// Solving with PRBT's factors: A = U^-T (L U) V^-1 after the butterflies U, V (butterfly.hpp), so
// A^-1 R = V (L U)^-1 U^T [R; 0] on the padded order. Shared by PRBT's solve and the mixed-precision
// refinement (lu_factors.hpp), whichever memory the triangular factors live in.
#pragma once

#include <algorithm>
#include <vector>

#include "hetlu/types.hpp"
#include "solvers/butterfly.hpp"
#include "solvers/copy_block.hpp"

namespace hetlu::kernels {

// R <- A^-1 R = V Ar^-1 U^T [R; 0] for the n x ncols R (trans = yes: A^-T R = U Ar^-T V^T [R; 0];
// conjugate: A^-H R = U Ar^-H V^T [R; 0], the butterflies being real), through the padded
// np x ncols `work`. triangular(W, ldw, ncols, trans) applies (L U)^-1 or (L U)^-T to W wherever
// the factors are.
template <class T, class Triangular>
void apply_randomized_inverse(const Butterfly<T>& U, const Butterfly<T>& V, int n, int ncols, T* R, int ldr,
                              Transpose trans, std::vector<T>& work, Triangular& triangular) {
  const int np = U.n;
  const auto& first = trans == Transpose::no ? U : V;
  const auto& last = trans == Transpose::no ? V : U;
  work.assign(static_cast<size_t>(np) * std::max(1, ncols), T(0));
  copy_block(n, ncols, R, ldr, work.data(), np);
  apply_transpose_left(first, ncols, work.data(), np);
  triangular(work.data(), np, ncols, trans);
  apply_left(last, ncols, work.data(), np);
  copy_block(n, ncols, work.data(), np, R, ldr);
}

}  // namespace hetlu::kernels
