#include <utility>

#include "tuner/strategies/strategy.hpp"

namespace hetlu::tuner {
namespace {
const std::pair<const char*, Strategy> registry[] = {
    {"grid", grid_strategy},
    {"neighbourhood", neighbourhood_strategy},
    {"coordinate_descent", coordinate_descent_strategy},
    {"random", random_strategy},
};
}  // namespace

Strategy find_strategy(const std::string& name) {
  for (const auto& [known, strategy] : registry)
    if (name == known) return strategy;
  std::string known_names;
  for (const auto& name_known : strategy_names()) known_names += (known_names.empty() ? "" : ", ") + name_known;
  throw InvalidArgument("unknown search strategy '" + name + "' (known: " + known_names + ")");
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const auto& entry : registry) names.emplace_back(entry.first);
  return names;
}

}  // namespace hetlu::tuner
