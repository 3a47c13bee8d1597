#include "probes/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>
#include <utility>

#include "hetlu/types.hpp"

namespace hetlu::probes {

namespace {

// A field of a /proc file of "Key: value kB" lines (MemAvailable, VmSize, VmData) in bytes; 0
// where missing.
std::uint64_t proc_field_bytes(const char* path, const std::string& field) {
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line)) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if (fields >> key >> kib && key == field + ":") return kib * 1024;
  }
  return 0;
}

std::uint64_t system_available_bytes() {
  if (const std::uint64_t available = proc_field_bytes("/proc/meminfo", "MemAvailable")) return available;
  const long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

constexpr std::uint64_t unlimited = std::numeric_limits<std::uint64_t>::max();

// Address space the BLAS maps on its first calls: OpenBLAS a 128 MiB buffer for each thread that
// calls it (hetlu calls it from every OpenMP thread, and the caller's). Under `ulimit -v` a refused
// buffer made OpenBLAS retry forever at 100 % CPU, after the matrices themselves had fit.
std::uint64_t blas_buffer_bytes() {
  return (std::max(1u, std::thread::hardware_concurrency()) + 1ull) * (128ull << 20);
}

// What this process may still allocate under `ulimit -v` (RLIMIT_AS, against the address space in
// use and the BLAS's buffers) or `ulimit -d` (RLIMIT_DATA, against the data segment in use);
// unlimited where neither is set.
std::uint64_t process_limit_bytes() {
  std::uint64_t left = unlimited;
  for (auto [resource, field] : {std::pair{RLIMIT_AS, "VmSize"}, std::pair{RLIMIT_DATA, "VmData"}}) {
    rlimit r{};
    if (::getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) continue;
    const std::uint64_t used =
        proc_field_bytes("/proc/self/status", field) + (resource == RLIMIT_AS ? blas_buffer_bytes() : 0);
    left = std::min<std::uint64_t>(left, used >= r.rlim_cur ? 0 : r.rlim_cur - used);
  }
  return left;
}

// The cgroup (v2) of this process: its memory.max less what it holds, page cache it can drop
// (inactive_file) not counted; unlimited where there is no limit. MemAvailable does not see it.
std::uint64_t cgroup_available_bytes() {
  std::ifstream membership("/proc/self/cgroup");
  std::string line, group = "/";
  while (std::getline(membership, line))
    if (line.rfind("0::", 0) == 0) group = line.substr(3);
  const std::string dir = "/sys/fs/cgroup" + (group == "/" ? std::string() : group);
  std::ifstream max_file(dir + "/memory.max"), current_file(dir + "/memory.current"), stat_file(dir + "/memory.stat");
  std::string max_text;
  std::uint64_t current = 0, max = 0, inactive_file = 0;
  if (!(max_file >> max_text) || max_text == "max" || !(current_file >> current)) return unlimited;
  try {
    max = std::stoull(max_text);
  } catch (const std::exception&) {
    return unlimited;
  }
  std::string key;
  std::uint64_t value = 0;
  while (stat_file >> key >> value)
    if (key == "inactive_file") inactive_file = value;
  const std::uint64_t held = current > inactive_file ? current - inactive_file : 0;
  return held >= max ? 0 : max - held;
}

}  // namespace

std::uint64_t available_memory_bytes() {
  const std::uint64_t system = system_available_bytes();
  // At least 1 byte where a limit is reached: 0 means "unknown", and would skip the check.
  const std::uint64_t limited = std::max<std::uint64_t>(1, std::min(process_limit_bytes(), cgroup_available_bytes()));
  if (system == 0) return limited == unlimited ? 0 : limited;
  return std::min(system, limited);
}

void require_memory(double bytes, const std::string& what) {
  const std::uint64_t available = available_memory_bytes();
  if (available > 0 && bytes > double(available)) {
    // Where the process's own limit is what binds, say so: it counts the BLAS's buffers too.
    const bool own_limit = process_limit_bytes() <= available;
    // 1 byte is the floor of a reached limit (available_memory_bytes): none is left.
    const std::string left = available <= 1 ? "none is left" : "only " + readable_bytes(double(available)) + " is";
    throw InvalidArgument(what + " needs " + readable_bytes(bytes) + " of memory, but " + left +
                          (available <= 1 ? "" : " available") +
                          (own_limit ? " under this process's `ulimit -v`/`-d` (which the BLAS's buffers, 128 MiB "
                                       "a thread, count against)"
                                     : ""));
  }
}

}  // namespace hetlu::probes
