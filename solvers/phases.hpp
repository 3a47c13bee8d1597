// Times the phases of a solve into SolveDetails::phase_seconds: each mark() closes the phase that
// began at the previous mark (or at construction). Without details it does nothing.
#pragma once

#include <string>

#include "hetlu/detail/stopwatch.hpp"
#include "solvers/lu.hpp"

namespace hetlu::variants {

class PhaseClock {
 public:
  explicit PhaseClock(SolveDetails* details) : details_(details) {}
  void mark(std::string phase) {
    if (details_) details_->phase_seconds.emplace_back(std::move(phase), watch_.lap());
  }

 private:
  SolveDetails* details_;
  detail::Stopwatch watch_;
};

}  // namespace hetlu::variants
