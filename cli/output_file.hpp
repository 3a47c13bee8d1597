// Output files of the hetlu command (solutions, exports): never partial, never one of the files the
// command reads, and a link or a device path written as such.
#pragma once

#include <sys/types.h>

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace hetlu::cli {

// Throws InvalidArgument when `output` names one of `inputs` (the same file by any path: a link,
// a hard link, "./A.mtx"; standard output or error by name, where the shell opened an input behind
// it), a folder, or an existing file this user could not write (a rename would replace it anyway). A database among the
// inputs protects its -wal, -shm and -journal files too, whether they exist yet or not. Called before the work, so that
// nothing is computed for a refused path.
void refuse_clobbering(const std::string& output, const std::vector<std::string>& inputs);

// Whether what `path` names is what standard output writes to: by one of its names, or the same
// file or pipe (a link to /dev/stdout, the file a shell's `> X.mtx` opened); a device (a terminal,
// /dev/null) only by name.
bool reaches_standard_output(const std::string& path);

// Writes `output` with `write`, after refuse_clobbering(output, inputs). A regular file (or none
// yet) is written to a temporary file beside it, synced, and renamed into place once complete,
// keeping its permissions (a terminating signal meanwhile removes the temporary file); a link is
// followed, so its target (created if the link dangles) is replaced and the link stays; standard
// output and error by any of their names are written through the streams, and a device, pipe or
// socket (anything under /dev or /proc) is opened for appending, never truncated or replaced.
void write_output(const std::string& output, const std::vector<std::string>& inputs,
                  const std::function<void(std::ostream&)>& write);

// A new empty file beside `target` (links followed) under a new temporary name (".tmp.NAME.PID.XXXXXX",
// as write_output names its own), locked while this lives and removed with its SQLite companions
// (-wal, -shm, -journal) when it goes; a terminating signal removes it too. Temporaries beside
// `target` that dead processes left (SIGKILL: no handler ran) are removed first, companions included.
// Throws InvalidArgument, with the reason, where the folder takes no new file.
class StagedFile {
 public:
  // mode: before the umask (0644: SQLite's); said_as: the target as errors name it (default: target).
  explicit StagedFile(const std::string& target, mode_t mode = 0644, const std::string& said_as = "");
  ~StagedFile();
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  const std::string& path() const { return path_; }
  int descriptor() const { return fd_; }  // open for reading and writing

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace hetlu::cli
