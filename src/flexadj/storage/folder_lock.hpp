#pragma once
// A run's lock on its checkpoint folder: the file FOLDER/flexadj.lock, created exclusively (O_CREAT | O_EXCL) by
// rank 0 and holding "pid host" of that process. Two runs sharing a folder would remove and overwrite each other's
// checkpoints; the second is refused at its start instead. A lock left by a process that is gone on this host (a
// killed run, which --restart resumes) is taken over.
#include <string>

#include "flexadj/core/tpetra_types.hpp"

namespace flexadj::storage {

class FolderLock {
 public:
  // Collective. Creates the folder if missing; InputError(folder, "--checkpoint-folder", ...) on every rank if
  // another live run holds it (or the lock cannot be created).
  FolderLock(std::string folder, RCP<const Comm> comm);
  ~FolderLock();  // rank 0 removes the lock file
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

  const std::string& folder() const { return folder_; }
  static std::string lock_path(const std::string& folder);

 private:
  std::string folder_;
  RCP<const Comm> comm_;
};

}  // namespace flexadj::storage
