// Shared output helpers: plans, profiles and warnings as text and as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "hetlu/types.hpp"

namespace hetlu::cli {

nlohmann::ordered_json to_json(const Plan& plan);
nlohmann::ordered_json to_json(const MachineProfile& profile);

std::string describe(const MachineProfile& profile);  // several lines of text

// A solve's phases: "upload and randomization 0.012 s, factorization 0.41 s, ..." and
// {"upload and randomization": 0.012, ...}.
using PhaseSeconds = std::vector<std::pair<std::string, double>>;
std::string describe(const PhaseSeconds& phases);
nlohmann::ordered_json to_json(const PhaseSeconds& phases);

void print_json(const nlohmann::ordered_json& object);  // one object, one line, on stdout
void warn(const std::string& message);                  // "hetlu: warning: ..." on stderr
void warn_all(const std::vector<std::string>& messages);

// The verdicts `hetlu solve` and its --distributed form give an answer, as warnings naming A's file:
// X not accurate (omega above the tolerance; `tried`: the attempts, or ""), or not reliable (A
// singular to working precision).
void warn_inaccurate(const std::string& a_path, double omega, double tolerance, const std::string& tried = "");
void warn_unreliable(const std::string& a_path);

}  // namespace hetlu::cli
