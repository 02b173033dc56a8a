#include "flexadj/storage/checkpoint_folder.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <algorithm>
#include <filesystem>
#include <regex>

namespace flexadj::storage {
namespace {

namespace fs = std::filesystem;

// The steps n of the files <prefix>_<n>.h5 in `folder` (on rank 0, broadcast).
std::vector<long long> steps_of(const std::string& folder, const std::string& prefix, const Comm& comm) {
  std::vector<long long> steps;
  if (comm.getRank() == 0) {
    const std::regex name(prefix + "_([0-9]+)\\.h5");
    std::error_code error;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
      std::smatch match;
      const std::string file = it->path().filename().string();
      if (std::regex_match(file, match, name)) steps.push_back(std::stoll(match[1].str()));
    }
    std::sort(steps.begin(), steps.end());
  }
  long long count = static_cast<long long>(steps.size());
  Teuchos::broadcast(comm, 0, Teuchos::outArg(count));
  steps.resize(static_cast<std::size_t>(count));
  if (count > 0) Teuchos::broadcast(comm, 0, static_cast<int>(count), steps.data());
  return steps;
}

}  // namespace

std::string DiskCheckpoints::path(long long step) const {
  return (fs::path(folder) / ("checkpoint_" + std::to_string(step) + ".h5")).string();
}

std::string DiskCheckpoints::adjoint_path(long long step) const {
  return (fs::path(folder) / ("adjoint_" + std::to_string(step) + ".h5")).string();
}

std::vector<long long> DiskCheckpoints::state_steps(const Comm& comm) const {
  return steps_of(folder, "checkpoint", comm);
}

std::vector<long long> DiskCheckpoints::adjoint_steps(const Comm& comm) const {
  return steps_of(folder, "adjoint", comm);
}

void DiskCheckpoints::remove_all(const Comm& comm) const {
  if (comm.getRank() == 0) {
    // MPI-IO may leave files of its own beside a .tmp (e.g. OpenMPI's .tmp.data.0, .tmp.metadata.0).
    const std::regex name("(checkpoint|adjoint)_[0-9]+\\.h5(\\.tmp.*)?");
    std::error_code error;
    std::vector<fs::path> files;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error))
      if (std::regex_match(it->path().filename().string(), name)) files.push_back(it->path());
    for (const auto& file : files) fs::remove(file, error);
  }
  comm.barrier();
}

}  // namespace flexadj::storage
