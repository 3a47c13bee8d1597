// The timing harness: warm-up, at least min_samples timed runs, more until the spread is small or
// the time cap is reached; median, minimum and spread (median absolute deviation / median).
#pragma once

#include <functional>
#include <vector>

namespace hetlu::tuner {

struct TimingOptions {
  int warmup = 1;
  int min_samples = 5;
  int max_samples = 15;
  double target_spread = 0.03;           // stop adding samples once MAD / median is under this
  double time_cap_seconds = 10;          // and never spend more than this on one configuration
  std::function<bool()> stop_requested;  // polled before each sample: true stops (Interrupted)
};

struct Measurement {
  std::vector<double> samples;  // seconds, in the order taken
  double median = 0;
  double minimum = 0;
  double spread = 0;
  bool noisy = false;  // the spread never came under target_spread
};

// prepare() runs untimed before every run() (e.g. to restore the input matrix).
Measurement measure(const std::function<void()>& prepare, const std::function<void()>& run,
                    const TimingOptions& options);

// Median, minimum and MAD / median of a set of samples.
Measurement summarize(std::vector<double> samples, double target_spread);

}  // namespace hetlu::tuner
