// A HETLU_* switch read from the environment: one of the values it knows, else its default, with
// one warning on standard error saying so (garbage in HETLU_L_STRIPS, HETLU_MIXED_ROUNDING,
// HETLU_TIME_KERNELS or HETLU_CUDA_TF32 was ignored without a word).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <mutex>
#include <set>
#include <string>

#include "hetlu/detail/utf8.hpp"

namespace hetlu::detail {

// The variable's value where it is one of `known`; unset or empty: `fallback`; anything else:
// `fallback`, said once per variable and process (some are read at each factorization).
inline std::string env_choice(const char* name, std::initializer_list<const char*> known, const char* fallback) {
  const char* value = std::getenv(name);
  if (!value || !*value) return fallback;
  std::string list;
  for (const char* k : known) {
    if (std::string(value) == k) return value;
    list += (list.empty() ? "" : ", ") + std::string(k);
  }
  static std::mutex mutex;
  static std::set<std::string> said;
  const std::lock_guard<std::mutex> lock(mutex);
  if (said.insert(name).second)
    std::fprintf(stderr, "hetlu: warning: %s='%s' is not one of %s: taken as %s\n", name,
                 printable_value(value, 40).c_str(), list.c_str(), fallback);
  return fallback;
}

}  // namespace hetlu::detail
