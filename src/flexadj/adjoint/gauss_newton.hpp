#pragma once
// The Gauss-Newton product of a least-squares objective J = 1/2 sum_i rt_i(x)^2 (Objective::least_squares_refusal;
// docs/adjoint.md, "Gauss-Newton products"): G e = J_r^T J_r e, the Hessian without the residuals' second
// derivatives and without the dynamics' second-order terms, by one tangent-linear sweep along e (x_dot = dx/de:
// J_r e = r_x x_dot + r_u u_dot) and one first-order adjoint sweep whose objective partials are those of the
// linearised objective r . (J_r e) held at J_r e (Objective::add_gauss_newton_partials): the adjoint of J_r applied
// to J_r e. The loops only, as second_order_adjoint.hpp.
#include "flexadj/adjoint/gradient.hpp"
#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::adjoint {

// G e in the layout of a Gradient of `parameters` (its objective 0); `direction`, the trajectory and
// `checkpoint_slots` as for second_order_adjoint() (the integrator's capability second_order_adjoint). Collective.
Gradient gauss_newton_product(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                              storage::Trajectory& trajectory, const objectives::Objective& objective,
                              const model::ParameterSpace& parameters, const Gradient& direction,
                              std::size_t checkpoint_slots = 0);

}  // namespace flexadj::adjoint
