#include "tuner/strategies/strategy.hpp"

namespace hetlu::tuner {

void grid_strategy(const SearchSpace& space, const Plan& model_plan, int m, int n, const Evaluate& evaluate,
                   std::uint64_t) {
  for (const Plan& p : space.all(model_plan, m, n))
    evaluate(p);  // a failed plan is stored as such and the grid goes on
}

}  // namespace hetlu::tuner
