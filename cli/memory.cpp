#include "cli/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include "hetlu/types.hpp"

namespace hetlu::cli {

namespace {

std::uint64_t system_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  const long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

// What this process may still allocate under `ulimit -v` (RLIMIT_AS) or `ulimit -d` (RLIMIT_DATA)
// beyond what it holds already; unlimited where neither is set.
std::uint64_t process_limit_bytes() {
  std::uint64_t limit = std::numeric_limits<std::uint64_t>::max();
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    rlimit r{};
    if (::getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
      limit = std::min<std::uint64_t>(limit, r.rlim_cur);
  }
  if (limit == std::numeric_limits<std::uint64_t>::max()) return limit;
  std::ifstream status("/proc/self/status");  // VmSize: the address space in use
  std::string line;
  while (std::getline(status, line)) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if (fields >> key >> kib && key == "VmSize:") return kib * 1024 >= limit ? 0 : limit - kib * 1024;
  }
  return limit;
}

// The cgroup (v2) memory.max of this process's group less its memory.current: a container's limit,
// which MemAvailable does not show; unlimited where there is none.
std::uint64_t cgroup_available_bytes() {
  std::uint64_t none = std::numeric_limits<std::uint64_t>::max();
  std::ifstream max_file("/sys/fs/cgroup/memory.max"), current_file("/sys/fs/cgroup/memory.current");
  std::string max_text;
  std::uint64_t current = 0, max = 0;
  if (!(max_file >> max_text) || max_text == "max" || !(current_file >> current)) return none;
  try {
    max = std::stoull(max_text);
  } catch (const std::exception&) {
    return none;
  }
  return current >= max ? 0 : max - current;
}

}  // namespace

std::uint64_t available_memory_bytes() {
  const std::uint64_t system = system_available_bytes();
  const std::uint64_t limited = std::min(process_limit_bytes(), cgroup_available_bytes());
  if (system == 0) return limited == std::numeric_limits<std::uint64_t>::max() ? 0 : limited;
  return std::min(system, limited);
}

std::string readable_bytes(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) bytes /= 1024, ++u;
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return text;
}

void require_memory(double bytes, const std::string& what) {
  const std::uint64_t available = available_memory_bytes();
  if (available > 0 && bytes > double(available))
    throw InvalidArgument(what + " needs " + readable_bytes(bytes) + " of memory, but only " +
                          readable_bytes(double(available)) + " is available");
}

}  // namespace hetlu::cli
