#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "../common/temp_dir.hpp"
#include "configs/configs.hpp"
#include "model/predict.hpp"

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
  // The model prunes what it prices far above the best measured, except where every point is asked for.
  EXPECT_EQ(quick.prune_above, 4);
  EXPECT_EQ(configs::calibration_level(CalibrationLevel::exhaustive).prune_above, 0);
}

TEST(CalibrationConfig, PruneAboveIsZeroOrAtLeastOne) {
  test_support::TempDir dir;
  const auto path = dir.file("c.yaml");
  std::ofstream(path) << "levels:\n  quick:\n    sizes: [100]\n    prune_above: 2.5\n";
  EXPECT_EQ(configs::calibration_level(CalibrationLevel::quick, path).prune_above, 2.5);
  for (const char* bad : {"0.5", "-1", "many"}) {
    std::ofstream(path) << "levels:\n  quick:\n    sizes: [100]\n    prune_above: " << bad << "\n";
    try {
      configs::calibration_level(CalibrationLevel::quick, path);
      ADD_FAILURE() << bad;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("levels.quick.prune_above"), std::string::npos) << e.what();
    }
  }
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
  // The precisions tuned: double unless the level says otherwise; a name that is none is named.
  EXPECT_EQ(configs::calibration_level(CalibrationLevel::quick).precisions, std::vector<Precision>{Precision::double_});
  std::ofstream(path) << "levels:\n  quick:\n    sizes: [100]\n    precisions: [double, mixed]\n";
  EXPECT_EQ(configs::calibration_level(CalibrationLevel::quick, path).precisions,
            (std::vector<Precision>{Precision::double_, Precision::mixed}));
  for (const char* bad : {"[quad]", "[]"}) {
    std::ofstream(path) << "levels:\n  quick:\n    sizes: [100]\n    precisions: " << bad << "\n";
    try {
      configs::calibration_level(CalibrationLevel::quick, path);
      ADD_FAILURE() << bad;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("levels.quick.precisions"), std::string::npos) << e.what();
    }
  }
}

namespace {
// The message of the InvalidArgument that read(path) throws once `text` is written to path ("" if none).
template <class Read>
std::string error_reading(const std::string& path, const std::string& text, Read read) {
  std::ofstream(path) << text;
  try {
    read(path);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}
std::string machine_error(const test_support::TempDir& dir, const std::string& text) {
  return error_reading(dir.file("m.yaml"), text, [](const std::string& p) { configs::machine_from_yaml(p); });
}
std::string model_error(const test_support::TempDir& dir, const std::string& text) {
  return error_reading(dir.file("model.yaml"), text, [](const std::string& p) { configs::model_params(p); });
}
const std::string good_cpu = "cpu:\n  cores: 8\n  frequency_ghz: 2.0\n  flops_per_cycle: 16\n";
}  // namespace

TEST(MachineConfig, EveryValueIsCheckedAndTheErrorNamesTheFileAndKey) {
  test_support::TempDir dir;
  // A latency of 0 is what a profile says of an unmeasured link: it had been priced as 10 us.
  EXPECT_NE(machine_error(dir, good_cpu + "devices:\n  - {name: G, dgemm_peak_gflops: 100, latency_us: 0}\n")
                .find("latency_us: 0 is not a finite number in (0, "),
            std::string::npos);
  EXPECT_EQ(machine_error(dir, good_cpu + "devices:\n  - {name: G, dgemm_peak_gflops: 100, latency_us: 0.5}\n"), "");
  // A what-if GPU's single-precision rates, as the probe stores them.
  const std::string rates = good_cpu +
                            "devices:\n  - {name: G, dgemm_gflops: 100, sgemm_peak_gflops: 300, sgemm_gflops: 200, "
                            "dgetrf_gflops: 20, sgetrf_gflops: 30, tf32_gemm_gflops: 800}\n";
  std::ofstream(dir.file("rates.yaml")) << rates;
  const GpuInfo g = configs::machine_from_yaml(dir.file("rates.yaml")).gpus.at(0);
  EXPECT_EQ(
      std::vector<double>({g.sgemm_peak_gflops, g.sgemm_gflops, g.dgetrf_gflops, g.sgetrf_gflops, g.tf32_gemm_gflops}),
      std::vector<double>({300, 200, 20, 30, 800}));
  // The node's memory (the distributed model's check), in GB as the devices' is.
  std::ofstream(dir.file("memory.yaml")) << good_cpu + "  memory_gb: 512\n";
  EXPECT_EQ(configs::machine_from_yaml(dir.file("memory.yaml")).memory_bytes, 512000000000LL);
  EXPECT_EQ(configs::machine_from_yaml(dir.file("rates.yaml")).memory_bytes, 0);  // not given: not known
  const std::pair<std::string, std::string> bad[] = {
      {"cpu:\n  cores: 8\n  frequency_ghz: .nan\n  flops_per_cycle: 16\n", "cpu.frequency_ghz: nan"},
      {"cpu:\n  cores: 8\n  frequency_ghz: -2\n  flops_per_cycle: -16\n", "cpu.frequency_ghz: -2"},
      {"cpu:\n  cores: 8\n  peak_gflops: .inf\n", "cpu.peak_gflops: inf"},
      {"cpu:\n  cores: -8\n  peak_gflops: 100\n", "cpu.cores: -8"},
      {"cpu:\n  cores: 1e3\n  peak_gflops: 100\n", "cpu.cores: '1e3' is not a whole number"},
      {"cpu:\n  cores: [1, 2]\n  peak_gflops: 100\n", "cpu.cores: a list is not a whole number"},
      {"cpu:\n  cores: 8\n  flops_per_cycle: .nan\n  frequency_ghz: 2\n",
       "cpu.flops_per_cycle: '.nan' is not a whole number"},
      {"cpu:\n  peak_gflops: 100\n", "cpu.cores: missing"},
      {"cpu:\n  cores: 8\n  peak_gflops: 100\n  memory_bandwidth_gbs: -1\n", "cpu.memory_bandwidth_gbs: -1"},
      {"cpu:\n  cores: 8\n  peak_gflops: 100\n  frequency: 2\n", "cpu.frequency: unknown key"},
      {good_cpu + "devices:\n  - {name: G, dgemm_peak_gflops: .nan}\n", "devices[0].dgemm_peak_gflops: nan"},
      {good_cpu + "devices:\n  - {name: G, dgemm_peak_gflops: 100, latency_us: .inf}\n", "devices[0].latency_us: inf"},
      {good_cpu + "devices:\n  - {name: G, dgemm_gflops: 100, link_gbs: -6}\n", "devices[0].link_gbs: -6"},
      {good_cpu + "devices: 3\n", "devices: must be a list"},
      // The network section, read only under --ranks, was not checked otherwise (exit 0).
      {good_cpu + "network:\n  bogus: 1\n", "network.bogus: unknown key"},
      {good_cpu + "network:\n  latency_us: .nan\n", "network.latency_us: nan"},
      {"root:x:0:0:root:/root:/bin/bash\n", "not a YAML mapping"},  // /etc/passwd
      {"cpu: [1, 2]\n", "cpu: must be a mapping"},
      {"cpu: {cores: 8\n", "not YAML"},
      // Rates too small for any machine: every plan was priced at an infinite time (exit 0).
      {"cpu:\n  cores: 1\n  peak_gflops: 1e-300\n", "cpu.peak_gflops: 1e-300"},
      {good_cpu + "devices:\n  - {name: G, dgemm_gflops: 5e-324}\n", "devices[0].dgemm_gflops: 4.9406"},
      {good_cpu + "devices:\n  - {name: G, dgemm_gflops: 100, link_gbs: 1e-9}\n", "devices[0].link_gbs: 1e-09"},
      // Below a byte the capacity truncated to 0, read as "not known": a 537 MB matrix went to it.
      {good_cpu + "devices:\n  - {name: G, dgemm_gflops: 100, memory_gb: 1e-10}\n", "devices[0].memory_gb: 1e-10"},
      {good_cpu + "  memory_gb: 1e-10\n", "cpu.memory_gb: 1e-10"},  // the node's, for the distributed model
      {good_cpu + "  memory_gb: -512\n", "cpu.memory_gb: -512"},
      // Rates no machine has: one core's DGEMM at 1000 and all cores' at 1 was predicted an LU at
      // 1963 GFlop/s (exit 0); a measured rate 1000 times the peak given beside it.
      {"cpu:\n  cores: 4\n  dgemm_gflops_one_core: 1000\n  dgemm_gflops_all_cores: 1\n",
       "cpu.dgemm_gflops_one_core: 1000 GFlop/s is above dgemm_gflops_all_cores, 1: one core cannot outrun"},
      {"cpu:\n  cores: 4\n  peak_gflops: 1\n  dgemm_gflops_all_cores: 1000\n",
       "cpu.dgemm_gflops_all_cores: 1000 GFlop/s is above 4 times the peak the file gives (1 for all cores)"},
      {good_cpu + "  dgemm_gflops_one_core: 1000\n",
       "cpu.dgemm_gflops_one_core: 1000 GFlop/s is above 8 times the peak"},
      {good_cpu + "devices:\n  - {name: G, dgemm_peak_gflops: 100, dgemm_gflops: 500}\n",
       "devices[0].dgemm_gflops: 500 GFlop/s is above 4 times the device's peak (100)"},
      // Names are printed and written in JSON: a byte 0xFF had --json fail with the JSON library's
      // words, and a NUL went to the terminal.
      {"name: a\xff\n" + good_cpu, "name: not valid UTF-8 text"},
      {"cpu:\n  model: \"a\\0b\"\n  cores: 8\n  peak_gflops: 100\n", "cpu.model: holds a control character"},
      {"cpu:\n  model: \"a\\x9b2J\"\n  cores: 8\n  peak_gflops: 100\n", "cpu.model: holds a control character"},
      {good_cpu + "devices:\n  - {name: G\xff, dgemm_gflops: 100}\n", "devices[0].name: not valid UTF-8 text"},
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
  std::string widths;  // 1, 2, ..., 65
  for (int i = 1; i <= 65; ++i) widths += (i > 1 ? ", " : "") + std::to_string(i);
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
      // Priced one by one, the last taken as the one-panel width: 2000 repeats of 1 took 28 s.
      {"nb_candidates: [64, 32]\n", "nb_candidates: must be ascending"},
      {"distributed: {nb_candidates: [16, 16]}\n", "distributed.nb_candidates: must be ascending"},
      {"nb_candidates: [" + widths + "]\n", "nb_candidates: 65 widths (at most 64)"},
      {"efficency: {cpu: 0.5}\n", "efficency: unknown key"},
      {"tf32_gemm_speedup: 0.5\n", "tf32_gemm_speedup: 0.5"},  // TF32 is never slower than FP32
      {"efficiency: {device: 1e-320}\n", "efficiency.device: "},
      {"panel: {device_lu_gemm_efficiency: 1e-320}\n", "panel.device_lu_gemm_efficiency: "},
      {"panel: {device_lu_column_latency_us: -1}\n", "panel.device_lu_column_latency_us: -1"},
      // The key before 2026-11-27, whose meaning changed: named, not only "unknown".
      {"panel: {device_lu_efficiency: 0.3}\n", "panel.device_lu_efficiency: renamed device_lu_gemm_efficiency"},
      // Threads that back off never cost more than spinning ones.
      {"distributed: {oversubscribed_passive_slowdown: 200}\n",
       "distributed.oversubscribed_passive_slowdown: 200 is above distributed.oversubscribed_slowdown (100)"},
  };
  for (const auto& [text, expected] : bad) {
    const std::string message = model_error(dir, text);
    EXPECT_NE(message.find(dir.file("model.yaml") + ": " + expected), std::string::npos) << text << " -> " << message;
  }
}

// The model's constants are held once, in model/params.hpp: the file `hetlu recommend
// --print-model-config` writes reads back to them, and every key it writes sets its own field (each
// value changed alone, written and read back, changes that field alone).
TEST(ModelConfig, ThePrintedFileReadsBackToTheSameConstantsKeyByKey) {
  test_support::TempDir dir;
  auto round_trip = [&](const model::ModelParams& p) {
    std::ofstream(dir.file("printed.yaml")) << configs::model_params_yaml(p);
    return configs::model_params(dir.file("printed.yaml"));
  };
  const std::string built_in = configs::model_params_yaml(model::ModelParams{});
  EXPECT_EQ(configs::model_params_yaml(round_trip(model::ModelParams{})), built_in);
  EXPECT_EQ(configs::model_params_yaml(configs::model_params()), built_in);
  // Each value is printed in its shortest exact form, so equal texts are equal values.
  EXPECT_NE(built_in.find("device_column_latency_us: 5\n"), std::string::npos) << built_in;
  EXPECT_NE(built_in.find("cpu: 0.8\n"), std::string::npos) << built_in;

  // Each numeric line of the file changed alone: the file read back differs from the defaults in that line only.
  std::istringstream lines(built_in);
  int keys = 0;
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(": ");
    if (line.empty() || line[0] == '#' || colon == std::string::npos) continue;
    std::string changed = built_in;
    const std::string value = line.substr(colon + 2);
    // The spinning slowdown stays above the passive one (1.5), as the reader requires.
    const bool spinning = line.find(" oversubscribed_slowdown:") != std::string::npos;
    const std::string bumped = value[0] == '[' ? "[7, 9]" : value == "1" ? "0.5" : spinning ? "2" : "1";
    changed.replace(changed.find(line + "\n"), line.size(), line.substr(0, colon + 2) + bumped);
    std::ofstream(dir.file("changed.yaml")) << changed;
    const std::string read_back = configs::model_params_yaml(configs::model_params(dir.file("changed.yaml")));
    EXPECT_EQ(read_back, changed) << line;
    EXPECT_NE(read_back, built_in) << line;
    ++keys;
  }
  EXPECT_GE(keys, 33);
}

TEST(MachineConfig, TheShippedMachinesAndConfigsRead) {
  for (const char* name : {"opteron-6172-s2050.yaml", "opteron-6180-s2050.yaml", "xeon-e5-2670-m2090.yaml",
                           "xeon-e5-2670x48-m2090.yaml", "xeon-16c-h100.yaml"})
    EXPECT_NO_THROW(configs::machine_from_yaml(std::string(HETLU_SOURCE_DIR "/configs/machines/") + name)) << name;
  EXPECT_NO_THROW(configs::model_params());
  for (auto level : {CalibrationLevel::estimate, CalibrationLevel::quick, CalibrationLevel::measure,
                     CalibrationLevel::patient, CalibrationLevel::exhaustive})
    EXPECT_NO_THROW(configs::calibration_level(level));
}

// The network a cluster of the file's nodes is priced with says where its figures come from: a file
// without a network section was credited with the model's defaults.
TEST(MachineConfig, TheNetworkSaysWhetherTheFileOrTheDefaultsGaveIt) {
  test_support::TempDir dir;
  auto source = [&](const std::string& network, bool one_node) {
    std::ofstream(dir.file("m.yaml")) << good_cpu << network;
    return configs::with_machine_network(dir.file("m.yaml"), model::ModelParams{}, one_node).source;
  };
  const std::string m = dir.file("m.yaml");
  EXPECT_EQ(source("", false),
            "the model's defaults for several nodes: " + m + " gives no network.latency_us or .bandwidth_gbs");
  EXPECT_EQ(source("network:\n  latency_us: 1.5\n  bandwidth_gbs: 25\n", false), "between nodes of " + m);
  EXPECT_EQ(source("network:\n  latency_us: 1.5\n  bandwidth_gbs: 25\n", true),
            "the model's defaults for one node: " + m + " gives no network.node_latency_us or .node_bandwidth_gbs");
  EXPECT_EQ(source("network:\n  node_bandwidth_gbs: 40\n", true),
            "one node of " + m + ", and the model's defaults for one node for its missing network.node_latency_us");
}

namespace {
MachineProfile paper_machine(const char* file) {
  return configs::machine_from_yaml(std::string(HETLU_SOURCE_DIR "/configs/machines/") + file);
}
}  // namespace

TEST(PaperChecks, Figure5TheCurveOverDPeaksWhereThePapersDid) {
  // async-calu §5, Figure 5: calu_async at M = N = 10112, nb = 128, 12 cores of the Opteron 6172
  // and one S2050, d = 1, 2, 4, 8, 16, 32: best at d = 8, d = 32 64 % slower than MAGMA (about 2x
  // the best), d = 1 slower than d = 2.
  const auto machine = paper_machine("opteron-6172-12cores-s2050.yaml");
  const model::Problem problem{Solver::calu, Precision::double_, Target::hybrid, 10112, 10112};
  Plan plan = model::predict(machine, problem).plan;
  plan.nb = 128;
  auto seconds = [&](int d) {
    plan.cpu_block_columns = d;
    return model::predict_seconds(machine, problem, plan, configs::model_params());
  };
  int best = 1;
  for (int d = 1; d <= block_columns(10112, 128); ++d)
    if (seconds(d) < seconds(best)) best = d;
  EXPECT_GE(best, 4);
  EXPECT_LE(best, 16);
  EXPECT_GE(seconds(32), 2 * seconds(best));
  EXPECT_GT(seconds(1), seconds(2));
}

TEST(PaperChecks, Figure8TheRatesOfCaluAsyncWithinAQuarter) {
  // async-calu §5, Figure 8, n = 18048: 503 GFlop/s on the Opteron 6180 (48 cores) + S2050, 489 on
  // the Xeon E5-2670 (16 cores) + M2090.
  for (const auto& [file, gflops] :
       {std::pair{"opteron-6180-s2050.yaml", 503.0}, std::pair{"xeon-e5-2670-m2090.yaml", 489.0}}) {
    const auto prediction = model::predict(
        paper_machine(file), {Solver::calu, Precision::double_, Target::hybrid, 18048, 18048}, configs::model_params());
    EXPECT_NEAR(prediction.gflops, gflops, 0.25 * gflops) << file;
  }
}

TEST(CalibrationConfig, DuplicateKeysUnknownLevelsAndNamesAreErrorsNamingTheFileAndKey) {
  test_support::TempDir dir;
  const auto path = dir.file("c.yaml");
  auto error = [&](const std::string& text) {
    return error_reading(path, text,
                         [](const std::string& p) { configs::calibration_level(CalibrationLevel::quick, p); });
  };
  EXPECT_NE(
      error("levels:\n  quick:\n    sizes: [100]\n    sizes: [200]\n").find(path + ": levels.quick.sizes: given twice"),
      std::string::npos);
  EXPECT_NE(
      error("levels:\n  quick2: {sizes: [100]}\n  quick: {sizes: [100]}\n").find(path + ": levels.quick2: unknown key"),
      std::string::npos);
  EXPECT_NE(error("levels:\n  quick:\n    sizes: [100]\n    solvers: [lu]\n")
                .find(path + ": levels.quick.solvers: unknown solver 'lu'"),
            std::string::npos);
  EXPECT_NE(error("levels:\n  quick:\n    sizes: [100]\n    strategy: bogus\n").find(path + ": levels.quick.strategy:"),
            std::string::npos);
  const auto machine = dir.file("m.yaml");
  std::ofstream(machine) << "cpu:\n  cores: 16\n  cores: 32\n  peak_gflops: 100\n";
  EXPECT_THROW(configs::machine_from_yaml(machine), InvalidArgument);
}

// A hostile helper's: a second document was ignored unchecked, 016 was 14 for a whole-number key
// and 16 for a real one, and a NUL in a key or value cut the error message there.
TEST(MachineConfig, OneDocumentNoLeadingZerosAndAMessageWhole) {
  test_support::TempDir dir;
  const std::string machine = "cpu: {cores: 4, frequency_ghz: 2.0, flops_per_cycle: 16}\n";
  EXPECT_NE(machine_error(dir, machine + "---\nbogus: 1\n").find("holds 2 YAML documents"), std::string::npos);
  EXPECT_NE(machine_error(dir, machine + "...\n\x01\xff[\n").find("m.yaml"), std::string::npos);
  EXPECT_NE(machine_error(dir, "cpu: {cores: 010, frequency_ghz: 2.0, flops_per_cycle: 16}\n").find("leading zero"),
            std::string::npos);
  EXPECT_NE(machine_error(dir, "cpu: {cores: 4, frequency_ghz: 02.0, flops_per_cycle: 16}\n").find("leading zero"),
            std::string::npos);
  EXPECT_NE(model_error(dir, "nb_candidates: [016, 32]\n").find("leading zero"), std::string::npos);
  EXPECT_NO_THROW(model_error(dir, "nb_candidates: [0x10, 32]\n"));            // YAML 1.2's hexadecimal stays
  const std::string nul_key = machine_error(dir, "\"a\\0b\": 1\n" + machine);  // YAML's escape of NUL
  EXPECT_NE(nul_key.find("a\\x00b: unknown key"), std::string::npos) << nul_key;
}

// The search space is built whole: lists of 45000 widths each asked for gigabytes (a hostile helper's).
TEST(CalibrationConfig, ListsLongerThanAnySearchWouldTimeAreRefused) {
  test_support::TempDir dir;
  std::string widths;
  for (int nb = 1; nb <= 300; ++nb) widths += (widths.empty() ? "" : ", ") + std::to_string(nb);
  const std::string path = dir.file("c.yaml");
  std::ofstream(path) << "levels:\n  quick: {measure_rates: false, sizes: [1000], nb: [" << widths << "]}\n";
  try {
    configs::calibration_level(CalibrationLevel::quick, path);
    FAIL() << "300 widths were taken";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("nb: 300 values; at most 256"), std::string::npos) << e.what();
  }
}
