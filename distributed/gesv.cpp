// ScaLAPACK's p?gesv behind hetlu's front ends (include/hetlu/distributed.hpp): the grid and block
// size chosen, a matrix on one rank moved onto the grid and back with p?gemr2d.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "distributed/scalapack.hpp"
#include "hetlu/distributed.hpp"
#include "hetlu/types.hpp"

extern "C" void Cblacs_gridmap(int* context, int* usermap, int ldumap, int rows, int cols);

namespace hetlu::distributed {
namespace {

constexpr int default_nb = 64;

// p?gesv and p?gemr2d by type.
int scalapack_gesv(int n, int nrhs, double* a, int ia, int ja, const int* desca, int* ipiv, double* b, int ib, int jb,
                   const int* descb) {
  int info = 0;
  pdgesv_(&n, &nrhs, a, &ia, &ja, desca, ipiv, b, &ib, &jb, descb, &info);
  return info;
}
int scalapack_gesv(int n, int nrhs, float* a, int ia, int ja, const int* desca, int* ipiv, float* b, int ib, int jb,
                   const int* descb) {
  int info = 0;
  psgesv_(&n, &nrhs, a, &ia, &ja, desca, ipiv, b, &ib, &jb, descb, &info);
  return info;
}
void redistribute(int m, int n, const double* a, const int* desca, double* b, const int* descb, int context) {
  const int one = 1;
  pdgemr2d_(&m, &n, a, &one, &one, desca, b, &one, &one, descb, &context);
}
void redistribute(int m, int n, const float* a, const int* desca, float* b, const int* descb, int context) {
  const int one = 1;
  psgemr2d_(&m, &n, a, &one, &one, desca, b, &one, &one, descb, &context);
}

// A BLACS grid over a communicator, released with it.
class BlacsGrid {
 public:
  // rows x cols over every rank in row-major order, or (usermap) the 1 x 1 grid of one rank.
  BlacsGrid(MPI_Comm comm, int rows, int cols, int only_rank = -1) : handle_(Csys2blacs_handle(comm)) {
    context_ = handle_;
    if (only_rank >= 0) {
      int map[1] = {only_rank};
      Cblacs_gridmap(&context_, map, 1, 1, 1);
    } else {
      Cblacs_gridinit(&context_, "Row", rows, cols);
    }
    if (context_ >= 0) Cblacs_gridinfo(context_, &rows_, &cols_, &row_, &col_);
  }
  ~BlacsGrid() {
    if (context_ >= 0) Cblacs_gridexit(context_);
    Cfree_blacs_system_handle(handle_);
  }
  BlacsGrid(const BlacsGrid&) = delete;
  BlacsGrid& operator=(const BlacsGrid&) = delete;
  bool member() const { return context_ >= 0; }
  int context() const { return context_; }
  int row() const { return row_; }
  int col() const { return col_; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }

 private:
  int handle_, context_ = -1;
  int rows_ = 0, cols_ = 0, row_ = -1, col_ = -1;
};

// A descriptor of an m x n matrix in nb x nb blocks on `grid` with local leading dimension lld;
// a rank outside the grid gets context -1, as ScaLAPACK expects.
std::vector<int> descriptor(const BlacsGrid& grid, int m, int n, int nb, int lld) {
  std::vector<int> desc(9, 0);
  desc[1] = -1;
  if (!grid.member()) return desc;
  const int zero = 0, context = grid.context();
  int info = 0;
  descinit_(desc.data(), &m, &n, &nb, &nb, &zero, &zero, &context, &lld, &info);
  if (info != 0) throw Error("descinit: argument " + std::to_string(-info) + " is illegal");
  return desc;
}

int local_count(int n, int nb, int index, int count) {
  const int zero = 0;
  return numroc_(&n, &nb, &index, &zero, &count);
}

// The root's argument check, its verdict sent to every rank: all throw, or none.
void agree_on_arguments(MPI_Comm comm, int root, const std::string& root_error) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int length = rank == root ? static_cast<int>(root_error.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, root, comm);
  if (length == 0) return;
  std::string message = rank == root ? root_error : std::string(length, ' ');
  MPI_Bcast(message.data(), length, MPI_CHAR, root, comm);
  throw InvalidArgument(message);
}

}  // namespace

DistributedPlan resolve(const DistributedPlan& plan, int ranks) {
  if (ranks < 1) throw InvalidArgument("distributed: " + std::to_string(ranks) + " ranks");
  DistributedPlan p = plan;
  if (p.nb < 0) throw InvalidArgument("distributed: nb = " + std::to_string(p.nb) + " must be >= 1");
  if (p.nb == 0) p.nb = default_nb;
  if (p.grid_rows < 0 || p.grid_cols < 0)
    throw InvalidArgument("distributed: the grid " + std::to_string(p.grid_rows) + " x " + std::to_string(p.grid_cols) +
                          " must be positive");
  if (p.grid_rows == 0 && p.grid_cols == 0) {
    p.grid_rows = 1;
    for (int r = 1; r * r <= ranks; ++r)
      if (ranks % r == 0) p.grid_rows = r;
    p.grid_cols = ranks / p.grid_rows;
  } else if (p.grid_rows == 0 || p.grid_cols == 0) {
    const int given = std::max(p.grid_rows, p.grid_cols);
    if (ranks % given != 0)
      throw InvalidArgument("distributed: " + std::to_string(ranks) + " ranks do not divide into a grid with " +
                            std::to_string(given) + (p.grid_rows ? " rows" : " columns"));
    (p.grid_rows ? p.grid_cols : p.grid_rows) = ranks / given;
  }
  if (p.grid_rows * p.grid_cols != ranks)
    throw InvalidArgument("distributed: the grid " + std::to_string(p.grid_rows) + " x " + std::to_string(p.grid_cols) +
                          " does not use the " + std::to_string(ranks) + " ranks");
  return p;
}

template <class T>
DistributedReport gesv_from_root(MPI_Comm comm, int root, int n, int nrhs, T* A, int lda, T* B, int ldb,
                                 const DistributedPlan& plan) {
  const double start = MPI_Wtime();
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  if (root < 0 || root >= ranks)
    throw InvalidArgument("distributed: root " + std::to_string(root) + " is not a rank of the communicator");
  DistributedReport report;
  report.plan = resolve(plan, ranks);
  std::string error;
  if (rank == root) {
    if (n < 0 || nrhs < 0)
      error = "distributed gesv: n = " + std::to_string(n) + ", nrhs = " + std::to_string(nrhs) + " must be >= 0";
    else if (lda < std::max(1, n) || ldb < std::max(1, n))
      error = "distributed gesv: lda = " + std::to_string(lda) + " and ldb = " + std::to_string(ldb) +
              " must be >= max(1, n) = " + std::to_string(std::max(1, n));
    else if (n > 0 && (!A || (!B && nrhs > 0)))
      error = "distributed gesv: A or B is a null pointer on the root";
  }
  agree_on_arguments(comm, root, error);
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
  const double solve_start = MPI_Wtime();
  report.info = scalapack_gesv(n, nrhs, a.data(), 1, 1, desc_a.data(), ipiv.data(), b.data(), 1, 1, desc_b.data());
  report.solve_seconds = MPI_Wtime() - solve_start;
  if (report.info < 0) throw Error("p?gesv rejected argument " + std::to_string(-report.info));
  redistribute(n, n, a.data(), desc_a.data(), A, root_a.data(), grid.context());
  if (nrhs > 0 && report.info == 0) redistribute(n, nrhs, b.data(), desc_b.data(), B, root_b.data(), grid.context());
  report.seconds = MPI_Wtime() - start;
  return report;
}

template <class T>
int gesv(int n, int nrhs, T* A, int ia, int ja, const int* desc_a, int* ipiv, T* B, int ib, int jb, const int* desc_b) {
  const int info = scalapack_gesv(n, nrhs, A, ia, ja, desc_a, ipiv, B, ib, jb, desc_b);
  if (info < 0) throw InvalidArgument("p?gesv: argument " + std::to_string(-info) + " is illegal");
  return info;
}

template DistributedReport gesv_from_root<double>(MPI_Comm, int, int, int, double*, int, double*, int,
                                                  const DistributedPlan&);
template DistributedReport gesv_from_root<float>(MPI_Comm, int, int, int, float*, int, float*, int,
                                                 const DistributedPlan&);
template int gesv<double>(int, int, double*, int, int, const int*, int*, double*, int, int, const int*);
template int gesv<float>(int, int, float*, int, int, const int*, int*, float*, int, int, const int*);

}  // namespace hetlu::distributed
