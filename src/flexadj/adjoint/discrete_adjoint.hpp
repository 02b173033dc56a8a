#pragma once
// The discrete adjoint of generalized-alpha and of the midpoint variational integrator (docs/adjoint.md): the exact gradient
// of the discrete objective J(x_0, ..., x_N) with respect to every component parameter and every initial
// coordinate and velocity, at the cost of one backward sweep. Each backward step solves with the
// transpose of the converged Newton matrix of that step; the start solves with the transpose of the
// matrix of the consistent initial accelerations.
#include <map>
#include <string>
#include <vector>

#include "flexadj/adjoint/initial_state_adjoint.hpp"
#include "flexadj/adjoint/parameter_space.hpp"
#include "flexadj/integrators/generalized_alpha.hpp"
#include "flexadj/objectives/objective.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::adjoint {

// Forward states kept in memory for the backward sweep.
using StoredTrajectory = storage::MemoryTrajectory;

StoredTrajectory simulate_and_store(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                                    assembly::State initial_state);


// The trajectory must hold every step of the forward run of `integrator` (memory, or HDF5 written with
// every = 1); the integrator (GeneralizedAlpha or Variational) supplies the scheme, the solver kind and the
// projection of the initial state. The variational adjoint reads q and v only (p = T_v(q, v)).
Gradient discrete_adjoint_gradient(assembly::Assembler& assembler, const integrators::TimeIntegrator& integrator,
                                   storage::Trajectory& trajectory, const objectives::Objective& objective,
                                   const ParameterSpace& parameters);

}  // namespace flexadj::adjoint
