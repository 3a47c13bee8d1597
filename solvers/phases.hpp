// Times the phases of a solve into a list of (phase, seconds), SolveDetails::phase_seconds or
// MixedDetails': each mark() closes the phase that began at the previous mark (or at
// construction). Without a list it does nothing and reads no clock (the drop-in's dsgesv_, where
// four laps cost 15 % of a call at n = 2).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "hetlu/detail/stopwatch.hpp"
#include "solvers/lu.hpp"

namespace hetlu::variants {

class PhaseClock {
 public:
  using Phases = std::vector<std::pair<std::string, double>>;
  explicit PhaseClock(Phases* phases)
      : phases_(phases), watch_(phases ? detail::Stopwatch() : detail::Stopwatch(detail::Stopwatch::NotStarted{})) {}
  explicit PhaseClock(SolveDetails* details) : PhaseClock(details ? &details->phase_seconds : nullptr) {}
  void mark(std::string phase) {
    if (phases_) phases_->emplace_back(std::move(phase), watch_.lap());
  }

 private:
  Phases* phases_;
  detail::Stopwatch watch_;
};

}  // namespace hetlu::variants
