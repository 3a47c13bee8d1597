// Reads the YAML settings into typed structs. Errors name the file and the key.
#pragma once

#include <string>

#include "tuner/calibrate.hpp"

namespace hetlu::configs {

// The settings of one calibration level, from yaml_path or, when it is empty, the built-in file.
tuner::LevelSettings calibration_level(CalibrationLevel level, const std::string& yaml_path = "");

}  // namespace hetlu::configs
