#include <algorithm>
#include <cmath>

#include "tuner/strategies/strategy.hpp"

namespace hetlu::tuner {
namespace {
bool contains(const std::vector<int>& values, int v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}
}  // namespace

std::vector<int> SearchSpace::cpu_block_columns(int width, int n) const {
  const int blocks = (std::max(0, n) + std::max(1, width) - 1) / std::max(1, width);
  std::vector<int> d;
  for (double share : cpu_share) {
    const int count = static_cast<int>(std::lround(std::clamp(share, 0.0, 1.0) * blocks));
    d.push_back(share > 0 ? std::max(1, count) : 0);  // a positive share keeps a block column
  }
  std::sort(d.begin(), d.end());
  d.erase(std::unique(d.begin(), d.end()), d.end());
  return d;
}

namespace {
// The same share of the block columns after nb changed.
int rescaled_cpu_block_columns(int d, int old_nb, int new_nb, int n) {
  if (d <= 0) return 0;
  const int before = (n + old_nb - 1) / old_nb, after = (n + new_nb - 1) / new_nb;
  return std::clamp(static_cast<int>(std::lround(double(d) * after / std::max(1, before))), 1, std::max(1, after));
}

bool hybrid(const Plan& p) {
  return p.target == Target::hybrid;
}
}  // namespace

Plan SearchSpace::snapped(const Plan& plan, int n) const {
  auto nearest = [](const std::vector<int>& values, int v) {
    if (values.empty() || v < 1) return v;
    int best = values.front();
    for (int x : values)
      if (std::abs(std::log(double(x) / v)) < std::abs(std::log(double(best) / v))) best = x;
    return best;
  };
  Plan p = plan;
  p.nb = nearest(nb, plan.nb);
  if (hybrid(plan) && n > 0 && plan.nb > 0)
    p.cpu_block_columns = rescaled_cpu_block_columns(plan.cpu_block_columns, plan.nb, p.nb, n);
  if (plan.solver == Solver::calu) p.ib = std::min(p.nb, nearest(ib, plan.ib));
  if (!lookahead.empty() && !contains(lookahead, plan.lookahead)) p.lookahead = lookahead.front();
  return p;
}

bool SearchSpace::allows(const Plan& plan, int m, int n) const {
  const int k = std::max(1, std::min(m, n));
  if (plan.nb < 1 || plan.nb > k || !contains(nb, plan.nb)) return false;
  if (!lookahead.empty() && !contains(lookahead, plan.lookahead)) return false;
  if (plan.solver == Solver::calu && (plan.ib > plan.nb || (!ib.empty() && !contains(ib, plan.ib)))) return false;
  if (hybrid(plan)) {
    const int blocks = (n + plan.nb - 1) / plan.nb;
    if (plan.cpu_block_columns < 0 || plan.cpu_block_columns > blocks) return false;
    if ((plan.cpu_block_columns == 0) != (plan.panel_location == PanelLocation::device)) return false;
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
          if (hybrid(p))
            p.cpu_block_columns = d, p.panel_location = d == 0 ? PanelLocation::device : PanelLocation::cpu;
          if (allows(p, m, n)) plans.push_back(p);
        }
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
