// Loads libhetlu_cuda.so (see cuda_plugin.hpp) once per process and never unloads it: the CUDA
// runtime inside registers exit handlers, and the backends made from it live until exit.
#include "solvers/cuda_plugin.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace hetlu::cuda_plugin {
namespace {

struct Loaded {
  const Entry* entry = nullptr;
  std::string why;
};

// The folder of the shared object (or program) this code was linked into.
std::string own_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_folder), &info) == 0 || !info.dli_fname) return {};
  const std::string path = info.dli_fname;
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::vector<std::string> candidates() {
  std::vector<std::string> paths;
  if (const char* chosen = std::getenv("HETLU_CUDA_PLUGIN"); chosen && *chosen) return {chosen};
  if (const auto folder = own_folder(); !folder.empty()) paths.push_back(folder + file_name);
#ifdef HETLU_CUDA_PLUGIN_INSTALL_PATH
  paths.push_back(HETLU_CUDA_PLUGIN_INSTALL_PATH);
#endif
#ifdef HETLU_CUDA_PLUGIN_BUILD_PATH
  paths.push_back(HETLU_CUDA_PLUGIN_BUILD_PATH);
#endif
  paths.push_back(file_name);  // the dynamic loader's search path
  return paths;
}

bool exists(const std::string& path) {
  return path.find('/') == std::string::npos || access(path.c_str(), F_OK) == 0;
}

// Whether the NVIDIA driver's library is there to load: without it no GPU can be used, and loading
// the plugin (the CUDA runtime, cuBLAS, cuSOLVER: 55 ms and a hundred MB mapped on the dev machine,
// where the toolkit is installed without a driver) would only find that out. The runtime looks
// for the driver under this name too.
bool driver_present() {
  return dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) != nullptr;  // kept: the plugin loads it anyway
}

Loaded load() {
  if (!built())
    return {nullptr, "this build of hetlu has no CUDA support (configure with HETLU_WITH_CUDA=ON where nvcc exists)"};
  const char* chosen = std::getenv("HETLU_CUDA_PLUGIN");
  if (!(chosen && *chosen) && !driver_present())  // a plugin the caller names is loaded regardless
    return {nullptr, "no GPU: the NVIDIA driver's libcuda.so.1 cannot be loaded, so the cuda plugin " +
                         std::string(file_name) + " is not loaded"};
  std::string tried, failure;
  for (const auto& path : candidates()) {
    if (!exists(path)) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* error = dlerror();
      // A plain name the loader does not find is one more place tried; anything else (a CUDA
      // library missing, a damaged file) is the answer.
      const std::string message = error ? error : "unknown error";
      if (path.find('/') == std::string::npos && message.find("cannot open shared object file") != std::string::npos &&
          message.find(path) != std::string::npos) {
        tried += (tried.empty() ? "" : ", ") + path;
        continue;
      }
      return {nullptr, "the cuda plugin " + path + " cannot be loaded: " + message};
    }
    using EntryFunction = const Entry* (*)();
    auto function = reinterpret_cast<EntryFunction>(dlsym(handle, entry_symbol));
    if (!function) return {nullptr, "the cuda plugin " + path + " has no entry point " + entry_symbol};
    const Entry* got = function();
    if (!got || got->version != interface_version)
      return {nullptr, "the cuda plugin " + path + " is of another hetlu version (interface " +
                           std::to_string(got ? got->version : -1) + ", this hetlu " +
                           std::to_string(interface_version) + ")"};
    return {got, {}};
  }
  return {nullptr, std::string("the cuda plugin ") + file_name + " was not found (tried " + tried +
                       "; $HETLU_CUDA_PLUGIN names it)"};
}

}  // namespace

bool built() {
#ifdef HETLU_CUDA_PLUGIN_BUILT
  return true;
#else
  return false;
#endif
}

const Entry* entry(std::string* why) {
  static const Loaded loaded = load();  // once, thread-safe
  if (!loaded.entry && why) *why = loaded.why;
  return loaded.entry;
}

}  // namespace hetlu::cuda_plugin
