#include <algorithm>

#include "tuner/strategies/strategy.hpp"

namespace hetlu::tuner {

std::vector<Plan> neighbourhood_strategy(const SearchSpace& space, const Plan& model_plan, int m, int n) {
  // The grid, narrowed to the model's nb and its two nearest neighbours on each side.
  std::vector<Plan> all = grid_strategy(space, model_plan, m, n);
  const int k = std::max(1, std::min(m, n));
  auto centre = std::find_if(all.begin(), all.end(), [&](const Plan& p) { return p.nb == std::min(model_plan.nb, k); });
  const auto index = centre - all.begin();
  const auto first = std::max<std::ptrdiff_t>(0, index - 2);
  const auto last = std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(all.size()), index + 3);
  return {all.begin() + first, all.begin() + last};
}

}  // namespace hetlu::tuner
