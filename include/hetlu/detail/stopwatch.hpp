// The one wall-clock timer of hetlu: the probes, the tuner's timing harness, the API's reported
// seconds, bench, the solvers' phases and every deadline read it (steady: never jumps with the date).
#pragma once

#include <chrono>

namespace hetlu::detail {

class Stopwatch {
 public:
  Stopwatch() : start_(clock::now()) {}
  // Not started: no clock read, for a timer that may never be read (a phase clock without a list).
  struct NotStarted {};
  explicit Stopwatch(NotStarted) {}
  // Seconds since construction (or the last lap).
  double seconds() const { return std::chrono::duration<double>(clock::now() - start_).count(); }
  // Seconds since construction or the last lap, and starts the next lap.
  double lap() {
    const auto now = clock::now();
    const double s = std::chrono::duration<double>(now - start_).count();
    start_ = now;
    return s;
  }

 private:
  using clock = std::chrono::steady_clock;
  clock::time_point start_{};
};

// Wall-clock seconds of one call of body().
template <class Body>
double seconds_of(Body&& body) {
  const Stopwatch watch;
  body();
  return watch.seconds();
}

}  // namespace hetlu::detail
