#include <algorithm>
#include <random>

#include "tuner/strategies/strategy.hpp"

namespace hetlu::tuner {

void random_strategy(const SearchSpace& space, const Plan& model_plan, int m, int n, const Evaluate& evaluate,
                     std::uint64_t seed) {
  std::vector<Plan> plans = space.all(model_plan, m, n);
  evaluate(plans.front());  // the model's plan, always
  std::vector<Plan> rest(plans.begin() + 1, plans.end());
  std::shuffle(rest.begin(), rest.end(), std::mt19937_64(seed));
  const size_t count = std::min(rest.size(), std::max<size_t>(3, rest.size() / 3));
  for (size_t i = 0; i < count; ++i) evaluate(rest[i]);
}

}  // namespace hetlu::tuner
