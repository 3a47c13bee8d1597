#include <gtest/gtest.h>

#include <algorithm>

#include "model/gepp_cpu.hpp"

using namespace hetlu;

namespace {
MachineProfile measured(double all_cores_gflops) {
  MachineProfile p;
  p.cores = 2;
  p.dgemm_gflops_all_cores = all_cores_gflops;
  p.dgemm_gflops_one_core = all_cores_gflops / 2;
  p.rates_measured = true;
  p.memory_bandwidth_gbs = 1e6;  // interchanges cost next to nothing: the flop terms alone scale with the rate
  return p;
}
}  // namespace

TEST(GeppModel, FlopCountIsLapacks) {
  EXPECT_NEAR(model::getrf_flops(1000, 1000) / (2.0 / 3.0 * 1e9), 1.0, 0.01);
  EXPECT_DOUBLE_EQ(model::getrf_flops(1, 1), 1.0);  // the one reciprocal of the pivot
  // A tall matrix costs m n^2 - n^3 / 3 to first order.
  EXPECT_NEAR(model::getrf_flops(100000, 512) / (100000.0 * 512 * 512 - 512.0 * 512 * 512 / 3), 1.0, 0.01);
}

TEST(GeppModel, TimeScalesWithRate) {
  const double slow = model::predict_gepp_cpu_seconds(measured(50), 2000, 2000, 128);
  const double fast = model::predict_gepp_cpu_seconds(measured(100), 2000, 2000, 128);
  EXPECT_NEAR(slow / fast, 2.0, 0.05);
}

TEST(GeppModel, PredictionIsNearTheFlopBound) {
  // Never faster than all flops at the full GEMM rate; not absurdly slower at a sensible nb.
  const double t = model::predict_gepp_cpu_seconds(measured(100), 4000, 4000, 128);
  const double bound = model::getrf_flops(4000, 4000) / 100e9;
  EXPECT_GT(t, bound);
  EXPECT_LT(t, 2 * bound);
}

TEST(GeppModel, ChoosesAnNbThatFitsAndIsTheMinimum) {
  const auto profile = measured(80);
  model::ModelParams params;
  for (int n : {7, 100, 513, 4000}) {
    const Plan plan = model::plan_gepp_cpu(profile, n, n, params);
    EXPECT_EQ(plan.source, PlanSource::model);
    ASSERT_TRUE(plan.predicted_seconds);
    EXPECT_TRUE(std::find(params.nb_candidates.begin(), params.nb_candidates.end(), plan.nb) !=
                params.nb_candidates.end());
    for (int nb : params.nb_candidates) {
      if (nb > std::max(params.nb_candidates.front(), n / 4)) continue;  // the model wants four panels at least
      EXPECT_LE(*plan.predicted_seconds, model::predict_gepp_cpu_seconds(profile, n, n, nb, params));
    }
  }
  // Wider panels pay off on larger matrices.
  EXPECT_LE(model::plan_gepp_cpu(profile, 500, 500).nb, model::plan_gepp_cpu(profile, 8000, 8000).nb);
}

TEST(GeppModel, DatasheetPeakIsUsedWhenNothingWasMeasured) {
  MachineProfile p;
  p.cores = 4;
  p.peak_gflops_per_core = 50;
  EXPECT_DOUBLE_EQ(model::cpu_gemm_rate(p, {}), 4 * 50 * 0.8);
  EXPECT_NO_THROW(model::plan_gepp_cpu(p, 1000, 1000));
}

TEST(GeppModel, NoRateIsAnError) {
  EXPECT_THROW(model::plan_gepp_cpu(MachineProfile{}, 100, 100), Error);
  EXPECT_THROW(model::predict_gepp_cpu_seconds(measured(10), 100, 100, 0), InvalidArgument);
}
