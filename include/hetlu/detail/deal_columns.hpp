// How the block columns right of the CPUs' d are dealt to several devices: one definition for the
// executor that deals them and the model and bench that price and report them.
#pragma once

#include <cstddef>
#include <vector>

namespace hetlu::detail {

// The owner (an index into `shares`) of each of `count` block columns, dealt in order, each to the
// device whose count would stay least ahead of its share: the one with the least (n_i + 1) / s_i
// (ties to the first). Every prefix of the deal is then as near proportional as whole block
// columns allow, so the trailing matrix stays balanced at every step as the CPUs take block columns
// from the left (heterogeneous-column-block §3.2's cyclic allocation with unequal blocks per
// cycle). A device with share <= 0 gets none; no share above 0 (or none given) deals equally,
// round robin, as cusolverMg's and MAGMA's 1-D block cyclic layouts do.
inline std::vector<int> deal_block_columns(const std::vector<double>& shares, int devices, int count) {
  std::vector<double> s(static_cast<std::size_t>(devices > 0 ? devices : 1), 1.0);
  bool any = false;
  for (std::size_t i = 0; i < s.size() && i < shares.size(); ++i) any = any || shares[i] > 0;
  if (any)
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = i < shares.size() && shares[i] > 0 ? shares[i] : 0;
  std::vector<int> owner, dealt(s.size(), 0);
  for (int J = 0; J < count; ++J) {
    int best = -1;
    double best_load = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] <= 0) continue;
      const double load = (dealt[i] + 1) / s[i];
      if (best < 0 || load < best_load - 1e-12 * load) best = static_cast<int>(i), best_load = load;
    }
    owner.push_back(best);
    ++dealt[best];
  }
  return owner;
}

}  // namespace hetlu::detail
