// PRBT's padded order, one definition for the solvers that pad A and the model that prices (and
// checks the device memory of) what they hold.
#pragma once

namespace hetlu::detail {

// n rounded up to a multiple of 4 (at least 4): PRBT factors diag(A, s I) of that order, since its
// depth-2 butterflies halve the order twice.
inline int prbt_padded_order(int n) {
  return n <= 4 ? 4 : (n + 3) / 4 * 4;
}

}  // namespace hetlu::detail
