#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/distributed.hpp"
#include "cli/matrix_market.hpp"
#include "cli/report.hpp"
#include "hetlu/detail/utf8.hpp"
#include "hetlu/hetlu.hpp"
#include "probes/memory.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/condition.hpp"
#include "solvers/scalar.hpp"

namespace hetlu::cli {
namespace {

// "; tried gepp: ..., prbt: ..." when more than the one solver ran.
std::string describe_attempts(const std::vector<std::string>& attempts) {
  if (attempts.size() < 2) return "";
  std::string out = "; tried ";
  for (std::size_t i = 0; i < attempts.size(); ++i) out += (i ? ", " : "") + attempts[i];
  return out;
}

// solve_checked on A and B as they were read: in complex double when either is complex (B then
// holds X as complex too), else in double. B is overwritten by X.
SolveReport solve_read(std::optional<Solver> solver, DenseMatrix& A, DenseMatrix& B, const Options& options) {
  const int n = A.rows, nrhs = B.cols, ld = std::max(1, n);
  if (A.is_complex || B.is_complex) {
    A.make_complex();
    B.make_complex();
    return solve_checked(solver, n, nrhs, A.complex_values.data(), ld, B.complex_values.data(), ld, options);
  }
  return solve_checked(solver, n, nrhs, A.values.data(), ld, B.values.data(), ld, options);
}

// --precision mixed: a single factorization refined in double (mixed_gesv); auto: that or the
// double solver, whichever is safe and faster (auto_precision_gesv). Then omega as solve_checked
// computes it; an inaccurate answer goes to solve_checked with the user's solver choice (`asked`:
// none escalates). B is overwritten by X; A by factors.
template <class T>
SolveReport solve_mixed(Solver solver, std::optional<Solver> asked, bool automatic, int n, int nrhs, std::vector<T>& A,
                        std::vector<T>& B, const Options& options) {
  const int ld = std::max(1, n);
  // No right-hand side: nothing to refine, and only a factorization in double tells how singular A
  // is (as dgesvx's rcond with nrhs = 0): --precision double's answer.
  if (nrhs == 0) return solve_checked(asked, n, nrhs, A.data(), ld, B.data(), ld, options);
  const std::vector<T> A0 = A, B0 = B;
  std::vector<int> ipiv(ld);
  int iter = 0;
  SolveReport report =
      automatic ? auto_precision_gesv(solver, n, nrhs, A.data(), ld, ipiv.data(), B0.data(), ld, B.data(), ld, options)
                : mixed_gesv(solver, n, nrhs, A.data(), ld, ipiv.data(), B0.data(), ld, B.data(), ld, &iter, options);
  // An exact zero pivot of mixed's double solver, which does not equilibrate (a 2 x 2 of
  // determinant -1e-400): --precision double's solver decides, as below.
  const bool zero_pivot = report.info > 0;
  bool finite = false;
  if (!zero_pivot) {
    report.backward_error = accuracy::backward_error(n, nrhs, A0.data(), ld, B.data(), ld, B0.data(), ld);
    finite = std::all_of(B.begin(), B.end(), [](const T& x) { return scalar::is_finite(x); });
    report.accurate = finite && *report.backward_error <= accuracy_tolerance<T>(n);
    report.attempts.push_back(automatic ? fmt::format("{} in precision auto, answered in {}: omega = {:.2e}",
                                                      to_string(solver), to_string(report.plan.precision),
                                                      *report.backward_error)
                                        : fmt::format("{} in mixed precision (ITER {}): omega = {:.2e}",
                                                      to_string(solver), iter, *report.backward_error));
  }
  if (!zero_pivot && report.accurate) {
    // An accurate answer: how singular A is. Mixed answers and PRBT's carry it (mixed_gesv's double
    // solver estimates it); where precision auto's double solver answered with GEPP or CALU (it
    // estimates only where the mixed path's certificate failed), dgecon's estimate from its factors
    // in A, never above what X proves.
    const bool double_factors_in_a =  // GEPP's or CALU's, not a mixed answer's (A untouched, ipiv unset)
        report.plan.precision == Precision::double_ && report.plan.solver != Solver::prbt;
    if (double_factors_in_a && (!report.rcond || automatic)) {
      const kernels::ScaledNorm anorm =
          kernels::overflow_safe_norm(kernels::norm1(n, n, A0.data(), ld), n, A0.data(), ld, false);
      report.rcond = std::min(report.rcond.value_or(1.0),
                              kernels::solution_rcond(n, nrhs, B.data(), ld, B0.data(), ld, anorm, [&](double norm) {
                                return rcond_estimate(n, A.data(), ld, ipiv.data(), norm);
                              }));
    }
    const double rcond = report.rcond.value_or(1.0), eps = accuracy::unit_roundoff<T>();
    if (!forward_error_decides<T>(rcond)) return report;
    if (rcond >= eps) {  // within the estimate's error of eps: refinement of this X decides, as for double
      judge_singularity_with_forward_error(report, n, nrhs, A0.data(), ld, B.data(), ld, B0.data(), ld, options);
      return report;
    }
  }
  // Never worse than --precision double: its solver equilibrates a matrix's rows (mixed's own
  // fallback to double, as dsgesv's, does not: entries of 1e300 came back not finite, and a matrix
  // with rows 1e+-300 apart read as singular) and escalates. Its answer replaces an inaccurate or
  // non-finite one; its verdict on a matrix that looks singular stands, unless its answer is the
  // less accurate (then the mixed path's stands, flagged as it was).
  const bool looks_singular = !zero_pivot && report.accurate;
  std::vector<T> X = B0;
  SolveReport checked = solve_checked(asked, n, nrhs, A0.data(), ld, X.data(), ld, options);
  if (checked.info > 0) return checked;  // exactly singular, as --precision double says it
  const bool checked_better = checked.info == 0 && checked.backward_error &&
                              (zero_pivot || !finite || *checked.backward_error < *report.backward_error ||
                               (looks_singular && checked.accurate));
  if (!checked_better) {
    if (looks_singular) check_working_precision_singularity<T>(report);
    return report;
  }
  checked.auto_choice = report.auto_choice;
  checked.attempts.insert(checked.attempts.begin(), report.attempts.begin(), report.attempts.end());
  // The mixed answer's warnings stand, except what it said of A's singularity: the checked
  // (row-equilibrated) answer is the one returned, and its verdict the one that counts (both
  // stood before, with two estimates: Hilbert 12 said 2.3e-17 and then 4.6e-17).
  clear_working_precision_singularity(report);
  checked.warnings.insert(checked.warnings.begin(), report.warnings.begin(), report.warnings.end());
  checked.warnings.push_back(std::string(zero_pivot       ? "met an exact zero pivot unequilibrated"
                                         : looks_singular ? "looked singular to working precision"
                                         : finite         ? "inaccurate"
                                                          : "not finite") +
                             " in " + (automatic ? "precision auto" : "mixed precision") + ": solved again in double");
  B = std::move(X);
  return checked;
}

SolveReport solve_read_mixed(Solver solver, std::optional<Solver> asked, bool automatic, DenseMatrix& A, DenseMatrix& B,
                             const Options& options) {
  const int n = A.rows, nrhs = B.cols;
  if (A.is_complex || B.is_complex) {
    A.make_complex();
    B.make_complex();
    return solve_mixed(solver, asked, automatic, n, nrhs, A.complex_values, B.complex_values, options);
  }
  return solve_mixed(solver, asked, automatic, n, nrhs, A.values, B.values, options);
}

// How well X is determined, where the solve estimated it: rcond and, near eps, dgerfs' bound on the
// forward error (kappa 1e15 left X with 2 digits and a bound of 21 in silence outside --json).
std::string condition_text(const SolveReport& report) {
  std::string text;
  if (report.rcond) text += fmt::format(", rcond {:.1e}", *report.rcond);
  if (report.forward_error) text += fmt::format(", forward error bound {:.1e}", *report.forward_error);
  return text;
}

bool all_finite(const DenseMatrix& M) {
  auto finite = [](const auto& values) {
    return std::all_of(values.begin(), values.end(), [](auto x) { return scalar::is_finite(x); });
  };
  return M.is_complex ? finite(M.complex_values) : finite(M.values);
}

}  // namespace

void register_solve(CLI::App& app, CommandState& state) {
  struct Args {
    std::string db, a_path, b_path, x_path, solver = "gepp", precision = "double";
    std::optional<int> nb;
    bool json = false, refine = false, distributed = false;
    HybridArgs hybrid;
    DistributedArgs distributed_plan;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("solve", "Solve A X = B from Matrix Market files");
  add_db_option(*cmd, args->db);
  cmd->add_option("A", args->a_path, "the square matrix A (.mtx)")->required();
  cmd->add_option("B", args->b_path, "right-hand sides B (.mtx; default: a vector of ones)");
  cmd->add_option("-o,--output", args->x_path, "write X here in Matrix Market array format (-: standard output)")
      ->check(non_empty_path);
  cmd->add_option("--solver", args->solver, "gepp, calu, prbt, or auto (the least predicted time)")
      ->capture_default_str()
      ->check(one_of(detail::solver_names.all(), {"auto"}));
  cmd->add_option("--precision", args->precision,
                  "double, or mixed: factor in single (the solver's), refine in double (classical, then GMRES), and "
                  "solve in double where that fails; or auto: mixed where the model prices it faster and the "
                  "condition estimate lets it converge, else double; the answer is double either way; "
                  "--distributed: double or single")
      ->capture_default_str()
      ->check(CLI::IsMember({"double", "mixed", "auto", "single"}));
  cmd->add_flag("--refine", args->refine, "GEPP and CALU: refine in working precision (PRBT always does)");
  cmd->add_option("--nb", args->nb, "panel width (overrides the tuned or model value)")->transform(whole_positive);
  add_hybrid_options(*cmd, args->hybrid);
  cmd->add_flag("--json", args->json, "print one JSON object instead of text");
  add_distributed_options(*cmd, args->distributed, args->distributed_plan);
  cmd->callback([args, &state, cmd] {
    if (args->distributed) {
      for (const char* option : {"--solver", "--refine", "--target", "--backend", "--devices", "--d", "--panel"})
        if (cmd->count(option) > 0)
          throw UsageError(std::string(option) + " does not apply to --distributed (ScaLAPACK's GEPP on the CPUs)");
      DistributedSolveArgs d;
      d.a_path = args->a_path, d.b_path = args->b_path, d.x_path = args->x_path, d.db = args->db;
      d.precision = args->precision, d.plan = args->distributed_plan, d.json = args->json;
      d.plan.nb = args->nb;
      state.exit_code = solve_distributed(d);
      return;
    }
    refuse_distributed_only_options(*cmd);
    if (args->precision == "single")
      throw UsageError("--precision single is for --distributed (here: double, or mixed for single's speed)");
    if (args->solver != "auto") from_string<Solver>(args->solver);  // a misspelt solver fails before any reading
    Options options;
    apply_hybrid_options(args->hybrid, options);
    const std::vector<std::string> inputs = read_files(args->a_path, args->b_path, args->db);
    check_solve_outputs(args->x_path, args->json, inputs);
    const bool automatic = args->precision == "auto", mixed = automatic || args->precision == "mixed";
    // What the solve holds beyond A and B as read. solve_checked: a copy of A to factor (A stays for
    // omega) and PRBT's padded one; X, B and R B twice (solve_scaled). A real A made complex for a
    // complex B: one more A. Mixed and auto: A kept for omega, A rounded to single (kept), then, where
    // their answer is inaccurate or looks singular, solve_checked's on top; B kept, X, the residual,
    // B rounded to single. (GMRES's widened factors are never made here: the CLI certifies.) Checked
    // as A's header is read, A and B (one column) to come; as B's is read, B to come (A is held, and
    // counted by the free memory already); and again with both read.
    auto require_solve_memory = [&](double n, double nrhs, bool complex, bool a_made_complex, bool a_read,
                                    bool b_read) {
      const double copies_of_a = (a_read ? 0 : 1) + (a_made_complex ? 1 : 0) + 2 + (mixed ? 1.5 : 0);
      const double copies_of_b = (b_read ? 0 : 1) + 4 + (mixed ? 3.5 : 0);
      probes::require_memory((complex ? 16.0 : 8.0) * (copies_of_a * n * n + copies_of_b * n * nrhs),
                             fmt::format("{}: solving a {} x {} system", args->a_path, n, n));
    };
    // Shapes are refused from the headers, before anything is allocated: a 61-byte file declaring
    // 100000 x 5000 took 3.9 GB before "it must be square".
    auto require_square = [&](long long rows, long long cols) {
      if (rows != cols)
        throw InvalidArgument(fmt::format("{}: A is {} x {}; it must be square", args->a_path, rows, cols));
    };
    DenseMatrix A = read_matrix_market(args->a_path, MatrixRole::system, [&](const DeclaredMatrix& declared) {
      require_square(declared.rows, declared.cols);
      require_solve_memory(declared.rows, 1, declared.is_complex, false, false, false);
    });
    require_square(A.rows, A.cols);
    auto require_rows_of_a = [&](long long rows) {
      if (rows != A.rows)
        throw InvalidArgument(
            fmt::format("{}: B has {} rows but A is {} x {}; they must match", args->b_path, rows, A.rows, A.cols));
    };
    DenseMatrix B;
    if (args->b_path.empty()) {
      B.rows = A.rows, B.cols = 1, B.values.assign(A.rows, 1.0);
    } else {
      B = read_matrix_market(args->b_path, MatrixRole::any, [&](const DeclaredMatrix& declared) {
        require_rows_of_a(declared.rows);
        require_solve_memory(A.rows, declared.cols, A.is_complex || declared.is_complex,
                             declared.is_complex && !A.is_complex, true, false);
      });
      require_rows_of_a(B.rows);
    }
    const int n = A.rows, nrhs = B.cols;
    const bool complex = A.is_complex || B.is_complex;
    require_solve_memory(n, nrhs, complex, complex && !A.is_complex, true, true);
    options.db_path = args->db;
    options.overrides.nb = args->nb;
    if (args->refine) options.overrides.refinement = Refinement::working;
    const std::optional<Solver> solver =
        args->solver == "auto" ? std::nullopt : std::optional<Solver>(from_string<Solver>(args->solver));
    // The answer is checked (omega), and auto escalates until it is accurate (hetlu.hpp).
    if (mixed && args->refine)
      throw UsageError("--precision " + args->precision + " always refines: it takes no --refine");
    // Mixed precision with --solver auto: GEPP, as LAPACK's dsgesv (auto's choice among mixed solvers is not tuned
    // yet).
    const SolveReport report = mixed ? solve_read_mixed(solver.value_or(Solver::gepp), solver, automatic, A, B, options)
                                     : solve_read(solver, A, B, options);
    warn_all(report.warnings);
    if (report.info > 0) {
      throw CommandFailure(
          exit_singular,
          fmt::format("{}: the matrix is singular: U({},{}) is exactly zero (zero pivot at column {}); no solution "
                      "written",
                      args->a_path, report.info, report.info, report.info));
    }
    const double omega = report.backward_error.value_or(0);
    const std::string tried = describe_attempts(report.attempts);
    if (!all_finite(B))
      throw CommandFailure(exit_inaccurate,
                           fmt::format("{}: the solution is not finite (it overflows, A is singular to working "
                                       "precision, or the factors grew past the range); no solution written{}",
                                       args->a_path, tried));
    if (report.singular_to_working_precision && report.accurate) {
      warn_unreliable(args->a_path);
      state.exit_code = exit_singular_to_working_precision;
    }
    if (!report.accurate) {
      warn_inaccurate(args->a_path, omega,
                      complex ? accuracy_tolerance<std::complex<double>>(n) : accuracy_tolerance<double>(n), tried);
      state.exit_code = exit_inaccurate;
    }
    if (!args->x_path.empty()) write_matrix_market(args->x_path, B, inputs);

    if (args->json) {
      nlohmann::ordered_json j = {{"n", n},
                                  {"precision", args->precision},
                                  {"answered_in", to_string(report.plan.precision)},
                                  {"nrhs", nrhs},
                                  {"solver", to_string(report.plan.solver)},
                                  {"plan", to_json(report.plan)},
                                  {"seconds", report.seconds},
                                  {"gflops", report.gflops},
                                  {"backward_error", omega},
                                  {"accurate", report.accurate},
                                  {"attempts", report.attempts},
                                  {"refinement_steps", report.refinement_steps},
                                  {"fell_back_to_gepp", report.fell_back_to_gepp},
                                  {"note", report.note},
                                  {"phases", to_json(report.phase_seconds)},
                                  {"info", report.info}};
      if (report.rcond) j["rcond"] = *report.rcond;
      j["singular_to_working_precision"] = report.singular_to_working_precision;
      if (report.forward_error) j["forward_error_bound"] = *report.forward_error;  // null where infinite
      if (!report.auto_choice.empty()) j["auto"] = report.auto_choice;
      if (!args->x_path.empty())
        j["output"] = args->x_path;
      else if (complex)  // each entry as [re, im]
        for (const auto& x : B.complex_values) j["x"].push_back({x.real(), x.imag()});
      else
        j["x"] = B.values;
      if (complex) j["field"] = "complex";
      print_json(j);
      return;
    }
    if (!report.auto_choice.empty()) std::cerr << "hetlu: " << report.auto_choice << "\n";
    if (report.attempts.size() > 1)
      for (const auto& line : report.attempts) std::cerr << "hetlu: tried " << line << "\n";
    std::cerr << fmt::format(
        "hetlu: {}{} n = {}, nrhs = {}: {:.4f} s, {:.2f} GFlop/s, backward error {:.2e}{}, {} refinement step(s); "
        "nb = {} ({}){}{}{}\n",
        to_string(report.plan.solver), report.plan.precision == Precision::mixed ? " in mixed precision" : "", n, nrhs,
        report.seconds, report.gflops, omega, condition_text(report), report.refinement_steps, report.plan.nb,
        origin_of(report.plan, "nb"),
        report.plan.target == Target::hybrid
            ? fmt::format("; hybrid on {}, d = {}, panel on the {}", to_string(report.plan.devices),
                          report.plan.cpu_block_columns, to_string(panel_location(report.plan)))
            : "",
        report.fell_back_to_gepp ? "; fell back to GEPP: " + report.note
        : report.note.empty()    ? ""
                                 : "; " + report.note,
        report.phase_seconds.empty() ? "" : "; " + describe(report.phase_seconds));
    if (args->x_path.empty()) write_matrix_market(std::cout, B);  // to stdout, ready to redirect
  });
}

}  // namespace hetlu::cli
