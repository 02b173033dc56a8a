#pragma once
// The continuous adjoint of Held and Seifried's state-space form ([HS], docs/references.md; docs/adjoint.md, "The
// continuous adjoint of the state-space form"): the adjoint ODE of eq. (15),
//   dmu/dt = -(dV/dq)^T mu - (dW/dq)^T nu - F_q,   dnu/dt = -(dV/dv)^T mu - (dW/dv)^T nu - F_v      (eq. (18))
// from mu(t1) = G_q, nu(t1) = G_v (eq. (17)), integrated backwards by Heun's method on the forward grid (the
// Jacobians at the stored steps only), the gradient integral of eq. (20) by the trapezoidal rule, and the initial
// terms of eq. (19) through the adjoint of flexadj's projection of the initial state. The Jacobian products come
// from the dense QR form (adjoint/dense_state_equations.hpp): serial, small systems only. The result approximates
// the gradient of the continuous objective at O(h^2); the discrete adjoint gives the exact gradient of the discrete
// one.
#include <string>

#include "flexadj/adjoint/gradient.hpp"
#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/model/parameter_space.hpp"
#include "flexadj/objectives/objective.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::adjoint {

// The dense QR path's limit: the QR derivatives cost O(n^3 m^2) per step (one AD pass per entry of C_q^T).
constexpr int kMaxDenseStateSpaceCoordinates = 24;

// InputError naming `key` (e.g. "--adjoint") if the dense QR path cannot run: more than one rank (it is serial),
// more than kMaxDenseStateSpaceCoordinates coordinates, or no fewer constraints than coordinates.
void check_dense_state_space(const model::Model& model, int ranks, const std::string& key);

// The trajectory must hold every step of the forward run of the state-space integrator (any storage; steps may
// differ in size). InputError for an implicit or free final time.
Gradient state_space_continuous_adjoint_gradient(assembly::Assembler& assembler,
                                                 const integrators::TimeIntegrator& integrator,
                                                 storage::Trajectory& trajectory,
                                                 const objectives::Objective& objective,
                                                 const model::ParameterSpace& parameters);

}  // namespace flexadj::adjoint
