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

namespace {
// The message of the InvalidArgument that reading `text` as a machine file throws ("" if none).
std::string machine_error(const test_support::TempDir& dir, const std::string& text) {
  const auto path = dir.file("m.yaml");
  std::ofstream(path) << text;
  try {
    configs::machine_from_yaml(path);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}
std::string model_error(const test_support::TempDir& dir, const std::string& text) {
  const auto path = dir.file("model.yaml");
  std::ofstream(path) << text;
  try {
    configs::model_params(path);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}
const std::string good_cpu = "cpu:\n  cores: 8\n  frequency_ghz: 2.0\n  flops_per_cycle: 16\n";
}  // namespace

TEST(MachineConfig, EveryValueIsCheckedAndTheErrorNamesTheFileAndKey) {
  test_support::TempDir dir;
  EXPECT_EQ(machine_error(dir, good_cpu + "devices:\n  - {name: G, dgemm_peak_gflops: 100, latency_us: 0}\n"), "");
  const std::pair<std::string, std::string> bad[] = {
      {"cpu:\n  cores: 8\n  frequency_ghz: .nan\n  flops_per_cycle: 16\n", "cpu.frequency_ghz: nan"},
      {"cpu:\n  cores: 8\n  frequency_ghz: -2\n  flops_per_cycle: -16\n", "cpu.frequency_ghz: -2"},
      {"cpu:\n  cores: 8\n  peak_gflops: .inf\n", "cpu.peak_gflops: inf"},
      {"cpu:\n  cores: -8\n  peak_gflops: 100\n", "cpu.cores: -8"},
      {"cpu:\n  cores: 1e3\n  peak_gflops: 100\n", "cpu.cores: bad value"},
      {"cpu:\n  peak_gflops: 100\n", "cpu.cores: missing"},
      {"cpu:\n  cores: 8\n  peak_gflops: 100\n  memory_bandwidth_gbs: -1\n", "cpu.memory_bandwidth_gbs: -1"},
      {"cpu:\n  cores: 8\n  peak_gflops: 100\n  frequency: 2\n", "cpu.frequency: unknown key"},
      {good_cpu + "devices:\n  - {name: G, dgemm_peak_gflops: .nan}\n", "devices[0].dgemm_peak_gflops: nan"},
      {good_cpu + "devices:\n  - {name: G, dgemm_peak_gflops: 100, latency_us: .inf}\n", "devices[0].latency_us: inf"},
      {good_cpu + "devices:\n  - {name: G, dgemm_gflops: 100, link_gbs: -6}\n", "devices[0].link_gbs: -6"},
      {good_cpu + "devices: 3\n", "devices: must be a list"},
      {"root:x:0:0:root:/root:/bin/bash\n", "not a YAML mapping"},  // /etc/passwd
      {"cpu: [1, 2]\n", "cpu: must be a mapping"},
      {"cpu: {cores: 8\n", "not YAML"},
  };
  for (const auto& [text, expected] : bad) {
    const std::string message = machine_error(dir, text);
    EXPECT_NE(message.find(dir.file("m.yaml") + ": "), std::string::npos) << text << " -> " << message;
    EXPECT_NE(message.find(expected), std::string::npos) << text << " -> " << message;
  }
  // Bounded size, and folders and missing files named.
  const std::string large = good_cpu + "# " + std::string(2 << 20, 'x') + "\n";
  EXPECT_NE(machine_error(dir, large).find("too large"), std::string::npos);
  try {
    configs::machine_from_yaml(dir.path().string());
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("is a folder"), std::string::npos) << e.what();
  }
  EXPECT_THROW(configs::machine_from_yaml(dir.file("none.yaml")), InvalidArgument);
}

TEST(ModelConfig, EveryValueIsCheckedAndTheErrorNamesTheFileAndKey) {
  test_support::TempDir dir;
  EXPECT_EQ(model_error(dir, "step_overhead_seconds: 0\n"), "");
  const std::pair<std::string, std::string> bad[] = {
      {"step_overhead_seconds: -1\n", "step_overhead_seconds: -1"},
      {"step_overhead_seconds: .nan\n", "step_overhead_seconds: nan"},
      {"efficiency: {cpu: 0}\n", "efficiency.cpu: 0"},
      {"efficiency: {cpu: 1.5}\n", "efficiency.cpu: 1.5"},
      {"link_default: {bandwidth_gbs: 0}\n", "link_default.bandwidth_gbs: 0"},
      {"link_default: {latency_us: -3}\n", "link_default.latency_us: -3"},
      {"panel: {genp_speedup: -1}\n", "panel.genp_speedup: -1"},
      {"gemm_half_rate_k: {cpu: .inf}\n", "gemm_half_rate_k.cpu: inf"},
      {"prbt_refinement_steps: -2\n", "prbt_refinement_steps: -2"},
      {"nb_candidates: [32, 0]\n", "nb_candidates: 0"},
      {"nb_candidates: []\n", "nb_candidates: is empty"},
      {"efficency: {cpu: 0.5}\n", "efficency: unknown key"},
  };
  for (const auto& [text, expected] : bad) {
    const std::string message = model_error(dir, text);
    EXPECT_NE(message.find(dir.file("model.yaml") + ": " + expected), std::string::npos) << text << " -> " << message;
  }
}

TEST(MachineConfig, TheShippedMachinesAndConfigsRead) {
  for (const char* name :
       {"opteron-6172-s2050.yaml", "opteron-6180-s2050.yaml", "xeon-e5-2670-m2090.yaml", "xeon-e5-2670x48-m2090.yaml"})
    EXPECT_NO_THROW(configs::machine_from_yaml(std::string(HETLU_SOURCE_DIR "/configs/machines/") + name)) << name;
  EXPECT_NO_THROW(configs::model_params());
  for (auto level : {CalibrationLevel::estimate, CalibrationLevel::quick, CalibrationLevel::measure,
                     CalibrationLevel::patient, CalibrationLevel::exhaustive})
    EXPECT_NO_THROW(configs::calibration_level(level));
}
