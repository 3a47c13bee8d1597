// Reads the YAML settings into typed structs. Errors name the file and the key.
#pragma once

#include <string>

#include "model/params.hpp"
#include "tuner/calibrate.hpp"

namespace hetlu::configs {

// The settings of one calibration level, from yaml_path or, when it is empty, the built-in file.
tuner::LevelSettings calibration_level(CalibrationLevel level, const std::string& yaml_path = "");

// The model's efficiency factors and constants: model/params.hpp's (yaml_path empty), or those
// with the keys a model file gives in their place (every key checked; one left out keeps its value).
model::ModelParams model_params(const std::string& yaml_path = "");

// params as a model file that model_params reads back to the same values, every key written:
// `hetlu recommend --print-model-config`, a file to edit for what-if predictions.
std::string model_params_yaml(const model::ModelParams& params);

// A what-if machine described in YAML (configs/machines/*.yaml): CPU cores with a datasheet peak
// or measured rates, memory bandwidth, devices with peaks or measured rates and their link.
MachineProfile machine_from_yaml(const std::string& yaml_path);

// params with the network between the machine's nodes (and between ranks on one node) taken from
// the machine file's optional network: section (latency_us, bandwidth_gbs, node_latency_us,
// node_bandwidth_gbs): what `hetlu recommend --machine FILE --ranks P` prices a cluster of it with;
// and where the figures for ranks on one node (one_node) or between nodes come from: the file, the
// model's defaults where its section leaves them out, or both (a file without the section was
// credited with the defaults' 2 us and 10 GB/s).
struct MachineNetwork {
  model::ModelParams params;
  std::string source;
};
MachineNetwork with_machine_network(const std::string& yaml_path, model::ModelParams params, bool one_node);

}  // namespace hetlu::configs
