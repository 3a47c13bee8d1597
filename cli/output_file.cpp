#include "cli/output_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "hetlu/types.hpp"

namespace hetlu::cli {
namespace fs = std::filesystem;

namespace {

// The file a path names once its links are followed (as far as they lead to something).
fs::path resolved(const std::string& path) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(fs::path(path), ec);
  return ec ? fs::absolute(path) : canonical;
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;  // both exist: the same inode
  return !ec ? false : resolved(a.string()) == resolved(b.string());
}

}  // namespace

void refuse_clobbering(const std::string& output, const std::vector<std::string>& inputs) {
  if (output.empty()) throw InvalidArgument("the output path is empty");
  const fs::path target = resolved(output);
  std::error_code ec;
  if (fs::is_directory(target, ec)) throw InvalidArgument(output + ": is a folder; name a file to write");
  for (const auto& input : inputs) {
    if (input.empty()) continue;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      const std::string protected_path = input + suffix;
      if (*suffix && !fs::exists(protected_path, ec)) continue;
      if (same_file(target, protected_path))
        throw InvalidArgument(output + ": would overwrite " + (*suffix ? "a file of " : "") + "'" + input +
                              "', which this command reads; write the output elsewhere");
    }
  }
}

void write_output(const std::string& output, const std::vector<std::string>& inputs,
                  const std::function<void(std::ostream&)>& write) {
  refuse_clobbering(output, inputs);
  const fs::path target = resolved(output);
  std::error_code ec;
  const auto status = fs::status(output, ec);
  const bool special = output.rfind("/dev/", 0) == 0 || output.rfind("/proc/", 0) == 0;
  if (special || (!ec && fs::exists(status) && !fs::is_regular_file(status))) {
    // A device, pipe or socket (/dev/stdout may be any of them): a temporary file renamed over it
    // would replace the device itself.
    std::ofstream out(output);
    if (!out) throw InvalidArgument(output + ": cannot be opened for writing");
    write(out);
    out.flush();
    if (!out) throw InvalidArgument(output + ": write failed");
    return;
  }
  const fs::path temp =
      target.parent_path() / (".tmp." + target.filename().string() + "." + std::to_string(::getpid()));
  {
    std::ofstream out(temp);
    if (!out) throw InvalidArgument(output + ": cannot write (cannot create a file in its folder)");
    write(out);
    out.flush();
    if (!out) {
      out.close();
      fs::remove(temp, ec);
      throw InvalidArgument(output + ": write failed (disk full?)");
    }
  }
  if (fs::is_regular_file(status)) fs::permissions(temp, status.permissions(), ec);  // keep the file's mode
  fs::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw InvalidArgument(output + ": cannot write: " + ec.message());
  }
}

}  // namespace hetlu::cli
