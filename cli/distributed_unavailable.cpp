// The distributed commands in a build without MPI and ScaLAPACK: each says why it cannot run.

#include "cli/commands.hpp"
#include "cli/distributed.hpp"

namespace hetlu::cli {
namespace {

[[noreturn]] void unavailable() {
  throw CommandFailure(exit_error,
                       "--distributed is not available: this hetlu was built without MPI and ScaLAPACK (install "
                       "libopenmpi-dev and libscalapack-openmpi-dev, then configure with -DHETLU_WITH_MPI=ON)");
}

}  // namespace

int solve_distributed(const DistributedSolveArgs&) {
  unavailable();
}
void calibrate_distributed(const DistributedCalibrateArgs&) {
  unavailable();
}
void bench_distributed(const DistributedBenchArgs&) {
  unavailable();
}
bool mpi_started() {
  return false;
}

}  // namespace hetlu::cli
