#include "cli/memory.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "hetlu/types.hpp"

namespace hetlu::cli {

std::uint64_t available_memory_bytes() {
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
