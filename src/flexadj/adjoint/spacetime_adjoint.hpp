#pragma once
// The spacetime discrete adjoint (docs/adjoint.md, "The spacetime adjoint"): the whole backward sweep as one
// block-bidiagonal system over all steps (spacetime_system.hpp), distributed over time slabs and solved by Belos
// GMRES, preconditioned by exact sweeps of each slab (block Jacobi in time), optionally with a coarse-in-time
// correction. Its gradient equals the sequential sweep's (discrete_adjoint.hpp) to the solver's tolerance.
#include <string>
#include <vector>

#include "flexadj/adjoint/gradient.hpp"
#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::adjoint {

struct SpacetimeOptions {
  std::size_t slabs = 0;   // P; 0: one per rank (at most N)
  std::size_t groups = 0;  // time groups G; 0: default_time_groups(ranks, P)
  // gmres-slab: GMRES with the slab preconditioner; gmres-two-level: with the coarse-in-time correction as well;
  // gmres: no preconditioner (for comparison only).
  std::string solver = "gmres-slab";
  std::size_t coarsening = 4;  // gmres-two-level: coarse steps of k fine steps (k = 1: exact, one iteration)
  // GMRES: relative residual |b - A x| / |b| (Belos checks the explicit one at the end; forming A x loses about
  // 1e-11 relative on small models, so much less is round-off).
  double tolerance = 1e-10;
  int max_iterations = 0;    // 0: 2 P + 20
  // Bytes per rank the adjoint steps' kept factorizations and element Jacobians may take (0: none kept, every
  // product assembles and factorizes every step again; integrators/kept_adjoint_steps.hpp).
  double kept_step_memory = kDefaultKeptStepMemory;
  static constexpr double kDefaultKeptStepMemory = 2e9;
};

struct SpacetimeStatistics {
  std::size_t slabs = 0, groups = 0, steps = 0;
  int iterations = 0;
  std::vector<double> residuals;  // relative residual norms of the GMRES iterations (Belos' implicit ones)
  // GMRES met the tolerance in its implicit residual but round-off over the long system left the explicit one
  // |b - A x| / |b| above it, by at most kRoundOffAllowance: the run goes on and reports it (else -1).
  double attained_residual = -1.0;
  double interface_defect = 0.0;  // max |x_first(slab) - X_first(slab swept from its incoming block)| / max |X|
  std::size_t adjoint_steps = 0;  // adjoint_step() calls of rank 0's group (the sequential sweep takes N + 1)
  // The forward states: recomputed by each time group from the disk checkpoint at or below its first slab
  // (slab_states.hpp), with per group g the checkpoint's step and the forward steps taken; or passed on from the
  // trajectory (empty lists).
  bool recomputed = false;
  std::vector<std::size_t> group_checkpoints, group_recomputed_steps;
  std::vector<std::size_t> group_first_steps;  // the first step of each group's first slab
  double setup_seconds = 0.0, solve_seconds = 0.0, gradient_seconds = 0.0;
  // Rank 0's group: the steps kept between products (kept_step_memory), the bytes they take (largest over the
  // ranks), the steps assembled and factorized again, and why nothing was kept (empty if steps were).
  std::size_t kept_steps = 0, steps_taken_again = 0;
  double kept_bytes = 0.0;
  std::string kept_refusal;
};

// How far above the tolerance the explicit residual may end where GMRES met the tolerance in its implicit one
// (Belos' loss of accuracy, which round-off over many steps causes): the attained residual is then reported.
inline constexpr double kRoundOffAllowance = 1e3;
// The largest interface defect a gradient is returned with: above it (a loose --spacetime-tolerance met early) the
// gradient is wrong in its leading digits, a SolverError naming the attained residual and the defect.
inline constexpr double kLargestInterfaceDefect = 1e-4;

// The list of --spacetime-solver values, for messages.
const std::vector<std::string>& spacetime_solvers();

// The trajectory must hold every step of the last forward run of `integrator` (read once, in decreasing steps);
// a CheckpointedTrajectory with a disk tier is not read: each time group recomputes its slabs' states from its
// disk checkpoint files.
// SolverError with the residual history if GMRES does not reach the tolerance (in its explicit residual, or
// within kRoundOffAllowance of it where the implicit one met it). Collective.
Gradient spacetime_adjoint_gradient(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                                    storage::Trajectory& trajectory, const objectives::Objective& objective,
                                    const model::ParameterSpace& parameters, const SpacetimeOptions& options,
                                    SpacetimeStatistics* statistics = nullptr);

}  // namespace flexadj::adjoint
