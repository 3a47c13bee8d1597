// The network between ranks, measured with MPI itself: ping-pong between the first and the last
// rank (on different nodes when there are several), and broadcasts along a row and a column of the
// squarest grid, fitted to one level of a binomial tree.
#include <mpi.h>

#include <vector>

#include "hetlu/detail/statistics.hpp"
#include "hetlu/distributed.hpp"

namespace hetlu::distributed {
namespace {

constexpr int small_bytes = 8;
constexpr int large_bytes = 4 << 20;

// Half the round trip of `bytes` between ranks `a` and `b`, the median of several batches.
double ping_pong(MPI_Comm comm, int a, int b, int bytes, int round_trips) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::vector<char> buffer(bytes);
  std::vector<double> batches;
  for (int batch = 0; batch < 5; ++batch) {
    MPI_Barrier(comm);
    const double start = MPI_Wtime();
    for (int i = 0; i < round_trips; ++i) {
      if (rank == a) {
        MPI_Send(buffer.data(), bytes, MPI_CHAR, b, 0, comm);
        MPI_Recv(buffer.data(), bytes, MPI_CHAR, b, 0, comm, MPI_STATUS_IGNORE);
      } else if (rank == b) {
        MPI_Recv(buffer.data(), bytes, MPI_CHAR, a, 0, comm, MPI_STATUS_IGNORE);
        MPI_Send(buffer.data(), bytes, MPI_CHAR, a, 0, comm);
      }
    }
    batches.push_back((MPI_Wtime() - start) / (2.0 * round_trips));
  }
  double median = detail::median(batches);
  MPI_Bcast(&median, 1, MPI_DOUBLE, a, comm);
  return median;
}

// Seconds of one broadcast of `bytes` over `comm`, the slowest rank's, median of batches.
double broadcast(MPI_Comm comm, MPI_Comm world, int bytes, int repetitions) {
  std::vector<char> buffer(bytes);
  std::vector<double> batches;
  for (int batch = 0; batch < 5; ++batch) {
    MPI_Barrier(world);
    const double start = MPI_Wtime();
    for (int i = 0; i < repetitions; ++i) MPI_Bcast(buffer.data(), bytes, MPI_CHAR, i % 2, comm);
    double seconds = (MPI_Wtime() - start) / repetitions, slowest = 0;
    MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, world);
    batches.push_back(slowest);
  }
  return detail::median(batches);
}

}  // namespace

NetworkProfile probe_network(MPI_Comm comm) {
  NetworkProfile net;
  net.layout = layout_of(comm);
  const int ranks = net.layout.ranks;
  if (ranks == 1) {  // no network: nothing the model would charge
    net.bandwidth_bytes_per_second = net.broadcast_bandwidth_bytes_per_second = 1e15;
    net.source = "one rank: no network";
    return net;
  }
  const double small = ping_pong(comm, 0, ranks - 1, small_bytes, 200);
  const double large = ping_pong(comm, 0, ranks - 1, large_bytes, 5);
  net.latency_seconds = small;
  net.bandwidth_bytes_per_second = large_bytes / std::max(large - small, 1e-9);

  // Broadcasts within the rows and the columns of the squarest grid (a dimension of one rank has
  // no broadcast); each is fitted per tree level and the two averaged.
  int rows = 1, cols = 1, rank = 0;
  squarest_grid(ranks, rows, cols);
  MPI_Comm_rank(comm, &rank);
  double latency = 0, seconds_per_byte = 0;
  int fitted = 0;
  for (const bool along_row : {true, false}) {
    const int size = along_row ? cols : rows;
    MPI_Comm line;
    MPI_Comm_split(comm, along_row ? rank / cols : rank % cols, rank, &line);
    if (size > 1) {
      const double levels = broadcast_tree_levels(size);
      const double t_small = broadcast(line, comm, small_bytes, 200), t_large = broadcast(line, comm, large_bytes, 5);
      latency += t_small / levels;
      seconds_per_byte += std::max(t_large - t_small, 1e-9) / levels / large_bytes;
      ++fitted;
    }
    MPI_Comm_free(&line);
  }
  if (fitted == 0) {  // cannot happen with ranks > 1, but a profile always has a bandwidth
    net.broadcast_latency_seconds = net.latency_seconds;
    net.broadcast_bandwidth_bytes_per_second = net.bandwidth_bytes_per_second;
  } else {
    net.broadcast_latency_seconds = latency / fitted;
    net.broadcast_bandwidth_bytes_per_second = fitted / seconds_per_byte;
  }
  net.source =
      "measured on " + std::to_string(ranks) + " ranks, " + std::to_string(net.layout.ranks_per_node) + " per node";
  return net;
}

}  // namespace hetlu::distributed
