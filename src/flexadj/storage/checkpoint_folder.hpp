#pragma once
// The folder of a run's disk checkpoints: the forward run's states (checkpoint_<n>.h5, every m steps) and the
// backward sweep's adjoint variables (adjoint_<n>.h5), the files `flexadj gradient --restart` resumes from. The
// folder belongs to the run: a new run (without --restart) removes what an earlier one left there.
#include <string>
#include <vector>

#include "flexadj/core/tpetra_types.hpp"

namespace flexadj::storage {

struct DiskCheckpoints {
  std::size_t interval = 0;  // m: a disk checkpoint every m steps; 0: memory only
  std::string folder;        // where the files go (created if missing)
  std::string run;           // the run's identity, written into and checked in every file

  std::string path(long long step) const;          // folder/checkpoint_<n>.h5: the state of step n
  std::string adjoint_path(long long step) const;  // folder/adjoint_<n>.h5: the sweep after step n
  // The steps of the files of either kind in the folder, increasing (rank 0 looks, all ranks get the list).
  // Collective.
  std::vector<long long> state_steps(const Comm& comm) const;
  std::vector<long long> adjoint_steps(const Comm& comm) const;
  // Removes every checkpoint and adjoint file (and any .tmp left by a killed run) from the folder; rank 0 does it.
  // Collective.
  void remove_all(const Comm& comm) const;
};

}  // namespace flexadj::storage
