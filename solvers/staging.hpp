// Copies between the caller's (pageable) host memory and device memory through a few page-locked
// staging slots, as a fast hybrid LU does them (#17): the caller's matrix is never page-locked
// whole (cudaHostRegister of an n = 32768 matrix pins 8 GiB, in every solve and tuning trial), and
// an asynchronous copy needs page-locked memory to be asynchronous at all.
//
// Each slot holds rows x columns entries (a block column of the matrix: rows = m, columns = nb). A
// copy larger than a slot goes a slot's width of columns at a time, round-robin over the slots, so
// that packing one chunk on the host overlaps the DMA of the previous one.
//   - to_device: each chunk is packed into a slot (once that slot's previous DMA has completed,
//     an event says when) and copied from there; returns once the host columns have been read.
//   - to_host: each chunk is copied into a slot and unpacked into the host columns later, by
//     finish(ticket), which waits for the DMA (an event) and unpacks every chunk issued up to the
//     ticket, in order. A copy that finds every download slot holding a chunk not yet unpacked
//     unpacks the oldest first.
// The slots come from Backend::allocate_pinned (recycled by the cuda backend: a plan's second solve
// allocates nothing); nothing larger than one slot is ever page-locked.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <vector>

#include "solvers/backend.hpp"
#include "solvers/copy_block.hpp"

namespace hetlu::backends {

template <class T>
class Staging {
 public:
  // `slots` for each direction (at least one), each of rows x columns entries; downloads_only: none
  // for uploads (to_device throws).
  Staging(Backend<T>& device, int rows, int columns, int slots = 2, bool downloads_only = false)
      : device_(device), rows_(std::max(1, rows)), columns_(std::max(1, columns)) {
    const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(rows_) * columns_;
    for (int s = 0; s < std::max(1, slots); ++s) {
      if (!downloads_only) uploads_.push_back({device.allocate_pinned(bytes), nullptr});
      downloads_.push_back({device.allocate_pinned(bytes), nullptr});
    }
  }
  // Nothing may still copy into or out of the slots once they go.
  ~Staging() {
    try {
      device_.synchronize();
    } catch (...) {
    }
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  int rows() const { return rows_; }
  int columns() const { return columns_; }

  // Reads each column as it is packed, from cache: visit(column, packed, rows), the column counted
  // from the copy's first, from several threads at once (distinct columns). false: stop the copy.
  // The input checks ride on the pass the upload makes anyway (on the H100 machine a pass of its own
  // over A took 0.047 s of a 0.28 s hybrid LU at n = 16384).
  using ColumnVisitor = std::function<bool(int column, const T* packed, int rows)>;

  // Host rows x cols (ldh) to device (ldd), ordered on queue q; rows <= this->rows(). With a
  // visitor, false where it refused a column: the chunk holding it and the rest are not sent.
  bool to_device(Queue q, int rows, int cols, const T* host, int ldh, T* device, int ldd,
                 const ColumnVisitor& visit = {}) {
    check_rows(rows);
    if (uploads_.empty() && cols > 0) throw Error("staging: these slots are for downloads only");
    for (int c = 0; c < cols; c += columns_) {
      const int w = std::min(columns_, cols - c);
      Slot& slot = uploads_[next_upload_];
      next_upload_ = (next_upload_ + 1) % uploads_.size();
      if (slot.copied) device_.host_wait(slot.copied);  // its previous DMA has read it
      T* staged = slot.data();
      const T* from = host + static_cast<long long>(c) * ldh;
      if (visit) {
        if (!pack_visiting(rows, w, from, ldh, staged, c, visit)) return false;
      } else {
        kernels::copy_block(rows, w, from, ldh, staged, rows);
      }
      device_.copy_to_device(q, rows, w, staged, rows, device + static_cast<long long>(c) * ldd, ldd);
      slot.copied = device_.record(q);
    }
    return true;
  }

  // Device rows x cols (ldd) to host (ldh), ordered on queue q; the host columns hold the data once
  // finish() of the returned ticket returns. rows <= this->rows().
  std::uint64_t to_host(Queue q, int rows, int cols, const T* device, int ldd, T* host, int ldh) {
    check_rows(rows);
    std::uint64_t ticket = 0;
    for (int c = 0; c < cols; c += columns_) {
      const int w = std::min(columns_, cols - c);
      const int s = next_download_;
      next_download_ = (next_download_ + 1) % downloads_.size();
      {
        std::unique_lock lock(mutex_);
        while (slot_busy(s)) unpack_oldest(lock);
      }
      T* staged = downloads_[s].data();
      device_.copy_to_host(q, rows, w, device + static_cast<long long>(c) * ldd, ldd, staged, rows);
      std::lock_guard lock(mutex_);
      pending_.push_back({s, device_.record(q), rows, w, host + static_cast<long long>(c) * ldh, ldh});
      ticket = ++issued_;
    }
    return ticket;
  }

  // Waits for the downloads up to `ticket` and unpacks them; 0 is nothing. Thread-safe.
  void finish(std::uint64_t ticket) {
    std::unique_lock lock(mutex_);
    while (unpacked_ < ticket) unpack_oldest(lock);
  }
  void finish_all() {
    std::uint64_t last;
    {
      std::lock_guard lock(mutex_);
      last = issued_;
    }
    finish(last);
  }

 private:
  struct Slot {
    std::shared_ptr<void> memory;
    EventPtr copied;  // uploads: the DMA out of it
    T* data() const { return static_cast<T*>(memory.get()); }
  };
  struct Pending {
    int slot;
    EventPtr arrived;
    int rows, cols;
    T* host;
    int ldh;
  };

  // kernels::copy_block into a slot, each column visited as it lands (columns first.. of the copy);
  // whether the visitor took every one.
  static bool pack_visiting(int rows, int cols, const T* from, int ldf, T* to, int first, const ColumnVisitor& visit) {
    bool taken = true;
#pragma omp parallel for schedule(static) reduction(&& : taken) \
    if (static_cast <long long>(rows) * cols > kernels::parallel_copy_entries)
    for (int j = 0; j < cols; ++j) {
      T* column = to + static_cast<long long>(j) * rows;
      std::copy(from + static_cast<long long>(j) * ldf, from + static_cast<long long>(j) * ldf + rows, column);
      taken = visit(first + j, column, rows) && taken;
    }
    return taken;
  }

  void check_rows(int rows) const {
    if (rows > rows_)
      throw Error("staging: " + std::to_string(rows) + " rows do not fit a slot of " + std::to_string(rows_));
  }
  bool slot_busy(int s) const {
    for (const auto& p : pending_)
      if (p.slot == s) return true;
    return false;
  }
  // The oldest download: waited for and unpacked (the lock is held: downloads unpack in order).
  void unpack_oldest(std::unique_lock<std::mutex>&) {
    const Pending& p = pending_.front();
    device_.host_wait(p.arrived);
    kernels::copy_block(p.rows, p.cols, downloads_[p.slot].data(), p.rows, p.host, p.ldh);
    pending_.pop_front();
    ++unpacked_;
  }

  Backend<T>& device_;
  int rows_, columns_;
  std::vector<Slot> uploads_, downloads_;
  std::size_t next_upload_ = 0, next_download_ = 0;
  std::mutex mutex_;
  std::deque<Pending> pending_;
  std::uint64_t issued_ = 0, unpacked_ = 0;
};

}  // namespace hetlu::backends
