#include "solvers/workspace.hpp"

#include <cstdlib>
#include <mutex>
#include <new>

namespace hetlu::kernels {
namespace {

// One kept array: enough for the repeated solves of one size; a larger request replaces it.
struct Kept {
  std::mutex mutex;
  void* memory = nullptr;
  std::size_t bytes = 0;
  // The kept array while it is handed out, and its real size: it comes back under the size that was
  // asked for, which may be a quarter of it, and must be kept as large as it is.
  void* out = nullptr;
  std::size_t out_bytes = 0;
};

Kept& kept() {
  static Kept instance;
  return instance;
}

constexpr std::size_t worth_keeping = std::size_t(1) << 20;  // smaller arrays come cheap from malloc

}  // namespace

void* acquire_workspace(std::size_t bytes) {
  bytes = bytes == 0 ? 1 : bytes;
  if (bytes >= worth_keeping) {
    std::lock_guard<std::mutex> lock(kept().mutex);
    // Reuse only what fits without holding on to far more than asked (at most 4x).
    if (kept().memory && kept().bytes >= bytes && kept().bytes / 4 <= bytes) {
      void* memory = kept().memory;
      kept().out = memory;
      kept().out_bytes = kept().bytes;
      kept().memory = nullptr;
      kept().bytes = 0;
      return memory;
    }
  }
  void* memory = std::malloc(bytes);
  if (!memory) throw std::bad_alloc();
  return memory;
}

void return_workspace(void* memory, std::size_t bytes) {
  if (!memory) return;
  if (bytes >= worth_keeping) {
    std::lock_guard<std::mutex> lock(kept().mutex);
    if (memory == kept().out) {
      bytes = kept().out_bytes;
      kept().out = nullptr;
    }
    if (bytes >= kept().bytes) {
      std::free(kept().memory);
      kept().memory = memory;
      kept().bytes = bytes;
      return;
    }
  }
  std::free(memory);
}

void release_workspace() {
  std::lock_guard<std::mutex> lock(kept().mutex);
  std::free(kept().memory);
  kept().memory = nullptr;
  kept().bytes = 0;
}

}  // namespace hetlu::kernels
