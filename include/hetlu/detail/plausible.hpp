// The range a machine's rate, bandwidth or latency can take, wherever one comes from the outside (a
// machine file, the calibration YAML, a stored or imported probe): 1e-300 was taken, and priced every
// plan at an infinite (or 300-digit) time, which recommend answered with a default plan and exit 0.
#pragma once

namespace hetlu::detail {

inline constexpr double least_plausible_rate = 1e-3;  // GFlop/s, GB/s, Gentries/s; an efficiency too
inline constexpr double most_plausible_value = 1e9;   // far above any rate, bandwidth or latency

}  // namespace hetlu::detail
