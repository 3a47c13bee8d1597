#include <algorithm>

#include "tuner/strategies/strategy.hpp"

namespace hetlu::tuner {

std::vector<Plan> grid_strategy(const SearchSpace& space, const Plan& model_plan, int m, int n) {
  const int k = std::max(1, std::min(m, n));
  std::vector<int> values;
  for (int nb : space.nb)
    if (nb >= 1 && nb <= k) values.push_back(nb);
  values.push_back(std::min(model_plan.nb, k));  // the model's choice is always measured
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());

  std::vector<Plan> plans;
  for (int nb : values) {
    Plan p = model_plan;
    p.nb = nb;
    plans.push_back(p);
  }
  return plans;
}

}  // namespace hetlu::tuner
