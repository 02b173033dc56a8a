#pragma once
// An output file written under a temporary name in its own folder (NAME.tmp) and renamed to NAME only when it is
// complete, so that a run that fails (bad input, a solver failure, a full disk) or is killed leaves an earlier
// NAME as it was. A symbolic link NAME stays a link: its target is replaced. An existing NAME that is not a regular
// file (a device such as /dev/null, a pipe) is written in place.
#include <mpi.h>

#include <string>

namespace flexadj {

// NAME.tmp: the name a file is written under until it is complete.
std::string temporary_name(const std::string& path);

class RenamedOutput {
 public:
  // `comm`: the ranks that write the file (MPI_COMM_SELF for a file one rank writes); its rank 0 renames and
  // removes. Creates nothing; an empty path stands for no file (nothing is renamed or removed).
  RenamedOutput(std::string path, MPI_Comm comm);
  // Not committed: rank 0 removes the temporary (a failed run leaves no NAME.tmp behind).
  ~RenamedOutput();
  RenamedOutput(const RenamedOutput&) = delete;
  RenamedOutput& operator=(const RenamedOutput&) = delete;

  const std::string& path() const { return path_; }            // the final name
  const std::string& temporary() const { return temporary_; }  // the name to write under (beside the file replaced)

  // Collective over comm, once every rank has closed the temporary: a barrier, rank 0 renames, every rank learns
  // the outcome (OutputError on all ranks if the rename failed).
  void commit();

 private:
  std::string path_, target_, temporary_;
  MPI_Comm comm_;
  bool committed_ = false;  // renamed, or nothing to rename
};

}  // namespace flexadj
