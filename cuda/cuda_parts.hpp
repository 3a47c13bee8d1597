// What the cuda plugin's parts define, for its entry point (plugin.cpp).
#pragma once

#include <memory>
#include <string>

#include "probes/probes.hpp"
#include "solvers/backend.hpp"

namespace hetlu::backends {
bool cuda_device_present(std::string* why);
template <class T>
std::unique_ptr<Backend<T>> make_cuda_backend();  // throws Error when no GPU can be used
template <class T>                                // float or double
VendorLuTiming cuda_time_vendor_lu(int m, int n, const T* A, int lda, int nrhs, int reps);
VendorIrsTiming cuda_time_vendor_irs(int n, const double* A, int lda, const double* b, int reps,
                                     VendorFactorPrecision factored);
}  // namespace hetlu::backends

namespace hetlu::probes {
GpuProbe cuda_gpus(bool measure_rates);  // never throws: a failure is the probe's note
}  // namespace hetlu::probes
