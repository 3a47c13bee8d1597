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

HETLU_HOST_DEVICE inline double row_omega(double r, double s) {
  if (r == 0 && s == 0) return 0;
  const double q = fabs(r) / s;
  return q != q ? HUGE_VAL : q;  // a NaN
}

}  // namespace hetlu::accuracy
