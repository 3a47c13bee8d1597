// A BLACS process grid over an MPI communicator, ScaLAPACK descriptors on it, and the BLAS threads
// of a rank during a solve: what every distributed routine of hetlu sets up.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <exception>
#include <initializer_list>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "hetlu/distributed_plan.hpp"
#include "hetlu/types.hpp"
#include "solvers/blas_threads.hpp"

namespace hetlu::distributed {

// A BLACS grid over a communicator, released with it.
class BlacsGrid {
 public:
  // rows x cols over every rank in row-major order, or (only_rank >= 0) the 1 x 1 grid of that rank.
  BlacsGrid(MPI_Comm comm, int rows, int cols, int only_rank = -1);
  ~BlacsGrid();
  BlacsGrid(const BlacsGrid&) = delete;
  BlacsGrid& operator=(const BlacsGrid&) = delete;
  bool member() const { return context_ >= 0; }
  int context() const { return context_; }
  int row() const { return row_; }
  int col() const { return col_; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }

 private:
  MPI_Comm comm_;  // a copy of the caller's: its BLACS handle is hetlu's own
  int handle_, context_ = -1;
  int rows_ = 0, cols_ = 0, row_ = -1, col_ = -1;
};

// A ScaLAPACK routine's -INFO said in words: its argument k (`arguments`, in order), or entry j of a
// descriptor argument k as k * 100 + j (LLD of desc_a (argument 6), not "argument 609").
std::string illegal_argument(int code, const std::vector<const char*>& arguments);
inline const std::vector<const char*> p_gesv_arguments = {"n",    "nrhs", "A",  "ia", "ja",     "desc_a",
                                                          "ipiv", "B",    "ib", "jb", "desc_b", "info"};
inline const std::vector<const char*> p_getrs_arguments = {"trans", "n", "nrhs", "A",  "ia",     "ja",  "desc_a",
                                                           "ipiv",  "B", "ib",   "jb", "desc_b", "info"};
inline const std::vector<const char*> p_getf2_arguments = {"m", "n", "A", "ia", "ja", "desc_a", "ipiv", "info"};

// A descriptor of an m x n matrix in nb x nb blocks on `grid` with local leading dimension lld;
// a rank outside the grid gets context -1, as ScaLAPACK expects.
std::vector<int> descriptor(const BlacsGrid& grid, int m, int n, int nb, int lld);

// ScaLAPACK descriptor fields.
enum DescriptorField {
  field_ctxt = 1,
  field_m = 2,
  field_n = 3,
  field_mb = 4,
  field_nb = 5,
  field_rsrc = 6,
  field_csrc = 7,
  field_lld = 8
};

// What failed on this rank before a collective, if anything: its message, and its kind, which the C
// API's status tells apart (detail::c_guarded): the caller's argument, a device's memory, a device
// or backend not available, or anything else. Where several ranks fail, the first in the grid's
// row-major order gives every other rank its kind and message (agree_on_failure).
struct Failure {
  enum Kind { none = 0, other = 1, not_available = 2, out_of_memory = 3, argument = 4 };
  std::string message;
  Kind kind = none;
  bool failed() const { return kind != none; }
  // Runs `check` and keeps what it threw.
  template <class Check>
  void unless(Check&& check) {
    try {
      check();
    } catch (const InvalidArgument& e) {
      message = e.what(), kind = argument;
    } catch (const DeviceOutOfMemory& e) {
      message = e.what(), kind = out_of_memory;
    } catch (const std::bad_alloc&) {
      message = "out of memory", kind = out_of_memory;
    } catch (const NotAvailable& e) {
      message = e.what(), kind = not_available;
    } catch (const std::exception& e) {
      message = e.what(), kind = other;
    } catch (...) {
      message = "an exception of unknown type", kind = other;
    }
  }
};

// Every rank of the BLACS grid `context` throws when one failed: that one its own message, the others
// `otherwise`, each after `prefix`, so that none waits for it in a collective. The others throw the
// failure's kind (the largest over the grid), so that their C status is the failing rank's:
// InvalidArgument, DeviceOutOfMemory, NotAvailable, or an Error. Collective over
// the grid; a rank outside it (or a context that is none) throws its own failure or returns.
void agree_on_failure(int context, const Failure& failure, const std::string& otherwise, const std::string& prefix);

// Every rank of the BLACS grid `context` throws InvalidArgument (`what` differ between ranks) where
// one rank's `values` differ from another's (n, a descriptor's M, N, NB): a rank with its own view
// of the matrix left the others waiting in a collective, or PBLAS aborting the job. Collective over
// the grid; a rank outside it returns.
void agree_on_values(int context, const std::vector<int>& values, const std::string& what);

// `values` followed by each descriptor's global fields (M, N, MB, NB, RSRC, CSRC; -1 each for a null
// descriptor), for agree_on_values: what a grid's collectives need the same on every rank.
std::vector<int> with_global_fields(std::vector<int> values, std::initializer_list<const int*> descriptors);

// Throws InvalidArgument ("<routine>: threads per rank = t must be in [0, most_threads]") unless it is.
void check_threads_per_rank(int threads, const std::string& routine);

// Rows (or columns) of an n-long dimension in nb-blocks that process `index` of `count` holds.
int local_count(int n, int nb, int index, int count);

// How many entries of the matrix a ScaLAPACK descriptor describes this rank holds (0 outside the
// grid): where there are none, the caller may pass a null local array.
long long local_entries(const int* desc);

// Throws InvalidArgument ("<routine>: A or B is a null pointer ...") where this rank holds part of
// A or B (by its descriptor; a null descriptor holds none) and its local array is null: a null A
// crashed in the BLAS.
void check_local_arrays(const void* A, const int* desc_a, const void* B, const int* desc_b, const std::string& routine);

// Throws InvalidArgument where this rank's part of the n x n system A (at ia, ja) and of its n x
// nrhs B (at ib, jb), entries of element_bytes, share an entry, or ipiv (LOCr(M_A) + MB_A entries,
// as ScaLAPACK sizes it; not read where null) meets either: B over A gave success and an X with
// backward error 0.99 (a hostile helper's finding). Descriptors ScaLAPACK would refuse are left to it.
void check_systems_apart(int n, int nrhs, const void* A, int ia, int ja, const int* desc_a, const void* B, int ib,
                         int jb, const int* desc_b, const int* ipiv, std::size_t element_bytes,
                         const std::string& routine);

// Throws InvalidArgument ("<routine>: A(i,j) is NaN; the input must be finite", i and j the global
// matrix's, from 1) where this rank's part of the m x n submatrix at
// (ia, ja) (1-based, ScaLAPACK's IA and JA) of the matrix `desc` describes holds a NaN or an Inf:
// p?gesv returned X all NaN with info 0 for one. Reads nothing where the descriptor or the
// submatrix is one ScaLAPACK refuses (it says why after), or where this rank holds none of it.
template <class T>
void check_finite_part(const char* name, int m, int n, const T* local, int ia, int ja, const int* desc,
                       const std::string& routine);

// Where global entry (i, j) (1-based) of a block-cyclic matrix lives: its owner's place on the grid
// and its local indices there (ScaLAPACK's INDXG2P, INDXG2L); none where desc is no descriptor this
// rank can index with (ScaLAPACK's checks then say what is wrong).
struct EntryPlace {
  int row = 0, col = 0;              // the owner's process row and column
  int local_row = 0, local_col = 0;  // its indices in the owner's local array (0-based)
  bool in_my_row = false, mine = false;
};
std::optional<EntryPlace> place_of(int i, int j, const int* desc);

// The first NaN or Inf (in local column order) of this rank's part of that submatrix, its indices
// the global matrix's from 1 (as the README names it: with ia = ja = 4 a NaN at A(4,4) was called
// "A(1,1)"); none where there is none or where check_finite_part reads nothing.
struct NonFiniteEntry {
  int row, col;
  const char* what;  // "NaN", "Inf" or "-Inf"
};
template <class T>
std::optional<NonFiniteEntry> first_non_finite_part(int m, int n, const T* local, int ia, int ja, const int* desc);

// Whether `mine` holds on any rank of the BLACS grid `context` (false on a rank outside it).
// Collective over the grid.
bool on_any_rank(int context, bool mine);

// The rank's BLAS and OpenMP threads set for a scope (threads <= 0: left as they are), restored after.
class BlasThreads {
 public:
  explicit BlasThreads(int threads);
  ~BlasThreads();
  BlasThreads(const BlasThreads&) = delete;
  BlasThreads& operator=(const BlasThreads&) = delete;

 private:
  kernels::SafeOpenMpTeam team_;  // first: the caller's settings saved before any change, put back last
  int saved_ = 0;
  bool changed_ = false;
};

// The plan's resolved fields sent from `root` to every rank.
void broadcast_plan(MPI_Comm comm, int root, DistributedPlan& plan);

// The root's verdict sent to every rank: all throw InvalidArgument(root_error), or none do.
void agree_on_error(MPI_Comm comm, int root, const std::string& root_error);
// Collective: each rank's own error (empty: none). Where any rank has one, every rank throws
// InvalidArgument with the error of the lowest such rank, prefixed "rank K: " when K is not 0.
void agree_on_any_error(MPI_Comm comm, const std::string& error);

}  // namespace hetlu::distributed
