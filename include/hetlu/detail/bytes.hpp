// A size in bytes as a person reads it ("800 bytes", "12.0 MiB", "3.0 GiB"): one formatter for every
// message that names memory (the probes' checks, the backends' out-of-memory errors, the tuner).
#pragma once

#include <cstdio>
#include <string>

namespace hetlu::detail {

inline std::string readable_bytes(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 6) bytes /= 1024, ++unit;
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
  return text;
}

}  // namespace hetlu::detail
