// The distributed forms of solve, calibrate and bench (#18), run under mpirun: every rank runs the
// command; rank 0 reads, writes and prints, and only rank 0 reports an error (the others exit with
// the same status, silently). Built with MPI and ScaLAPACK; without them each says so.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace hetlu::cli {

// --grid PxQ (either side 0: from the rank count), --nb, --threads-per-rank, --resident DEVICE.
struct DistributedArgs {
  std::string grid;
  std::string resident;  // solve: empty for p?gesv; bench: the resident row's device (empty: cuda, else host)
  std::optional<int> nb, threads_per_rank;
};

struct DistributedSolveArgs {
  std::string a_path, b_path, x_path, db, precision = "double";
  DistributedArgs plan;
  bool json = false;
};
// Returns the exit status (exit_inaccurate for a backward error above the tolerance).
int solve_distributed(const DistributedSolveArgs& args);

struct DistributedCalibrateArgs {
  std::string db;
  std::vector<int> sizes;
  std::vector<std::string> precisions;
  int candidates = 6, repetitions = 3;
  bool json = false;
};
void calibrate_distributed(const DistributedCalibrateArgs& args);

struct DistributedBenchArgs {
  std::string db, precision = "double";
  int n = 0, repetitions = 3;
  DistributedArgs plan;
  bool json = false;
};
void bench_distributed(const DistributedBenchArgs& args);

// Whether this process started MPI: an error met after that is said by rank 0 in the ranks' last
// collective step (MPI_Finalize waits for every rank), one met before it races mpirun's teardown.
bool mpi_started();

}  // namespace hetlu::cli
