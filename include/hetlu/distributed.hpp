// Distributed solves over MPI with ScaLAPACK (#18): a system too large for one machine, on a P x Q
// grid of MPI ranks holding the matrix in ScaLAPACK's 2-D block-cyclic layout. MPI and BLACS do
// the communication and ScaLAPACK's p?gesv the algorithm; hetlu chooses the grid, the block size
// and the BLAS threads of each rank (tuned, else modelled: distributed_plan.hpp), and moves a matrix
// held by one rank onto the grid and back.
//
// Built when MPI and ScaLAPACK are found (HETLU_WITH_MPI); link hetlu::distributed. Every rank of
// the communicator calls these collectively, as it calls ScaLAPACK.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "hetlu/distributed_plan.hpp"

namespace hetlu::distributed {

// The one device each rank's part of A stays on (--resident, options->resident): cuda, or host:K;
// InvalidArgument naming the text otherwise.
inline Device resident_device(std::string_view text) {
  const auto set = from_string<DeviceSet>(text);
  if (set.size() != 1)
    throw InvalidArgument("resident device '" + std::string(text) + "': one device per rank (cuda, or host:K)");
  return set.front();
}

// The communicator's rank count and the most ranks that share a node (MPI_COMM_TYPE_SHARED).
// Collective.
RankLayout layout_of(MPI_Comm comm);

// The phases of a device-resident factorization (getrf_resident) on this rank, in seconds of wall
// clock, and the bytes its link carried both ways.
struct ResidentPhases {
  double upload = 0;        // the local matrix to the device, once
  double panel = 0;         // the panel down and p?getf2 (waiting for the device's last update)
  double interchanges = 0;  // p?laswp left and right, the touched rows down and up, p?trsm's U row
  double broadcasts = 0;    // L along the process row, U down the process column (BLACS)
  double update = 0;        // the device's GEMMs (device time, overlapping the CPUs' next steps)
  double solve = 0;         // p?getrs on the CPUs
  double link_bytes = 0;
};

// What a solve did.
struct DistributedReport {
  DistributedPlan plan;               // as resolved (the same on every rank)
  int info = 0;                       // ScaLAPACK's (> 0: U(info, info) is exactly zero), on every rank
  double seconds = 0;                 // the whole call: resolution, scatter, p?gesv, gather
  double solve_seconds = 0;           // p?gesv alone
  std::vector<std::string> warnings;  // the root's (a damaged database, say)
  std::string engine;                 // "p?gesv", or "resident on host:2" (getrf_resident)
  ResidentPhases phases;              // this rank's, when resident
};

// A X = B for the n x n A and n x nrhs B that rank `root` holds (column-major, leading dimensions
// lda and ldb; the other ranks' pointers are not read): scattered to the grid, solved with
// ScaLAPACK's p?gesv (partial pivoting), X gathered back into B on the root, A overwritten there by
// its factors (row-interchanged as p?gesv leaves them). The plan's zero fields are resolved on the
// root (resolve_plan, with db_path). `resident` (null: ScaLAPACK's p?gesv) solves with
// gesv_resident on that device of each rank instead (given on every rank, or on none: else
// InvalidArgument on every rank). Collective over `comm`; every rank gets the report. Bad arguments
// on the root throw InvalidArgument on every rank.
template <class T>
DistributedReport gesv_from_root(MPI_Comm comm, int root, int n, int nrhs, T* A, int lda, T* B, int ldb,
                                 const DistributedPlan& plan = {}, const std::string& db_path = "",
                                 const Device* resident = nullptr);

// The seed's GPU-resident LU (scalapack-gpu-lu-qr-du §IV-A, its Algorithm 1, second option): each
// rank keeps its local part of A on `device` (cuda, or a host backend's team standing in for one)
// for the whole factorization. Per step the panel comes to the CPUs for ScaLAPACK's p?getf2, the
// interchanges left of it run there, only the rows the pivots touch come back for p?laswp and the U
// block row's p?trsm, and BLACS broadcasts L along the process rows and U down the columns, so that
// each rank updates its trailing matrix with one GEMM on its device. A and ipiv end as p?getrf
// leaves them, in host memory. The descriptor must have square blocks starting on process (0, 0)
// and describe the whole n x n matrix (ia = ja = 1). Returns info (> 0: U(info, info) is exactly
// zero, on every rank). Collective over the grid; a device that cannot hold a rank's part fails
// every rank with an Error. `phases` (may be null) gets this rank's phase times.
template <class T>
int getrf_resident(int n, T* A, const int* desc_a, int* ipiv, const Device& device, ResidentPhases* phases = nullptr);

// getrf_resident, then p?getrs on the CPUs (when info is 0): the device-resident p?gesv.
// threads_per_rank > 0 sets this rank's BLAS threads for the call.
template <class T>
int gesv_resident(int n, int nrhs, T* A, const int* desc_a, int* ipiv, T* B, const int* desc_b, const Device& device,
                  int threads_per_rank = 0, ResidentPhases* phases = nullptr);

// ScaLAPACK's p?gesv on a matrix already distributed (ScaLAPACK descriptors desc_a and desc_b, on a
// BLACS grid the caller made): the front end an MPI application with its own layout calls. The
// layout is the caller's; threads_per_rank > 0 sets this rank's BLAS threads for the call. Returns
// info; throws InvalidArgument with ScaLAPACK's argument number for a bad argument.
template <class T>
int gesv(int n, int nrhs, T* A, int ia, int ja, const int* desc_a, int* ipiv, T* B, int ib, int jb, const int* desc_b,
         int threads_per_rank = 0);

// The network between the communicator's ranks, measured (collective; every rank gets the result):
// ping-pong between the first and the last rank, broadcasts along a row and a column of the
// squarest grid.
NetworkProfile probe_network(MPI_Comm comm);

// One timed configuration: p?gesv on a random n x n system (entries in [-1, 1] from their global
// indices, so every grid solves the same system) generated on the grid, `repetitions` times.
// Collective; seconds of each run, the slowest rank's; info of the last.
struct Timing {
  std::vector<double> samples;
  int info = 0;
};
// `resident` (null: p?gesv) times gesv_resident on that device instead; `phases` (may be null) then
// gets each phase's largest time over the ranks in the last run.
Timing time_gesv(MPI_Comm comm, Precision precision, int n, const DistributedPlan& plan, int repetitions,
                 const Device* resident = nullptr, ResidentPhases* phases = nullptr);

// hetlu calibrate --distributed: the network probed and stored for this layout, then for each order
// the model's best configurations (nb, grid, threads per rank) timed, with the default one (nb = 64,
// the squarest grid, one thread per rank), each stored as a trial (one transaction each: a killed
// calibration keeps what it measured, and a trial stored before is not measured again). The
// database is written by rank 0. Collective.
struct CalibrationOptions {
  std::string db_path;                    // empty: the default path
  std::vector<int> sizes = {1000, 2000};  // orders tuned
  std::vector<Precision> precisions = {Precision::double_};
  int candidates = 6;  // the model's best, timed at each order
  int repetitions = 3;
};
struct CalibrationRow {
  Precision precision = Precision::double_;
  int n = 0;
  DistributedPlan plan;
  double median_seconds = 0;
  bool reused = false;  // stored by an earlier calibration
  std::string error;    // a failed configuration
};
struct CalibrationReport {
  RankLayout layout;
  NetworkProfile network;
  // Rank 0's: whether the model priced the configurations from this machine's probed CPU GEMM rates
  // (`hetlu probe` or `hetlu calibrate` ran on it), or from the datasheet's, which priced 16 ranks
  // on 16 cores 1.5x fast (bench/results/2026-11-29-h200-session51.md).
  bool cpu_rates_probed = false;
  std::vector<CalibrationRow> rows;  // every configuration, in the order timed
  std::string db_path;
};
CalibrationReport calibrate(MPI_Comm comm, const CalibrationOptions& options,
                            const std::function<void(const CalibrationRow&)>& progress = {});

}  // namespace hetlu::distributed
