// Whether the OpenMP runtime's idle threads sleep rather than spin: OMP_WAIT_POLICY=passive (any
// case, as libgomp reads it) or GOMP_SPINCOUNT=0. Oversubscribed cores cost a distributed solve 1.5x
// when they sleep and 100x when they spin (model/params.hpp), so the model's callers pass it, as
// they pass cuda_tf32_requested(): the model reads no environment.
#pragma once

#include <strings.h>

#include <cstdlib>
#include <string>

namespace hetlu::detail {

inline bool openmp_idle_threads_sleep() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  const char* spins = std::getenv("GOMP_SPINCOUNT");
  return (policy && strcasecmp(policy, "passive") == 0) || (spins && std::string(spins) == "0");
}

}  // namespace hetlu::detail
