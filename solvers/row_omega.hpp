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

//
// Underflow: each of the n + 1 terms of r_i = b_i - sum_j a_ij x_j rounds with an absolute error of up
// to half the smallest subnormal besides its relative one, which no |r_i| computed in double shows.
// Where s_i is a few subnormals wide that is all of r_i: A and b of subnormal entries, x wrong by 8 %,
// gave r = 0 and omega 0. So (n + 2) smallest subnormals are added to |r_i| where they exceed u s_i
// (s_i below about n 1e-308); elsewhere they would change no share at double's precision, and an exact
// answer keeps omega 0.
HETLU_HOST_DEVICE inline double row_omega(double r, double s, int n) {
  if (r == 0 && s == 0) return 0;
  const double hidden_by_underflow = (n + 2.0) * 4.9406564584124654e-324;
  const double q = (fabs(r) + (hidden_by_underflow > 0x1p-53 * s ? hidden_by_underflow : 0.0)) / s;
  return q != q ? HUGE_VAL : q;  // a NaN
}

}  // namespace hetlu::accuracy
