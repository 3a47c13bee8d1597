// One row's share of the componentwise backward error: |r_i| / s_i with s = |B| + |A| |X|. 0 / 0
// counts as 0; r / 0, a NaN and inf / inf (an overflow) give infinity, so that a broken solution
// can never pass as converged. One definition for the CPU passes and the CUDA kernel.
#pragma once

#include <cmath>

#ifdef __CUDACC__
#define HETLU_HOST_DEVICE __host__ __device__
#else
#define HETLU_HOST_DEVICE
#endif

namespace hetlu::accuracy {

// hidden: what underflow may have taken from |r_i| (underflow_hidden below), 0 where it cannot matter.
HETLU_HOST_DEVICE inline double row_omega(double r, double s, double hidden = 0.0) {
  if (r == 0 && s == 0) return 0;
  const double q = (fabs(r) + hidden) / s;
  return q != q ? HUGE_VAL : q;  // a NaN
}

// Underflow: each of the n + 1 terms of r_i = b_i - sum_j a_ij x_j rounds with an absolute error of up
// to half the smallest subnormal besides its relative one, which no |r_i| computed in double shows. In
// a row whose entries are themselves a few subnormals wide that is all of r_i: A and b of subnormal
// entries, x wrong by 8 %, gave r = 0 and omega 0. So (n + 2) smallest subnormals count as hidden in
// r_i where they exceed u times the row's reach |b_i| + max_j |a_ij| ||x||_inf; not where only x
// decays into the subnormals (a tridiagonal A with b = e_1: x as exact as it can be stored).
// may_hide(n, s_i) first: whether s_i is small enough for the row's reach to be worth finding.
HETLU_HOST_DEVICE inline double underflow_in_terms(int n) {
  return (n + 2.0) * 4.9406564584124654e-324;
}
HETLU_HOST_DEVICE inline bool may_hide(int n, double s) {
  return s > 0 && underflow_in_terms(n) > 0x1p-53 * s;
}
HETLU_HOST_DEVICE inline double underflow_hidden(int n, double row_reach) {
  return underflow_in_terms(n) > 0x1p-53 * row_reach ? underflow_in_terms(n) : 0.0;
}

}  // namespace hetlu::accuracy
