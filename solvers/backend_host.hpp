// Factories of the backend implementations; solvers reach them through backends::backend(kind).
#pragma once

#include <memory>

#include "solvers/backend.hpp"

namespace hetlu::backends {

template <class T>
std::unique_ptr<Backend<T>> make_host_backend(int threads);

#ifdef HETLU_HAVE_CUDA
// Throws Error when no GPU can be used (no device, no driver, a failed context).
template <class T>
std::unique_ptr<Backend<T>> make_cuda_backend();
bool cuda_device_present(std::string* why);
#endif

}  // namespace hetlu::backends
