#include <algorithm>
#include <cstdlib>

#include "tuner/strategies/strategy.hpp"

namespace hetlu::tuner {

void neighbourhood_strategy(const SearchSpace& space, const Plan& model_plan, int m, int n, const Evaluate& evaluate,
                            std::uint64_t) {
  // The allowed plans ordered by how far their nb is from the model's; the model's and the two
  // nearest on each side in the nb list.
  std::vector<Plan> plans = space.all(model_plan, m, n);
  std::vector<int> widths;
  for (const Plan& p : plans) widths.push_back(p.nb);
  std::sort(widths.begin(), widths.end());
  widths.erase(std::unique(widths.begin(), widths.end()), widths.end());
  const auto centre = std::find(widths.begin(), widths.end(), plans.front().nb) - widths.begin();
  for (const Plan& p : plans) {
    const auto at = std::find(widths.begin(), widths.end(), p.nb) - widths.begin();
    if (std::abs(at - centre) <= 2) evaluate(p);
  }
}

}  // namespace hetlu::tuner
