#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <vector>

#include "hetlu/detail/statistics.hpp"
#include "hetlu/types.hpp"
#include "tuner/timing.hpp"

using namespace hetlu;

TEST(Summarize, MedianMinimumAndSpread) {
  const auto m = tuner::summarize({3.0, 1.0, 2.0, 2.0, 10.0}, 0.03);
  EXPECT_DOUBLE_EQ(m.median, 2.0);
  EXPECT_DOUBLE_EQ(m.minimum, 1.0);
  // deviations 1, 1, 0, 0, 8: MAD 1, relative 0.5
  EXPECT_DOUBLE_EQ(m.spread, 0.5);
  EXPECT_TRUE(m.noisy);
  EXPECT_EQ(m.samples.size(), 5u);
  EXPECT_DOUBLE_EQ(tuner::summarize({1.0, 3.0}, 0.03).median, 2.0);
  EXPECT_THROW(tuner::summarize({}, 0.03), Error);
}

TEST(CoveredLength, CountsOverlapsOnce) {
  EXPECT_DOUBLE_EQ(detail::covered_length({}), 0);
  EXPECT_DOUBLE_EQ(detail::covered_length({{0, 1}, {2, 3}}), 2);
  EXPECT_DOUBLE_EQ(detail::covered_length({{2, 5}, {0, 3}, {1, 2}}), 5);   // unsorted, nested
  EXPECT_DOUBLE_EQ(detail::covered_length({{-1, 1}, {1, 2}, {4, 4}}), 3);  // touching, empty
}

TEST(Measure, PreparesBeforeEveryRunAndTakesAtLeastMinSamples) {
  int prepared = 0, ran = 0;
  bool ready = false;
  tuner::TimingOptions options;
  options.warmup = 2;
  options.min_samples = 5;
  options.max_samples = 7;
  const auto m = tuner::measure(
      [&] {
        ++prepared;
        ready = true;
      },
      [&] {
        EXPECT_TRUE(ready);  // never runs on a used input
        ready = false;
        ++ran;
      },
      options);
  EXPECT_GE(m.samples.size(), 5u);
  EXPECT_LE(m.samples.size(), 7u);
  EXPECT_EQ(prepared, ran);
  EXPECT_EQ(ran, 2 + static_cast<int>(m.samples.size()));
}

TEST(Measure, RejectsBadOptions) {
  tuner::TimingOptions options;
  options.min_samples = 0;
  EXPECT_THROW(tuner::measure([] {}, [] {}, options), InvalidArgument);
}

// TMPDIR pointed at a fresh folder (where the turns' lock file lies) for a test's life; removed and
// restored however the test ends.
struct LockFolder {
  std::string folder, saved;
  bool had = false;
  LockFolder() {
    char name[] = "/tmp/hetlu-turn-XXXXXX";
    folder = ::mkdtemp(name);
    const char* before = std::getenv("TMPDIR");
    had = before != nullptr;
    saved = had ? before : "";
    ::setenv("TMPDIR", folder.c_str(), 1);
  }
  ~LockFolder() {
    std::error_code ec;
    std::filesystem::remove_all(folder, ec);
    if (had)
      ::setenv("TMPDIR", saved.c_str(), 1);
    else
      ::unsetenv("TMPDIR");
  }
  LockFolder(const LockFolder&) = delete;
  LockFolder& operator=(const LockFolder&) = delete;
};

// A holder that is stopped (Ctrl-Z on a calibration) runs nothing: the turn goes ahead at once,
// naming it, rather than after the longest wait (said once a process).
TEST(MeasurementTurn, AStoppedHoldersTurnIsNotWaitedFor) {
  const LockFolder lock_folder;  // not the machine's: a failure here leaves no stopped holder of that
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    tuner::MeasurementTurn held;
    const char byte = 1;
    [[maybe_unused]] const auto wrote = ::write(ready[1], &byte, 1);
    ::raise(SIGSTOP);
    ::_exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, WUNTRACED), child);
  ASSERT_TRUE(WIFSTOPPED(status));
  std::vector<std::string> said;
  const auto start = std::chrono::steady_clock::now();
  {
    tuner::MeasurementTurn mine(nullptr, [&](const std::string& line) { said.push_back(line); });
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
            tuner::MeasurementTurn::waited_long_seconds);
  ::kill(child, SIGKILL);
  ::waitpid(child, &status, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("process " + std::to_string(child) + ", which holds"), std::string::npos) << said[0];
  EXPECT_NE(said[0].find("is stopped"), std::string::npos) << said[0];
}

TEST(MeasurementTurn, MeasurementsTakeTurnsAndWaitingCanBeStopped) {
  using clock = std::chrono::steady_clock;
  std::atomic<bool> holding{false};
  std::thread other([&] {  // another measurement (flock: another open file conflicts, as another process)
    tuner::MeasurementTurn turn;
    holding = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  });
  while (!holding) std::this_thread::yield();
  const auto start = clock::now();
  {
    tuner::MeasurementTurn mine;
    EXPECT_GE(std::chrono::duration<double>(clock::now() - start).count(), 0.2);
  }
  other.join();
  // While waiting, a stop request ends the wait with Interrupted.
  std::atomic<bool> held{false}, release{false};
  std::thread holder([&] {
    tuner::MeasurementTurn turn;
    held = true;
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  });
  while (!held) std::this_thread::yield();
  int polls = 0;
  EXPECT_THROW(tuner::MeasurementTurn([&] { return ++polls > 3; }), Interrupted);
  // A long wait is said once, naming the holder, which wrote its process id into the lock file.
  std::vector<std::string> said;
  const auto waited = clock::now();
  EXPECT_THROW(tuner::MeasurementTurn(
                   [&] {
                     return std::chrono::duration<double>(clock::now() - waited).count() >
                            tuner::MeasurementTurn::waited_long_seconds + 0.5;
                   },
                   [&](const std::string& line) { said.push_back(line); }),
               Interrupted);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("waiting for another hetlu process's measurements to end (process " +
                         std::to_string(::getpid()) + ")"),
            std::string::npos)
      << said[0];
  // A holder that never lets go (a stopped process, or another user on purpose) stalls no one for
  // good: after the longest wait the measurement goes ahead, saying so.
  said.clear();
  const auto bounded = clock::now();
  {
    tuner::MeasurementTurn ahead(
        nullptr, [&](const std::string& line) { said.push_back(line); }, 0.3);
  }
  EXPECT_LT(std::chrono::duration<double>(clock::now() - bounded).count(), 1.5);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("measuring without taking turns until it lets go: another process has held"),
            std::string::npos)
      << said[0];
  // ... and later turns of this process do not wait again.
  const auto later = clock::now();
  {
    tuner::MeasurementTurn again(nullptr, [&](const std::string& line) { said.push_back(line); });
  }
  EXPECT_LT(std::chrono::duration<double>(clock::now() - later).count(), 1.0);
  EXPECT_EQ(said.size(), 1u);
  release = true;
  holder.join();
}

// A link planted at the lock file's path by another user (found by a hostile test: root's
// calibration followed a symbolic link, made the file it named writable by all and overwrote it
// with its process id). The file linked to stays as it was; the measurements go ahead, said once a process.
TEST(MeasurementTurn, ALinkAtTheLockFilesPathIsLeftAlone) {
  const LockFolder lock_folder;
  const std::string& folder = lock_folder.folder;
  const std::string target = folder + "/precious", lock = folder + "/hetlu-measurements.lock";
  std::vector<std::string> said;  // the refusal is said once a process, however many turns
  for (bool symbolic : {true, false}) {
    SCOPED_TRACE(symbolic ? "symbolic link" : "hard link");
    {
      std::FILE* f = std::fopen(target.c_str(), "w");
      ASSERT_NE(f, nullptr);
      std::fputs("secret", f);
      std::fclose(f);
    }
    ::chmod(target.c_str(), 0600);
    ASSERT_EQ(symbolic ? ::symlink(target.c_str(), lock.c_str()) : ::link(target.c_str(), lock.c_str()), 0);
    for (int turn_number = 0; turn_number < 2; ++turn_number) {
      tuner::MeasurementTurn turn(nullptr, [&](const std::string& line) { said.push_back(line); });
    }
    struct stat st {};
    ASSERT_EQ(::stat(target.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    char text[16] = {};
    std::FILE* f = std::fopen(target.c_str(), "r");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(std::fread(text, 1, sizeof text - 1, f), 6u);
    std::fclose(f);
    EXPECT_STREQ(text, "secret");
    ::unlink(lock.c_str());
    ::unlink(target.c_str());
  }
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("do not take turns"), std::string::npos) << said[0];
  said.clear();
  // A plain file of its own at the path: the turn is taken there, as before.
  {
    tuner::MeasurementTurn turn(nullptr, [&](const std::string& line) { said.push_back(line); });
  }
  EXPECT_TRUE(said.empty());
  struct stat st {};
  EXPECT_EQ(::lstat(lock.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
}

// The rank statistics bench --sweep-d reports (#13.4): ties share their average rank.
TEST(Statistics, RanksAndSpearman) {
  EXPECT_EQ(detail::ranks({3, 1, 2}), (std::vector<double>{3, 1, 2}));
  EXPECT_EQ(detail::ranks({5, 1, 5, 0}), (std::vector<double>{3.5, 2, 3.5, 1}));
  EXPECT_DOUBLE_EQ(detail::spearman({1, 2, 3, 4}, {10, 20, 30, 45}), 1.0);
  EXPECT_DOUBLE_EQ(detail::spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  EXPECT_NEAR(detail::spearman({1, 2, 3, 4, 5}, {2, 1, 4, 3, 5}), 0.8, 1e-12);  // 1 - 6*4/(5*24)
  EXPECT_TRUE(std::isnan(detail::spearman({1, 1, 1}, {1, 2, 3})));              // no spread
  EXPECT_TRUE(std::isnan(detail::spearman({1, 2}, {1, 2, 3})));
  EXPECT_DOUBLE_EQ(detail::spearman({1, std::nan(""), 3, 4}, {1, 2, 3, 5}), 1.0);  // the NaN pair left out
  EXPECT_DOUBLE_EQ(detail::median({4, 1, 3, 2}), 2.5);                             // the lower and upper middle's mean
}

// Another user's lock file in a sticky folder (/tmp), as their calibration left it: the turn is
// taken through it, and its owner and mode are left alone. Under fs.protected_regular (systemd sets
// it) an open with O_CREAT of such a file is refused even to root, and the users did not take turns;
// where the setting is off this passes before and after.
TEST(MeasurementTurn, AnotherUsersLockFileInAStickyFolderIsUsed) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the file to another user";
  const LockFolder lock_folder;
  const std::string& folder = lock_folder.folder;
  ASSERT_EQ(::chmod(folder.c_str(), 01777), 0);
  const std::string lock = folder + "/hetlu-measurements.lock";
  {
    std::FILE* f = std::fopen(lock.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fclose(f);
  }
  ASSERT_EQ(::chmod(lock.c_str(), 0666), 0);
  ASSERT_EQ(::chown(lock.c_str(), 65534, 65534), 0);  // nobody
  std::vector<std::string> said;
  {
    tuner::MeasurementTurn turn(nullptr, [&](const std::string& line) { said.push_back(line); });
    EXPECT_TRUE(said.empty()) << said.front();
    // Held: a second descriptor of the file cannot lock it.
    const int other = ::open(lock.c_str(), O_RDONLY);
    ASSERT_GE(other, 0);
    EXPECT_NE(::flock(other, LOCK_EX | LOCK_NB), 0);
    ::close(other);
  }
  struct stat st {};
  ASSERT_EQ(::stat(lock.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_mode & 07777, 0666u);
}
