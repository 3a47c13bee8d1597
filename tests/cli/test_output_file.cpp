// The command's output files: a temporary beside the target, created anew and renamed into place.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../common/temp_dir.hpp"
#include "cli/output_file.hpp"
#include "hetlu/types.hpp"

namespace hetlu::cli {
namespace {

namespace fs = std::filesystem;
using test_support::TempDir;

std::string contents(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A link planted under the temporary's name (this process's: .tmp.NAME.PID) is not written
// through: X went into the file it named, and the target became a link to it (a hostile test).
TEST(OutputFile, ALinkPlantedUnderTheTemporarysNameIsNotFollowed) {
  TempDir dir;
  const std::string victim = dir.file("victim.txt");
  std::ofstream(victim) << "precious\n";
  const std::string planted = dir.file(".tmp.out.mtx." + std::to_string(::getpid()));
  fs::create_symlink(victim, planted);
  write_output(dir.file("out.mtx"), {}, [](std::ostream& out) { out << "X\n"; });
  EXPECT_EQ(contents(victim), "precious\n");
  EXPECT_FALSE(fs::is_symlink(fs::symlink_status(dir.file("out.mtx"))));
  EXPECT_EQ(contents(dir.file("out.mtx")), "X\n");
  for (const auto& entry : fs::directory_iterator(dir.path()))  // no temporary of its own left
    EXPECT_TRUE(entry.path() == fs::path(planted) || entry.path().filename().string().rfind(".tmp.", 0) != 0)
        << entry.path();
}

// What dead writers left beside the target goes before it is written, SQLite companions too (pid
// 99999999 is beyond any pid_max); a live writer's file, and names that only look like one, stay.
TEST(OutputFile, DeadWritersTemporariesGoAndLiveOnesStay) {
  TempDir dir;
  const std::string live = ".tmp.out.mtx." + std::to_string(::getpid()) + ".a1B2c3";
  const std::vector<std::string> dead = {".tmp.out.mtx.99999999.Zz0099", ".tmp.out.mtx.99999999.Zz0099-wal",
                                         ".tmp.out.mtx.99999999-journal", ".tmp.out.mtx.99999999"};
  const std::vector<std::string> kept = {live, ".tmp.out.mtx.99999999.short", ".tmp.out.mtx.99999999.Zz0099-x",
                                         ".tmp.out.mtx.12a"};
  for (const auto& name : dead) std::ofstream(dir.file(name)) << "x";
  for (const auto& name : kept) std::ofstream(dir.file(name)) << "x";
  write_output(dir.file("out.mtx"), {}, [](std::ostream& out) { out << "X\n"; });
  for (const auto& name : dead) EXPECT_FALSE(fs::exists(dir.file(name))) << name;
  for (const auto& name : kept) EXPECT_TRUE(fs::exists(dir.file(name))) << name;
  EXPECT_EQ(contents(dir.file("out.mtx")), "X\n");
}

TEST(OutputFile, ANewFileHasTheUmasksMode) {
  TempDir dir;
  const mode_t mask = ::umask(022);
  write_output(dir.file("new.mtx"), {}, [](std::ostream& out) { out << "X\n"; });
  ::umask(mask);
  struct stat info;
  ASSERT_EQ(::stat(dir.file("new.mtx").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u);
}

// Said before any work: the solve ran to the end before a missing folder was said.
TEST(OutputFile, AMissingFolderIsRefusedBeforeTheWork) {
  TempDir dir;
  try {
    refuse_clobbering(dir.file("nope/x.mtx"), {});
    FAIL() << "a missing folder was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
  // A file where the folder should be is said as such, not as missing.
  std::ofstream(dir.file("file.mtx")) << "X\n";
  try {
    refuse_clobbering(dir.file("file.mtx") + "/", {});
    FAIL() << "a file taken as a folder";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("is not a folder"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(refuse_clobbering(dir.file("x.mtx"), {}));
  EXPECT_NO_THROW(refuse_clobbering("/dev/null", {}));
}

}  // namespace
}  // namespace hetlu::cli
