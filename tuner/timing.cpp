#include "tuner/timing.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "hetlu/detail/statistics.hpp"
#include "hetlu/detail/stopwatch.hpp"
#include "hetlu/types.hpp"

namespace hetlu::tuner {
Measurement summarize(std::vector<double> samples, double target_spread) {
  if (samples.empty()) throw Error("no timing samples to summarize");
  Measurement m;
  m.median = detail::median(samples);
  m.minimum = *std::min_element(samples.begin(), samples.end());
  m.spread = detail::relative_spread(samples);
  m.noisy = m.spread > target_spread;
  m.samples = std::move(samples);
  return m;
}

namespace {

// The turns' lock file in the shared temporary folder, opened only where it is a plain file with one
// name: a symbolic or hard link planted at the path by another user would have this process (root,
// say) make the file it names writable by all and overwrite it. -1 where it cannot be opened or is
// refused; `refused` then says why, where it was refused.
int open_lock_file(const std::string& path, std::string& refused) {
  // An existing file is opened without O_CREAT: under fs.protected_regular, O_CREAT of another
  // user's file in a sticky folder (/tmp) is refused, and the users would not take turns.
  constexpr int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < 3; ++attempt) {
    fd = ::open(path.c_str(), flags);
    if (fd < 0 && errno == ENOENT) fd = ::open(path.c_str(), flags | O_CREAT | O_EXCL, 0666);
    if (fd < 0 && errno != EEXIST) break;  // EEXIST: another process made it first; open that one
  }
  if (fd < 0) {
    if (errno == ELOOP) refused = "a symbolic link";
    if (errno == EISDIR) refused = "a folder";
    if (errno == EACCES || errno == EPERM) refused = "a file this user may not open for writing";
    return -1;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
    refused = "not a plain file with one name";
    ::close(fd);
    return -1;
  }
  if (st.st_uid == ::geteuid()) ::fchmod(fd, 0666);  // every user's measurements take turns, whatever the umask
  return fd;
}

// The process id the holder wrote into the lock file, or "" where it is not one.
std::string holder_of(int fd) {
  char holder[32] = {};
  const ssize_t got = ::pread(fd, holder, sizeof holder - 1, 0);
  std::string pid = got > 0 ? std::string(holder, static_cast<size_t>(got)) : "";
  pid = pid.substr(0, pid.find('\n'));
  return !pid.empty() && pid.size() < 12 && pid.find_first_not_of("0123456789") == std::string::npos ? pid : "";
}

// Whether that process is stopped (Ctrl-Z, SIGSTOP, a debugger): it holds the turn and runs nothing.
bool process_stopped(const std::string& pid) {
  if (pid.empty()) return false;
  std::ifstream stat("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto name_end = line.rfind(')');  // the command's name may hold spaces and parentheses
  if (name_end == std::string::npos || name_end + 2 >= line.size()) return false;
  const char state = line[name_end + 2];
  return state == 'T' || state == 't';
}

}  // namespace

MeasurementTurn::MeasurementTurn(const std::function<bool()>& stop_requested,
                                 const std::function<void(const std::string&)>& waiting, double longest_wait_seconds) {
  const char* folder = std::getenv("TMPDIR");
  const std::string path = std::string(folder && *folder ? folder : "/tmp") + "/hetlu-measurements.lock";
  std::string why_refused;
  fd_ = open_lock_file(path, why_refused);
  if (fd_ < 0) {
    static std::atomic<bool> said_refused{false};  // once a process: a calibration takes many turns
    if (!why_refused.empty() && waiting && !said_refused.exchange(true))
      waiting("measurements do not take turns with other hetlu processes: " + path + " is " + why_refused +
              ", left as it is");
    return;
  }
  // Once this process has gone ahead after the longest wait, its turns do not wait again until it
  // takes one: a holder that never lets go would otherwise cost every trial of a calibration that wait.
  static std::atomic<bool> gone_ahead{false};
  static std::atomic<bool> said_stopped{false};
  const detail::Stopwatch since_start;
  double stopped_since = -1;  // since_start's time from which the holder was seen stopped at every poll
  bool said = false;
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int refused = errno;                         // before the message's calls, which may change errno
    if (refused != EWOULDBLOCK && refused != EINTR) {  // no locking here: go ahead
      ::close(fd_);
      fd_ = -1;
      return;
    }
    const std::string pid = holder_of(fd_);
    // A holder stopped for a second (Ctrl-Z, SIGSTOP; not a tool's brief stops) runs nothing while
    // it holds the turn: this turn goes ahead.
    if (!process_stopped(pid))
      stopped_since = -1;
    else if (stopped_since < 0)
      stopped_since = since_start.seconds();
    if (stopped_since >= 0 && since_start.seconds() - stopped_since > 1) {
      if (waiting && !said_stopped.exchange(true))
        waiting("measuring without a turn while process " + pid + ", which holds " + path + ", is stopped");
      ::close(fd_);
      fd_ = -1;
      return;
    }
    if (waiting && !said && since_start.seconds() > waited_long_seconds) {
      waiting("waiting for another hetlu process's measurements to end" +
              (pid.empty() ? std::string() : " (process " + pid + ")") + "; they take turns through " + path);
      said = true;
    }
    if (gone_ahead || since_start.seconds() > longest_wait_seconds) {
      if (waiting && !gone_ahead.exchange(true))
        waiting("measuring without taking turns until it lets go: another process has held " + path + " for " +
                std::to_string(static_cast<long>(longest_wait_seconds)) +
                " s (or holds it on purpose); measurements may time its load");
      gone_ahead = true;
      ::close(fd_);
      fd_ = -1;
      return;
    }
    try {
      stop_if_requested(stop_requested);
    } catch (...) {
      ::close(fd_);
      fd_ = -1;
      throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  gone_ahead = false;  // the holder let go: turns are taken again
  // Ours now: the holder named for whoever waits next (a name only: where the file cannot take
  // it, the turn is still ours).
  const std::string pid = std::to_string(::getpid()) + "\n";
  [[maybe_unused]] const bool named =
      ::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, pid.data(), pid.size(), 0) == static_cast<ssize_t>(pid.size());
}

MeasurementTurn::~MeasurementTurn() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

Measurement measure(const std::function<void()>& prepare, const std::function<void()>& run,
                    const TimingOptions& options) {
  if (options.min_samples < 1 || options.max_samples < options.min_samples)
    throw InvalidArgument("timing needs 1 <= min_samples <= max_samples");
  const detail::Stopwatch since_start;
  for (int i = 0; i < options.warmup; ++i) {
    stop_if_requested(options.stop_requested);
    prepare();
    run();
  }
  std::vector<double> samples;
  while (true) {
    stop_if_requested(options.stop_requested);
    prepare();
    samples.push_back(detail::seconds_of(run));
    if (static_cast<int>(samples.size()) < options.min_samples) continue;
    const Measurement m = summarize(samples, options.target_spread);
    const double spent = since_start.seconds();
    if (!m.noisy || static_cast<int>(samples.size()) >= options.max_samples || spent >= options.time_cap_seconds)
      return m;
  }
}

}  // namespace hetlu::tuner
