#include "distributed/blacs_grid.hpp"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "distributed/scalapack.hpp"
#include "hetlu/types.hpp"
#include "solvers/blas_threads.hpp"
#include "solvers/checks.hpp"

namespace hetlu::distributed {

namespace {
MPI_Comm duplicate(MPI_Comm comm) {
  MPI_Comm copy = MPI_COMM_NULL;
  if (MPI_Comm_dup(comm, &copy) != MPI_SUCCESS) throw Error("MPI_Comm_dup failed");
  return copy;
}
}  // namespace

// On a copy of comm: BLACS hands out one system handle per communicator, so a handle taken on
// comm itself is the application's own where it has one, and freeing it here broke its next BLACS
// call (BLACS ERROR, then MPI_ABORT of the job; a BLACS WARNING on every rank every call otherwise).
BlacsGrid::BlacsGrid(MPI_Comm comm, int rows, int cols, int only_rank)
    : comm_(duplicate(comm)), handle_(Csys2blacs_handle(comm_)) {
  context_ = handle_;
  if (only_rank >= 0) {
    int map[1] = {only_rank};
    Cblacs_gridmap(&context_, map, 1, 1, 1);
  } else {
    Cblacs_gridinit(&context_, "Row", rows, cols);
  }
  if (context_ >= 0) Cblacs_gridinfo(context_, &rows_, &cols_, &row_, &col_);
}

BlacsGrid::~BlacsGrid() {
  if (context_ >= 0) Cblacs_gridexit(context_);
  Cfree_blacs_system_handle(handle_);
  MPI_Comm_free(&comm_);
}

std::string illegal_argument(int code, const std::vector<const char*>& arguments) {
  static const char* const entries[] = {"DTYPE", "CTXT", "M", "N", "MB", "NB", "RSRC", "CSRC", "LLD"};
  const int argument = code > 100 ? code / 100 : code, entry = code > 100 ? code % 100 : 0;
  if (argument < 1 || argument > static_cast<int>(arguments.size()))
    return "ScaLAPACK refused argument " + std::to_string(code);
  std::string said = std::string(arguments[argument - 1]) + " (argument " + std::to_string(argument) + ")";
  if (entry >= 1 && entry <= 9) said = std::string(entries[entry - 1]) + " of " + said;
  return said + " is illegal (ScaLAPACK's code " + std::to_string(code) + ")";
}

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

void check_threads_per_rank(int threads, const std::string& routine) {
  if (threads < 0 || threads > most_threads)
    throw InvalidArgument(routine + ": threads per rank = " + std::to_string(threads) + " must be in [0, " +
                          std::to_string(most_threads) + "]");
}

namespace {
// This rank's local rows and columns of the matrix a descriptor describes (none outside the grid).
struct LocalShape {
  long long rows = 0, cols = 0;
};
LocalShape local_shape(const int* desc) {
  int rows = 0, cols = 0, row = -1, col = -1;
  if (!desc || desc[1] < 0) return {};
  Cblacs_gridinfo(desc[1], &rows, &cols, &row, &col);
  if (row < 0 || col < 0 || desc[4] < 1 || desc[5] < 1) return {};
  // DESC: DTYPE, CTXT, M, N, MB, NB, RSRC, CSRC, LLD.
  return {numroc_(&desc[2], &desc[4], &row, &desc[6], &rows), numroc_(&desc[3], &desc[5], &col, &desc[7], &cols)};
}

}  // namespace

long long local_entries(const int* desc) {
  const LocalShape shape = local_shape(desc);
  return shape.rows * shape.cols;
}

void check_local_arrays(const void* A, const int* desc_a, const void* B, const int* desc_b,
                        const std::string& routine) {
  auto holds_part = [](const int* desc) { return desc && local_entries(desc) > 0; };
  if ((!A && holds_part(desc_a)) || (!B && holds_part(desc_b)))
    throw InvalidArgument(routine + ": A or B is a null pointer on a rank that holds part of it");
}

namespace {
// The global index (0-based) of local index `local` along a dimension in nb-blocks dealt from
// process `source` over `count` processes, on process `index` (ScaLAPACK's INDXL2G).
int global_index(int local, int nb, int index, int source, int count) {
  return ((local / nb) * count + (index - source + count) % count) * nb + local % nb;
}

// A descriptor (DTYPE, CTXT, M, N, MB, NB, RSRC, CSRC, LLD) this rank can index with, and its
// m x n submatrix at (ia, ja) inside it: the grid, this rank's place and its local rows and columns;
// none where anything is out of range (ScaLAPACK's own checks then say which).
struct Layout {
  int P, Q, row, col, rows, cols;
};
std::optional<Layout> usable_layout(int m, int n, int ia, int ja, const int* desc) {
  if (!desc || desc[0] != 1 || desc[1] < 0 || m <= 0 || n <= 0) return std::nullopt;
  Layout l{};
  Cblacs_gridinfo(desc[1], &l.P, &l.Q, &l.row, &l.col);
  const int M = desc[2], N = desc[3], mb = desc[4], nb = desc[5], rsrc = desc[6], csrc = desc[7], lld = desc[8];
  if (l.row < 0 || l.col < 0 || mb < 1 || nb < 1 || rsrc < 0 || rsrc >= l.P || csrc < 0 || csrc >= l.Q)
    return std::nullopt;
  if (ia < 1 || ja < 1 || static_cast<long long>(ia) - 1 + m > M || static_cast<long long>(ja) - 1 + n > N)
    return std::nullopt;
  l.rows = numroc_(&M, &mb, &l.row, &rsrc, &l.P), l.cols = numroc_(&N, &nb, &l.col, &csrc, &l.Q);
  if (lld < std::max(1, l.rows)) return std::nullopt;
  return l;
}

// This rank's part of the m x n submatrix at (ia, ja) of the matrix desc describes, as its entries
// lie in its local array: local indices grow with the global ones, so the part is one local block.
// None where the descriptor or the submatrix is one ScaLAPACK refuses (it says why after), where
// this rank holds none of it, or where its extent would pass 2^62 bytes (no such array exists).
checks::Entries local_part(const char* name, const void* local, int m, int n, int ia, int ja, const int* desc,
                           std::size_t element_bytes) {
  checks::Entries none{name, nullptr, static_cast<long long>(element_bytes), 1, 0, 0};
  const auto l = local ? usable_layout(m, n, ia, ja, desc) : std::nullopt;
  if (!l) return none;
  const int mb = desc[4], nb = desc[5], rsrc = desc[6], csrc = desc[7];
  auto owned_of_first = [](int count, int block, int process, int source, int processes) {
    return numroc_(&count, &block, &process, &source, &processes);  // of global indices 0 .. count - 1
  };
  const int first_row = owned_of_first(ia - 1, mb, l->row, rsrc, l->P);
  const int rows = owned_of_first(ia - 1 + m, mb, l->row, rsrc, l->P) - first_row;
  const int first_col = owned_of_first(ja - 1, nb, l->col, csrc, l->Q);
  const int cols = owned_of_first(ja - 1 + n, nb, l->col, csrc, l->Q) - first_col;
  const long long ld = desc[8];
  if (double(first_col + cols) * double(ld) * double(element_bytes) > 0x1p62) return none;
  const auto* base = static_cast<const char*>(local) + (first_row + first_col * ld) * element_bytes;
  return {name, base, static_cast<long long>(element_bytes), ld, cols, rows};
}
}  // namespace

void check_systems_apart(int n, int nrhs, const void* A, int ia, int ja, const int* desc_a, const void* B, int ib,
                         int jb, const int* desc_b, const int* ipiv, std::size_t element_bytes,
                         const std::string& routine) {
  // The systems' entries, not the local arrays': A and B as two parts of one array ([A | B], one
  // descriptor, B at jb = n + 1) share none (a review finding: refused where p?gesv answers).
  const checks::Entries a = local_part("A", A, n, n, ia, ja, desc_a, element_bytes),
                        b = local_part("B", B, n, nrhs, ib, jb, desc_b, element_bytes);
  if (checks::entries_meet(b, a))
    throw InvalidArgument(routine +
                          ": B overlaps A on this rank (their local parts share an entry): B must be "
                          "apart from A");
  // ipiv: LOCr(M_A) + MB_A entries, as ScaLAPACK sizes it.
  const long long pivots = desc_a && desc_a[4] > 0 && ipiv ? local_shape(desc_a).rows + desc_a[4] : 0;
  const checks::Entries p = checks::pivot_entries(ipiv, static_cast<int>(std::min<long long>(pivots, INT_MAX)));
  if (checks::entries_meet(p, a) || checks::entries_meet(p, b))
    throw InvalidArgument(routine + ": ipiv overlaps A or B on this rank: it must be an array of its own");
}

std::optional<EntryPlace> place_of(int i, int j, const int* desc) {
  const auto l = usable_layout(1, 1, i, j, desc);
  if (!l) return std::nullopt;
  const int mb = desc[4], nb = desc[5];
  EntryPlace p;
  p.row = (desc[6] + (i - 1) / mb) % l->P, p.col = (desc[7] + (j - 1) / nb) % l->Q;
  p.local_row = (i - 1) / (mb * l->P) * mb + (i - 1) % mb;
  p.local_col = (j - 1) / (nb * l->Q) * nb + (j - 1) % nb;
  p.in_my_row = p.row == l->row, p.mine = p.in_my_row && p.col == l->col;
  return p;
}

template <class T>
std::optional<NonFiniteEntry> first_non_finite_part(int m, int n, const T* local, int ia, int ja, const int* desc) {
  const auto layout = local ? usable_layout(m, n, ia, ja, desc) : std::nullopt;
  if (!layout) return std::nullopt;
  const int P = layout->P, Q = layout->Q, row = layout->row, col = layout->col, rows = layout->rows,
            cols = layout->cols;
  const int mb = desc[4], nb = desc[5], rsrc = desc[6], csrc = desc[7], lld = desc[8];
  // Local indices grow with the global ones: the submatrix's rows here are one local range, every
  // row in it the submatrix's.
  int first = rows, last = 0;
  for (int i = 0; i < rows; ++i) {
    const int g = global_index(i, mb, row, rsrc, P);
    if (g >= ia - 1 && g < ia - 1 + m) first = std::min(first, i), last = i + 1;
  }
  if (first >= last) return std::nullopt;
  for (int j = 0; j < cols; ++j) {
    const int gj = global_index(j, nb, col, csrc, Q);
    if (gj < ja - 1 || gj >= ja - 1 + n) continue;
    const T* column = local + static_cast<long long>(j) * lld;
    for (int i = first; i < last; ++i) {
      if (std::isfinite(column[i])) continue;
      const int gi = global_index(i, mb, row, rsrc, P);
      return NonFiniteEntry{gi + 1, gj + 1, std::isnan(column[i]) ? "NaN" : column[i] > 0 ? "Inf" : "-Inf"};
    }
  }
  return std::nullopt;
}

template <class T>
void check_finite_part(const char* name, int m, int n, const T* local, int ia, int ja, const int* desc,
                       const std::string& routine) {
  if (const auto e = first_non_finite_part(m, n, local, ia, ja, desc))
    throw InvalidArgument(routine + ": " + name + "(" + std::to_string(e->row) + "," + std::to_string(e->col) +
                          ") is " + e->what + "; the input must be finite");
}
template std::optional<NonFiniteEntry> first_non_finite_part<float>(int, int, const float*, int, int, const int*);
template std::optional<NonFiniteEntry> first_non_finite_part<double>(int, int, const double*, int, int, const int*);
template void check_finite_part<float>(const char*, int, int, const float*, int, int, const int*, const std::string&);
template void check_finite_part<double>(const char*, int, int, const double*, int, int, const int*, const std::string&);

bool on_any_rank(int context, bool mine) {
  int rows = 0, cols = 0, row = -1, col = -1;
  if (context < 0) return false;
  Cblacs_gridinfo(context, &rows, &cols, &row, &col);
  if (row < 0 || col < 0) return false;
  int any = mine ? 1 : 0;
  Cigamx2d(context, "All", " ", 1, 1, &any, 1, nullptr, nullptr, -1, -1, -1);
  return any != 0;
}

void agree_on_values(int context, const std::vector<int>& values, const std::string& what) {
  int rows = 0, cols = 0, row = -1, col = -1;
  if (context < 0) return;
  Cblacs_gridinfo(context, &rows, &cols, &row, &col);
  if (row < 0 || col < 0 || values.empty()) return;
  std::vector<int> most = values, least = values;
  const int count = static_cast<int>(values.size());
  Cigamx2d(context, "All", " ", count, 1, most.data(), count, nullptr, nullptr, -1, -1, -1);
  Cigamn2d(context, "All", " ", count, 1, least.data(), count, nullptr, nullptr, -1, -1, -1);
  if (most != least) throw InvalidArgument(what + " differ between ranks");
}

std::vector<int> with_global_fields(std::vector<int> values, std::initializer_list<const int*> descriptors) {
  for (const int* desc : descriptors)
    for (int field : {field_m, field_n, field_mb, field_nb, field_rsrc, field_csrc})
      values.push_back(desc ? desc[field] : -1);
  return values;
}

// ScaLAPACK calls OpenBLAS directly: its teams made safe here, whatever the plan's threads (the
// default 0 too: under OMP_THREAD_LIMIT=1 p?getrf's dgemm waited for ever, a review).
BlasThreads::BlasThreads(int threads) : saved_(omp_get_max_threads()), changed_(threads > 0) {
  if (!changed_) return;
  threads = kernels::within_openmp_team_limits(threads);
  omp_set_num_threads(threads);
  openblas_set_num_threads(threads);
}

BlasThreads::~BlasThreads() {
  if (!changed_) return;
  omp_set_num_threads(saved_);
  openblas_set_num_threads(saved_);
}

void broadcast_plan(MPI_Comm comm, int root, DistributedPlan& plan) {
  int fields[4] = {plan.grid_rows, plan.grid_cols, plan.nb, plan.threads_per_rank};
  MPI_Bcast(fields, 4, MPI_INT, root, comm);
  plan.grid_rows = fields[0], plan.grid_cols = fields[1], plan.nb = fields[2], plan.threads_per_rank = fields[3];
}

void agree_on_error(MPI_Comm comm, int root, const std::string& root_error) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int length = rank == root ? static_cast<int>(root_error.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, root, comm);
  if (length == 0) return;
  std::string message = rank == root ? root_error : std::string(length, ' ');
  MPI_Bcast(message.data(), length, MPI_CHAR, root, comm);
  throw InvalidArgument(message);
}

void agree_on_any_error(MPI_Comm comm, const std::string& error) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int none = std::numeric_limits<int>::max();
  int mine = error.empty() ? none : rank, first = none;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == none) return;
  agree_on_error(comm, first, rank != first ? "" : first == 0 ? error : "rank " + std::to_string(first) + ": " + error);
}

namespace {

// `text` and `number` from the grid's process (row, col) on every process of the grid (the sender
// passes them).
std::pair<std::string, int> broadcast_text(int context, int row, int col, bool sender, const std::string& text,
                                           int number) {
  constexpr std::size_t longest = 2000;  // a one-line error
  int head[2] = {sender ? static_cast<int>(std::min(text.size(), longest)) : 0, number};
  if (sender)
    Cigebs2d(context, "All", " ", 2, 1, head, 2);
  else
    Cigebr2d(context, "All", " ", 2, 1, head, 2, row, col);
  const int length = head[0];
  std::vector<int> packed((static_cast<std::size_t>(length) + sizeof(int) - 1) / sizeof(int), 0);
  const int words = static_cast<int>(packed.size());
  if (sender) std::memcpy(packed.data(), text.data(), static_cast<std::size_t>(length));
  if (words > 0) {
    if (sender)
      Cigebs2d(context, "All", " ", words, 1, packed.data(), words);
    else
      Cigebr2d(context, "All", " ", words, 1, packed.data(), words, row, col);
  }
  std::string out(static_cast<std::size_t>(length), ' ');
  std::memcpy(out.data(), packed.data(), static_cast<std::size_t>(length));
  return {out, head[1]};
}

}  // namespace

void agree_on_failure(int context, const Failure& failure, const std::string& otherwise, const std::string& prefix) {
  auto raise = [&](std::string message, int kind) {
    if (message.rfind(prefix, 0) != 0) message = prefix + message;
    switch (kind) {
      case Failure::argument:
        throw InvalidArgument(message);
      case Failure::out_of_memory:
        throw DeviceOutOfMemory(message);
      case Failure::not_available:
        throw NotAvailable(message);
      default:
        throw Error(message);
    }
  };
  int rows = 0, cols = 0, row = -1, col = -1;
  Cblacs_gridinfo(context, &rows, &cols, &row, &col);
  if (row < 0 || col < 0) {
    if (failure.failed()) raise(failure.message, failure.kind);
    return;
  }
  // The first failing process in the grid's row-major order gives every other rank its kind and says
  // why: they said only that another rank's arguments were refused, and rank 0 prints (one rank out
  // of memory went unnamed, a hostile test).
  const int me = row * cols + col;
  int first = failure.failed() ? me : std::numeric_limits<int>::max();
  Cigamn2d(context, "All", " ", 1, 1, &first, 1, nullptr, nullptr, -1, -1, -1);
  if (first == std::numeric_limits<int>::max()) return;
  auto [why, kind] = broadcast_text(context, first / cols, first % cols, me == first, failure.message, failure.kind);
  if (failure.failed()) raise(failure.message, failure.kind);
  if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
  raise(otherwise + " (rank " + std::to_string(Cblacs_pnum(context, first / cols, first % cols)) + ": " + why + ")",
        kind);
}

}  // namespace hetlu::distributed
