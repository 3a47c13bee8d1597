#include <iostream>

#include "cli/commands.hpp"
#include "cli/report.hpp"
#include "configs/configs.hpp"
#include "db/records.hpp"
#include "hetlu/detail/utf8.hpp"
#include "probes/probes.hpp"
#include "tuner/crossover.hpp"

namespace hetlu::cli {

void register_probe(CLI::App& app, CommandState&) {
  struct Args {
    std::string db;
    bool json = false;
    bool no_timing = false;
    int gemm_size = 1024;
  };
  auto args = std::make_shared<Args>();
  auto* cmd =
      app.add_subcommand("probe", "Show what the probes find on this machine (topology, BLAS, DGEMM rates, GPUs)");
  cmd->add_option("--db", args->db, "also store the measured rates in this tuning database");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->add_flag("--no-timing", args->no_timing, "topology and datasheet peaks only; time nothing");
  cmd->add_option("--gemm-size", args->gemm_size, "order of the timed DGEMM")->transform(whole_in(16, 16384));
  cmd->callback([args] {
    // A DGEMM of order 16 runs at a fifth of the plateau (23 GFlop/s against 100-115 on the dev
    // machine, 64 at 86); stored, it would price every plan as if the updates ran that slow.
    constexpr int smallest_stored_gemm = 64;
    if (!args->db.empty() && !args->no_timing && args->gemm_size < smallest_stored_gemm)
      throw UsageError("--gemm-size " + std::to_string(args->gemm_size) + " is too small to store in --db (at least " +
                       std::to_string(smallest_stored_gemm) + ": smaller GEMMs run far below the solvers' rate)");
    probes::ProbeOptions options;
    options.measure = !args->no_timing;
    options.gemm_size = args->gemm_size;
    const auto gpu = probes::gpus(false);
    MachineProfile profile = probes::probe_machine(options);
    if (options.measure) tuner::measure_getrf_crossovers(profile, configs::model_params());
    if (!args->db.empty()) {
      auto database = db::Database::open(args->db, db::Database::Mode::read_write);
      db::store_probe_results(database, db::ensure_machine(database, db::fingerprint(profile)), profile);
    }
    if (args->json) {
      auto j = to_json(profile);
      j["cuda_built"] = probes::built_with_cuda();
      j["gpu_note"] = gpu.note;
      print_json(j);
    } else {
      std::cout << describe(profile);
      if (!gpu.note.empty()) std::cout << "           (" << detail::printable(gpu.note) << ")\n";
    }
  });
}

}  // namespace hetlu::cli
