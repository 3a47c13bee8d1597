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

}  // namespace hetlu::kernels
