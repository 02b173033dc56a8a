#pragma once
// The second-order adjoint (docs/adjoint.md, "Second-order adjoint"): the exact product H e of the Hessian of the
// discrete objective J with a direction e of the parameters, the initial state and the control values, forward over
// reverse: a tangent-linear sweep along e (TimeIntegrator::tangent_step), then the backward sweep of
// discrete_adjoint.cpp together with its derivative along e (TimeIntegrator::second_order_adjoint_step). The loops
// only; each integrator's tangent and differentiated adjoint step sit beside its adjoint step.
#include "flexadj/adjoint/gradient.hpp"
#include "flexadj/adjoint/tangent_trajectory.hpp"
#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::adjoint {

struct HessianVectorProduct {
  Gradient gradient;  // J and its gradient (the first-order sweep, as discrete_adjoint_gradient)
  Gradient product;   // H e in the same layout (its objective is 0)
};

// `direction` holds e in the layout of a Gradient of `parameters` (parameters, initial_coordinates,
// initial_velocities in global numbering, controls). The trajectory must hold every step of the last forward run
// of `integrator` (memory, HDF5 or checkpoints; the tangents are kept the same way, tangent_trajectory.hpp, with
// `checkpoint_slots` checkpoints, 0: the trajectory's number). Collective.
HessianVectorProduct second_order_adjoint(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                                          storage::Trajectory& trajectory, const objectives::Objective& objective,
                                          const model::ParameterSpace& parameters, const Gradient& direction,
                                          std::size_t checkpoint_slots = 0);

}  // namespace flexadj::adjoint
