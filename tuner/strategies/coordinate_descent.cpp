#include <limits>

#include "tuner/strategies/strategy.hpp"

namespace hetlu::tuner {
namespace {

// The values of one parameter next to the current one in its list.
std::vector<int> neighbours(const std::vector<int>& values, int current) {
  std::vector<int> out;
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i] == current) {
      if (i > 0) out.push_back(values[i - 1]);
      if (i + 1 < values.size()) out.push_back(values[i + 1]);
      return out;
    }
  // Not in the list (the model chose it freely): every listed value is a neighbour.
  return values;
}

}  // namespace

void coordinate_descent_strategy(const SearchSpace& space, const Plan& model_plan, int m, int n,
                                 const Evaluate& evaluate, std::uint64_t) {
  Plan best = space.all(model_plan, m, n).front();
  std::optional<double> best_time = evaluate(best);
  if (!best_time) return;
  for (bool moved = true; moved;) {
    moved = false;
    // nb, ib (CALU), look-ahead (CPU target), d (hybrid target).
    const bool hybrid = best.target == Target::hybrid;
    for (int dimension = 0; dimension < 4; ++dimension) {
      if (dimension == 1 && best.solver != Solver::calu) continue;
      if (dimension == 2 && hybrid) continue;
      if (dimension == 3 && !hybrid) continue;
      const std::vector<int> values = dimension == 0   ? space.nb
                                      : dimension == 1 ? space.ib
                                      : dimension == 2 ? space.lookahead
                                                       : space.cpu_block_columns(best.nb, n);
      int Plan::*field = dimension == 0   ? &Plan::nb
                         : dimension == 1 ? &Plan::ib
                         : dimension == 2 ? &Plan::lookahead
                                          : &Plan::cpu_block_columns;
      for (int v : neighbours(values, best.*field)) {
        Plan p = best;
        p.*field = v;
        if (!space.allows(p, m, n)) continue;
        const auto t = evaluate(p);
        if (t && *t < *best_time) best = p, best_time = t, moved = true;
      }
    }
  }
}

}  // namespace hetlu::tuner
