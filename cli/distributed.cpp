// hetlu solve / calibrate / bench --distributed under mpirun (#18).
#include "cli/distributed.hpp"

#include <fmt/core.h>
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <type_traits>

#include "cli/commands.hpp"
#include "cli/matrix_market.hpp"
#include "cli/report.hpp"
#include "distributed/blacs_grid.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/detail/statistics.hpp"
#include "hetlu/detail/utf8.hpp"
#include "hetlu/distributed.hpp"
#include "hetlu/hetlu.hpp"
#include "probes/memory.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/condition.hpp"
#include "solvers/scalar.hpp"

namespace hetlu::cli {
namespace {

using distributed::DistributedPlan;

// MPI for the rest of the process: started here unless the host program did, finished at exit, so
// that rank 0 has reported an error (run() prints it after the command returns) before the other
// ranks may leave: mpirun ends the job as soon as one rank exits with a non-zero status.
class MpiSession {
 public:
  MpiSession() {
    int started = 0;
    MPI_Initialized(&started);
    if (!started) {
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
      std::atexit([] {
        int finished = 0;
        MPI_Finalized(&finished);
        if (!finished) MPI_Finalize();
      });
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  }
  int rank() const { return rank_; }

 private:
  int rank_ = 0;
};

// A failure every rank meets together (the root's verdict, a singular matrix): rank 0 reports it,
// the others leave with the same status and say nothing.
[[noreturn]] void fail_together(int rank, int code, const std::string& message) {
  throw CommandFailure(code, rank == 0 ? message : "");
}

// Runs a collective step; its errors are those every rank meets together.
template <class Body>
auto together(int rank, Body&& body) {
  try {
    return body();
  } catch (const CommandFailure& e) {
    fail_together(rank, e.exit_code, e.what());
  } catch (const std::exception& e) {
    fail_together(rank, exit_error, e.what());
  }
}

// Runs body on rank 0 alone (it reads the files, resolves the plan); its failure, with its exit
// status (a singular A's is exit_singular), is every rank's.
template <class Body>
void on_root_together(int rank, Body&& body) {
  std::string error;
  int code = exit_error;
  if (rank == 0) try {
      body();
    } catch (const CommandFailure& e) {
      error = e.what(), code = e.exit_code;
    } catch (const std::exception& e) {
      error = e.what();
    }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  together(rank, [&] {
    try {
      distributed::agree_on_error(MPI_COMM_WORLD, 0, error);
    } catch (const InvalidArgument& e) {
      throw CommandFailure(code, e.what());
    }
    return 0;
  });
}

// The exit status rank 0 reached after the solve, on every other rank (share_verdict's broadcast).
int verdict_of_root() {
  int status = exit_ok;
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

// On rank 0: judge()'s status, or the exit code of what it threw, sent to every rank before it
// returns or rethrows.
template <class Judge>
int share_verdict(Judge&& judge) {
  int status = exit_error;
  try {
    status = judge();
  } catch (const CommandFailure& e) {
    status = e.exit_code;
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    throw;
  } catch (...) {
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    throw;
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

// A check each rank makes on its own node before MPI starts (the memory a size needs): the
// failure, if any; agreed on after MPI starts (agree_on_any_error), so that it is said once.
template <class Check>
std::string node_check(Check&& check) {
  try {
    check();
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

// A --grid that does not use the ranks mpirun started (3x1 on 4): the command line contradicts its
// launch, a usage error (exit 2) as other contradicting options are; every rank knows it alike.
void check_grid_uses_ranks(DistributedPlan given, int ranks, int rank) {
  try {
    distributed::complete_grid(given, ranks);
  } catch (const InvalidArgument& e) {
    fail_together(rank, exit_usage, std::string("--grid: ") + e.what());
  }
}

DistributedPlan given_plan(const DistributedArgs& args) {
  DistributedPlan plan;
  if (!args.grid.empty()) {
    const auto x = args.grid.find('x');
    auto side = [&](const std::string& text) {
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        throw UsageError("--grid " + args.grid + ": expected PxQ, two whole numbers (0: from the rank count)");
      if (text.size() > 9 || std::stoi(text) > 999999)
        throw UsageError("--grid " + args.grid + ": " + text + " is more than a grid side takes (999999)");
      return std::stoi(text);
    };
    if (x == std::string::npos) throw UsageError("--grid " + args.grid + ": expected PxQ, such as 2x3");
    plan.grid_rows = side(args.grid.substr(0, x));
    plan.grid_cols = side(args.grid.substr(x + 1));
  }
  plan.nb = args.nb.value_or(0);
  plan.threads_per_rank = args.threads_per_rank.value_or(0);
  return plan;
}

// --resident DEVICE: one device, cuda or a host team.
Device resident_device(const std::string& text) {
  try {
    return distributed::resident_device(text);
  } catch (const InvalidArgument& e) {
    throw UsageError(std::string("--resident: ") + e.what());
  }
}

// bench's resident row: the device given, else the GPU where one is, else a host team of the
// plan's threads per rank.
Device bench_resident_device(const std::string& text, int threads_per_rank) {
  if (!text.empty()) return resident_device(text);
  if (backend_available(BackendKind::cuda)) return Device{BackendKind::cuda, 0};
  // A team as --resident host:K takes it (--threads-per-rank 4096 made a team of 4096).
  return Device{BackendKind::host, static_cast<std::int16_t>(std::clamp(threads_per_rank, 1, max_host_team))};
}

Precision precision_of(const std::string& name) {
  if (name == "mixed" || name == "auto")
    throw UsageError("--distributed solves in single or double precision, not " + name);
  return from_string<Precision>(name);
}

nlohmann::ordered_json plan_json(const DistributedPlan& p) {
  return {{"grid_rows", p.grid_rows},
          {"grid_cols", p.grid_cols},
          {"nb", p.nb},
          {"threads_per_rank", p.threads_per_rank},
          {"source", to_string(p.source)},
          {"source_detail", p.source_detail},
          {"predicted_seconds", p.predicted_seconds ? nlohmann::ordered_json(*p.predicted_seconds) : nullptr}};
}

std::string describe(const DistributedPlan& p) {
  return fmt::format("{} x {} grid, nb = {}, {} ({})", p.grid_rows, p.grid_cols, p.nb,
                     p.threads_per_rank > 0 ? fmt::format("{} thread(s) per rank", p.threads_per_rank)
                                            : std::string("the process's threads"),
                     to_string(p.source));
}

// What the root read: A and B as the precision solves them.
struct ReadSystem {
  DenseMatrix A, B;
};

ReadSystem read_system(const DistributedSolveArgs& args, Precision precision, const distributed::RankLayout& layout) {
  ReadSystem s;
  // The memory of rank 0's node, checked as A's header is read: A as read (double), the copy the
  // solve scatters from and A's copy for omega; and each rank on the node its part of the grid's
  // A and p?gemr2d's buffer for it (2 GB short on 2 ranks of this node, ScaLAPACK's xxmr2d said
  // "out of memory" and exited 2).
  // Shapes and kinds are refused from the headers, before anything is allocated (a 61-byte file
  // declaring 100000 x 5000 took 3.9 GB before "it must be square").
  auto require_real_square = [&](long long rows, long long cols, bool complex) {
    if (rows != cols)
      throw InvalidArgument(fmt::format("{}: A is {} x {}; it must be square", args.a_path, rows, cols));
    if (complex) throw InvalidArgument(args.a_path + ": A is complex; distributed solves are real");
  };
  s.A = read_matrix_market(args.a_path, MatrixRole::system, [&](const DeclaredMatrix& declared) {
    require_real_square(declared.rows, declared.cols, declared.is_complex);
    const double n = double(declared.rows), word = precision == Precision::single ? 4.0 : 8.0;
    const double node_share = double(layout.ranks_per_node) / std::max(1, layout.ranks);
    probes::require_memory((8.0 + 2 * word + 2 * word * node_share) * n * n,
                           fmt::format("{}: solving a {} x {} system on rank 0's node", args.a_path, n, n));
  });
  require_real_square(s.A.rows, s.A.cols, s.A.is_complex);
  auto require_real_rows_of_a = [&](long long rows, bool complex) {
    if (complex) throw InvalidArgument(args.b_path + ": B is complex; distributed solves are real");
    if (rows != s.A.rows)
      throw InvalidArgument(
          fmt::format("{}: B has {} rows but A is {} x {}; they must match", args.b_path, rows, s.A.rows, s.A.cols));
  };
  if (args.b_path.empty()) {
    s.B.rows = s.A.rows, s.B.cols = 1, s.B.values.assign(s.A.rows, 1.0);
  } else {
    s.B = read_matrix_market(args.b_path, MatrixRole::any, [&](const DeclaredMatrix& declared) {
      require_real_rows_of_a(declared.rows, declared.is_complex);
      // B as read, the copy the solve scatters from, and X gathered
      probes::require_memory(
          3 * 8.0 * double(declared.rows) * double(declared.cols),
          fmt::format("{}: {} right-hand sides of order {}", args.b_path, declared.cols, declared.rows));
    });
    require_real_rows_of_a(s.B.rows, s.B.is_complex);
  }
  return s;
}

template <class T>
int solve_typed(const MpiSession& mpi, const DistributedSolveArgs& args, const DistributedPlan& given,
                const std::optional<Device>& resident, ReadSystem& system, const std::vector<std::string>& inputs) {
  const int rank = mpi.rank(), n = system.A.rows, nrhs = system.B.cols, ld = std::max(1, n);
  std::vector<T> A(system.A.values.begin(), system.A.values.end()), B(system.B.values.begin(), system.B.values.end());
  // Rows equilibrated on rank 0 as hetlu solve's (dgesvx's R): R A x = R b has A's x, and the
  // factors that come back are R A's, whose rcond bounds x's error (rows scaled 10^U(-12, 12)
  // exited 5 on A's own rcond, 6e-25, with x right to 1e-14; R A's is 2e-3).
  // Where a row or column lies near an end of the range, columns too (dgesvx's C, as hetlu solve):
  // columns spread 1e+-165 underflowed to zero after R ("exactly singular"). R A C y = R b, x = C y.
  Equilibration scaling = equilibration(n, A.data(), ld);
  // Where R b would leave the range (a row of A near its bottom, b's entry of ordinary size: "B(1,1)
  // is Inf" refused a system hetlu solve solves), b goes in scaled by 2^-shift besides R, and x comes
  // back times 2^shift (as hetlu.linalg's tiny systems). A as read instead, of subnormal entries,
  // was "exactly singular" on some grids (p?getf2's reciprocal of a subnormal pivot overflows) and
  // "not finite" on others, where x overflows.
  int shift = 0;
  for (int j = 0; j < nrhs; ++j)
    for (int i = 0; i < n; ++i) {
      const T b = B[i + static_cast<std::size_t>(j) * ld];
      if (b != T(0) && std::isfinite(b))
        shift = std::max(shift, std::ilogb(b) + scaling.rows[i] - (std::numeric_limits<T>::max_exponent - 2));
    }
  const std::vector<int>&rows = scaling.rows, &cols = scaling.cols;
  const bool columns_scaled = std::any_of(cols.begin(), cols.end(), [](int e) { return e != 0; });
  // ||R A||_1, then R A C in one pass: R first and C after underflowed what C would have restored.
  const double anorm = scalar::norm1_of_scaled_rows(n, A.data(), ld, [&](int i) { return rows[i]; });
  for (int j = 0; j < n; ++j)
    scalar::scale_rows_by_powers_of_two(n, 1, A.data() + static_cast<std::size_t>(j) * ld, ld,
                                        [&](int i) { return rows[i] + cols[j]; });
  scalar::scale_rows_by_powers_of_two(n, nrhs, B.data(), ld, [&](int i) { return rows[i] - shift; });
  const std::vector<T> RB = B;  // R b 2^-shift, for the bound X proves
  // In single precision, an entry beyond its range became Inf, which the solve refuses on every
  // rank: said as what it is ("the solution is not finite" before, or "A(i,j) is Inf"). One below
  // its normal range became 0 or lost digits: where that left A singular, said too (a matrix of
  // 1e-300 was "singular: U(1,1) is exactly zero"), otherwise omega, taken against A as read, tells.
  std::string beyond_single, below_single;
  if constexpr (std::is_same_v<T, float>) {
    // Below the range counts in A alone: B cannot make U singular.
    // beyond_single names the file that holds the entry (A's or B's); below_single is A's alone.
    auto first_outside = [&](const std::vector<double>& from, const char* name, int height, bool of_a) {
      for (std::size_t k = 0; k < from.size(); ++k) {
        const double size = std::abs(from[k]);
        const bool above = size > std::numeric_limits<float>::max();
        const bool below = of_a && size > 0 && size < std::numeric_limits<float>::min();
        if ((above && beyond_single.empty()) || (below && below_single.empty()))
          (above ? beyond_single : below_single) =
              fmt::format("{}{}({},{}) = {:g} is {} single precision's range ({}): use --precision double",
                          above ? (of_a ? args.a_path : args.b_path) + ": " : "", name, k % height + 1, k / height + 1,
                          from[k], above ? "beyond" : "below", above ? "3.4e38" : "normal from 1.2e-38");
      }
    };
    first_outside(system.A.values, "A", ld, true);
    first_outside(system.B.values, "B", ld, false);
  }
  const auto report = together(rank, [&] {
    try {
      return distributed::gesv_from_root<T>(MPI_COMM_WORLD, 0, n, nrhs, A.data(), ld, B.data(), ld, given, args.db,
                                            resident ? &*resident : nullptr);
    } catch (const InvalidArgument&) {
      if (!beyond_single.empty()) throw InvalidArgument(beyond_single);
      throw;
    }
  });
  // In single precision A as rounded is what was found singular ([[1, 1], [1, 1 + 1e-10]] is, and
  // said only "singular"): said so, with the way out.
  constexpr bool single = std::is_same_v<T, float>;
  if (report.info > 0)
    fail_together(rank, exit_singular,
                  fmt::format("{}: the matrix is singular{}: U({},{}) is exactly zero; no solution written{}",
                              args.a_path, single ? " in single precision" : "", report.info, report.info,
                              !below_single.empty() ? " (" + below_single + ")"
                              : single              ? " (A rounded to single; --precision double may solve it)"
                                                    : ""));
  // Rank 0 alone judges X (omega, the condition, the output file); every rank leaves with its
  // verdict (exits 4 and 5 on rank 0 alone showed success to launchers that read each rank's).
  if (rank != 0) return verdict_of_root();
  return share_verdict([&]() -> int {
    warn_all(report.warnings);
    if (columns_scaled || shift)
      scalar::scale_rows_by_powers_of_two(n, nrhs, B.data(), ld, [&](int j) { return cols[j] + shift; });
    const std::vector<T> A0(system.A.values.begin(), system.A.values.end()),
        B0(system.B.values.begin(), system.B.values.end());
    const bool finite = std::all_of(B.begin(), B.end(), [](T x) { return std::isfinite(x); });
    if (!finite)
      throw CommandFailure(exit_inaccurate, args.a_path + ": the solution is not finite; no solution written");
    // omega against A and B as read, in double: what rounding them to single lost counts. As hetlu
    // solve measures it: near the range's ends |A| |x| overflowed double (exit 4 for a right X).
    const std::vector<double> X_read(B.begin(), B.end());
    const double omega = n ? equilibrated_backward_error(n, nrhs, system.A.values.data(), ld, X_read.data(), ld,
                                                         system.B.values.data(), ld)
                           : 0;
    const double tolerance = accuracy_tolerance<T>(n);
    int status = exit_ok;
    if (!(omega <= tolerance)) {
      warn_inaccurate(args.a_path, omega, tolerance);
      status = exit_inaccurate;
    }
    // How singular R A is, as hetlu solve says it: dgecon's estimate from the factors gathered back
    // into A, never above what X proves. The pivots stayed on the grid, but R A = P L U gives
    // ||(R A)^-1||_1 = ||U^-1 L^-1 P^T||_1 = ||U^-1 L^-1||_1 (permuting columns keeps the 1-norm): the
    // factors with no interchange estimate it.
    SolveReport condition;
    if (n > 0) {
      std::vector<int> no_interchange(n);
      std::iota(no_interchange.begin(), no_interchange.end(), 1);
      std::vector<T> X_shifted = B;  // x 2^-shift, beside RB
      scalar::scale_rows_by_powers_of_two(n, nrhs, X_shifted.data(), ld, [&](int) { return -shift; });
      condition.rcond = std::min(rcond_estimate_with_columns(n, A.data(), ld, no_interchange.data(), cols, anorm),
                                 rcond_bound(n, nrhs, X_shifted.data(), ld, RB.data(), ld, anorm));
      // Near or below eps, the forward error decides, as in hetlu solve (badly scaled columns: rcond
      // counts their spread, GEPP's X does not feel it); rank 0 holds A as read, and refactors it
      // only here: an O(n^3) GEPP on rank 0 alone, where rcond < rcond_estimate_slack eps.
      if (omega <= tolerance) {
        Options gepp;  // GEPP's plan from the same database as the solve's
        gepp.db_path = args.db;
        judge_singularity_with_forward_error(condition, n, nrhs, A0.data(), ld, B.data(), ld, B0.data(), ld, gepp);
      } else
        check_working_precision_singularity<T>(condition);
    }
    warn_all(condition.warnings);
    if (condition.singular_to_working_precision && status == exit_ok) {
      warn_unreliable(args.a_path);
      status = exit_singular_to_working_precision;
    }
    DenseMatrix X;
    X.rows = n, X.cols = nrhs, X.values.assign(B.begin(), B.end());
    if (!args.x_path.empty()) write_matrix_market(args.x_path, X, inputs);
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const double gflops = detail::gflops(detail::gesv_flops(n, nrhs), report.solve_seconds);
    if (args.json) {
      nlohmann::ordered_json j = {{"n", n},
                                  {"nrhs", nrhs},
                                  {"precision", args.precision},
                                  {"ranks", ranks},
                                  {"engine", report.engine},
                                  {"plan", plan_json(report.plan)},
                                  {"seconds", report.seconds},
                                  {"solve_seconds", report.solve_seconds},
                                  {"gflops", gflops},
                                  {"backward_error", omega},
                                  {"accurate", status != exit_inaccurate},
                                  {"singular_to_working_precision", condition.singular_to_working_precision},
                                  {"info", report.info}};
      if (condition.rcond) j["rcond"] = *condition.rcond;
      if (condition.forward_error) j["forward_error_bound"] = *condition.forward_error;
      if (!condition.note.empty()) j["note"] = condition.note;
      if (!args.x_path.empty())
        j["output"] = args.x_path;
      else
        j["x"] = X.values;
      print_json(j);
      return status;
    }
    const char letter = std::is_same_v<T, float> ? 's' : 'd';
    const std::string engine =
        resident ? fmt::format("LU with each rank's part on {}, p{}getrs", to_string(*resident), letter)
                 : fmt::format("ScaLAPACK p{}gesv", letter);
    std::cerr << fmt::format(
        "hetlu: distributed GEPP ({}) on {} ranks, n = {}, nrhs = {}: {:.4f} s ({:.4f} s solving, {:.2f} GFlop/s), "
        "backward error {:.2e}; {}{}{}\n",
        engine, ranks, n, nrhs, report.seconds, report.solve_seconds, gflops, omega, describe(report.plan),
        report.plan.predicted_seconds ? fmt::format(", predicted {:.4f} s", *report.plan.predicted_seconds) : "",
        condition.note.empty() ? "" : "; " + condition.note);
    if (args.x_path.empty()) write_matrix_market(std::cout, X);
    return status;
  });
}

}  // namespace

int solve_distributed(const DistributedSolveArgs& args) {
  const Precision precision = precision_of(args.precision);
  const DistributedPlan given = given_plan(args.plan);
  std::optional<Device> resident;
  if (!args.plan.resident.empty()) resident = resident_device(args.plan.resident);  // a usage error: said by rank 0
  MpiSession mpi;
  const int rank = mpi.rank();
  const auto layout = distributed::layout_of(MPI_COMM_WORLD);
  check_grid_uses_ranks(given, layout.ranks, rank);
  // The database is read too (tuned plans): X never replaces it, by any path (as hetlu solve).
  const std::vector<std::string> inputs = read_files(args.a_path, args.b_path, args.db);
  ReadSystem system;
  on_root_together(rank, [&] {  // rank 0 alone reads: the files need exist only where it runs
    check_solve_outputs(args.x_path, args.json, inputs);
    system = read_system(args, precision, layout);
  });
  return precision == Precision::single ? solve_typed<float>(mpi, args, given, resident, system, inputs)
                                        : solve_typed<double>(mpi, args, given, resident, system, inputs);
}

void calibrate_distributed(const DistributedCalibrateArgs& args) {
  distributed::CalibrationOptions options;
  options.db_path = args.db;
  if (!args.sizes.empty()) options.sizes = args.sizes;
  if (!args.precisions.empty()) {
    options.precisions.clear();
    for (const auto& name : args.precisions) options.precisions.push_back(precision_of(name));
  }
  options.candidates = args.candidates, options.repetitions = args.repetitions;
  const std::string memory_error = node_check([&] {
    for (int n : options.sizes)  // each rank holds about n^2 / ranks; rank 0 is checked for all of it
      probes::require_memory(8.0 * n * double(n), "calibrate --distributed --sizes " + std::to_string(n));
  });
  MpiSession mpi;
  const int rank = mpi.rank();
  together(rank, [&] {
    distributed::agree_on_any_error(MPI_COMM_WORLD, memory_error);
    return 0;
  });
  auto progress = [&](const distributed::CalibrationRow& row) {
    if (args.json) return;
    std::cerr << fmt::format(
        "  {} n = {:>6}: {} x {} grid, nb = {:>3}, {} thread(s): {:.4f} s (predicted {:.4f}){}{}\n",
        to_string(row.precision), row.n, row.plan.grid_rows, row.plan.grid_cols, row.plan.nb, row.plan.threads_per_rank,
        row.median_seconds, row.plan.predicted_seconds.value_or(0), row.reused ? " [stored]" : "",
        row.error.empty() ? "" : " FAILED: " + row.error);
  };
  const auto report = together(rank, [&] { return distributed::calibrate(MPI_COMM_WORLD, options, progress); });
  if (rank != 0) return;
  const auto& net = report.network;
  if (args.json) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& r : report.rows)
      rows.push_back({{"precision", to_string(r.precision)},
                      {"n", r.n},
                      {"plan", plan_json(r.plan)},
                      {"median_seconds", r.median_seconds},
                      {"stored_before", r.reused},
                      {"error", r.error}});
    print_json({{"ranks", report.layout.ranks},
                {"ranks_per_node", report.layout.ranks_per_node},
                {"network",
                 {{"latency_seconds", net.latency_seconds},
                  {"bandwidth_bytes_per_second", net.bandwidth_bytes_per_second},
                  {"broadcast_latency_seconds", net.broadcast_latency_seconds},
                  {"broadcast_bandwidth_bytes_per_second", net.broadcast_bandwidth_bytes_per_second}}},
                {"cpu_rates", report.cpu_rates_probed ? "probed" : "datasheet"},
                {"trials", rows},
                {"db", report.db_path}});
    return;
  }
  std::cout << fmt::format(
      "calibrated {} ranks ({} per node) into {}\n  network: {:.2f} us, {:.2f} GB/s point to point; {:.2f} us and "
      "{:.2f} GB/s per broadcast level\n",
      report.layout.ranks, report.layout.ranks_per_node, report.db_path, net.latency_seconds * 1e6,
      net.bandwidth_bytes_per_second / 1e9, net.broadcast_latency_seconds * 1e6,
      net.broadcast_bandwidth_bytes_per_second / 1e9);
  if (!report.cpu_rates_probed)
    std::cout << "  CPU rates: the datasheet's (no probe of this machine's CPUs is stored); run 'hetlu probe' "
                 "outside mpirun for measured ones\n";
  // The best of each order and precision.
  for (std::size_t i = 0; i < report.rows.size();) {
    std::size_t j = i, best = i;
    for (; j < report.rows.size() && report.rows[j].n == report.rows[i].n &&
           report.rows[j].precision == report.rows[i].precision;
         ++j)
      if (report.rows[j].error.empty() && report.rows[j].median_seconds < report.rows[best].median_seconds) best = j;
    const auto& b = report.rows[best];
    std::cout << fmt::format("  {} n = {}: best {} x {} grid, nb = {}, {} thread(s) per rank: {:.4f} s\n",
                             to_string(b.precision), b.n, b.plan.grid_rows, b.plan.grid_cols, b.plan.nb,
                             b.plan.threads_per_rank, b.median_seconds);
    i = j;
  }
}

void bench_distributed(const DistributedBenchArgs& args) {
  const Precision precision = precision_of(args.precision);
  const DistributedPlan given = given_plan(args.plan);
  if (args.n < 1) throw UsageError("--distributed bench needs -n");
  if (args.repetitions < 1) throw UsageError("--reps must be >= 1");
  if (!args.plan.resident.empty()) resident_device(args.plan.resident);  // a bad device fails before MPI starts
  const std::string memory_error = node_check([&] {
    probes::require_memory(8.0 * args.n * double(args.n), "bench --distributed -n " + std::to_string(args.n));
  });
  MpiSession mpi;
  const int rank = mpi.rank();
  together(rank, [&] {
    distributed::agree_on_any_error(MPI_COMM_WORLD, memory_error);
    return 0;
  });
  const auto layout = distributed::layout_of(MPI_COMM_WORLD);
  check_grid_uses_ranks(given, layout.ranks, rank);
  // The plans compared: hetlu's (tuned, else the model's) and the defaults most codes use (nb = 64,
  // the squarest grid, the BLAS threads each rank starts with).
  distributed::DistributedResolution resolved, resident_priced;
  DistributedPlan defaults;
  on_root_together(rank, [&] {
    resolved = distributed::resolve_plan(given, precision, args.n, layout, args.db);
    // Every field given: resolve_plan prices it as it priced hetlu's (the same measured rates and network).
    const DistributedPlan common = distributed::common_plan(layout.ranks, omp_get_max_threads());
    defaults = distributed::resolve_plan(common, precision, args.n, layout, args.db).plan;
    defaults.source = PlanSource::default_;
    defaults.source_detail = "nb = " + std::to_string(distributed::common_nb) +
                             ", the squarest grid, the BLAS threads each rank starts with";
    const Device device = bench_resident_device(args.plan.resident, resolved.plan.threads_per_rank);
    resident_priced = distributed::price_resident(resolved.plan, precision, args.n, layout, device, args.db);
  });
  distributed::broadcast_plan(MPI_COMM_WORLD, 0, resolved.plan);
  distributed::broadcast_plan(MPI_COMM_WORLD, 0, defaults);
  // Every rank picks the resident device the same way (the root's threads per rank, now everyone's).
  const Device device = bench_resident_device(args.plan.resident, resolved.plan.threads_per_rank);
  struct Row {
    std::string name;
    DistributedPlan plan;
    const Device* resident = nullptr;
    distributed::Timing timing;
    double median = 0;
    distributed::ResidentPhases phases;
  };
  DistributedPlan resident_plan = resolved.plan;
  resident_plan.predicted_seconds = resident_priced.plan.predicted_seconds;
  std::vector<Row> rows(3);
  rows[0].name = "hetlu", rows[0].plan = resolved.plan;
  rows[1].name = "defaults", rows[1].plan = defaults;
  rows[2].name = "resident", rows[2].plan = resident_plan, rows[2].resident = &device;
  for (auto& row : rows) {
    row.timing = together(rank, [&] {
      return distributed::time_gesv(MPI_COMM_WORLD, precision, args.n, row.plan, args.repetitions, row.resident,
                                    &row.phases);
    });
    row.median = detail::median(row.timing.samples);
  }
  if (rank != 0) return;
  warn_all(resolved.warnings);
  const double flops = detail::gesv_flops(args.n, 1);
  if (args.json) {
    nlohmann::ordered_json out = {{"n", args.n},
                                  {"precision", args.precision},
                                  {"ranks", layout.ranks},
                                  {"ranks_per_node", layout.ranks_per_node},
                                  {"network", resolved.network.source}};
    for (const auto& row : rows)
      out[row.name] = {{"plan", plan_json(row.plan)},
                       {"median_seconds", row.median},
                       {"samples", row.timing.samples},
                       {"gflops", detail::gflops(flops, row.median)},
                       {"info", row.timing.info}};
    const auto& p = rows[2].phases;
    out["resident"]["device"] = to_string(device);
    out["resident"]["phases"] = {{"upload", p.upload},         {"panel", p.panel},   {"interchanges", p.interchanges},
                                 {"broadcasts", p.broadcasts}, {"update", p.update}, {"solve", p.solve},
                                 {"link_bytes", p.link_bytes}};
    out["resident"]["explanation"] = resident_priced.explanation;
    out["speedup_over_defaults"] = rows[1].median / rows[0].median;
    out["resident_speedup_over_defaults"] = rows[1].median / rows[2].median;
    print_json(out);
    return;
  }
  std::cout << fmt::format("p{}gesv, n = {}, {} ranks ({} per node), median of {} runs; network: {}\n",
                           precision == Precision::single ? 's' : 'd', args.n, layout.ranks, layout.ranks_per_node,
                           args.repetitions, resolved.network.source);
  std::cout << fmt::format("{:<9} {:>6} {:>5} {:>8} {:>10} {:>10} {:>9} {:>9}  {}\n", "plan", "grid", "nb", "threads",
                           "seconds", "predicted", "pred/meas", "GFlop/s", "source");
  for (const auto& row : rows) {
    const auto& p = row.plan;
    const double predicted = p.predicted_seconds.value_or(0);
    std::cout << fmt::format("{:<9} {:>6} {:>5} {:>8} {:>10.4f} {:>10.4f} {:>9.2f} {:>9.2f}  {}{}\n", row.name,
                             fmt::format("{}x{}", p.grid_rows, p.grid_cols), p.nb, p.threads_per_rank, row.median,
                             predicted, predicted > 0 ? predicted / row.median : 0.0, detail::gflops(flops, row.median),
                             to_string(p.source), row.timing.info ? fmt::format(" (info {})", row.timing.info) : "");
  }
  const auto& p = rows[2].phases;
  std::cout << fmt::format(
      "resident: each rank's part on {}, hetlu's plan; its slowest rank's phases in the last run: upload {:.4f} s, "
      "panels {:.4f} s, interchanges and U rows {:.4f} s, broadcasts {:.4f} s, device GEMMs {:.4f} s, p?getrs {:.4f} "
      "s; {:.1f} MB over the link\n",
      to_string(device), p.upload, p.panel, p.interchanges, p.broadcasts, p.update, p.solve, p.link_bytes / 1e6);
  std::cout << fmt::format("hetlu's plan: {:.2f}x the defaults' speed; resident: {:.2f}x\n",
                           rows[1].median / rows[0].median, rows[1].median / rows[2].median);
}

bool mpi_started() {
  int started = 0;
  MPI_Initialized(&started);
  return started != 0;
}

}  // namespace hetlu::cli
