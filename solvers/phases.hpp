// Times the phases of a solve into SolveDetails::phase_seconds: each mark() closes the phase that
// began at the previous mark (or at construction). Without details it does nothing.
#pragma once

#include <chrono>
#include <string>

#include "solvers/lu.hpp"

namespace hetlu::variants {

class PhaseClock {
 public:
  explicit PhaseClock(SolveDetails* details) : details_(details), last_(std::chrono::steady_clock::now()) {}
  void mark(std::string phase) {
    if (!details_) return;
    const auto now = std::chrono::steady_clock::now();
    details_->phase_seconds.emplace_back(std::move(phase), std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }

 private:
  SolveDetails* details_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace hetlu::variants
