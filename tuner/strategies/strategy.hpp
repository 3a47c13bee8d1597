// Search strategies, Kernel Tuner style: one file each, all with the same signature, found by name.
// A strategy walks the search space from the model's plan and asks `evaluate` for the time of each
// plan it wants; evaluate measures it (or reuses a stored trial) and answers nothing for a failed
// trial or once the budget is spent, after which the strategy should stop.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hetlu/types.hpp"

namespace hetlu::tuner {

// The values each tuned parameter may take, and the restrictions that tie them to the problem.
struct SearchSpace {
  std::vector<int> nb;               // panel widths
  std::vector<int> ib = {32};        // CALU's inner widths (ignored by the other solvers)
  std::vector<int> lookahead = {1};  // (the hybrid target has its own schedule: ignored there)
  // Hybrid target: the CPUs' share of the block columns, d / N (0: everything on the device).
  std::vector<double> cpu_share = {0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1};

  // The CPU shares as block-column counts d for panels `width` wide on an n-column problem, ascending.
  std::vector<int> cpu_block_columns(int width, int n) const;

  // Whether a plan is allowed for an m x n problem: nb <= min(m, n), ib <= nb, values from the lists
  // (nb may also be min(m, n): one panel), and for the hybrid target 0 <= d <= N with the panel on
  // the device exactly when d = 0.
  bool allows(const Plan& plan, int m, int n) const;
  // The plan with each parameter moved to the nearest listed value (in ratio), so that the model's
  // plan is a point of the space: a later calibration with slightly different measured rates then
  // finds it among the stored trials instead of measuring a new neighbour.
  // For the hybrid target, d keeps its share of the block columns of the n-column problem (n > 0).
  // A one-panel plan (nb >= n > 0) stays as it is.
  Plan snapped(const Plan& plan, int n = 0) const;
  // Every allowed plan, the model's plan's other fields kept; the model's own plan first. Beside the
  // listed widths: one panel over the whole matrix (hybrid: on the device; CPU: when m >= 4 n).
  std::vector<Plan> all(const Plan& model_plan, int m, int n) const;
};

using Evaluate = std::function<std::optional<double>(const Plan&)>;
using Strategy = void (*)(const SearchSpace& space, const Plan& model_plan, int m, int n, const Evaluate& evaluate,
                          std::uint64_t seed);

// Every allowed plan.
void grid_strategy(const SearchSpace& space, const Plan& model_plan, int m, int n, const Evaluate& evaluate,
                   std::uint64_t seed);
// The model's nb and its two nearest neighbours on each side.
void neighbourhood_strategy(const SearchSpace& space, const Plan& model_plan, int m, int n, const Evaluate& evaluate,
                            std::uint64_t seed);
// From the model's plan, one parameter at a time to its best neighbouring value, until no move helps.
void coordinate_descent_strategy(const SearchSpace& space, const Plan& model_plan, int m, int n,
                                 const Evaluate& evaluate, std::uint64_t seed);
// The model's plan and a seeded random third of the rest (at least three).
void random_strategy(const SearchSpace& space, const Plan& model_plan, int m, int n, const Evaluate& evaluate,
                     std::uint64_t seed);

// Looks a strategy up by name; throws InvalidArgument naming the known ones.
Strategy find_strategy(const std::string& name);
std::vector<std::string> strategy_names();

}  // namespace hetlu::tuner
