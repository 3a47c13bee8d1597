// Reads the YAML settings into typed structs. Errors name the file and the key.
#pragma once

#include <string>

#include "model/params.hpp"
#include "tuner/calibrate.hpp"

namespace hetlu::configs {

// The settings of one calibration level, from yaml_path or, when it is empty, the built-in file.
tuner::LevelSettings calibration_level(CalibrationLevel level, const std::string& yaml_path = "");

// The model's efficiency factors, from yaml_path or the built-in configs/model.yaml.
model::ModelParams model_params(const std::string& yaml_path = "");

// A what-if machine described in YAML (configs/machines/*.yaml): CPU cores with a datasheet peak
// or measured rates, memory bandwidth, devices with peaks or measured rates and their link.
MachineProfile machine_from_yaml(const std::string& yaml_path);

}  // namespace hetlu::configs
