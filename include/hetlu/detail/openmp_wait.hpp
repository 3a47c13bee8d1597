// Whether the OpenMP runtime's idle threads sleep rather than spin, as libgomp decides it:
// GOMP_SPINCOUNT where it is set (a number, with an optional k, M, G or T; "infinity" spins), else
// OMP_WAIT_POLICY=passive (any case, spaces around it ignored). Oversubscribed cores cost a
// distributed solve 1.5x when they sleep and 100x when they spin (model/params.hpp), so the model's
// callers pass it, as they pass cuda_tf32_requested(): the model reads no environment.
#pragma once

#include <sched.h>

#include <cctype>
#include <cstdlib>
#include <string>

namespace hetlu::detail {

inline std::string trimmed_lower(const char* text) {
  std::string s(text ? text : "");
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t start = 0;
  while (start < s.size() && std::isspace(static_cast<unsigned char>(s[start]))) ++start;
  s = s.substr(start);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

inline bool openmp_idle_threads_sleep() {
  // libgomp's own rule: fewer than this many spins before sleeping is, for a solve, sleeping.
  constexpr double spins_that_sleep = 1000;
  const std::string spins = trimmed_lower(std::getenv("GOMP_SPINCOUNT"));
  if (!spins.empty()) {
    if (spins == "infinite" || spins == "infinity") return false;
    char* end = nullptr;
    double count = std::strtod(spins.c_str(), &end);
    if (end != spins.c_str()) {
      const std::string suffix = trimmed_lower(end);
      const double scale = suffix.empty()  ? 1
                           : suffix == "k" ? 1e3
                           : suffix == "m" ? 1e6
                           : suffix == "g" ? 1e9
                           : suffix == "t" ? 1e12
                                           : -1;
      if (scale > 0) return count * scale < spins_that_sleep;
    }
  }
  return trimmed_lower(std::getenv("OMP_WAIT_POLICY")) == "passive";
}

// The CPUs this process may run on (its affinity mask); 0 where it cannot tell. A rank bound to
// fewer CPUs than its OpenMP threads has libgomp throttle their spinning: they then cost what
// sleeping ones do.
inline int cpus_in_affinity_mask() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}

}  // namespace hetlu::detail
