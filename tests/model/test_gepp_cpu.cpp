#include <gtest/gtest.h>

#include <algorithm>

#include "hetlu/detail/flops.hpp"
#include "model/predict.hpp"

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

// The model of blocked right-looking GEPP on the CPU cores, as the resolution asks it.
model::Problem gepp(int m, int n) {
  return {Solver::gepp, Precision::double_, Target::cpu, m, n};
}

double gepp_seconds(const MachineProfile& profile, int m, int n, int nb, const model::ModelParams& params = {}) {
  Plan plan;
  plan.nb = nb;
  plan.lookahead = profile.cores > 1 ? 1 : 0;
  return model::predict_seconds(profile, gepp(m, n), plan, params);
}

Plan gepp_plan(const MachineProfile& profile, int m, int n, const model::ModelParams& params = {}) {
  return model::predict(profile, gepp(m, n), params).plan;
}
}  // namespace

TEST(GeppModel, FlopCountIsLapacks) {
  EXPECT_NEAR(detail::getrf_flops(1000, 1000) / (2.0 / 3.0 * 1e9), 1.0, 0.01);
  EXPECT_DOUBLE_EQ(detail::getrf_flops(1, 1), 1.0);  // the one reciprocal of the pivot
  // A tall matrix costs m n^2 - n^3 / 3 to first order.
  EXPECT_NEAR(detail::getrf_flops(100000, 512) / (100000.0 * 512 * 512 - 512.0 * 512 * 512 / 3), 1.0, 0.01);
}

TEST(GeppModel, TimeScalesWithRate) {
  const double slow = gepp_seconds(measured(50), 2000, 2000, 128);
  const double fast = gepp_seconds(measured(100), 2000, 2000, 128);
  EXPECT_NEAR(slow / fast, 2.0, 0.05);
}

TEST(GeppModel, PredictionIsNearTheFlopBound) {
  // Never faster than all flops at the full GEMM rate; not absurdly slower at a sensible nb.
  const double t = gepp_seconds(measured(100), 4000, 4000, 128);
  const double bound = detail::getrf_flops(4000, 4000) / 100e9;
  EXPECT_GT(t, bound);
  EXPECT_LT(t, 2 * bound);
}

TEST(GeppModel, ChoosesAnNbThatFitsAndIsTheMinimum) {
  const auto profile = measured(80);
  model::ModelParams params;
  for (int n : {7, 100, 513, 4000}) {
    const Plan plan = gepp_plan(profile, n, n, params);
    EXPECT_EQ(plan.source, PlanSource::model);
    ASSERT_TRUE(plan.predicted_seconds);
    // A candidate, or the whole matrix where the narrowest is wider (n = 7): never nb > n.
    EXPECT_TRUE(std::find(params.nb_candidates.begin(), params.nb_candidates.end(), plan.nb) !=
                    params.nb_candidates.end() ||
                plan.nb == n)
        << plan.nb;
    EXPECT_LE(plan.nb, n);
    for (int nb : params.nb_candidates) {
      if (nb > std::max(params.nb_candidates.front(), n / 4)) continue;  // the model wants four panels at least
      EXPECT_LE(*plan.predicted_seconds, gepp_seconds(profile, n, n, nb, params));
    }
  }
  // Wider panels pay off on larger matrices.
  EXPECT_LE(gepp_plan(profile, 500, 500).nb, gepp_plan(profile, 8000, 8000).nb);
}

TEST(GeppModel, DatasheetPeakIsUsedWhenNothingWasMeasured) {
  MachineProfile p;
  p.cores = 4;
  p.peak_gflops_per_core = 50;
  EXPECT_DOUBLE_EQ(model::rates_of(p, Precision::double_, {}).cpu_all.gflops, 4 * 50 * 0.8);
  EXPECT_NO_THROW(gepp_plan(p, 1000, 1000));
}

TEST(GeppModel, NoRateIsAnError) {
  EXPECT_THROW(gepp_plan(MachineProfile{}, 100, 100), Error);
  EXPECT_THROW(gepp_seconds(measured(10), 100, 100, 0), InvalidArgument);
}
