// A matrix norm held as value 2^exponent, for norms of finite matrices whose plain sums overflow
// (kernels::overflow_safe_norm in condition.hpp computes it).
#pragma once

#include <cmath>

namespace hetlu::kernels {

// A norm of a finite A (1 or inf) as value 2^exponent: `norm` itself (exponent 0), or, where its sums
// overflow, the norm of 2^-64 A (exponent 64). Entries near the largest double made ||A||_1 = Inf,
// rcond 0 and A "singular to working precision" for [[1.7e308, 1e308], [1e308, 1.7e308]], whose rcond
// is 0.26. A reciprocal condition number computed with value is 2^exponent times too large: rcond()
// scales it back, the one place that does.
struct ScaledNorm {
  double value = 0;
  int exponent = 0;
  double rcond(double computed_with_value) const { return std::ldexp(computed_with_value, -exponent); }
};

}  // namespace hetlu::kernels
