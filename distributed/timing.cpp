// One configuration of p?gesv timed on a system generated where it lives: each rank fills its own
// blocks from the global indices, so no root holds the matrix and every grid solves the same one.
// A fixed number of runs rather than tuner::measure's adaptive count: p?gesv is collective, so every
// rank must take the same samples, and measure's stop on its spread and its time cap reads each
// rank's own clock (ranks stopping apart would wait on each other forever). A sample is the slowest
// rank's time; the callers summarize them as the tuner does (detail::median).
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "distributed/blacs_grid.hpp"
#include "distributed/scalapack_calls.hpp"
#include "hetlu/distributed.hpp"

namespace hetlu::distributed {
namespace {

// An entry in [-1, 1) from its global position (splitmix64 of the pair).
double entry(std::uint64_t row, std::uint64_t col) {
  std::uint64_t z = row * 0x9E3779B97F4A7C15ull + col + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * 0x1.0p-52 - 1.0;
}

// The global index of local index `local` of process `index` among `count`, in nb-blocks.
std::uint64_t global_index(int local, int nb, int index, int count) {
  return (std::uint64_t(local / nb) * count + index) * nb + local % nb;
}

template <class T>
void fill(std::vector<T>& local, int rows, int cols, int lld, int nb, const BlacsGrid& grid, int column_offset) {
  for (int j = 0; j < cols; ++j) {
    const auto gj = global_index(j, nb, grid.col(), grid.cols()) + column_offset;
    for (int i = 0; i < rows; ++i)
      local[i + static_cast<std::size_t>(j) * lld] = T(entry(global_index(i, nb, grid.row(), grid.rows()), gj));
  }
}

template <class T>
Timing time_typed(MPI_Comm comm, int n, const DistributedPlan& plan, int repetitions, const Device* resident,
                  ResidentPhases* phases) {
  BlacsGrid grid(comm, plan.grid_rows, plan.grid_cols);
  const int nb = plan.nb;
  const int rows = local_count(n, nb, grid.row(), grid.rows()), cols = local_count(n, nb, grid.col(), grid.cols());
  const int rhs = local_count(1, nb, grid.col(), grid.cols());
  const int lld = std::max(1, rows);
  std::vector<T> a(static_cast<std::size_t>(lld) * std::max(1, cols)),
      b(static_cast<std::size_t>(lld) * std::max(1, rhs));
  std::vector<int> ipiv(static_cast<std::size_t>(rows) + nb);
  const auto desc_a = descriptor(grid, n, n, nb, lld), desc_b = descriptor(grid, n, 1, nb, lld);
  Timing timing;
  const BlasThreads threads(plan.threads_per_rank);
  for (int r = 0; r < repetitions; ++r) {
    fill(a, rows, cols, lld, nb, grid, 0);
    fill(b, rows, rhs, lld, nb, grid, n);
    MPI_Barrier(comm);
    const double start = MPI_Wtime();
    ResidentPhases run;
    timing.info =
        resident
            ? gesv_resident(n, 1, a.data(), desc_a.data(), ipiv.data(), b.data(), desc_b.data(), *resident, 0, &run)
            : scalapack_gesv(n, 1, a.data(), 1, 1, desc_a.data(), ipiv.data(), b.data(), 1, 1, desc_b.data());
    double seconds = MPI_Wtime() - start, slowest = 0;
    MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    timing.samples.push_back(slowest);
    if (phases) {
      double mine[7] = {run.upload, run.panel, run.interchanges, run.broadcasts, run.update, run.solve, run.link_bytes};
      double most[7];
      MPI_Allreduce(mine, most, 7, MPI_DOUBLE, MPI_MAX, comm);
      *phases = {most[0], most[1], most[2], most[3], most[4], most[5], most[6]};
    }
  }
  return timing;
}

}  // namespace

Timing time_gesv(MPI_Comm comm, Precision precision, int n, const DistributedPlan& plan, int repetitions,
                 const Device* resident, ResidentPhases* phases) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  if (n < 1 || repetitions < 1 || plan.nb < 1 || plan.grid_rows * plan.grid_cols != ranks)
    throw InvalidArgument("time_gesv: n, repetitions, nb and a grid of every rank must be given");
  return precision == Precision::single ? time_typed<float>(comm, n, plan, repetitions, resident, phases)
                                        : time_typed<double>(comm, n, plan, repetitions, resident, phases);
}

}  // namespace hetlu::distributed
