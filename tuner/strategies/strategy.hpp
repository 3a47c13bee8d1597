// Search strategies: each proposes the candidate plans to time for one problem, from the search
// space and the model's plan. One file per strategy, all with this signature, found by name.
#pragma once

#include <string>
#include <vector>

#include "hetlu/types.hpp"

namespace hetlu::tuner {

struct SearchSpace {
  std::vector<int> nb;  // panel widths to consider
};

using Strategy = std::vector<Plan> (*)(const SearchSpace& space, const Plan& model_plan, int m, int n);

// Every space value that fits the problem.
std::vector<Plan> grid_strategy(const SearchSpace& space, const Plan& model_plan, int m, int n);
// The model's nb and its two neighbours on each side in the space.
std::vector<Plan> neighbourhood_strategy(const SearchSpace& space, const Plan& model_plan, int m, int n);

// Looks a strategy up by name; throws InvalidArgument naming the known ones.
Strategy find_strategy(const std::string& name);
std::vector<std::string> strategy_names();

}  // namespace hetlu::tuner
