#include <fcntl.h>
#include <fmt/format.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <nlohmann/json.hpp>
#include <string_view>
#include <thread>

#include "cli/commands.hpp"
#include "cli/distributed.hpp"
#include "cli/output_file.hpp"
#include "db/database.hpp"
#include "hetlu/detail/utf8.hpp"
#include "hetlu/types.hpp"
#include "solvers/blas_threads.hpp"

namespace hetlu::cli {

void add_db_option(CLI::App& command, std::string& path) {
  command
      .add_option("--db", path,
                  "tuning database (default: $HETLU_DB, else $XDG_DATA_HOME/hetlu/tuning.db, "
                  "else ~/.local/share/hetlu/tuning.db)")
      ->check(non_empty_path);
  // Standard output or error opened on the database (`hetlu db export >> tuning.db`): what the
  // command prints would be appended to the SQLite file. Refused before anything runs.
  command.parse_complete_callback([&path] {
    std::string database;
    try {
      database = db::path_or_default(path);
    } catch (const Error&) {  // no default path: no database to protect
      return;
    }
    try {
      refuse_clobbering("/dev/stderr", {database});
    } catch (const InvalidArgument&) {  // its own message would go into the database: the exit status says it
      const int null_device = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
      if (null_device >= 0) ::dup2(null_device, STDERR_FILENO);
      throw;
    }
    refuse_clobbering("/dev/stdout", {database});
  });
}

CLI::Validator one_of(std::vector<std::string> names, const std::vector<std::string>& extra) {
  names.insert(names.end(), extra.begin(), extra.end());
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return CLI::Validator(
      [names, list](std::string& value) {
        return std::find(names.begin(), names.end(), value) != names.end() ? std::string()
                                                                           : "'" + value + "' is not one of: " + list;
      },
      "one of: " + list);
}

namespace {
// value as a decimal number (digits, one point, an exponent; no hex, spaces, inf or nan), or NaN.
double decimal(const std::string& value) {
  if (value.empty() || value.find_first_not_of("0123456789.eE+-") != std::string::npos) return std::nan("");
  std::size_t used = 0;
  try {
    const double x = std::stod(value, &used);
    return used == value.size() ? x : std::nan("");
  } catch (const std::exception&) {
    return std::nan("");
  }
}
}  // namespace

const CLI::Validator finite_positive(
    [](std::string& value) {
      const double x = decimal(value);
      return std::isfinite(x) && x > 0 ? std::string() : "'" + value + "' is not a finite number > 0";
    },
    "a finite number > 0");

CLI::Validator decimal_in(double least, double most, const std::string& range) {
  return CLI::Validator(
      [least, most, range](std::string& value) {
        const double x = decimal(value);
        return x >= least && x <= most ? std::string() : "'" + value + "' is not a number " + range;
      },
      "a number " + range);
}

// CLI11 reads a leading 0 as octal (--ranks 017 planned for 15 ranks, 09 "could not convert"): the
// zeros are dropped here, so that the number checked is the number stored. Given with ->transform:
// ->check runs a validator on a copy of the value (recommend -n 010 was still read as 8).
CLI::Validator whole_in(long long least, long long most) {
  const std::string range = "a whole number in [" + std::to_string(least) + ", " + std::to_string(most) + "]";
  return CLI::Validator(
      [least, most, range](std::string& value) {
        const std::string given = value;
        const std::size_t digits = value.find_first_not_of('0');
        if (digits == std::string::npos && !value.empty())
          value = "0";
        else if (digits > 0 && digits != std::string::npos)
          value.erase(0, digits);
        const double x = decimal(value);
        const bool whole = value.find_first_of(".eE+-") == std::string::npos && std::isfinite(x);
        return whole && x >= double(least) && x <= double(most) ? std::string() : "'" + given + "' is not " + range;
      },
      range);
}

const CLI::Validator whole_positive = whole_in(1, 2147483647);

// What went to standard output must have arrived (a full disk, /dev/full, a closed pipe): a result
// that was not written is an error, not exit 0. Said on standard error where it did not.
static bool standard_output_arrived() {
  std::cout.flush();
  if (std::cout && std::fflush(stdout) == 0 && !std::ferror(stdout)) return true;
  std::cerr << "hetlu: error: cannot write the result to standard output" << std::endl;
  return false;
}

std::string why_unopened(int open_error) {
  if (open_error == ENOENT) return "no such file";
  return open_error ? std::string("cannot be read (") + std::strerror(open_error) + ")" : "cannot be read";
}

const CLI::Validator non_empty_path(
    [](std::string& value) { return value.empty() ? std::string("the path is empty") : std::string(); }, "a path");

void add_hybrid_options(CLI::App& command, HybridArgs& args) {
  command.add_option("--target", args.target, "cpu, or hybrid (CPUs and a device)")
      ->capture_default_str()
      ->check(one_of(detail::target_names.all()));
  command.add_option("--backend", args.backend, "hybrid: cuda or host (default: cuda when a GPU is present)")
      ->check(one_of(detail::backend_names.all()));
  add_devices_option(command, args.devices);
  command
      .add_option("--d", args.d, "hybrid: block columns the CPUs own (0: everything, panel included, on the device)")
      ->transform(whole_in(0, 999999999));
  command.add_option("--panel", args.panel, "hybrid: where panels are factored, cpu or device (d = 0)")
      ->check(one_of(detail::panel_location_names.all()));
}

void add_devices_option(CLI::App& command, std::string& devices) {
  command
      .add_option("--devices", devices,
                  "hybrid: the devices beside the CPUs, e.g. cuda, host:4 or cuda,host:4 (host:K: a team of K of "
                  "this machine's cores); block columns dealt by their measured rates")
      ->check(CLI::Validator(
          [](std::string& value) {
            try {
              from_string<DeviceSet>(value);
              return std::string();
            } catch (const InvalidArgument& e) {
              return std::string(e.what());
            }
          },
          "a device list"));
}

std::optional<DeviceSet> devices_of(const std::string& backend, const std::string& devices) {
  if (!backend.empty() && !devices.empty()) throw UsageError("give --devices or --backend, not both");
  if (!devices.empty()) return from_string<DeviceSet>(devices);
  if (!backend.empty()) return DeviceSet(from_string<BackendKind>(backend));
  return std::nullopt;
}

void apply_hybrid_options(const HybridArgs& args, Options& options) {
  options.target = from_string<Target>(args.target);
  const bool hybrid_only = !args.backend.empty() || !args.devices.empty() || args.d || !args.panel.empty();
  if (options.target != Target::hybrid && hybrid_only)
    throw UsageError("--backend, --devices, --d and --panel apply to --target hybrid only");
  // d = 0 is the panel on the device, and only that: one fact, never two that disagree.
  if (args.d && !args.panel.empty() && (*args.d == 0) != (args.panel == "device"))
    throw UsageError("--d " + std::to_string(*args.d) + " and --panel " + args.panel +
                     " contradict each other: d = 0 puts the panel on the device, any other d keeps it on the CPUs");
  options.overrides.devices = devices_of(args.backend, args.devices);
  if (!args.panel.empty()) options.overrides.panel_location = from_string<PanelLocation>(args.panel);
  options.overrides.cpu_block_columns = args.d;
}

std::string database_path(const std::string& db_option) {
  return db::path_or_default(db_option);
}

std::vector<std::string> read_files(const std::string& a_path, const std::string& b_path,
                                    const std::string& db_option) {
  std::vector<std::string> inputs = {a_path, b_path};
  try {
    inputs.push_back(database_path(db_option));
  } catch (const Error&) {  // no default path (no HOME): the solve uses no database, so none to protect
  }
  return inputs;
}

void check_solve_outputs(const std::string& x_path, bool json, const std::vector<std::string>& inputs) {
  refuse_clobbering("/dev/stdout", inputs);
  if (!x_path.empty()) refuse_clobbering(x_path, inputs);
  if (json && !x_path.empty() && reaches_standard_output(x_path))
    throw UsageError("--json prints one document on standard output: -o cannot write X there too");
}

void add_distributed_options(CLI::App& command, bool& distributed, DistributedArgs& args) {
  command.add_flag("--distributed", distributed,
                   "run on every rank of mpirun: a P x Q grid, ScaLAPACK's p?gesv (rank 0 reads and writes)");
  // An empty value was taken as no value at all (--grid "" solved with the tuned grid, exit 0).
  const CLI::Validator not_empty([](std::string& value) { return value.empty() ? "an empty value" : ""; }, "TEXT");
  command.add_option("--grid", args.grid, "--distributed: the process grid PxQ (default: tuned, else the model's)")
      ->check(not_empty);
  command
      .add_option("--threads-per-rank", args.threads_per_rank,
                  "--distributed: BLAS threads of each rank (default: tuned, else the model's)")
      ->transform(whole_in(1, most_threads));
  command
      .add_option("--resident", args.resident,
                  "--distributed: keep each rank's part of A on DEVICE (cuda, host:K) and update it there, the "
                  "CPUs factoring the panels (the device-resident LU); solve: instead of p?gesv (default: p?gesv); "
                  "bench: the resident row's device (default: cuda where a GPU is, else host:THREADS-PER-RANK)")
      ->check(not_empty);
}

void refuse_distributed_only_options(CLI::App& command) {
  for (const char* option : {"--grid", "--threads-per-rank", "--resident"})
    if (command.count(option) > 0) throw UsageError(std::string(option) + " needs --distributed");
}

namespace {

// Whether this process is an MPI rank other than the first (from the launcher's environment, before
// MPI starts): under --distributed its usage errors are left to rank 0.
bool secondary_mpi_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char* value = std::getenv(name)) return std::string(value) != "0";
  return false;
}

// A usage error under mpirun, which rank 0 says (every rank parses the same command line): met
// before MPI started, this rank leaves well after rank 0. mpirun ends the job once a rank exits
// non-zero, and ended rank 0 before it had said anything in 4 of 50 runs (a hostile helper's
// finding); rank 0's exit ends this wait, so it costs nothing. Met after (a --grid that does not use
// the ranks), MPI_Finalize has already waited for rank 0's line: no wait (it cost 5 s there).
int leave_usage_error_to_rank_0() {
  if (!mpi_started()) std::this_thread::sleep_for(std::chrono::seconds(5));
  return exit_usage;
}

// Under --json a failure is also a JSON document on stdout, so that a script reading stdout sees it.
int print_json_failure(const std::string& message, int code) {
  std::cout << nlohmann::ordered_json{{"error", message}, {"exit_status", code}}.dump(2) << std::endl;
  return code;
}

int report_failure(const std::string& said, int code, bool json) {
  if (said.empty()) return code;  // a rank of a distributed command whose rank 0 reports it
  // One line, whatever it quotes (a path, a file's bytes): a path not UTF-8 aborted --json's
  // document, ESC [ 2 J in a Matrix Market value cleared the terminal, a newline split the line.
  const std::string message = detail::printable(said);
  // One write: in pieces, mpirun's banner landed between "hetlu: error: " and the message.
  std::cerr << ("hetlu: error: " + message + "\n") << std::flush;
  return json ? print_json_failure(message, code) : code;
}

// OMP_NUM_THREADS far beyond the machine (100000) made libgomp fail to start its team, a segfault
// in the first parallel region (the input's finiteness check): taken as the hardware's threads,
// said once. Up to 4x the hardware threads stays as asked (oversubscription is the user's call).
// Within OMP_THREAD_LIMIT too, before bench's and the probes' own OpenBLAS calls (blas_threads.hpp).
void cap_openmp_threads() {
  kernels::keep_openmp_team_within_limits();
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int asked = omp_get_max_threads();
  if (asked <= 4 * hardware) return;
  omp_set_num_threads(hardware);
  if (secondary_mpi_rank()) return;  // said by rank 0 alone under mpirun
  std::cerr << fmt::format(
      "hetlu: warning: OMP_NUM_THREADS asks for {} threads, more than 4x this machine's {}: "
      "using {}\n",
      asked, hardware, hardware);
}

// Whether the command line asks for JSON as CLI11 will parse it, read before parsing so that a usage
// error is said in JSON too: --json, or --json=VALUE unless VALUE is one of CLI11's false words; nothing
// after "--", which ends the options. (--json=true had printed JSON on success and text on failure, and
// a file named "--json" after "--" had turned JSON failures on.)
bool asks_for_json(int argc, char** argv) {
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view word(argv[i]);
    if (word == "--") break;
    if (word == "--json") json = true;
    if (word.rfind("--json=", 0) != 0) continue;
    std::string value(word.substr(std::string_view("--json=").size()));
    std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
    json = value != "false" && value != "0" && value != "off" && value != "no" && value != "disable";
  }
  return json;
}

}  // namespace

int run(int argc, char** argv) {
  // A file size limit (`ulimit -f`) makes a write fail (EFBIG), said as a failed write naming the
  // file, where SIGXFSZ killed export and calibrate without a word and left a partial temporary.
  std::signal(SIGXFSZ, SIG_IGN);
  cap_openmp_threads();
  const bool json = asks_for_json(argc, argv);
  // Under mpirun every rank parses the same command line: a usage error is said by rank 0 alone.
  const bool quiet_usage = secondary_mpi_rank() && std::any_of(argv + 1, argv + argc, [](const char* a) {
                             return std::string_view(a) == "--distributed";
                           });
  CLI::App app{"hetlu: autotuned dense LU solvers for multicore CPUs and GPUs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "hetlu " HETLU_VERSION);
  CommandState state;
  register_probe(app, state);
  register_calibrate(app, state);
  register_recommend(app, state);
  register_solve(app, state);
  register_db(app, state);
  register_bench(app, state);
  register_report(app, state);
  // An unknown first word is named (CLI11 would say only "A subcommand is required").
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const auto* sub : app.get_subcommands({})) {
      known += (known.empty() ? "" : ", ") + sub->get_name();
      found = found || sub->get_name() == argv[1];
    }
    if (!found)
      return report_failure("unknown subcommand '" + std::string(argv[1]) + "' (expected one of: " + known + ")",
                            exit_usage, json);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0; the others are one line like every error.
    if (e.get_exit_code() == 0) {
      app.exit(e);
      return standard_output_arrived() ? 0 : exit_error;  // the help text too (> /dev/full exited 0)
    }
    if (quiet_usage) return leave_usage_error_to_rank_0();
    return report_failure(std::string(e.what()) + " (see --help)", exit_usage, json);
  } catch (const CommandFailure& e) {
    if (quiet_usage && e.exit_code == exit_usage) return leave_usage_error_to_rank_0();
    return report_failure(e.what(), e.exit_code, json);
  } catch (const std::bad_alloc&) {
    return report_failure("out of memory (the system, `ulimit -v` or the container's limit refused an allocation)",
                          exit_error, json);
  } catch (const std::exception& e) {
    return report_failure(e.what(), exit_error, json);
  }
  return standard_output_arrived() ? state.exit_code : exit_error;
}

}  // namespace hetlu::cli
