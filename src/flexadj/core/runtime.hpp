#pragma once
// MPI and Kokkos for a program's lifetime. They see only the program name: Kokkos would answer --help
// (and take other options) from the command line, which belongs to the program.
#include <Tpetra_Core.hpp>

namespace flexadj {

class Runtime {
 public:
  explicit Runtime(char** argv) : argc_(1), argv_(argv), guard_(&argc_, &argv_) {}
  Teuchos::RCP<const Teuchos::Comm<int>> comm() const { return Tpetra::getDefaultComm(); }

 private:
  int argc_;
  char** argv_;
  Tpetra::ScopeGuard guard_;
};

}  // namespace flexadj
