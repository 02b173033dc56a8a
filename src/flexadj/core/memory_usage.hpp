#pragma once
// Peak resident memory of each rank (getrusage's ru_maxrss), for run summaries and the scaling benchmark.
#include <sys/resource.h>

#include <mpi.h>

#include <vector>

namespace flexadj {

// This process's peak resident set size in MiB (Linux reports ru_maxrss in KiB).
inline double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// Every rank's peak RSS in MiB, on rank 0 (empty elsewhere). Collective.
inline std::vector<double> peak_rss_per_rank_mib(MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const double mine = peak_rss_mib();
  std::vector<double> all(rank == 0 ? ranks : 0);
  MPI_Gather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, comm);
  return all;
}

}  // namespace flexadj
