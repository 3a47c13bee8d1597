// The timing harness: warm-up, at least min_samples timed runs, more until the spread is small or
// the time cap is reached; median, minimum and spread (median absolute deviation / median).
#pragma once

#include <functional>
#include <string>
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

// Timed work of hetlu on one machine takes turns: while an object of this class lives, no other
// process holding one runs (an advisory lock on a file in the temporary folder, released by the
// kernel if the process dies). Two calibrations at once then never time each other's load, which
// would be stored as the configuration's time and reused. Waiting polls stop_requested (Interrupted).
// Where the lock file cannot be opened, measurements go ahead unserialized. The holder writes its
// process id into the file; a wait longer than waited_long_seconds calls waiting once with a line
// naming it (a stopped calibration elsewhere had held every other one up without a word). A turn
// held by a process stopped for a second (Ctrl-Z, SIGSTOP), which runs nothing, is not waited for.
// After longest_wait_seconds the measurement goes ahead without its turn, saying so, and this
// process waits for no turn until it takes one again: the file is shared by every user, and one
// holding it for good would stall every calibration on the machine. An hour is longer than one trial's timing at the
// orders the calibration levels tune.
class MeasurementTurn {
 public:
  static constexpr double waited_long_seconds = 2;
  static constexpr double default_longest_wait_seconds = 3600;
  explicit MeasurementTurn(const std::function<bool()>& stop_requested = nullptr,
                           const std::function<void(const std::string&)>& waiting = nullptr,
                           double longest_wait_seconds = default_longest_wait_seconds);
  ~MeasurementTurn();
  MeasurementTurn(const MeasurementTurn&) = delete;
  MeasurementTurn& operator=(const MeasurementTurn&) = delete;

 private:
  int fd_ = -1;
};

// prepare() runs untimed before every run() (e.g. to restore the input matrix).
Measurement measure(const std::function<void()>& prepare, const std::function<void()>& run,
                    const TimingOptions& options);

// Median, minimum and MAD / median of a set of samples.
Measurement summarize(std::vector<double> samples, double target_spread);

}  // namespace hetlu::tuner
