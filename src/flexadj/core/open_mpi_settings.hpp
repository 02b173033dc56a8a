#pragma once
// Open MPI settings made before MPI starts, unless the user set them (docs/platform.md, "MPI and Kokkos"). Standard
// library only: the test main includes it too.
#include <cstdlib>

namespace flexadj {

// True if a launcher started the process: mpirun and PMI/PMIx launchers (srun) set one of these.
inline bool launched_by_mpi() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(variable)) return true;
  return false;
}

// - Open MPI 4.1's MPI-IO selects a shared-file-pointer component when a file opens; its 'lockedfile' component
//   formats the file name into a fixed buffer and aborts the program for paths of about 240 characters or more.
//   flexadj's HDF5 I/O never uses shared file pointers: take the 'individual' component.
// - Started without a launcher (a singleton), the process talks to no other. Open MPI 4.1 would still fork a daemon
//   (orted) for dynamic process management, which flexadj never uses, and probe the UCX transport: 0.43 of the
//   0.47 s of `flexadj --version`. An isolated singleton on the ob1 transport starts neither. Launched runs keep
//   Open MPI's choice (UCX on InfiniBand).
inline void configure_open_mpi() {
  setenv("OMPI_MCA_sharedfp", "individual", /*overwrite=*/0);
  if (launched_by_mpi()) return;
  setenv("OMPI_MCA_ess_singleton_isolated", "1", /*overwrite=*/0);
  setenv("OMPI_MCA_pml", "ob1", /*overwrite=*/0);
}

}  // namespace flexadj
