// PRBT's padded order, one definition for the solvers that pad A and the model that prices (and
// checks the device memory of) what they hold.
#pragma once

#include <algorithm>
#include <limits>

#include "hetlu/types.hpp"

namespace hetlu::detail {

// The largest n PRBT pads: its padded order must be an int.
inline constexpr int prbt_largest_order = std::numeric_limits<int>::max() / 4 * 4;

// n rounded up to a multiple of 4 (at least 4): PRBT factors diag(A, s I) of that order, since its
// depth-2 butterflies halve the order twice. Beyond prbt_largest_order (which the solvers refuse)
// that order, for the model's prices: n + 3 overflowed at the model's largest sizes (UBSan).
inline int prbt_padded_order(int n) {
  return n <= 4 ? 4 : static_cast<int>(std::min<long long>((n + 3LL) / 4 * 4, prbt_largest_order));
}

// Whether a hybrid PRBT plan of width nb whose CPUs keep d block columns deals the devices any of
// A's n columns: counted as the plan counts them (clamp_blocks_to_matrix, the search), on n, not the
// padded order, whose extra block column would hold padding alone. Where it deals none, PRBT runs as
// on the CPU target (prbt.cpp) and the model prices it so.
inline bool prbt_devices_take_block_columns(int n, int nb, int d) {
  return d < block_columns(n, std::clamp(nb, 1, std::max(1, n)));
}

}  // namespace hetlu::detail
