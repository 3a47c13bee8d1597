// The host backend's factory; solvers reach it through backends::backend(kind) (the cuda backend's
// is in the cuda plugin, cuda_plugin.hpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>

#include "solvers/backend.hpp"

namespace hetlu::backends {

// memory_in_use: the bytes of "device memory" the team's backends hold, one counter for all its
// precisions, as a GPU's float and double backends share its memory.
template <class T>
std::unique_ptr<Backend<T>> make_host_backend(int threads, std::shared_ptr<std::atomic<std::size_t>> memory_in_use);

}  // namespace hetlu::backends
