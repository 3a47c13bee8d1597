#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/matrix_market.hpp"
#include "cli/output_file.hpp"
#include "cli/report.hpp"
#include "db/exchange.hpp"
#include "db/records.hpp"
#include "hetlu/detail/statistics.hpp"
#include "hetlu/detail/utf8.hpp"
#include "hetlu/hetlu.hpp"

namespace hetlu::cli {

namespace {

// Relative error |predicted - measured| / measured of every tuned entry that has a prediction.
void show_accuracy(const std::vector<db::BestPlan>& plans, bool json, const std::string& path) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::vector<double> errors;
  for (const auto& b : plans) {
    if (!b.predicted_s || b.median_s <= 0) continue;
    const double error = std::abs(*b.predicted_s - b.median_s) / b.median_s;
    errors.push_back(error);
    rows.push_back({{"machine_id", b.machine_id},
                    {"solver", to_string(b.plan.solver)},
                    {"precision", to_string(b.plan.precision)},
                    {"target", to_string(b.plan.target)},
                    {"devices", b.plan.target == Target::hybrid ? to_string(b.plan.devices) : ""},
                    {"cpu_threads", b.cpu_threads},
                    {"m", b.m},
                    {"n", b.n},
                    {"nb", b.plan.nb},
                    {"predicted_seconds", *b.predicted_s},
                    {"measured_seconds", b.median_s},
                    {"relative_error", error}});
  }
  const double median = detail::median(errors);
  // The median per solver and target: the model's accuracy for each, which one median hides.
  std::map<std::pair<std::string, std::string>, std::vector<double>> grouped;
  for (const auto& r : rows)
    grouped[{r["solver"].get<std::string>(),
             r["target"].get<std::string>() +
                 (r["devices"].get<std::string>().empty() ? "" : " (devices " + r["devices"].get<std::string>() + ")")}]
        .push_back(r["relative_error"]);
  nlohmann::ordered_json by_solver = nlohmann::ordered_json::array();
  for (const auto& [key, group] : grouped)
    by_solver.push_back({{"solver", key.first},
                         {"target", key.second},
                         {"entries", group.size()},
                         {"median_relative_error", detail::median(group)}});
  if (json) {
    print_json(
        {{"database", path},
         {"entries", rows},
         {"by_solver_and_target", by_solver},
         {"median_relative_error", errors.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(median)}});
    return;
  }
  if (errors.empty()) {
    std::cout << "no tuned entry with a prediction in " << path << " (run 'hetlu calibrate')\n";
    return;
  }
  std::cout << fmt::format("{:>6} {:>6} {:>7} {:>6} {:>6} {:>5} {:>12} {:>12} {:>8}\n", "solver", "target", "threads",
                           "m", "n", "nb", "predicted s", "measured s", "error");
  for (const auto& r : rows)
    std::cout << fmt::format(
        "{:>6} {:>6} {:>7} {:>6} {:>6} {:>5} {:>12.4f} {:>12.4f} {:>7.1f}%\n", r["solver"].get<std::string>(),
        r["target"].get<std::string>(), r["cpu_threads"].get<int>() ? std::to_string(r["cpu_threads"].get<int>()) : "-",
        r["m"].get<int>(), r["n"].get<int>(), r["nb"].get<int>(), r["predicted_seconds"].get<double>(),
        r["measured_seconds"].get<double>(), 100 * r["relative_error"].get<double>());
  for (const auto& g : by_solver)
    std::cout << fmt::format("median relative error of {} on the {} target: {:.1f} % over {} entries\n",
                             g["solver"].get<std::string>(), g["target"].get<std::string>(),
                             100 * g["median_relative_error"].get<double>(), g["entries"].get<size_t>());
  std::cout << fmt::format("median relative error {:.1f} % over {} entries\n", 100 * median, errors.size());
}

}  // namespace

void register_db_check(CLI::App& db_cmd, CommandState& state) {
  struct Args {
    std::string db;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* check = db_cmd.add_subcommand("check", "Check the database: integrity, foreign keys, schema version");
  add_db_option(*check, args->db);
  check->add_flag("--json", args->json, "print one JSON object");
  check->callback([args, &state] {
    const std::string path = database_path(args->db);
    auto database = db::Database::open(path, db::Database::Mode::read_only);
    const auto r = db::check(database);
    if (args->json) {
      print_json({{"database", path},
                  {"ok", r.problems.empty()},
                  {"problems", r.problems},
                  {"schema_version", r.schema_version},
                  {"machines", r.machines},
                  {"probe_results", r.probe_results},
                  {"trials", r.trials},
                  {"best_plans", r.best_plans}});
    } else {
      std::cout << fmt::format(
          "database {}: schema {}, {} machine(s), {} probe result(s), {} trial(s), {} best plan(s)\n",
          detail::printable(path), r.schema_version, r.machines, r.probe_results, r.trials, r.best_plans);
      for (const auto& p : r.problems) std::cout << "problem: " << detail::printable(p) << "\n";
      std::cout << (r.problems.empty() ? "ok\n" : "NOT ok\n");
    }
    if (!r.problems.empty()) state.exit_code = exit_error;
  });
}

void register_db_forget(CLI::App& db_cmd, CommandState&) {
  struct Args {
    std::string db, machine;
  };
  auto args = std::make_shared<Args>();
  auto* forget = db_cmd.add_subcommand("forget", "Delete everything stored for one machine (its fingerprint)");
  add_db_option(*forget, args->db);
  forget->add_option("--machine", args->machine, "the machine's fingerprint, as 'hetlu db show' prints it")->required();
  forget->callback([args] {
    const std::string path = database_path(args->db);
    { auto existing = db::Database::open(path, db::Database::Mode::read_only); }  // never creates one
    auto database = db::Database::open(path, db::Database::Mode::read_write);
    if (!db::find_machine(database, args->machine))
      throw InvalidArgument("no machine with fingerprint '" + args->machine + "' in " + path);
    const auto removed = db::forget_machine(database, args->machine);
    std::cout << fmt::format("forgot machine {}: {} row(s) deleted from {}\n", detail::printable(args->machine),
                             removed, detail::printable(path));
  });
}

void register_db_exchange(CLI::App& db_cmd, CommandState&) {
  struct Args {
    std::string db, file;
    bool force = false;
  };
  auto args = std::make_shared<Args>();
  auto* out = db_cmd.add_subcommand("export", "Write the whole database as JSON");
  add_db_option(*out, args->db);
  out->add_option("-o,--output", args->file, "the JSON file (default: stdout)")->check(non_empty_path);
  out->callback([args] {
    const std::string path = database_path(args->db);
    if (!args->file.empty()) refuse_clobbering(args->file, {path});
    auto database = db::Database::open(path, db::Database::Mode::read_only);
    std::string text;
    try {
      text = db::export_json(database).dump(1);
    } catch (const nlohmann::json::type_error&) {  // a stored text that is not UTF-8 (a flipped byte)
      throw db::DatabaseError("database '" + path +
                              "' holds a text that is not valid UTF-8 (a damaged value): no export written");
    }
    if (args->file.empty()) {
      std::cout << text << "\n";
      return;
    }
    write_text_file(args->file, text + "\n", {path});
  });
  auto* in = db_cmd.add_subcommand("import", "Add the rows of an export; refuses another machine's without --force");
  add_db_option(*in, args->db);
  in->add_option("FILE", args->file, "a JSON file from 'hetlu db export'")->required();
  in->add_flag("--force", args->force, "import rows of other machines too (they apply only on those machines)");
  in->callback([args] {
    if (std::filesystem::is_directory(args->file)) throw InvalidArgument(args->file + ": is a folder, not an export");
    std::ifstream input(args->file, std::ios::binary);
    if (!input) throw InvalidArgument(args->file + ": " + why_unopened(errno));
    std::error_code ec;
    // Read in pieces up to a bound, so that a pipe or device that never ends (`yes`) is refused
    // rather than read into all memory: an export of even 10^5 trials is tens of MiB.
    constexpr std::size_t largest_export_bytes = std::size_t(256) << 20;
    // A regular file's size is known at once: a 570 MB one was read whole before it was refused.
    if (const auto size = std::filesystem::file_size(args->file, ec); !ec && size > largest_export_bytes)
      throw InvalidArgument(args->file + ": larger than an export can be (at most 256 MiB)");
    std::string text;
    for (std::vector<char> piece(1 << 20); input;) {
      input.read(piece.data(), static_cast<std::streamsize>(piece.size()));
      text.append(piece.data(), static_cast<std::size_t>(input.gcount()));
      if (text.size() > largest_export_bytes)
        throw InvalidArgument(args->file + ": larger than an export can be (at most 256 MiB)");
    }
    if (input.bad()) throw InvalidArgument(args->file + ": cannot be read");
    nlohmann::json document;
    try {
      document = db::parse_export(text);
    } catch (const db::DatabaseError& e) {
      throw InvalidArgument(args->file + ": " + e.what());
    } catch (const nlohmann::json::parse_error& e) {
      throw InvalidArgument(args->file + ": not JSON (at byte " + std::to_string(e.byte) + ")");
    } catch (const nlohmann::json::exception&) {  // e.g. a number beyond double's range
      throw InvalidArgument(args->file + ": not JSON that hetlu can read (a number out of range?)");
    }
    // Checked before the database is opened: a refused file creates no database.
    const std::string here = db::fingerprint(this_machine()).hash;
    try {
      db::check_export(document, here, args->force);
    } catch (const db::DatabaseError& e) {
      throw InvalidArgument(args->file + ": " + e.what());
    }
    const std::string path = database_path(args->db);
    // staged: the whole database left in its main file (no -wal), so that linking that file alone
    // carries every row; where SQLite cannot (a full disk), the import is refused.
    auto import_into = [&](const std::string& target, bool staged = false) {
      try {
        auto database = db::Database::open(target, db::Database::Mode::read_write);
        auto report = db::import_json(database, document, here, args->force);
        if (staged) {
          auto mode = database.prepare("PRAGMA journal_mode=DELETE");
          if (!mode.step() || mode.column_text(0) != "delete")
            throw db::DatabaseError("database '" + target + "': its journal could not be folded into it");
        }
        return report;
      } catch (const db::DatabaseError& e) {
        throw InvalidArgument(args->file + ": " + e.what());
      } catch (const nlohmann::json::exception&) {
        throw InvalidArgument(args->file + ": a value has the wrong JSON type");
      }
    };
    // Into a new database: imported beside it under another name, and linked into place only once
    // the import succeeded. A refused import then leaves no database (an empty one was left), and a
    // database another process creates meanwhile is never touched: the link fails where the name
    // exists, and the rows go into that database instead.
    db::ImportReport r;
    bool placed = false;
    if (!std::filesystem::exists(path, ec)) {
      const auto folder = std::filesystem::absolute(path).parent_path();
      std::filesystem::create_directories(folder, ec);
      std::optional<StagedFile> staged;
      try {
        staged.emplace(path);
      } catch (const InvalidArgument&) {
        // No new file in that folder: the import into `path` says why
      }
      if (staged) {
        r = import_into(staged->path(), true);
        std::error_code size_ec;
        if (std::filesystem::file_size(staged->path() + "-wal", size_ec) > 0 && !size_ec)  // rows not in the main file
          throw InvalidArgument(args->file + ": the import could not be completed in '" + staged->path() + "'");
        placed = ::link(staged->path().c_str(), path.c_str()) == 0;
      }
    }
    if (!placed) r = import_into(path);  // an existing database (or no staging here: no hard links)
    std::cout << fmt::format(
        "imported {} new machine(s), {} probe result(s), {} trial(s), {} best plan(s), {} network probe(s), {} "
        "distributed trial(s); {} row(s) already there\n",
        r.machines, r.probe_results, r.trials, r.best_plans, r.network_probes, r.distributed_trials, r.skipped);
  });
}

void register_db(CLI::App& app, CommandState& state) {
  auto* db_cmd = app.add_subcommand("db", "Inspect the tuning database");
  db_cmd->require_subcommand(1);
  register_db_check(*db_cmd, state);
  register_db_forget(*db_cmd, state);
  register_db_exchange(*db_cmd, state);
  struct Args {
    std::string db;
    bool json = false, accuracy = false;
  };
  auto args = std::make_shared<Args>();
  auto* show = db_cmd->add_subcommand("show", "Show machines, trial counts and best plans");
  add_db_option(*show, args->db);
  show->add_flag("--json", args->json, "print one JSON object");
  show->add_flag("--accuracy", args->accuracy,
                 "the model's predicted time against the measured time of every tuned entry, and the median error");
  show->callback([args] {
    const std::string path = database_path(args->db);
    auto database = db::Database::open(path, db::Database::Mode::read_only);
    const auto machines = db::list_machines(database);
    const auto plans = db::list_best_plans(database);
    const auto trials = db::count_trials(database);
    if (args->accuracy) {
      show_accuracy(plans, args->json, path);
      return;
    }
    if (args->json) {
      nlohmann::ordered_json jm = nlohmann::ordered_json::array(), jp = nlohmann::ordered_json::array();
      // A machine row's attributes as JSON, or said as damaged (db check lists it), never a raw parse error.
      auto attributes = [&](const db::MachineRow& m, const std::string& text, const char* name) {
        try {
          return nlohmann::json::parse(text);
        } catch (const nlohmann::json::exception&) {
          throw InvalidArgument(path + ": machine " + m.fingerprint.hash + ": " + name +
                                " is not JSON (a damaged row: 'hetlu db check' lists it)");
        }
      };
      for (const auto& m : machines)
        jm.push_back({{"id", m.id},
                      {"fingerprint", m.fingerprint.hash},
                      {"hard_key", attributes(m, m.fingerprint.hard_key, "hard_key")},
                      {"soft_attributes", attributes(m, m.fingerprint.soft_attributes, "soft_attributes")},
                      {"first_seen", m.first_seen},
                      {"last_seen", m.last_seen}});
      for (const auto& b : plans) {
        auto plan = to_json(b.plan);
        jp.push_back({{"machine_id", b.machine_id},
                      {"m", b.m},
                      {"n", b.n},
                      {"cpu_threads", b.cpu_threads},  // 0: not recorded (before schema 6)
                      {"level", to_string(b.level)},
                      {"plan", plan},
                      {"median_seconds", b.median_s},
                      {"gflops", b.gflops},
                      {"updated_at", b.updated_at}});
      }
      print_json({{"database", path},
                  {"schema_version", database.user_version()},
                  {"machines", jm},
                  {"trials", trials},
                  {"best_plans", jp}});
      return;
    }
    std::cout << fmt::format("database {} (schema version {})\n", detail::printable(path), database.user_version());
    std::cout << fmt::format("{} machine(s), {} trial(s), {} best plan(s)\n", machines.size(), trials, plans.size());
    for (const auto& m : machines)
      std::cout << fmt::format("  machine {} {} (first seen {}, last seen {})\n    {}\n", m.id,
                               detail::printable(m.fingerprint.hash), detail::printable(m.first_seen),
                               detail::printable(m.last_seen), detail::printable(m.fingerprint.hard_key));
    if (plans.empty()) return;
    // threads: the CPU threads the plan was tuned on ("-": not recorded, before schema 6).
    std::cout << fmt::format("\n{:>7} {:>6} {:>7} {:>4} {:>7} {:>6} {:>6} {:>5} {:>8} {:>10} {:>8}\n", "machine",
                             "solver", "prec", "tgt", "threads", "m", "n", "nb", "level", "seconds", "GFlop/s");
    for (const auto& b : plans)
      std::cout << fmt::format("{:>7} {:>6} {:>7} {:>4} {:>7} {:>6} {:>6} {:>5} {:>8} {:>10.4f} {:>8.1f}\n",
                               b.machine_id, to_string(b.plan.solver), to_string(b.plan.precision),
                               to_string(b.plan.target), b.cpu_threads ? std::to_string(b.cpu_threads) : "-", b.m, b.n,
                               b.plan.nb, to_string(b.level), b.median_s, b.gflops);
  });
}

}  // namespace hetlu::cli
