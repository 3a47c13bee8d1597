// The small-matrix crossover: measured on this machine, one of the orders timed or past them.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>

#include "probes/probes.hpp"
#include "tuner/crossover.hpp"

using namespace hetlu;

TEST(GetrfCrossover, IsAnOrderTimedOrPastThem) {
  const MachineProfile profile = probes::topology();
  for (int crossover :
       {tuner::measure_getrf_crossover<double>(profile, {}), tuner::measure_getrf_crossover<float>(profile, {})}) {
    const bool timed = std::find(std::begin(tuner::crossover_orders), std::end(tuner::crossover_orders), crossover) !=
                       std::end(tuner::crossover_orders);
    EXPECT_TRUE(timed || crossover == tuner::crossover_beyond) << crossover;
  }
  MachineProfile stored = profile;
  tuner::measure_getrf_crossovers(stored, {});
  EXPECT_GT(stored.getrf_crossover_double, 0);
  ASSERT_EQ(stored.measurements.size(), profile.measurements.size() + 2);
  EXPECT_EQ(stored.measurements.back().name, "getrf_crossover");
  EXPECT_EQ(stored.measurements.back().detail, "precision=single");
}
