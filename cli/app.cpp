#include <iostream>

#include "cli/commands.hpp"
#include "db/database.hpp"
#include "hetlu/types.hpp"

namespace hetlu::cli {

void add_db_option(CLI::App& command, std::string& path) {
  command.add_option("--db", path,
                     "tuning database (default: $HETLU_DB, else $XDG_DATA_HOME/hetlu/tuning.db, "
                     "else ~/.local/share/hetlu/tuning.db)");
}

std::string database_path(const std::string& db_option) {
  return db_option.empty() ? db::default_path() : db_option;
}

int run(int argc, char** argv) {
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0.
    const int code = app.exit(e);
    return code == 0 ? exit_ok : exit_usage;
  } catch (const std::exception& e) {
    std::cerr << "hetlu: error: " << e.what() << std::endl;
    return exit_error;
  }
  return state.exit_code;
}

}  // namespace hetlu::cli
