// Work arrays for n^2-sized copies (PRBT's randomized matrix, refinement's copy of A).
//
// A fresh 128 MB array (n = 4000) costs 50-65 ms of page faults on the dev machine, a tenth of the
// solve, whereas LAPACK's gesv allocates nothing. So, as OpenBLAS keeps its GEMM buffers and MKL
// its memory pool (mkl_free_buffers), hetlu keeps the largest array it has freed and hands it out
// again; release_workspace() gives it back to the system. The memory is uninitialized: the pass
// that fills it first-touches it in parallel. (Transparent huge pages were tried: with THP
// "madvise" the kernel's synchronous compaction made the first touch 3x slower, not faster.)
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace hetlu::kernels {

void* acquire_workspace(std::size_t bytes);
void return_workspace(void* memory, std::size_t bytes);
void release_workspace();  // frees the kept array, if any

template <class T>
class Workspace {
 public:
  explicit Workspace(std::size_t count)
      : bytes_(count * sizeof(T)), data_(static_cast<T*>(acquire_workspace(bytes_))) {}
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  ~Workspace() { return_workspace(data_, bytes_); }
  T* data() { return data_; }
  const T* data() const { return data_; }

 private:
  std::size_t bytes_;
  T* data_;
};

// The same arrays as a std::vector's allocator, for n^2-sized vectors that live across calls of a
// solver (the low-precision factors of a mixed solve: 64 MB at n = 4000). Elements are
// default-initialized, not zeroed: the pass that fills the vector touches it first.
template <class T>
struct WorkspaceAllocator {
  using value_type = T;
  WorkspaceAllocator() = default;
  template <class U>
  WorkspaceAllocator(const WorkspaceAllocator<U>&) {}
  T* allocate(std::size_t count) { return static_cast<T*>(acquire_workspace(count * sizeof(T))); }
  void deallocate(T* memory, std::size_t count) { return_workspace(memory, count * sizeof(T)); }
  template <class U, class... Args>
  void construct(U* at, Args&&... args) {
    if constexpr (sizeof...(Args) > 0)
      ::new (static_cast<void*>(at)) U(std::forward<Args>(args)...);
    else if constexpr (!(std::is_trivially_copyable_v<U> && std::is_trivially_destructible_v<U>))
      ::new (static_cast<void*>(at)) U;
    // else nothing: std::complex's default constructor would zero it, one core writing n^2 entries;
    // the allocated storage already holds such an implicit-lifetime object (C++20).
  }
  template <class U>
  bool operator==(const WorkspaceAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const WorkspaceAllocator<U>&) const {
    return false;
  }
};

template <class T>
using WorkspaceVector = std::vector<T, WorkspaceAllocator<T>>;

}  // namespace hetlu::kernels
