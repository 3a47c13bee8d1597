#include "cli/output_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <streambuf>
#include <vector>

#include "hetlu/types.hpp"

namespace hetlu::cli {
namespace fs = std::filesystem;

namespace {

// The file a path names once every link is followed, also when the last link dangles (its target
// is what gets created): absolute, with "." and ".." resolved.
fs::path resolved(const std::string& path) {
  fs::path p = fs::absolute(path);
  for (int hops = 0;; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) break;
    if (hops == 40) throw InvalidArgument(path + ": too many levels of links");
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : canonical;
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;  // both exist: the same inode (hard links too)
  try {
    return resolved(a.string()) == resolved(b.string());
  } catch (const InvalidArgument&) {  // links that loop name no file, so not the other one: a --db
    return false;                     // path looping ended `hetlu solve`, where the database is a warning
  }
}

// Standard output and error by any of their names: written through the stream, never reopened
// (reopening truncates a file the shell opened for appending). Judged with ".", ".." and repeated
// slashes resolved: "/dev//stdout" was opened again for appending, and under --json the document
// written through the stream then covered X in the file behind both (a hostile test).
std::ostream* standard_stream(const std::string& path) {
  if (path == "-") return &std::cout;  // as most commands take it
  if (path.empty()) return nullptr;
  std::error_code ec;
  const std::string p = fs::absolute(path, ec).lexically_normal().string();
  if (ec) return nullptr;
  const std::string own_fds = "/proc/" + std::to_string(::getpid()) + "/fd/";
  for (const std::string& name :
       {std::string("/dev/stdout"), std::string("/dev/fd/1"), std::string("/proc/self/fd/1"), own_fds + "1"})
    if (p == name) return &std::cout;
  for (const std::string& name :
       {std::string("/dev/stderr"), std::string("/dev/fd/2"), std::string("/proc/self/fd/2"), own_fds + "2"})
    if (p == name) return &std::cerr;
  return nullptr;
}

// A name of an open file descriptor (/dev/fd/N, /proc/PID/fd/N, /dev/stdin and the like): written
// through, never renamed over, since the file behind it is one the shell opened (`3> X.mtx`) and a
// rename would leave the descriptor on the old file. Judged on the name with "." and ".." resolved:
// any other path under /dev or /proc is judged by what it names (a regular file in /dev/shm is
// replaced whole, as anywhere else; before, every /dev/ path was appended to).
bool names_a_descriptor(const std::string& output) {
  const std::string p = fs::absolute(output).lexically_normal().string();
  for (const char* name : {"/dev/stdin", "/dev/stdout", "/dev/stderr"})
    if (p == name) return true;
  return p.rfind("/dev/fd/", 0) == 0 || (p.rfind("/proc/", 0) == 0 && p.find("/fd/") != std::string::npos);
}

// The template of a temporary's name beside `target` (".tmp.NAME.PID.XXXXXX", for mkostemp), within
// the 255 bytes a name may have: a long target name is cut (a 252-byte name could not be written).
// The pid lets a later sweep tell a dead writer's; the six characters make it unique, also among
// processes of one pid in other PID namespaces on a shared folder (one name had been shared there:
// each process removed the other's file and one published the other's X).
fs::path temporary_beside(const fs::path& target) {
  const std::string suffix = std::string(".").append(std::to_string(::getpid())).append(".XXXXXX");
  std::string name = target.filename().string();
  const std::size_t room = 255 - std::string(".tmp.").size() - suffix.size() - std::string("-journal").size();
  if (name.size() > room) name.resize(room);
  return target.parent_path() / (".tmp." + name + suffix);
}

// Whether a temporary beside the target is a dead writer's: this user's, its pid gone here, and no
// writer holding its lock (StagedFile's): a live one is never taken, whatever its pid says (a process
// in another PID namespace, or on another host of a shared file system, has a pid this one cannot see).
bool abandoned(const fs::path& temp, pid_t pid) {
  struct stat info;
  if (pid <= 0 || ::lstat(temp.c_str(), &info) != 0 || !S_ISREG(info.st_mode) || info.st_uid != ::geteuid())
    return false;
  if (::kill(pid, 0) == 0 || errno != ESRCH) return false;
  const int fd = ::open(temp.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  const bool unlocked = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  ::close(fd);
  return unlocked;
}

const char* const sqlite_companions[] = {"-wal", "-shm", "-journal"};

// Temporaries beside `target` that a process now dead left (SIGKILL, a power loss: no handler ran),
// removed before this one is written, so that they do not pile up. Named as temporary_beside names
// them, or that name and a SQLite companion's suffix (a staged database's), removed with its file or
// where that file is gone.
void remove_stale_temporaries(const fs::path& target) {
  const std::string name_template = temporary_beside(target).filename().string();
  const std::string pid_part = std::string(".").append(std::to_string(::getpid())).append(".XXXXXX");
  const std::string stem = name_template.substr(0, name_template.size() - pid_part.size() + 1);  // ".tmp.NAME."
  std::error_code ec;
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= stem.size() || name.compare(0, stem.size(), stem) != 0) continue;
    // PID, then ".XXXXXX" (mkostemp's six; an older hetlu's temporaries have none), then a companion's suffix.
    const std::string rest = name.substr(stem.size());
    const std::string digits = rest.substr(0, rest.find_first_of(".-"));
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    std::size_t end_of_file_name = digits.size();
    if (rest.compare(end_of_file_name, 1, ".") == 0) {
      const std::string unique = rest.substr(end_of_file_name + 1, 6);
      if (unique.size() != 6 || !std::all_of(unique.begin(), unique.end(), [](char c) { return std::isalnum(c); }))
        continue;
      end_of_file_name += 7;
    }
    const std::string suffix = rest.substr(end_of_file_name);
    const bool companion = !suffix.empty();
    if (companion &&
        std::find(std::begin(sqlite_companions), std::end(sqlite_companions), suffix) == std::end(sqlite_companions))
      continue;
    const auto pid = static_cast<pid_t>(std::stol(digits));
    const fs::path file = folder / (stem + rest.substr(0, end_of_file_name));
    std::error_code ignored;
    if (abandoned(it->path(), pid) &&
        (!companion || !fs::exists(fs::symlink_status(file, ignored)) || abandoned(file, pid)))
      fs::remove(it->path(), ignored);
  }
}

// An output stream's buffer over a descriptor, 64 KiB a write: the temporary StagedFile opened, written
// where it was created rather than reopened by name.
class DescriptorBuffer : public std::streambuf {
 public:
  explicit DescriptorBuffer(int fd) : fd_(fd), buffer_(1 << 16) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }

 protected:
  int_type overflow(int_type c) override {
    if (sync() != 0) return traits_type::eof();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
  }
  int sync() override {
    for (const char* p = pbase(); p < pptr();) {
      const ssize_t written = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) return -1;  // a full disk, a file size limit (SIGXFSZ ignored: EFBIG)
      p += written;
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return 0;
  }

 private:
  int fd_;
  std::vector<char> buffer_;
};

// The temporary file being written, removed by a terminating signal (SIGTERM, SIGHUP, SIGINT)
// before the process dies of it, with the SQLite companions a staged database may have beside it
// (a report killed early left its copy's -journal): a killed write leaves no .tmp file behind.
// Names built before, for the handler to unlink only.
char pending_temp[4096], pending_companions[3][4096 + 16];
volatile std::sig_atomic_t temp_pending = 0;

extern "C" void remove_pending_temp(int signal_number) {
  if (temp_pending) {
    ::unlink(pending_temp);
    for (const char* companion : pending_companions) ::unlink(companion);
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

void remove_temp_on_signals(const fs::path& temp) {
  static const bool installed = [] {
    for (int signal_number : {SIGTERM, SIGHUP, SIGINT}) std::signal(signal_number, remove_pending_temp);
    return true;
  }();
  (void)installed;
  temp_pending = 0;
  const std::string text = temp.string();
  if (text.size() >= sizeof pending_temp) return;  // too long to remember: left to chance
  std::copy(text.begin(), text.end(), pending_temp);
  pending_temp[text.size()] = '\0';
  for (std::size_t k = 0; k < std::size(sqlite_companions); ++k) {
    const std::string companion = text + sqlite_companions[k];
    std::copy(companion.begin(), companion.end(), pending_companions[k]);
    pending_companions[k][companion.size()] = '\0';
  }
  temp_pending = 1;
}

// The file's bytes on the disk before the rename publishes it, and the rename in its folder after:
// "never partial" across a power loss too.
void sync_path(const fs::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

bool reaches_standard_output(const std::string& path) {
  if (standard_stream(path) == &std::cout) return true;
  // The same file or pipe by another name or a link. A device is left out: X and the document on
  // one terminal, or both into /dev/null, lose nothing.
  struct stat open_file, named;
  return ::fstat(STDOUT_FILENO, &open_file) == 0 && !S_ISCHR(open_file.st_mode) && ::stat(path.c_str(), &named) == 0 &&
         open_file.st_dev == named.st_dev && open_file.st_ino == named.st_ino;
}

namespace {

// Whether descriptor fd is open on the regular file `path` names (the same inode): a shell's
// `>> A.mtx` behind standard output.
bool descriptor_is_file(int fd, const std::string& path) {
  struct stat open_file, named;
  return ::fstat(fd, &open_file) == 0 && S_ISREG(open_file.st_mode) && ::stat(path.c_str(), &named) == 0 &&
         open_file.st_dev == named.st_dev && open_file.st_ino == named.st_ino;
}

}  // namespace

void refuse_clobbering(const std::string& output, const std::vector<std::string>& inputs) {
  if (output.empty()) throw InvalidArgument("the output path is empty");
  if (const std::ostream* stream = standard_stream(output)) {
    // Written through the stream: refused where the shell opened an input behind it (`>> A.mtx`).
    const int fd = stream == &std::cout ? STDOUT_FILENO : STDERR_FILENO;
    for (const auto& input : inputs)
      for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        if (!input.empty() && descriptor_is_file(fd, input + suffix))
          throw InvalidArgument(std::string(fd == STDOUT_FILENO ? "standard output" : "standard error") +
                                " is opened on " + (*suffix ? "a file of " : "") + "'" + input +
                                "', which this command reads; send it elsewhere");
    return;
  }
  const fs::path target = resolved(output);
  std::error_code ec;
  if (fs::is_directory(target, ec)) throw InvalidArgument(output + ": is a folder; name a file to write");
  for (const auto& input : inputs) {
    if (input.empty()) continue;
    // A database's companions are protected whether they exist now or not (SQLite may create them).
    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
      if (same_file(target, input + suffix))
        throw InvalidArgument(output + ": would overwrite " + (*suffix ? "a file of " : "") + "'" + input +
                              "', which this command reads; write the output elsewhere");
  }
  // The file is replaced by a rename, which its own mode does not stop: refused where this user
  // could not write it (`> X.mtx` would not), as a read-only or another user's file.
  if (fs::is_regular_file(target, ec) && !names_a_descriptor(output) && ::access(target.c_str(), W_OK) != 0)
    throw InvalidArgument(output + ": is not writable by this user (its mode or owner); hetlu replaces only a " +
                          "file it could write");
  // A new file, or one replaced by a rename: its folder must exist and take files, said before the
  // work (a missing folder was said after the whole solve).
  if (!names_a_descriptor(output) && (!fs::exists(target, ec) || fs::is_regular_file(target, ec))) {
    const fs::path folder = target.parent_path();
    if (!fs::is_directory(folder, ec))
      throw InvalidArgument(output + ": cannot write: its folder '" + folder.string() +
                            (fs::exists(folder, ec) ? "' is not a folder" : "' does not exist"));
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
      throw InvalidArgument(output + ": cannot write: its folder '" + folder.string() +
                            "' is not writable by this user");
  }
}

void write_output(const std::string& output, const std::vector<std::string>& inputs,
                  const std::function<void(std::ostream&)>& write) {
  refuse_clobbering(output, inputs);
  if (std::ostream* stream = standard_stream(output)) {
    write(*stream);
    stream->flush();
    if (!*stream) throw InvalidArgument(output + ": write failed");
    return;
  }
  const fs::path target = resolved(output);
  std::error_code ec;
  const auto status = fs::status(target, ec);
  const bool descriptor = names_a_descriptor(output);
  if (descriptor || (!ec && fs::exists(status) && !fs::is_regular_file(status))) {
    // A device, pipe or socket: a temporary file renamed over it would replace the device itself.
    // Appending: no truncation of what is there (a device has nothing to truncate). A descriptor's
    // name is opened as given: the link behind /dev/fd/N of a pipe reads "pipe:[N]", no path.
    std::ofstream out(descriptor ? fs::path(output) : target, std::ios::out | std::ios::app);
    if (!out) throw InvalidArgument(output + ": cannot be opened for writing");
    write(out);
    out.flush();
    if (!out) throw InvalidArgument(output + ": write failed");
    return;
  }
  // Created anew (never through a link planted under its name: X went into any file a link there
  // named), locked, and removed on a signal or an error.
  StagedFile staged(target.string(), 0666, output);
  const fs::path temp = staged.path();
  {
    DescriptorBuffer buffer(staged.descriptor());
    std::ostream out(&buffer);
    write(out);
    out.flush();
    if (!out || ::fsync(staged.descriptor()) != 0)
      throw InvalidArgument(output + ": write failed (disk full, or a file size limit?)");
  }
  if (fs::is_regular_file(status)) {  // the file's own mode kept
    [[maybe_unused]] const int kept = ::fchmod(staged.descriptor(), static_cast<mode_t>(status.permissions()));
  }
  fs::rename(temp, target, ec);
  if (ec) throw InvalidArgument(output + ": cannot write: " + ec.message());
  sync_path(target.parent_path(), O_RDONLY | O_DIRECTORY);
}

StagedFile::StagedFile(const std::string& target, mode_t mode, const std::string& said_as) {
  const fs::path resolved_target = resolved(target);
  remove_stale_temporaries(resolved_target);
  path_ = temporary_beside(resolved_target).string();
  // O_EXCL: a name that exists, a link planted there included, is never opened.
  fd_ = ::mkostemp(path_.data(), O_CLOEXEC);
  if (fd_ < 0)
    throw InvalidArgument((said_as.empty() ? target : said_as) +
                          ": cannot write (cannot create a file beside it: " + std::strerror(errno) + ")");
  const mode_t mask = ::umask(0);  // mkostemp's 0600, as open(mode) would have made it
  ::umask(mask);
  [[maybe_unused]] const int chmod_status = ::fchmod(fd_, mode & ~mask);
  ::flock(fd_, LOCK_EX);  // held while this lives: the sweep above never takes it for a dead one's
  remove_temp_on_signals(path_);
}

StagedFile::~StagedFile() {
  for (const char* suffix : sqlite_companions) ::unlink((path_ + suffix).c_str());
  ::unlink(path_.c_str());
  temp_pending = 0;
  ::close(fd_);
}

}  // namespace hetlu::cli
