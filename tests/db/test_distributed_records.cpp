// The distributed tables (#18): a network profile per layout, trials replaced under their key, the
// look-up answering the fastest trial at the nearest tuned order, damaged rows skipped.
#include <gtest/gtest.h>

#include "../common/temp_dir.hpp"
#include "db/distributed.hpp"
#include "db/exchange.hpp"

using namespace hetlu;
using db::Database;

namespace {

db::DistributedTrial trial(std::int64_t machine, int n, int rows, int nb, double seconds) {
  db::DistributedTrial t;
  t.machine_id = machine, t.n = n, t.layout = {4, 4};
  t.plan.grid_rows = rows, t.plan.grid_cols = 4 / rows, t.plan.nb = nb, t.plan.threads_per_rank = 1;
  t.median_s = seconds, t.samples = {seconds};
  return t;
}

class DistributedRecords : public ::testing::Test {
 protected:
  test_support::TempDir dir;
  Database db = Database::open(dir.file("t.db"), Database::Mode::read_write);
  std::int64_t machine = 0;
  void SetUp() override {
    MachineProfile p;
    p.cpu_model = "Test CPU", p.cores = 4;
    machine = db::ensure_machine(db, db::fingerprint(p));
  }
};

TEST_F(DistributedRecords, NetworkProfilePerLayout) {
  distributed::NetworkProfile net;
  net.layout = {4, 2};
  net.latency_seconds = 2e-6, net.bandwidth_bytes_per_second = 5e9;
  net.broadcast_latency_seconds = 3e-6, net.broadcast_bandwidth_bytes_per_second = 4e9;
  db::store_network_profile(db, machine, net);
  const auto back = db::load_network_profile(db, machine, {4, 2});
  ASSERT_TRUE(back);
  EXPECT_EQ(back->bandwidth_bytes_per_second, 5e9);
  EXPECT_NE(back->source.find("measured on 4 ranks, 2 per node"), std::string::npos);
  EXPECT_FALSE(db::load_network_profile(db, machine, {4, 4}));
  db.exec("UPDATE network_probes SET bandwidth_bps = -1");  // damaged: no measurement
  EXPECT_FALSE(db::load_network_profile(db, machine, {4, 2}));
  db::store_network_profile(db, machine, net);
  db.exec("UPDATE network_probes SET latency_s = 'abc'");  // a text read as 0 s was taken as measured
  EXPECT_FALSE(db::load_network_profile(db, machine, {4, 2}));
}

TEST_F(DistributedRecords, LookUpTheFastestAtTheNearestOrder) {
  db::store_distributed_trial(db, trial(machine, 1000, 2, 64, 0.5));
  db::store_distributed_trial(db, trial(machine, 1000, 1, 32, 0.3));
  db::store_distributed_trial(db, trial(machine, 4000, 2, 128, 9.0));
  auto failed = trial(machine, 1000, 4, 16, 0.01);
  failed.status = db::TrialStatus::failed;
  db::store_distributed_trial(db, failed);
  auto found = db::lookup_distributed_plan(db, machine, Precision::double_, {4, 4}, 1200);
  ASSERT_TRUE(found.best);
  EXPECT_EQ(found.best->plan.nb, 32);  // the failed one is faster but failed
  EXPECT_FALSE(found.exact);
  found = db::lookup_distributed_plan(db, machine, Precision::double_, {4, 4}, 3000);
  EXPECT_EQ(found.best->n, 4000);
  EXPECT_FALSE(db::lookup_distributed_plan(db, machine, Precision::single, {4, 4}, 1000).best);
  EXPECT_FALSE(db::lookup_distributed_plan(db, machine, Precision::double_, {4, 2}, 1000).best);
  // Replaced under its key, not duplicated.
  db::store_distributed_trial(db, trial(machine, 1000, 1, 32, 0.7));
  EXPECT_EQ(db::list_distributed_trials(db, machine).size(), 4u);
  // A grid that does not use the ranks, or a non-positive time: skipped, and said.
  db.exec("UPDATE distributed_trials SET grid_cols = 3 WHERE n = 4000");
  db.exec("UPDATE distributed_trials SET median_s = 0 WHERE n = 1000");
  found = db::lookup_distributed_plan(db, machine, Precision::double_, {4, 4}, 1000);
  EXPECT_FALSE(found.best);
  EXPECT_NE(found.detail.find("invalid rows skipped"), std::string::npos) << found.detail;
}

}  // namespace

TEST_F(DistributedRecords, ExportAndImportCarryThem) {
  distributed::NetworkProfile net;
  net.layout = {4, 2};
  net.latency_seconds = 2e-6, net.bandwidth_bytes_per_second = 5e9;
  net.broadcast_latency_seconds = 3e-6, net.broadcast_bandwidth_bytes_per_second = 4e9;
  db::store_network_profile(db, machine, net);
  db::store_distributed_trial(db, trial(machine, 1000, 1, 32, 0.5));
  db::store_distributed_trial(db, trial(machine, 1000, 2, 64, 0.7));
  const auto exported = db::export_json(db);
  const auto& m = exported["machines"][0];
  EXPECT_EQ(m["network_probes"].size(), 1u);
  EXPECT_EQ(m["distributed_trials"].size(), 2u);

  auto target = Database::open(dir.file("copy.db"), Database::Mode::read_write);
  const std::string here = m["fingerprint"];
  auto report = db::import_json(target, exported, here, false);
  EXPECT_EQ(report.network_probes, 1);
  EXPECT_EQ(report.distributed_trials, 2);
  const auto id = db::find_machine(target, here)->id;
  const auto back = db::load_network_profile(target, id, {4, 2});
  ASSERT_TRUE(back);
  EXPECT_DOUBLE_EQ(back->bandwidth_bytes_per_second, 5e9);
  const auto found = db::lookup_distributed_plan(target, id, Precision::double_, {4, 4}, 1000);
  ASSERT_TRUE(found.best);
  EXPECT_EQ(found.best->plan.grid_rows, 1);
  EXPECT_EQ(found.best->plan.nb, 32);
  // Twice adds nothing.
  report = db::import_json(target, exported, here, false);
  EXPECT_EQ(report.network_probes + report.distributed_trials, 0);
  // A damaged distributed row (a status outside the CHECK) fails the whole import.
  auto damaged = exported;
  damaged["machines"][0]["distributed_trials"][0]["status"] = "great";
  damaged["machines"][0]["distributed_trials"][0]["n"] = 2000;
  auto fresh = Database::open(dir.file("fresh.db"), Database::Mode::read_write);
  try {
    db::import_json(fresh, damaged, here, false);
    ADD_FAILURE() << "a status outside the schema's was imported";
  } catch (const db::DatabaseError& e) {  // said as the validity checks say it, naming the entry
    EXPECT_NE(std::string(e.what()).find("distributed_trials entry 1: a value of the wrong type or out of range ("),
              std::string::npos)
        << e.what();
  }
}

// What an import or a hand edit can store and no solve may use: a size tuned more than a factor of
// 2 away, a REAL or out-of-range nb, an absurd network. The look-up skips them (and counts them),
// `hetlu db check` lists them, and an import carrying them is refused whole.
TEST_F(DistributedRecords, ImpossibleRowsAreSkippedListedAndNeverImported) {
  db::store_distributed_trial(db, trial(machine, 1000, 1, 32, 0.3));
  auto found = db::lookup_distributed_plan(db, machine, Precision::double_, {4, 4}, 2500);
  EXPECT_FALSE(found.best);  // 2.5x away
  EXPECT_NE(found.detail.find("within a factor of 2"), std::string::npos) << found.detail;
  EXPECT_TRUE(db::lookup_distributed_plan(db, machine, Precision::double_, {4, 4}, 500).best);

  for (const char* nb : {"1e300", "64.5", "1099511627776", "'abc'", "0"}) {
    SCOPED_TRACE(nb);
    db.exec(std::string("UPDATE distributed_trials SET nb = ") + nb);
    found = db::lookup_distributed_plan(db, machine, Precision::double_, {4, 4}, 1000);
    EXPECT_FALSE(found.best);
    EXPECT_EQ(found.skipped_rows, 1);
    const auto problems = db::invalid_rows(db);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("distributed_trials row"), std::string::npos) << problems[0];
    EXPECT_NE(problems[0].find(": nb of the wrong type"), std::string::npos) << problems[0];
  }
  db.exec("UPDATE distributed_trials SET nb = 32");
  EXPECT_TRUE(db::invalid_rows(db).empty());
  // More ranks per node than ranks: no layout has it (db check said "ok", a hostile test).
  db.exec("UPDATE distributed_trials SET ranks_per_node = 99");
  ASSERT_EQ(db::invalid_rows(db).size(), 1u);
  EXPECT_NE(db::invalid_rows(db)[0].find(": ranks_per_node (more than ranks) of the wrong type"), std::string::npos)
      << db::invalid_rows(db)[0];
  db.exec("UPDATE distributed_trials SET ranks_per_node = 4");
  EXPECT_TRUE(db::invalid_rows(db).empty());

  distributed::NetworkProfile net;
  net.layout = {4, 4};
  net.latency_seconds = 2e-6, net.bandwidth_bytes_per_second = 5e9;
  net.broadcast_latency_seconds = 3e-6, net.broadcast_bandwidth_bytes_per_second = 4e9;
  db::store_network_profile(db, machine, net);
  const auto exported = db::export_json(db);
  int round = 0;
  struct Absurd {
    const char* sql;
    const char* column;
    double value;
  };
  for (const Absurd absurd :
       {Absurd{"latency_s = 1e300", "latency_s", 1e300}, Absurd{"latency_s = -1", "latency_s", -1},
        Absurd{"bandwidth_bps = 1e-300", "bandwidth_bps", 1e-300},
        Absurd{"ranks_per_node = 99", "ranks_per_node", 99}}) {  // last: its row stays beside the restored one
    SCOPED_TRACE(absurd.sql);
    db.exec(std::string("UPDATE network_probes SET ") + absurd.sql);
    EXPECT_FALSE(db::load_network_profile(db, machine, {4, 4}));
    ASSERT_EQ(db::invalid_rows(db).size(), 1u);
    EXPECT_NE(db::invalid_rows(db)[0].find(std::string(": ") + absurd.column), std::string::npos)
        << db::invalid_rows(db)[0];
    // An export names the row rather than write a file no import takes; a file carrying it is refused,
    // naming the entry by its place in the file and the field.
    EXPECT_THROW(db::export_json(db), db::DatabaseError);
    auto damaged = exported;
    damaged["machines"][0]["network_probes"][0][absurd.column] = absurd.value;
    auto fresh = Database::open(dir.file("fresh-" + std::to_string(round++) + ".db"), Database::Mode::read_write);
    try {
      db::import_json(fresh, damaged, damaged["machines"][0]["fingerprint"], false);
      ADD_FAILURE() << "imported";
    } catch (const db::DatabaseError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("network_probes entry 1: ") + absurd.column), std::string::npos)
          << e.what();
    }
    db::store_network_profile(db, machine, net);
  }
  auto huge_nb = exported;
  huge_nb["machines"][0]["distributed_trials"][0]["nb"] = 1e300;
  auto fresh = Database::open(dir.file("fresh-nb.db"), Database::Mode::read_write);
  EXPECT_THROW(db::import_json(fresh, huge_nb, exported["machines"][0]["fingerprint"], false), db::DatabaseError);
}

// One rank's "network" as the probe stores it (no transfer: latency 0, 1e15 bytes/s) is a valid
// row; and a bad row the database held before an import does not refuse the file, whose own rows
// are all that an import answers for.
TEST_F(DistributedRecords, OneRanksNetworkIsValidAndOldBadRowsDoNotBlockAnImport) {
  distributed::NetworkProfile alone;
  alone.layout = {1, 1};
  alone.latency_seconds = alone.broadcast_latency_seconds = 0;
  alone.bandwidth_bytes_per_second = alone.broadcast_bandwidth_bytes_per_second = 1e15;
  db::store_network_profile(db, machine, alone);
  EXPECT_TRUE(db::load_network_profile(db, machine, {1, 1}));
  EXPECT_TRUE(db::invalid_rows(db).empty());

  db::store_distributed_trial(db, trial(machine, 1000, 1, 32, 0.3));
  const auto exported = db::export_json(db);
  auto target = Database::open(dir.file("target.db"), Database::Mode::read_write);
  const std::string here = exported["machines"][0]["fingerprint"];
  db::import_json(target, exported, here, false);
  const auto id = db::find_machine(target, here)->id;
  target.exec("UPDATE distributed_trials SET nb = 64.5");  // damaged by hand, before the next import
  ASSERT_EQ(db::invalid_rows(target).size(), 1u);
  auto other = exported;
  other["machines"][0]["distributed_trials"][0]["n"] = 2000;
  const auto report = db::import_json(target, other, here, false);
  EXPECT_EQ(report.distributed_trials, 1);
  EXPECT_TRUE(db::lookup_distributed_plan(target, id, Precision::double_, {4, 4}, 2000).best);
}
