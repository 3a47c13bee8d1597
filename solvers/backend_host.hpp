// The host backend's factory; solvers reach it through backends::backend(kind) (the cuda backend's
// is in the cuda plugin, cuda_plugin.hpp).
#pragma once

#include <memory>

#include "solvers/backend.hpp"

namespace hetlu::backends {

template <class T>
std::unique_ptr<Backend<T>> make_host_backend(int threads);

}  // namespace hetlu::backends
