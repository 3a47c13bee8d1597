// The width of a staging slot (solvers/staging.hpp), one definition for the solvers that stage
// their copies and the model that prices them.
#pragma once

#include <algorithm>
#include <cstddef>

namespace hetlu::detail {

// Bulk copies (the matrix up before the first step, the factors back after the last) are
// pipelined in slots of about this many bytes: large enough that each DMA runs at the link's rate,
// small enough that packing one overlaps the copy of the other and little is page-locked.
inline constexpr std::size_t bulk_staging_slot_bytes = std::size_t(32) << 20;

// Columns of a `rows`-row slot. Where the CPUs and the device exchange a block column every step
// (a CPU share d >= 1), a slot holds one block column (nb), so that a download is one DMA the CPUs
// wait for only when they need it; otherwise (d = 0, every copy in bulk) about 32 MiB.
inline int staging_slot_columns(int rows, int cols, int nb, bool per_step, std::size_t word) {
  const int bulk = static_cast<int>(
      std::max<std::size_t>(1, bulk_staging_slot_bytes / (word * static_cast<std::size_t>(std::max(1, rows)))));
  return std::max(1, std::min(cols, per_step ? nb : bulk));
}

// With the panel on the device (d = 0), the matrix goes up beside the first steps: this many block
// columns before the first panel, and as many more each step (solvers/hybrid_lu.hpp's
// device_panels), so that the upload, several times faster than the factorization, stays ahead.
inline constexpr int upload_ahead_block_columns = 4;

}  // namespace hetlu::detail
