// Strategies on a synthetic cost surface: what each one evaluates, and how close it gets to the best.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "tuner/strategies/strategy.hpp"

using namespace hetlu;

namespace {

Plan model_plan(int nb, Solver solver = Solver::gepp) {
  Plan p;
  p.solver = solver;
  p.nb = nb;
  p.ib = std::min(32, nb);
  p.source = PlanSource::model;
  return p;
}

// Records every plan a strategy asks for; the time is a smooth bowl around (nb 160, ib 32, lookahead 1).
struct Recorder {
  std::vector<Plan> asked;
  tuner::Evaluate evaluate() {
    return [this](const Plan& p) -> std::optional<double> {
      asked.push_back(p);
      return 1 + std::pow(std::log2(p.nb / 160.0), 2) + 0.1 * std::pow(std::log2(p.ib / 32.0), 2) +
             (p.lookahead ? 0 : 0.3);
    };
  }
  std::vector<int> nbs() const {
    std::vector<int> out;
    for (const auto& p : asked) out.push_back(p.nb);
    return out;
  }
  double best() {
    double b = 1e300;
    auto f = evaluate();
    for (const auto& p : std::vector<Plan>(asked)) b = std::min(b, *f(p));
    return b;
  }
};

}  // namespace

TEST(SearchSpace, RestrictionsAndTheModelFirst) {
  tuner::SearchSpace space{{32, 64, 128, 256}, {16, 32, 64}, {0, 1}};
  EXPECT_TRUE(space.allows(model_plan(64), 1000, 1000));
  EXPECT_FALSE(space.allows(model_plan(256), 100, 100));  // wider than the matrix
  Plan calu = model_plan(32, Solver::calu);
  calu.ib = 64;
  EXPECT_FALSE(space.allows(calu, 1000, 1000));  // ib > nb
  const auto all = space.all(model_plan(96), 1000, 1000);
  EXPECT_EQ(all.front().nb, 96);      // the model's plan, measured first even though 96 is not listed
  EXPECT_EQ(all.size(), 1u + 4 * 2);  // GEPP ignores ib
  EXPECT_EQ(space.all(model_plan(96, Solver::calu), 1000, 1000).size(), 1u + (2 + 3 + 3 + 3) * 2);  // ib <= nb
}

TEST(SearchSpace, SnapsTheModelsPlanIntoTheSpace) {
  tuner::SearchSpace space{{32, 64, 128, 256}, {16, 32}, {1}};
  EXPECT_EQ(space.snapped(model_plan(96)).nb, 128);  // 96/64 > 128/96
  EXPECT_EQ(space.snapped(model_plan(40)).nb, 32);
  auto calu = model_plan(200, Solver::calu);
  calu.ib = 24;
  calu.lookahead = 0;
  const auto s = space.snapped(calu);
  EXPECT_EQ(s.nb, 256);
  EXPECT_EQ(s.ib, 32);
  EXPECT_EQ(s.lookahead, 1);
}

TEST(GridStrategy, EvaluatesEveryAllowedPlan) {
  tuner::SearchSpace space{{32, 64, 128, 256}, {32}, {1}};
  Recorder r;
  tuner::grid_strategy(space, model_plan(96), 1000, 1000, r.evaluate(), 1);
  auto nbs = r.nbs();
  std::sort(nbs.begin(), nbs.end());
  EXPECT_EQ(nbs, (std::vector<int>{32, 64, 96, 128, 256}));
  Recorder small;
  tuner::grid_strategy(space, model_plan(64), 10, 10, small.evaluate(), 1);
  EXPECT_EQ(small.nbs(), (std::vector<int>{10}));  // only the model's plan, clamped, fits
}

TEST(NeighbourhoodStrategy, TheModelsNbAndTwoEachSide) {
  tuner::SearchSpace space{{16, 32, 48, 64, 96, 128, 192, 256}, {32}, {1}};
  Recorder r;
  tuner::neighbourhood_strategy(space, model_plan(96), 4000, 4000, r.evaluate(), 1);
  auto nbs = r.nbs();
  std::sort(nbs.begin(), nbs.end());
  EXPECT_EQ(nbs, (std::vector<int>{48, 64, 96, 128, 192}));
}

TEST(CoordinateDescent, ReachesTheBestOfTheGridWithFewerEvaluations) {
  tuner::SearchSpace space{{16, 32, 48, 64, 96, 128, 160, 192, 256, 320, 384, 512}, {8, 16, 32, 64}, {0, 1}};
  Recorder grid, descent;
  tuner::grid_strategy(space, model_plan(32, Solver::calu), 4000, 4000, grid.evaluate(), 1);
  Plan start = model_plan(32, Solver::calu);
  start.lookahead = 0;
  tuner::coordinate_descent_strategy(space, start, 4000, 4000, descent.evaluate(), 1);
  EXPECT_LE(descent.best(), grid.best() * 1.05);  // within 5 % of the exhaustive best
  EXPECT_LT(descent.asked.size(), grid.asked.size() / 2);
}

TEST(RandomStrategy, SeededAndIncludesTheModel) {
  tuner::SearchSpace space{{16, 32, 48, 64, 96, 128, 160, 192, 256}, {32}, {0, 1}};
  Recorder a, b;
  tuner::random_strategy(space, model_plan(64), 4000, 4000, a.evaluate(), 7);
  tuner::random_strategy(space, model_plan(64), 4000, 4000, b.evaluate(), 7);
  EXPECT_EQ(a.nbs(), b.nbs());
  EXPECT_EQ(a.asked.front().nb, 64);
  EXPECT_GE(a.asked.size(), 4u);
  EXPECT_LT(a.asked.size(), space.all(model_plan(64), 4000, 4000).size());
}

TEST(StrategyRegistry, FindsByNameAndNamesTheKnownOnes) {
  EXPECT_EQ(tuner::find_strategy("grid"), &tuner::grid_strategy);
  EXPECT_EQ(tuner::find_strategy("coordinate_descent"), &tuner::coordinate_descent_strategy);
  try {
    tuner::find_strategy("annealing");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown search strategy 'annealing' (known: grid, neighbourhood, coordinate_descent, random)");
  }
}

TEST(SearchSpace, TheHybridTargetSearchesTheCpuShare) {
  tuner::SearchSpace space{{32, 64}, {32}, {0, 1}};
  space.cpu_share = {0, 0.25, 0.5, 1};
  EXPECT_EQ(space.cpu_block_columns(32, 1000), (std::vector<int>{0, 8, 16, 32}));  // N = 32
  EXPECT_EQ(space.cpu_block_columns(64, 100), (std::vector<int>{0, 1, 2}));        // N = 2: shares collapse
  Plan hybrid = model_plan(64);
  hybrid.target = Target::hybrid;
  hybrid.cpu_block_columns = 5;
  // Each nb with each d, and the device's LU of the whole matrix (nb = n, d = 0); look-ahead is
  // the CPU target's: not searched here.
  const auto all = space.all(hybrid, 1000, 1000);
  EXPECT_EQ(all.size(), 1u + 4 + 4 + 1);
  EXPECT_EQ(
      std::count_if(all.begin(), all.end(), [](const Plan& p) { return p.nb == 1000 && p.cpu_block_columns == 0; }), 1);
  for (const auto& p : all) {
    EXPECT_EQ(p.lookahead, hybrid.lookahead);
    EXPECT_EQ(panel_location(p) == PanelLocation::device, p.cpu_block_columns == 0);
  }
  Plan too_many = hybrid;
  too_many.cpu_block_columns = 17;  // N = 16 at nb 64
  EXPECT_FALSE(space.allows(too_many, 1000, 1000));
  // Snapping nb keeps the share: 5 of 16 block columns at nb 64 is 10 of 32 at nb 32.
  hybrid.nb = 40;
  hybrid.cpu_block_columns = 8;  // of 25
  EXPECT_EQ(space.snapped(hybrid, 1000).nb, 32);
  EXPECT_EQ(space.snapped(hybrid, 1000).cpu_block_columns, 10);
  // The model's one-panel plan is not snapped to a listed width.
  hybrid.nb = 1000;
  hybrid.cpu_block_columns = 0;
  EXPECT_EQ(space.snapped(hybrid, 1000).nb, 1000);
  EXPECT_TRUE(space.allows(space.snapped(hybrid, 1000), 1000, 1000));
}

TEST(Strategies, CoordinateDescentMovesTheCpuShare) {
  tuner::SearchSpace space{{64, 128}, {32}, {1}};
  space.cpu_share = {0, 0.25, 0.5, 0.75, 1};
  Plan hybrid = model_plan(128);
  hybrid.target = Target::hybrid;
  hybrid.cpu_block_columns = 2;  // of 8
  std::vector<Plan> asked;
  // Fastest at d = 6 of 8 (nb 128).
  tuner::coordinate_descent_strategy(
      space, hybrid, 1024, 1024,
      [&](const Plan& p) -> std::optional<double> {
        asked.push_back(p);
        return 1 + std::abs(p.cpu_block_columns / double((1024 + p.nb - 1) / p.nb) - 0.75) + (p.nb == 128 ? 0 : 0.5);
      },
      1);
  const auto best = std::min_element(asked.begin(), asked.end(), [](const Plan& a, const Plan& b) {
    return std::abs(a.cpu_block_columns / double((1024 + a.nb - 1) / a.nb) - 0.75) + (a.nb == 128 ? 0 : 0.5) <
           std::abs(b.cpu_block_columns / double((1024 + b.nb - 1) / b.nb) - 0.75) + (b.nb == 128 ? 0 : 0.5);
  });
  EXPECT_EQ(best->nb, 128);
  EXPECT_EQ(best->cpu_block_columns, 6);
}
