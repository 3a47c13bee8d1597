#include <gtest/gtest.h>

#include <fstream>

#include "../common/temp_dir.hpp"
#include "configs/configs.hpp"

using namespace hetlu;

TEST(CalibrationConfig, BuiltInLevels) {
  const auto estimate = configs::calibration_level(CalibrationLevel::estimate);
  EXPECT_FALSE(estimate.measure_rates);
  EXPECT_TRUE(estimate.sizes.empty());

  const auto quick = configs::calibration_level(CalibrationLevel::quick);
  EXPECT_TRUE(quick.measure_rates);
  EXPECT_FALSE(quick.sizes.empty());
  EXPECT_FALSE(quick.space.nb.empty());
  EXPECT_GE(quick.timing.min_samples, 5);  // DESIGN: at least 5 samples

  const auto measure = configs::calibration_level(CalibrationLevel::measure);
  EXPECT_GE(measure.sizes.size(), quick.sizes.size());
  EXPECT_GE(measure.space.nb.size(), quick.space.nb.size());
}

TEST(CalibrationConfig, ErrorsNameTheFileAndKey) {
  test_support::TempDir dir;
  const auto path = dir.file("c.yaml");
  std::ofstream(path) << "levels:\n  quick:\n    sizes: [100, -5]\n";
  try {
    configs::calibration_level(CalibrationLevel::quick, path);
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": levels.quick.sizes"), std::string::npos) << e.what();
  }
  std::ofstream(path) << "levels:\n  quick:\n    sizes: [100]\n    strategy: bogus\n";
  EXPECT_THROW(configs::calibration_level(CalibrationLevel::quick, path), InvalidArgument);
  std::ofstream(path) << "levels:\n  quick:\n    sizes: twelve\n";
  EXPECT_THROW(configs::calibration_level(CalibrationLevel::quick, path), InvalidArgument);
  EXPECT_THROW(configs::calibration_level(CalibrationLevel::patient, path), InvalidArgument);
  EXPECT_THROW(configs::calibration_level(CalibrationLevel::quick, dir.file("missing.yaml")), InvalidArgument);
}
