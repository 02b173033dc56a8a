#pragma once
// MPI and Kokkos for a program's lifetime. They see only the program name: Kokkos would answer --help
// (and take other options) from the command line, which belongs to the program.
#include <Tpetra_Core.hpp>
#include <malloc.h>

#include "flexadj/core/open_mpi_settings.hpp"

#include <cstdlib>

namespace flexadj {

class Runtime {
 public:
  explicit Runtime(char** argv)
      : argc_((keep_freed_memory(), set_open_mpi_settings())), argv_(argv), guard_(&argc_, &argv_) {}
  Teuchos::RCP<const Teuchos::Comm<int>> comm() const { return Tpetra::getDefaultComm(); }

 private:
  // Open MPI settings (open_mpi_settings.hpp), set before MPI starts (the Tpetra scope guard below); gives argc 1
  // for the guard.
  // glibc hands blocks above 128 kB back to the system when they are freed (mmap threshold, heap trimming), so the
  // KLU2 factors and work arrays that each Newton iteration allocates anew fault their pages in again every time:
  // 50 000 page faults in 20 steps of the 1000-link chain, a third of its CPU time (perf stat: 2.0 s against 1.4 s
  // with both limits raised, 13 000 page faults). Keep blocks up to 32 MB (glibc's largest mmap threshold) in the
  // heap and the heap untrimmed below 512 MB, unless the user set MALLOC_MMAP_THRESHOLD_ or MALLOC_TRIM_THRESHOLD_.
  static void keep_freed_memory() {
    if (!std::getenv("MALLOC_MMAP_THRESHOLD_")) mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    if (!std::getenv("MALLOC_TRIM_THRESHOLD_")) mallopt(M_TRIM_THRESHOLD, 512 * 1024 * 1024);
  }
  static int set_open_mpi_settings() {
    configure_open_mpi();
    return 1;
  }

  int argc_;
  char** argv_;
  Tpetra::ScopeGuard guard_;
};

}  // namespace flexadj
