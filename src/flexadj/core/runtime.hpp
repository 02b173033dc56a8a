#pragma once
// MPI and Kokkos for a program's lifetime. They see only the program name: Kokkos would answer --help
// (and take other options) from the command line, which belongs to the program.
#include <Tpetra_Core.hpp>
#include <malloc.h>

#include <cstdlib>

namespace flexadj {

class Runtime {
 public:
  explicit Runtime(char** argv)
      : argc_((keep_freed_memory(), configure_open_mpi())), argv_(argv), guard_(&argc_, &argv_) {}
  Teuchos::RCP<const Teuchos::Comm<int>> comm() const { return Tpetra::getDefaultComm(); }

 private:
  // Open MPI settings, set before MPI starts (the Tpetra scope guard below) unless the user chose otherwise; gives
  // argc 1 for the guard.
  // - Open MPI 4.1's MPI-IO selects a shared-file-pointer component when a file opens; its 'lockedfile' component
  //   formats the file name into a fixed buffer and aborts the program for paths of about 240 characters or more.
  //   flexadj's HDF5 I/O never uses shared file pointers: take the 'individual' component.
  // - Started without a launcher (a singleton: mpirun and PMI/PMIx launchers set the variables tested below), the
  //   process talks to no other. Open MPI 4.1 would still fork a daemon (orted) for dynamic process management,
  //   which flexadj never uses, and probe the UCX transport: 0.43 of the 0.47 s of `flexadj --version`. An isolated
  //   singleton on the ob1 transport starts neither. Launched runs keep Open MPI's choice (UCX on InfiniBand).
  // glibc hands blocks above 128 kB back to the system when they are freed (mmap threshold, heap trimming), so the
  // KLU2 factors and work arrays that each Newton iteration allocates anew fault their pages in again every time:
  // 50 000 page faults in 20 steps of the 1000-link chain, a third of its CPU time (perf stat: 2.0 s against 1.4 s
  // with both limits raised, 13 000 page faults). Keep blocks up to 32 MB (glibc's largest mmap threshold) in the
  // heap and the heap untrimmed below 512 MB, unless the user set MALLOC_MMAP_THRESHOLD_ or MALLOC_TRIM_THRESHOLD_.
  static void keep_freed_memory() {
    if (!std::getenv("MALLOC_MMAP_THRESHOLD_")) mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    if (!std::getenv("MALLOC_TRIM_THRESHOLD_")) mallopt(M_TRIM_THRESHOLD, 512 * 1024 * 1024);
  }
  static int configure_open_mpi() {
    setenv("OMPI_MCA_sharedfp", "individual", /*overwrite=*/0);
    if (!launched_by_mpi()) {
      setenv("OMPI_MCA_ess_singleton_isolated", "1", /*overwrite=*/0);
      setenv("OMPI_MCA_pml", "ob1", /*overwrite=*/0);
    }
    return 1;
  }
  static bool launched_by_mpi() {
    for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
      if (std::getenv(variable)) return true;
    return false;
  }

  int argc_;
  char** argv_;
  Tpetra::ScopeGuard guard_;
};

}  // namespace flexadj
