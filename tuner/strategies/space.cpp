#include <algorithm>
#include <cmath>

#include "tuner/strategies/strategy.hpp"

namespace hetlu::tuner {
namespace {
bool contains(const std::vector<int>& values, int v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}
bool hybrid(const Plan& p) {
  return p.target == Target::hybrid;
}
}  // namespace

std::vector<int> SearchSpace::cpu_block_columns(int width, int n) const {
  const int blocks = block_columns(n, width);
  std::vector<int> d;
  for (double share : cpu_share) {
    const int count = static_cast<int>(std::lround(std::clamp(share, 0.0, 1.0) * blocks));
    d.push_back(share > 0 ? std::max(1, count) : 0);  // a positive share keeps a block column
  }
  std::sort(d.begin(), d.end());
  d.erase(std::unique(d.begin(), d.end()), d.end());
  return d;
}

Plan SearchSpace::snapped(const Plan& plan, int n) const {
  auto nearest = [](const std::vector<int>& values, int v) {
    if (values.empty() || v < 1) return v;
    int best = values.front();
    for (int x : values)
      if (std::abs(std::log(double(x) / v)) < std::abs(std::log(double(best) / v))) best = x;
    return best;
  };
  Plan p = plan;
  const bool one_panel = n > 0 && plan.nb >= n;  // kept as it is: the model chose the whole matrix
  p.nb = one_panel ? plan.nb : nearest(nb, plan.nb);
  if (hybrid(plan) && n > 0 && plan.nb > 0 && !one_panel)
    p.cpu_block_columns = same_cpu_share(plan.cpu_block_columns, block_columns(n, plan.nb), block_columns(n, p.nb));
  if (plan.solver == Solver::calu) p.ib = std::min(p.nb, nearest(ib, plan.ib));
  if (!lookahead.empty() && !contains(lookahead, plan.lookahead)) p.lookahead = lookahead.front();
  return p;
}

bool SearchSpace::allows(const Plan& plan, int m, int n) const {
  const int k = std::max(1, std::min(m, n));
  if (plan.nb < 1 || plan.nb > k || (!contains(nb, plan.nb) && plan.nb != k)) return false;  // or one panel
  if (!lookahead.empty() && !contains(lookahead, plan.lookahead)) return false;
  if (plan.solver == Solver::calu && (plan.ib > plan.nb || (!ib.empty() && !contains(ib, plan.ib)))) return false;
  if (hybrid(plan)) {
    // d = 0: the panel on the device; on several, each device factors its own block columns' panels.
    if (plan.cpu_block_columns < 0 || plan.cpu_block_columns > block_columns(n, plan.nb)) return false;
  }
  return true;
}

std::vector<Plan> SearchSpace::all(const Plan& model_plan, int m, int n) const {
  std::vector<Plan> plans;
  const std::vector<int> ibs = model_plan.solver == Solver::calu && !ib.empty() ? ib : std::vector<int>{model_plan.ib};
  const std::vector<int> lookaheads =
      lookahead.empty() || hybrid(model_plan) ? std::vector<int>{model_plan.lookahead} : lookahead;
  for (int w : nb) {
    const std::vector<int> ds =
        hybrid(model_plan) ? cpu_block_columns(w, n) : std::vector<int>{model_plan.cpu_block_columns};
    for (int inner : ibs)
      for (int ahead : lookaheads)
        for (int d : ds) {
          Plan p = model_plan;
          p.nb = w, p.ib = inner, p.lookahead = ahead;
          if (hybrid(p)) p.cpu_block_columns = d;
          if (allows(p, m, n)) plans.push_back(p);
        }
  }
  // One panel over the whole matrix, where the model may choose it: the device's whole-matrix LU
  // (hybrid) or the recursive LU of a tall and skinny matrix (CPU).
  const int k = std::max(1, std::min(m, n));
  if (!contains(nb, k) && (hybrid(model_plan) || m >= 4 * n)) {
    Plan p = model_plan;
    p.nb = k, p.ib = std::min(model_plan.ib, k);
    if (hybrid(p)) p.cpu_block_columns = 0;  // the panel too on the device
    if (allows(p, m, n)) plans.push_back(p);
  }
  // The model's plan is measured first, even where it lies outside the lists.
  auto same = [&](const Plan& p) {
    return p.nb == model_plan.nb && p.ib == model_plan.ib && p.lookahead == model_plan.lookahead &&
           p.cpu_block_columns == model_plan.cpu_block_columns;
  };
  plans.erase(std::remove_if(plans.begin(), plans.end(), same), plans.end());
  Plan model = model_plan;
  model.nb = std::min(model.nb, std::max(1, std::min(m, n)));
  model.ib = std::min(model.ib, model.nb);
  plans.insert(plans.begin(), model);
  return plans;
}

}  // namespace hetlu::tuner
