// include/hetlu/hetlu_distributed.h over the C++ front ends; no exception crosses the C ABI.
#include <optional>
#include <string>

#include "distributed/blacs_grid.hpp"
#include "hetlu/detail/c_guard.hpp"
#include "hetlu/distributed.hpp"
#include "hetlu/hetlu_distributed.h"
#include "solvers/scalar.hpp"

namespace {

using hetlu::detail::c_guarded_info;

// Why a distributed solve of finite input is HETLU_ERROR_NOT_FINITE: `what` ("X(1,2) is Inf", "the
// factors are") was not finite after an overflow; with ScaLAPACK's info > 0 its factors overflowed
// (a NaN pivot read as zero), no exact zero pivot of A.
std::string overflow_message(const std::string& what, int info) {
  return what + " although A and B were finite: the " +
         (info > 0 ? "factorization overflowed (info " + std::to_string(info) + " is no exact zero pivot of A)"
                   : std::string("factorization or the solve overflowed"));
}

// The status every rank of the grid returns after p?gesv's INFO: an overflow (finite input) is
// HETLU_ERROR_NOT_FINITE, the rank holding it naming its entry: X Inf or NaN with INFO = 0, or
// factors Inf or NaN with INFO > 0 (a NaN pivot read as zero: "singular" on a 2 x 2 grid for a
// nonsingular A); else singular or success.
template <class T>
hetlu_status verdict_on_every_rank(int info, int n, int nrhs, const T* A, int ia, int ja, const int* desca, const T* B,
                                   int ib, int jb, const int* descb) {
  using hetlu::distributed::first_non_finite_part;
  const auto mine = info > 0   ? first_non_finite_part(n, n, A, ia, ja, desca)
                    : nrhs > 0 ? first_non_finite_part(n, nrhs, B, ib, jb, descb)
                               : std::nullopt;
  const int* grid = desca ? desca : descb;
  if (!hetlu::distributed::on_any_rank(grid[1], mine.has_value()))
    return info > 0 ? HETLU_ERROR_SINGULAR : HETLU_SUCCESS;
  const std::string where = mine
                                ? std::string(info > 0 ? "the global factor entry (" : "X(") +
                                      std::to_string(mine->row) + "," + std::to_string(mine->col) + ") is " + mine->what
                                : std::string(info > 0 ? "the factors are" : "X is") + " not finite on another rank";
  hetlu::detail::set_last_error("p?gesv: " + overflow_message(where, info));
  return HETLU_ERROR_NOT_FINITE;
}

template <class T>
hetlu_status descriptor_gesv(int n, int nrhs, T* A, int ia, int ja, const int* desca, int* ipiv, T* B, int ib, int jb,
                             const int* descb, int* info, int threads) {
  return c_guarded_info(info, [&] {
    // A null info on one rank fails every rank of the grid (gesv agrees on its own arguments).
    hetlu::distributed::Failure failure;
    failure.unless([&] {
      if (!info) throw hetlu::InvalidArgument("p?gesv: info is a null pointer");
    });
    if (const int* grid = desca ? desca : descb)
      hetlu::distributed::agree_on_failure(grid[1], failure, "another rank's arguments were refused", "p?gesv: ");
    else if (failure.failed())
      throw hetlu::InvalidArgument(failure.message);
    *info = hetlu::distributed::gesv(n, nrhs, A, ia, ja, desca, ipiv, B, ib, jb, descb, threads);
    return verdict_on_every_rank(*info, n, nrhs, A, ia, ja, desca, B, ib, jb, descb);
  });
}

// One device, as --resident names it (hetlu::distributed::resident_device), from a C string.
hetlu::Device resident_device(const char* text) {
  if (!text || !*text) throw hetlu::InvalidArgument("resident device: none given (cuda, or host:K)");
  return hetlu::distributed::resident_device(text);
}

template <class T>
hetlu_status resident_gesv(int n, int nrhs, T* A, const int* desca, int* ipiv, T* B, const int* descb,
                           const char* device, int* info, int threads) {
  return c_guarded_info(info, [&] {
    // What is refused on one rank alone fails every rank of the grid, none waiting in a collective
    // (the grid from desca, else descb; with neither there is none to agree over).
    hetlu::distributed::Failure failure;
    hetlu::Device parsed;
    failure.unless([&] {
      if (!info || !desca || !descb || !ipiv)
        throw hetlu::InvalidArgument("p?gesv resident: info, desca, descb or ipiv is a null pointer");
      parsed = resident_device(device);
    });
    const int* grid = desca ? desca : descb;
    if (!grid) throw hetlu::InvalidArgument("p?gesv resident: desca and descb are null pointers");
    const int context = grid[1];  // the descriptor's BLACS context (ScaLAPACK's CTXT_)
    hetlu::distributed::agree_on_failure(context, failure, "another rank's arguments were refused",
                                         "p?gesv resident: ");
    *info = hetlu::distributed::gesv_resident(n, nrhs, A, desca, ipiv, B, descb, parsed, threads);
    return verdict_on_every_rank(*info, n, nrhs, A, 1, 1, desca, B, 1, 1, descb);
  });
}

template <class T>
hetlu_status root_gesv(MPI_Comm comm, int root, int n, int nrhs, T* A, int lda, T* B, int ldb, int* info,
                       const hetlu_distributed_options* options) {
  return c_guarded_info(info, [&] {
    // Refused on each rank alone (no collective can run on it): MPI's own error would abort the job.
    int started = 0, ended = 0;
    MPI_Initialized(&started);
    MPI_Finalized(&ended);  // both callable at any time, unlike the collectives below
    if (!started || ended)
      throw hetlu::InvalidArgument(
          std::string("distributed gesv: MPI is ") +
          (ended ? "finalized (MPI_Finalize was called)" : "not initialized (call MPI_Init first)"));
    if (comm == MPI_COMM_NULL) throw hetlu::InvalidArgument("distributed gesv: comm is MPI_COMM_NULL");
    hetlu::distributed::DistributedPlan plan;
    std::string db;
    std::optional<hetlu::Device> resident;
    if (options) {
      plan.grid_rows = options->grid_rows, plan.grid_cols = options->grid_cols;
      plan.nb = options->nb, plan.threads_per_rank = options->threads_per_rank;
      if (options->db) db = options->db;
    }
    // Every rank must agree whether and where A stays resident: one rank's bad or missing device
    // fails them all, none waiting in a collective.
    std::string failure;
    try {
      if (!info) throw hetlu::InvalidArgument("info is a null pointer");
      if (options && options->resident) resident = resident_device(options->resident);
    } catch (const std::exception& e) {
      failure = e.what();
    }
    // (gesv_from_root refuses a resident device given on some ranks only.)
    // The first refusing rank's reason, on every rank.
    hetlu::distributed::agree_on_any_error(comm, failure.empty() ? failure : "distributed gesv: " + failure);
    const auto report = hetlu::distributed::gesv_from_root(comm, root, n, nrhs, A, lda, B, ldb, plan, db,
                                                           resident ? &*resident : nullptr);
    *info = report.info;
    // An overflow from finite input, on the root, said on every rank: X Inf or NaN with INFO = 0, or
    // the factors gathered back Inf or NaN with INFO > 0 (a NaN pivot read as zero, no zero of A).
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const bool factors = report.info > 0;
    int overflowed = 0;
    if (rank == root && n > 0)
      overflowed = factors ? !hetlu::scalar::all_finite(n, n, A, lda) : !hetlu::scalar::all_finite(n, nrhs, B, ldb);
    MPI_Bcast(&overflowed, 1, MPI_INT, root, comm);
    if (overflowed) {
      hetlu::detail::set_last_error(
          "distributed gesv: " +
          overflow_message(factors ? "the factors are not finite" : "X is not finite", report.info));
      return HETLU_ERROR_NOT_FINITE;
    }
    return factors ? HETLU_ERROR_SINGULAR : HETLU_SUCCESS;
  });
}

}  // namespace

extern "C" {

void hetlu_distributed_options_init(hetlu_distributed_options* options) {
  if (options) *options = hetlu_distributed_options{};
}

hetlu_status hetlu_pdgesv(int n, int nrhs, double* A, int ia, int ja, const int* desca, int* ipiv, double* B, int ib,
                          int jb, const int* descb, int* info, int threads_per_rank) {
  return descriptor_gesv(n, nrhs, A, ia, ja, desca, ipiv, B, ib, jb, descb, info, threads_per_rank);
}
hetlu_status hetlu_psgesv(int n, int nrhs, float* A, int ia, int ja, const int* desca, int* ipiv, float* B, int ib,
                          int jb, const int* descb, int* info, int threads_per_rank) {
  return descriptor_gesv(n, nrhs, A, ia, ja, desca, ipiv, B, ib, jb, descb, info, threads_per_rank);
}
hetlu_status hetlu_pdgesv_resident(int n, int nrhs, double* A, const int* desca, int* ipiv, double* B, const int* descb,
                                   const char* device, int* info, int threads_per_rank) {
  return resident_gesv(n, nrhs, A, desca, ipiv, B, descb, device, info, threads_per_rank);
}
hetlu_status hetlu_psgesv_resident(int n, int nrhs, float* A, const int* desca, int* ipiv, float* B, const int* descb,
                                   const char* device, int* info, int threads_per_rank) {
  return resident_gesv(n, nrhs, A, desca, ipiv, B, descb, device, info, threads_per_rank);
}
hetlu_status hetlu_pdgesv_root(MPI_Comm comm, int root, int n, int nrhs, double* A, int lda, double* B, int ldb,
                               int* info, const hetlu_distributed_options* options) {
  return root_gesv(comm, root, n, nrhs, A, lda, B, ldb, info, options);
}
hetlu_status hetlu_psgesv_root(MPI_Comm comm, int root, int n, int nrhs, float* A, int lda, float* B, int ldb,
                               int* info, const hetlu_distributed_options* options) {
  return root_gesv(comm, root, n, nrhs, A, lda, B, ldb, info, options);
}

}  // extern "C"
