// The cuda backend and the GPU probes live in a plugin, libhetlu_cuda.so (cuda/), loaded with
// dlopen on first use: libhetlu.so and the LAPACK drop-in link no CUDA library, so that loading
// them costs nothing where a process never asks for a GPU, and they work where CUDA is not
// installed at all (#14). This header is the plugin's interface, shared by the plugin and its
// loader (cuda_plugin.cpp); a plugin of another version is refused.
//
// Where the loader looks, first found first: $HETLU_CUDA_PLUGIN (a path); beside the library or
// program holding this code; the install's library folder; the build tree's plugin; then the
// dynamic loader's own search path (LD_LIBRARY_PATH, ...). A plugin that cannot be loaded (not
// built, not found, a CUDA library missing) makes the cuda backend unavailable, with why.
#pragma once

#include <complex>
#include <memory>
#include <string>

#include "solvers/backend.hpp"

namespace hetlu::cuda_plugin {

// 3: Queue::panel, time_vendor_lu_float; 4: time_vendor_irs; 5: Backend::round_from_wide,
// gather_rows and scatter_rows (the backends' virtual table), the complex backends; 6:
// Backend::widen_to_wide.
inline constexpr int interface_version = 6;

struct Entry {
  int version = interface_version;
  // Whether a GPU can be used, and if not, why not.
  bool (*device_present)(std::string* why) = nullptr;
  // Throw Error when no GPU can be used.
  std::unique_ptr<backends::Backend<float>> (*make_float_backend)() = nullptr;
  std::unique_ptr<backends::Backend<double>> (*make_double_backend)() = nullptr;
  backends::VendorLuTiming (*time_vendor_lu)(int m, int n, const double* A, int lda, int nrhs, int reps) = nullptr;
  // The GPU probes (probes/probes.hpp's GpuProbe, filled in place: the solvers' layer knows no
  // probe types, so the loader passes it through untyped).
  void (*probe_gpus)(bool measure_rates, void* gpu_probe) = nullptr;
  backends::VendorLuTiming (*time_vendor_lu_float)(int m, int n, const float* A, int lda, int nrhs, int reps) = nullptr;
  backends::VendorIrsTiming (*time_vendor_irs)(int n, const double* A, int lda, const double* b, int reps,
                                               backends::VendorFactorPrecision factored) = nullptr;
  std::unique_ptr<backends::Backend<std::complex<float>>> (*make_complex_float_backend)() = nullptr;
  std::unique_ptr<backends::Backend<std::complex<double>>> (*make_complex_double_backend)() = nullptr;
};

// The plugin's entry point: extern "C" const Entry* hetlu_cuda_plugin_entry();
inline constexpr const char* entry_symbol = "hetlu_cuda_plugin_entry";
inline constexpr const char* file_name = "libhetlu_cuda.so";

// The loaded plugin's entry, loaded once per process; null when it cannot be, with why.
const Entry* entry(std::string* why = nullptr);

// Whether this hetlu was built with the plugin (it may still be missing or unloadable here).
bool built();

}  // namespace hetlu::cuda_plugin
