#pragma once
// The discrete adjoint (docs/adjoint.md): the exact gradient of the discrete objective J(x_0, ..., x_N) with
// respect to every component parameter, every control value and the given initial coordinates and velocities, at
// the cost of one backward sweep. This file holds only the backward loop and the gradient's accumulation; each
// integrator's own adjoint step (TimeIntegrator::adjoint_step) sits beside its forward step.
#include <functional>

#include "flexadj/adjoint/gradient.hpp"
#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::adjoint {

class SweepCheckpoints;

struct SweepOptions {
  // Restart files written at the disk checkpoint steps (adjoint/sweep_checkpoints.hpp); with resume the sweep
  // starts from the latest file of an earlier process, if there is one.
  SweepCheckpoints* restart = nullptr;
  bool resume = false;
  bool progress = false;  // a progress line on rank 0 (core/progress.hpp)
  // If set, called after the adjoint step of each step n = N, ..., 0, e.g. to read the step's adjoint variables
  // (TimeIntegrator::save_adjoint_variables) in convergence studies. Not called for steps a resumed sweep skips.
  std::function<void(std::size_t n, const integrators::TimeIntegrator& integrator)> after_step;
};

// The trajectory must hold every step of the last forward run of `integrator`. Collective.
Gradient discrete_adjoint_gradient(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                                   storage::Trajectory& trajectory, const objectives::Objective& objective,
                                   const model::ParameterSpace& parameters, const SweepOptions& options = {});

}  // namespace flexadj::adjoint
