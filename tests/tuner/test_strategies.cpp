#include <gtest/gtest.h>

#include "tuner/strategies/strategy.hpp"

using namespace hetlu;

namespace {
std::vector<int> nbs(const std::vector<Plan>& plans) {
  std::vector<int> out;
  for (const auto& p : plans) out.push_back(p.nb);
  return out;
}
Plan model_plan(int nb) {
  Plan p;
  p.nb = nb;
  p.source = PlanSource::model;
  return p;
}
}  // namespace

TEST(GridStrategy, EveryValueThatFitsPlusTheModels) {
  tuner::SearchSpace space{{32, 64, 128, 256}};
  EXPECT_EQ(nbs(tuner::grid_strategy(space, model_plan(96), 1000, 1000)), (std::vector<int>{32, 64, 96, 128, 256}));
  EXPECT_EQ(nbs(tuner::grid_strategy(space, model_plan(64), 100, 100)), (std::vector<int>{32, 64}));
  EXPECT_EQ(nbs(tuner::grid_strategy(space, model_plan(64), 10, 10)), (std::vector<int>{10}));
}

TEST(NeighbourhoodStrategy, TheModelsNbAndTwoEachSide) {
  tuner::SearchSpace space{{16, 32, 48, 64, 96, 128, 192, 256}};
  EXPECT_EQ(nbs(tuner::neighbourhood_strategy(space, model_plan(96), 4000, 4000)),
            (std::vector<int>{48, 64, 96, 128, 192}));
  EXPECT_EQ(nbs(tuner::neighbourhood_strategy(space, model_plan(16), 4000, 4000)), (std::vector<int>{16, 32, 48}));
}

TEST(StrategyRegistry, FindsByNameAndNamesTheKnownOnes) {
  EXPECT_EQ(tuner::find_strategy("grid"), &tuner::grid_strategy);
  EXPECT_EQ(tuner::find_strategy("neighbourhood"), &tuner::neighbourhood_strategy);
  try {
    tuner::find_strategy("annealing");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(std::string(e.what()), "unknown search strategy 'annealing' (known: grid, neighbourhood)");
  }
}
