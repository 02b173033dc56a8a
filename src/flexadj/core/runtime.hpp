#pragma once
// MPI and Kokkos for a program's lifetime. They see only the program name: Kokkos would answer --help
// (and take other options) from the command line, which belongs to the program.
#include <Tpetra_Core.hpp>

#include <cstdlib>

namespace flexadj {

class Runtime {
 public:
  explicit Runtime(char** argv) : argc_(avoid_shared_file_pointers()), argv_(argv), guard_(&argc_, &argv_) {}
  Teuchos::RCP<const Teuchos::Comm<int>> comm() const { return Tpetra::getDefaultComm(); }

 private:
  // Open MPI 4.1's MPI-IO selects a shared-file-pointer component when a file opens; its 'lockedfile' component
  // formats the file name into a fixed buffer and aborts the program for paths of about 240 characters or more.
  // flexadj's HDF5 I/O never uses shared file pointers: take the 'individual' component unless the user chose one.
  // Set before MPI starts (the Tpetra scope guard below); gives argc 1 for the guard.
  static int avoid_shared_file_pointers() {
    setenv("OMPI_MCA_sharedfp", "individual", /*overwrite=*/0);
    return 1;
  }

  int argc_;
  char** argv_;
  Tpetra::ScopeGuard guard_;
};

}  // namespace flexadj
