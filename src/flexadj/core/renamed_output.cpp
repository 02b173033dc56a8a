#include "flexadj/core/renamed_output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include "flexadj/core/error.hpp"

namespace flexadj {

std::string temporary_name(const std::string& path) { return path + ".tmp"; }

namespace {

// The file the rename replaces: a symbolic link's target, followed through chains of links (the links stay
// links), else the path itself.
std::string replaced_file(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path file = path;
  std::error_code error;
  for (int depth = 0; depth < 40 && fs::is_symlink(file, error); ++depth) {
    const fs::path target = fs::read_symlink(file, error);
    if (error) break;
    file = target.is_absolute() ? target : file.parent_path() / target;
  }
  return file.string();
}

// An existing file that is not a regular file (a device such as /dev/null, a pipe) is written in place: a rename
// would replace it.
bool written_in_place(const std::string& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  return !error && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status);
}

}  // namespace

RenamedOutput::RenamedOutput(std::string path, MPI_Comm comm) : path_(std::move(path)), comm_(comm) {
  if (path_.empty() || written_in_place(path_)) {
    target_ = temporary_ = path_;
    committed_ = true;  // nothing to rename, nothing to remove
    return;
  }
  target_ = replaced_file(path_);
  temporary_ = temporary_name(target_);
}

RenamedOutput::~RenamedOutput() {
  if (committed_) return;
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  if (rank == 0) std::remove(temporary_.c_str());
}

void RenamedOutput::commit() {
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  if (committed_) return;
  MPI_Barrier(comm_);  // every rank has closed its share of the file
  int error = 0;
  if (rank == 0 && std::rename(temporary_.c_str(), target_.c_str()) != 0) error = errno;
  MPI_Bcast(&error, 1, MPI_INT, 0, comm_);
  if (error != 0)
    throw OutputError(path_ + ": cannot rename the complete file from " + temporary_ + " (" + std::strerror(error) +
                      ")");
  committed_ = true;
}

}  // namespace flexadj
