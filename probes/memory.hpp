// Memory a command is about to need, checked against what the system has before it is allocated:
// a lying file header or a huge -n is a one-line error that says how much, never a bad_alloc, an
// OOM kill or minutes of swapping.
#pragma once

#include <cstdint>
#include <string>

#include "hetlu/detail/bytes.hpp"

namespace hetlu::probes {

// Bytes of memory available now: MemAvailable in /proc/meminfo (physical pages where that is
// missing), less where `ulimit -v` / `-d` or the cgroup's memory.max leave the process less; 0
// when unknown.
std::uint64_t available_memory_bytes();

using detail::readable_bytes;  // "1.5 GiB", "800 MiB", ...

// Throws InvalidArgument "<what> needs <bytes>, but only <available> is available" when bytes
// exceeds the memory available (nothing is checked when that is unknown).
void require_memory(double bytes, const std::string& what);

}  // namespace hetlu::probes
