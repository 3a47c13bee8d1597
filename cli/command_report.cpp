// hetlu report: plots and a Markdown summary from the database, drawn by report/hetlu_report.py
// with matplotlib (Python is where the plotting library is; the command only finds and runs it).
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/output_file.hpp"
#include "cli/report.hpp"
#include "db/database.hpp"
#include "db/records.hpp"
#include "hetlu/detail/utf8.hpp"

namespace hetlu::cli {
namespace {

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The script beside an installed hetlu (share/hetlu), else in the source tree it was built from.
std::string report_script() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = self.parent_path().parent_path() / "share" / "hetlu" / "hetlu_report.py";
    if (fs::exists(installed)) return installed.string();
  }
  return HETLU_REPORT_SCRIPT;
}

}  // namespace

void register_report(CLI::App& app, CommandState& state) {
  struct Args {
    std::string db, out = "hetlu-report";
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("report", "Write PNG plots and a Markdown summary of the database (matplotlib)");
  add_db_option(*cmd, args->db);
  cmd->add_option("--out", args->out, "folder for report.md and the plots")->capture_default_str();
  cmd->callback([args, &state] {
    const std::string path = database_path(args->db);
    if (!std::filesystem::exists(path))
      throw InvalidArgument("no database at '" + path + "' (run 'hetlu calibrate' first)");
    // The script reads a copy of the rows a look-up would use: it had drawn a best plan of nb = -7
    // and solver "zzz" that recommend skips and db check lists; it read a database on read-only
    // storage or named with '#' or '%' as another file or none. A folder, an empty or damaged file,
    // another program's database: said as every command says it.
    // The copy is made in --out, which the report writes anyway ($TMPDIR may be unusable, or RAM),
    // as a temporary that goes with this command, a terminating signal included.
    // Opened before --out is made: a damaged or foreign file left an empty folder behind.
    auto source = db::Database::open(path, db::Database::Mode::read_only);
    std::error_code ec;
    if (std::filesystem::exists(args->out, ec) && !std::filesystem::is_directory(args->out, ec))
      throw InvalidArgument("--out '" + args->out + "' is a file; name a folder");
    std::filesystem::create_directories(args->out, ec);
    if (ec) throw InvalidArgument("cannot create the folder '" + args->out + "': " + ec.message());
    const StagedFile staged(args->out + "/tuning.db", 0600, "--out '" + args->out + "'");
    const std::string& copy = staged.path();
    source.copy_to(copy);
    {
      auto copied = db::Database::open(copy, db::Database::Mode::read_write);
      const auto named = db::invalid_values(copied);  // at most 20 a table
      for (const auto& problem : named) warn("report: leaves out " + detail::printable(problem));
      if (const auto left_out = db::keep_only_valid_rows(copied); left_out > std::int64_t(named.size()))
        warn("report: leaves out " + std::to_string(left_out) + " invalid row(s) in all ('hetlu db check' lists them)");
      copied.exec("PRAGMA journal_mode=DELETE");  // one file for the script, no -wal beside it
    }
    // Debian's python3 has Debian's matplotlib; another python3 first on PATH may not.
    const std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
    const std::string command = python + " " + shell_quoted(report_script()) + " --db " + shell_quoted(copy) +
                                " --source " + shell_quoted(path) + " --out " + shell_quoted(args->out);
    const int status = std::system(command.c_str());
    if (status != 0) state.exit_code = exit_error;  // the script said why on stderr
  });
}

}  // namespace hetlu::cli
