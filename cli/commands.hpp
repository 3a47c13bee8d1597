// The subcommands of `hetlu`. Each registers itself on the app; its callback throws on error.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hetlu/hetlu.hpp"

namespace hetlu::cli {

// Exit codes of the hetlu command.
inline constexpr int exit_ok = 0;
inline constexpr int exit_error = 1;     // bad input, unreadable files, failed database
inline constexpr int exit_usage = 2;     // bad command line (CLI11)
inline constexpr int exit_singular = 3;  // the matrix is exactly singular
// The solution's backward error exceeds accuracy_tolerance (30 (n+1) eps), or it is not finite.
inline constexpr int exit_inaccurate = 4;
// The backward error is within it, but A is singular to working precision (estimated reciprocal
// condition number < eps, as dgesvx's info = n + 1): X is written and may have no correct digit.
inline constexpr int exit_singular_to_working_precision = 5;

// A failure with an exit status of its own (a singular matrix, say): run() prints the message as
// one line on stderr (and, under --json, {"error", "exit_status"} on stdout) and exits with it.
struct CommandFailure : Error {
  int exit_code;
  CommandFailure(int code, const std::string& message) : Error(message), exit_code(code) {}
};

// A command line that cannot mean anything (contradictory options): exit 2, as CLI11's own errors.
struct UsageError : CommandFailure {
  explicit UsageError(const std::string& message) : CommandFailure(exit_usage, message) {}
};

// Validators: a value outside them is a bad command line (exit 2) before any work.
// The names of an enum (detail::solver_names.all(), ...), and extra ones such as "auto".
CLI::Validator one_of(std::vector<std::string> names, const std::vector<std::string>& extra = {});
// A finite number > 0 written as a decimal (CLI::PositiveNumber lets NaN, Inf and 0x10 through).
extern const CLI::Validator finite_positive;
// A decimal number in [least, most] (no hex, inf or nan); `range` says the interval as help shows it.
CLI::Validator decimal_in(double least, double most, const std::string& range);
// A whole number >= 1 (CLI::PositiveNumber's message prints DBL_MAX in full).
extern const CLI::Validator whole_positive;
// A whole number in [least, most], its refusal saying so for any text (CLI::Range said "Value abc
// not in range 1 to 1048576").
CLI::Validator whole_in(long long least, long long most);
// A path that is not empty ("" would otherwise mean "not given").
extern const CLI::Validator non_empty_path;

// The result of the subcommand that ran (callbacks cannot return values through CLI11).
struct CommandState {
  int exit_code = exit_ok;
};

void register_probe(CLI::App& app, CommandState& state);
void register_calibrate(CLI::App& app, CommandState& state);
void register_recommend(CLI::App& app, CommandState& state);
void register_solve(CLI::App& app, CommandState& state);
void register_db(CLI::App& app, CommandState& state);
void register_bench(CLI::App& app, CommandState& state);
void register_report(CLI::App& app, CommandState& state);

// Why an input file did not open, from the open's errno: "no such file", else "cannot be read
// (reason)" (a loop of links was said as "no such file").
std::string why_unopened(int open_error);

// --db PATH, on every subcommand that touches the database.
void add_db_option(CLI::App& command, std::string& path);
// The database a command uses: --db when given, else the default path.
std::string database_path(const std::string& db_option);
// The files a solve reads, which its output must never replace: A, B (either may be empty) and the
// database when there is one (a solve without a default database path runs on the model alone).
std::vector<std::string> read_files(const std::string& a_path, const std::string& b_path, const std::string& db_option);
// A solve's outputs checked before any work (hetlu solve, and its --distributed rank 0): standard
// output, which X or the report goes to, never an input (`>> A.mtx` appended X to A); -o's path
// (x_path, empty: none) never an input; and --json's document alone on standard output.
void check_solve_outputs(const std::string& x_path, bool json, const std::vector<std::string>& inputs);

// --target, --devices (or --backend), --d and --panel: where a solve runs (solve, bench).
struct HybridArgs {
  std::string target = "cpu";
  std::string backend;  // empty: a GPU when there is one, else host
  std::string devices;  // several: "cuda,host:4"; empty: --backend's
  std::optional<int> d;
  std::string panel;  // empty: the plan's
};
void add_hybrid_options(CLI::App& command, HybridArgs& args);
// Applies them to options (checking the names; a misspelt one is a usage error naming it).
void apply_hybrid_options(const HybridArgs& args, Options& options);
// Whether options run hybrid with a GPU among their devices: bench then compares with cuSOLVER.
bool uses_cuda(const Options& options);
// --devices LIST (or --backend KIND, the one-device form) for `command`; checks the list's form.
void add_devices_option(CLI::App& command, std::string& devices);
// The device set of --backend or --devices (nothing when neither is given); both is a usage error.
std::optional<DeviceSet> devices_of(const std::string& backend, const std::string& devices);

// --distributed, --grid PxQ and --threads-per-rank (solve, bench): run under mpirun on a process grid.
struct DistributedArgs;
void add_distributed_options(CLI::App& command, bool& distributed, DistributedArgs& args);
// --grid and --threads-per-rank without --distributed: a usage error naming the option.
void refuse_distributed_only_options(CLI::App& command);

// Runs hetlu with these arguments; returns the exit code. Errors go to stderr as one line.
int run(int argc, char** argv);

}  // namespace hetlu::cli
