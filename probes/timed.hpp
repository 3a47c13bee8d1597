// Timing helpers of the probes: one warm-up, then `repetitions` timed runs.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

#include "hetlu/detail/statistics.hpp"
#include "hetlu/detail/stopwatch.hpp"

namespace hetlu::probes {

struct Rate {
  double median = 0;  // work per second, in the unit of the work given
  double spread = 0;  // MAD / median of the per-run rates
};

template <class Run>
std::vector<double> time_samples(Run&& run, int repetitions) {
  run();  // warm-up: page faults, thread start, CPU clock ramp
  std::vector<double> seconds;
  for (int r = 0; r < std::max(1, repetitions); ++r) {
    seconds.push_back(detail::seconds_of(run));
  }
  return seconds;
}

inline Rate rate_from_seconds(double work, const std::vector<double>& seconds) {
  std::vector<double> rates;
  for (double s : seconds) rates.push_back(work / s);
  return {detail::median(rates), detail::relative_spread(rates)};
}

}  // namespace hetlu::probes
