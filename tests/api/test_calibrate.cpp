// hetlu::calibrate, the front of the tuner: what it says when the database changes under it.
#include <gtest/gtest.h>

#include <string>

#include "../common/temp_dir.hpp"
#include "db/records.hpp"
#include "hetlu/hetlu.hpp"

using namespace hetlu;

// `hetlu db forget` of the machine while it was measured ended the calibration with SQLite's own
// "FOREIGN KEY constraint failed" (a hostile test's finding): it is now said what happened.
TEST(Calibrate, AMachineForgottenWhileMeasuredStopsTheCalibrationSayingSo) {
  test_support::TempDir dir;
  CalibrationOptions options;
  options.db_path = dir.file("t.db");
  options.sizes = {160, 200};
  options.solvers = {Solver::gepp};
  int forgotten = 0;
  options.progress = [&](const std::string& line) {
    if (forgotten || line.rfind("gepp n=160", 0) != 0) return;
    auto other = db::Database::open(options.db_path, db::Database::Mode::read_write);  // as another process
    for (const auto& machine : db::list_machines(other))
      forgotten += db::forget_machine(other, machine.fingerprint.hash) > 0;
  };
  try {
    calibrate(options);
    ADD_FAILURE() << "the calibration went on";
  } catch (const db::DatabaseError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("was deleted while this calibration measured it"), std::string::npos) << what;
    EXPECT_NE(what.find("t.db"), std::string::npos) << what;
  }
  EXPECT_EQ(forgotten, 1);
}
