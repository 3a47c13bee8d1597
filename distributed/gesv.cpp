// ScaLAPACK's p?gesv behind hetlu's front ends (include/hetlu/distributed.hpp): the plan resolved
// on the root, a matrix on one rank moved onto the grid and back with p?gemr2d.
#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include "distributed/blacs_grid.hpp"
#include "distributed/scalapack_calls.hpp"
#include "hetlu/distributed.hpp"
#include "hetlu/types.hpp"
#include "solvers/checks.hpp"

namespace hetlu::distributed {

RankLayout layout_of(MPI_Comm comm) {
  RankLayout layout;
  MPI_Comm_size(comm, &layout.ranks);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int on_node = 1;
  MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  MPI_Allreduce(&on_node, &layout.ranks_per_node, 1, MPI_INT, MPI_MAX, comm);
  return layout;
}

namespace {

// p?gesv, with the one case ScaLAPACK leaves out: p?getrf returns at once for a 1 x 1 matrix without
// looking at it, and p?gesv then divided by a zero A(ia, ja) (X = Inf, "not finite" on every front
// end where LAPACK's info is 1). That entry is looked at first, agreed on over the grid; where it is
// zero, p?gesv still runs, for its argument checks (a 1 x 1 zero with nrhs = -1 or a misaligned ia
// was "singular": a hostile helper's finding), on A(ia, ja) = 1, which leaves B as it was (b / 1 is
// b to the last bit); then the zero is put back, ipiv names its row as p?getrf's quick return
// does, and info says the zero pivot.
template <class T>
int scalapack_gesv_checked(int n, int nrhs, T* A, int ia, int ja, const int* desc_a, int* ipiv, T* B, int ib, int jb,
                           const int* desc_b) {
  // A descriptor ScaLAPACK would refuse is left to it (MB = 0 divided by zero here), on every rank
  // of the grid alike: where any rank cannot index with its own, none looks.
  if (n == 1) {
    const auto place = place_of(ia, ja, desc_a);
    T* pivot =
        place && place->mine ? A + place->local_row + static_cast<long long>(place->local_col) * desc_a[8] : nullptr;
    if (!on_any_rank(desc_a[1], !place.has_value()) && place && on_any_rank(desc_a[1], pivot && *pivot == T(0))) {
      const T zero = pivot ? *pivot : T(0);  // -0 stays -0
      if (pivot) *pivot = T(1);
      const int info = scalapack_gesv(n, nrhs, A, ia, ja, desc_a, ipiv, B, ib, jb, desc_b);
      if (pivot) *pivot = zero;
      if (info < 0) return info;
      if (place->in_my_row) ipiv[place->local_row] = ia;
      return 1;
    }
  }
  return scalapack_gesv(n, nrhs, A, ia, ja, desc_a, ipiv, B, ib, jb, desc_b);
}

}  // namespace

template <class T>
DistributedReport gesv_from_root(MPI_Comm comm, int root, int n, int nrhs, T* A, int lda, T* B, int ldb,
                                 const DistributedPlan& plan, const std::string& db_path, const Device* resident) {
  const double start = MPI_Wtime();
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  // Every rank names the same root and precision, or every rank fails: ranks waiting for different
  // roots in the scatter hung, and psgesv beside pdgesv corrupted the heap (hetlu solve --precision
  // single on rank 0 alone, a hostile test).
  const int word = static_cast<int>(sizeof(T));
  int values[4] = {root, -root, word, -word}, extremes[4] = {0, 0, 0, 0};
  MPI_Allreduce(values, extremes, 4, MPI_INT, MPI_MAX, comm);
  if (extremes[0] != -extremes[1])
    throw InvalidArgument("distributed gesv: root differs between ranks (from " + std::to_string(-extremes[1]) +
                          " to " + std::to_string(extremes[0]) + ")");
  if (extremes[2] != -extremes[3])
    throw InvalidArgument("distributed gesv: the precision differs between ranks (single on some, double on others)");
  if (root < 0 || root >= ranks)
    throw InvalidArgument("distributed: root " + std::to_string(root) + " is not a rank of the communicator");
  // Every rank resident, or none: the two take different collectives (hetlu solve --resident on
  // some ranks only hung).
  int resident_here[2] = {resident ? 1 : 0, resident ? 0 : 1}, anywhere[2] = {0, 0};
  MPI_Allreduce(resident_here, anywhere, 2, MPI_INT, MPI_MAX, comm);
  if (anywhere[0] && anywhere[1])
    throw InvalidArgument("distributed gesv: a resident device is given on some ranks and not on others");
  const RankLayout layout = layout_of(comm);
  DistributedReport report;
  std::string error;
  if (rank == root) try {
      if (n < 0 || nrhs < 0)
        throw InvalidArgument("distributed gesv: n = " + std::to_string(n) + ", nrhs = " + std::to_string(nrhs) +
                              " must be >= 0");
      if (lda < std::max(1, n) || ldb < std::max(1, n))
        throw InvalidArgument("distributed gesv: lda = " + std::to_string(lda) + " and ldb = " + std::to_string(ldb) +
                              " must be >= max(1, n) = " + std::to_string(std::max(1, n)));
      if (n > 0 && (!A || (!B && nrhs > 0)))
        throw InvalidArgument("distributed gesv: A or B is a null pointer on the root");
      // As hetlu_dgesv: X is gathered into B while A is gathered back (B = A gave success, wrong X).
      checks::apart("B", B, ldb, nrhs, "A", A, lda, n, n);
      // As hetlu_dgesv: a NaN or Inf is refused, naming its entry (p?gesv returned X all NaN with info 0).
      checks::finite("A", n, n, A, lda);
      if (nrhs > 0) checks::finite("B", n, nrhs, B, ldb);
      const auto resolved =
          resolve_plan(plan, std::is_same_v<T, float> ? Precision::single : Precision::double_, n, layout, db_path);
      report.plan = resolved.plan;
      report.warnings = resolved.warnings;
      if (resident)  // priced as it runs, not as p?gesv
        report.plan.predicted_seconds =
            price_resident(report.plan, std::is_same_v<T, float> ? Precision::single : Precision::double_, n, layout,
                           *resident, db_path)
                .plan.predicted_seconds;
    } catch (const Error& e) {
      error = e.what();
    }
  agree_on_error(comm, root, error);
  broadcast_plan(comm, root, report.plan);
  int sizes[2] = {n, nrhs};
  MPI_Bcast(sizes, 2, MPI_INT, root, comm);
  n = sizes[0], nrhs = sizes[1];
  if (n == 0) return report;

  const int nb = report.plan.nb;
  BlacsGrid grid(comm, report.plan.grid_rows, report.plan.grid_cols);
  BlacsGrid root_grid(comm, 1, 1, root);
  const int my_rows = local_count(n, nb, grid.row(), grid.rows());
  const int my_cols = local_count(n, nb, grid.col(), grid.cols());
  const int my_rhs = local_count(nrhs, nb, grid.col(), grid.cols());
  const int lld = std::max(1, my_rows);
  std::vector<T> a(static_cast<std::size_t>(lld) * std::max(1, my_cols));
  std::vector<T> b(static_cast<std::size_t>(lld) * std::max(1, my_rhs));
  std::vector<int> ipiv(static_cast<std::size_t>(my_rows) + nb);
  const auto desc_a = descriptor(grid, n, n, nb, lld), desc_b = descriptor(grid, n, nrhs, nb, lld);
  const auto root_a = descriptor(root_grid, n, n, nb, std::max(1, lda)),
             root_b = descriptor(root_grid, n, nrhs, nb, std::max(1, ldb));
  redistribute(n, n, A, root_a.data(), a.data(), desc_a.data(), grid.context());
  if (nrhs > 0) redistribute(n, nrhs, B, root_b.data(), b.data(), desc_b.data(), grid.context());
  report.engine = resident ? "resident on " + to_string(*resident) : "p?gesv";
  {
    const BlasThreads threads(report.plan.threads_per_rank);
    const double solve_start = MPI_Wtime();
    report.info = resident ? gesv_resident(n, nrhs, a.data(), desc_a.data(), ipiv.data(), b.data(), desc_b.data(),
                                           *resident, 0, &report.phases)
                           : scalapack_gesv_checked(n, nrhs, a.data(), 1, 1, desc_a.data(), ipiv.data(), b.data(), 1, 1,
                                                    desc_b.data());
    report.solve_seconds = MPI_Wtime() - solve_start;
  }
  if (report.info < 0) throw Error("p?gesv: " + illegal_argument(-report.info, p_gesv_arguments));
  redistribute(n, n, a.data(), desc_a.data(), A, root_a.data(), grid.context());
  if (nrhs > 0 && report.info == 0) redistribute(n, nrhs, b.data(), desc_b.data(), B, root_b.data(), grid.context());
  report.seconds = MPI_Wtime() - start;
  return report;
}

template <class T>
int gesv(int n, int nrhs, T* A, int ia, int ja, const int* desc_a, int* ipiv, T* B, int ib, int jb, const int* desc_b,
         int threads_per_rank) {
  // What is refused on one rank alone fails every rank of the grid, none waiting in p?gesv's
  // collectives (a bad thread count or a null ipiv on one rank hung the others; a null A crashed
  // in the BLAS). A null local array is fine where the rank holds none of the matrix.
  Failure failure;
  failure.unless([&] {
    if (!desc_a || !desc_b || !ipiv) throw InvalidArgument("p?gesv: desc_a, desc_b or ipiv is a null pointer");
    check_local_arrays(A, desc_a, B, desc_b, "p?gesv");
    check_systems_apart(n, nrhs, A, ia, ja, desc_a, B, ib, jb, desc_b, ipiv, sizeof(T), "p?gesv");
    check_threads_per_rank(threads_per_rank, "p?gesv");
    check_finite_part("A", n, n, A, ia, ja, desc_a, "p?gesv");
    check_finite_part("B", n, nrhs, B, ib, jb, desc_b, "p?gesv");
  });
  const int* grid = desc_a ? desc_a : desc_b;
  if (!grid) throw InvalidArgument("p?gesv: desc_a and desc_b are null pointers");
  agree_on_failure(grid[field_ctxt], failure, "another rank's arguments were refused", "p?gesv: ");
  // p?gesv's collectives need the global arguments and the precision the same on every rank (psgesv
  // beside pdgesv corrupted the heap; another NB hung a grid).
  agree_on_values(
      grid[field_ctxt], with_global_fields({n, nrhs, static_cast<int>(sizeof(T)), ia, ja, ib, jb}, {desc_a, desc_b}),
      "p?gesv: n, nrhs, the precision, ia, ja, ib, jb and the descriptors' M, N, MB, NB and source process");
  const BlasThreads threads(threads_per_rank);
  const int info = scalapack_gesv_checked(n, nrhs, A, ia, ja, desc_a, ipiv, B, ib, jb, desc_b);
  if (info < 0) throw InvalidArgument("p?gesv: " + illegal_argument(-info, p_gesv_arguments));
  return info;
}

template DistributedReport gesv_from_root<double>(MPI_Comm, int, int, int, double*, int, double*, int,
                                                  const DistributedPlan&, const std::string&, const Device*);
template DistributedReport gesv_from_root<float>(MPI_Comm, int, int, int, float*, int, float*, int,
                                                 const DistributedPlan&, const std::string&, const Device*);
template int gesv<double>(int, int, double*, int, int, const int*, int*, double*, int, int, const int*, int);
template int gesv<float>(int, int, float*, int, int, const int*, int*, float*, int, int, const int*, int);

}  // namespace hetlu::distributed
