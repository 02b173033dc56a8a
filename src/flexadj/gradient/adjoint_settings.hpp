#pragma once
// How a GradientProblem computes its gradient: which adjoint (discrete, continuous or spacetime) with its
// options, and where the forward states wait for the backward sweep (memory, an HDF5 file, or checkpoints in
// memory and on disk). `flexadj gradient`, `check` and `optimize` fill it from their options; what they leave
// open comes from the model file's `trajectory` section (GradientProblem::set_adjoint).
#include <cstddef>
#include <string>

namespace flexadj {

struct AdjointSettings {
  std::string mode = "discrete";  // discrete | continuous | spacetime
  int bdf_order = 2;              // continuous: k of BDF-k (1..4)
  long long adjoint_steps = 0;    // continuous: its own constant steps (0: the forward grid, or as many steps)
  // continuous, type hamiltonian: which adjoint equations, "dae" (Nachbagauer et al. 2015), "hamiltonian" (the
  // redundant-coordinate adjoint of Maciag et al. 2022, eqs. (21a)-(21c)) or "hamiltonian_index1" (its form (22a)/(22b));
  // empty: "dae".
  std::string continuous_form;
  // continuous, form hamiltonian: record the adjoint's constraint violation max |C_q xi| per step
  // (GradientProblem::adjoint_constraint_history()).
  bool adjoint_constraint_history = false;
  // spacetime (adjoint/spacetime_adjoint.hpp): slabs (0: one per rank), solver, GMRES tolerance.
  std::size_t time_slabs = 0;
  std::string spacetime_solver = "gmres-slab";
  double spacetime_tolerance = 1e-10;
  std::size_t spacetime_coarsening = 4;
  int spacetime_max_iterations = 0;  // GMRES iterations at most (0: SpacetimeOptions' default)
  double spacetime_memory = 2e9;     // bytes per rank for the steps kept between products (0: none)
  std::string spacetime_option;      // the first of these options the command line gave (refused with another mode)
  std::string storage;             // memory | hdf5 | checkpoints; empty: the model file's (trajectory.storage)
  std::string trajectory_path;     // hdf5: the file of the forward states (written, read back, kept)
  std::size_t checkpoints = 0;     // checkpoints: slots in memory (0: from memory_limit, else default_checkpoints)
  double memory_limit = 0.0;       // checkpoints: bytes per rank the checkpoints may take (0: no limit)
  std::size_t disk_checkpoints = 0;  // checkpoints: at most this many on disk (0: none, unless a folder is given)
  std::string folder;                // checkpoints: the disk checkpoints' folder (empty: MODEL.checkpoints)
  bool restart = false;  // the first evaluation resumes from the disk checkpoints of an earlier process
};

}  // namespace flexadj
