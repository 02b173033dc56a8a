#include "flexadj/storage/folder_lock.hpp"

#include <Teuchos_CommHelpers.hpp>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "flexadj/core/error.hpp"

namespace flexadj::storage {
namespace {

namespace fs = std::filesystem;

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

// A process that exists and is not a zombie (a killed rank nobody has reaped yet holds nothing).
bool process_alive(long pid) {
  if (pid <= 0) return false;
  if (kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const auto end_of_name = text.rfind(')');
  return end_of_name == std::string::npos || end_of_name + 2 >= text.size() || text[end_of_name + 2] != 'Z';
}

constexpr const char* kNoFolder = "cannot create the checkpoint folder";

// Rank 0: creates the lock file, taking over a stale one once. Returns an error message, empty on success.
std::string acquire(const std::string& folder) {
  std::error_code error;
  fs::create_directories(folder, error);
  if (!fs::is_directory(folder)) return kNoFolder;
  const std::string path = FolderLock::lock_path(folder), me = std::to_string(getpid()) + " " + host_name() + "\n";
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int fd = open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (fd >= 0) {
      const bool written = write(fd, me.data(), me.size()) == static_cast<ssize_t>(me.size());
      close(fd);
      if (written) return "";
      fs::remove(path, error);
      return "cannot write the lock file " + path;
    }
    if (errno != EEXIST) return "cannot create the lock file " + path + " (" + std::strerror(errno) + ")";
    long pid = 0;
    std::string host;
    std::ifstream(path) >> pid >> host;
    if (host == host_name() && !process_alive(pid)) {  // a killed run's: taken over
      fs::remove(path, error);
      continue;
    }
    std::ostringstream message;
    message << "the folder is in use by another run (process " << pid << " on host " << host << ", lock file "
            << path << "): two runs would remove and overwrite each other's checkpoints; give each run its own "
            << "folder, or remove the lock file if that run is gone";
    return message.str();
  }
  return "cannot take over the stale lock file " + path;
}

}  // namespace

std::string FolderLock::lock_path(const std::string& folder) { return (fs::path(folder) / "flexadj.lock").string(); }

FolderLock::FolderLock(std::string folder, RCP<const Comm> comm) : folder_(std::move(folder)), comm_(std::move(comm)) {
  std::string error = comm_->getRank() == 0 ? acquire(folder_) : std::string();
  int length = static_cast<int>(error.size());
  Teuchos::broadcast(*comm_, 0, &length);
  error.resize(static_cast<std::size_t>(length));
  if (length > 0) Teuchos::broadcast(*comm_, 0, length, error.data());
  if (!error.empty()) {
    comm_ = Teuchos::null;  // nothing to release
    if (error == kNoFolder)  // as the checkpoints would report it (the folder may come from the model file)
      throw InputError("", "trajectory.folder", "cannot create the checkpoint folder '" + folder_ + "'");
    throw InputError(folder_, "--checkpoint-folder", error);
  }
}

FolderLock::~FolderLock() {
  if (comm_.is_null() || comm_->getRank() != 0) return;
  std::error_code ignored;
  fs::remove(lock_path(folder_), ignored);
}

}  // namespace flexadj::storage
