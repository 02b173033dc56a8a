#pragma once
// The joint-coordinate adjoint of Maciag, Malczyk and Fraczek 2022 ([MMF22], docs/references.md), sec. 4: the
// adjoint ODE of the joint-space Hamiltonian equations (10a)/(10b), in the independent adjoint variables of the joint
// space, integrated backwards from t1, and the gradient (18) as an integral over the forward run
// (`flexadj gradient --adjoint continuous` with `integrator: {type: hamiltonian, coordinates: joint}`).
//
// [MMF22] write it as the second-order pair (30a)/(30b), d(xi_hat)/dt = eta_hat, M_hat d(eta_hat)/dt = -r_J, whose
// r_J holds time derivatives of Jacobians along the trajectory (their App. B). flexadj integrates its first-order
// form in y = (alpha, p_hat) (integrators/joint_space_equations.hpp), which needs first derivatives only:
//   d(lambda)/dt = -Phi_y^T lambda - h_y,   lambda(t1) = S_y,   dJ/dp = int (lambda . Phi_p + h_p) dt + initial terms,
// with xi_hat = -lambda_p_hat (the adjoint of (10b), [MMF22] eq. (26)) and eta_hat = d(xi_hat)/dt (30a). The
// objective's partials h_q, h_v and S_q, S_v of the absolute state map to the joint space through the transpose of
// (alpha, p_hat) -> (q, v) (the projection of [MMF22] eq. (31), exact here). Heun's method backwards on the forward
// grid (the Jacobians at the stored steps only), the trapezoidal rule for the integral, then the transpose of the
// map (q0, v0) -> y0 and the adjoint of flexadj's projection of the initial state. The result approximates the
// gradient of the continuous J at O(h^2); the discrete adjoint (the default) is the exact gradient of the discrete J.
#include "flexadj/adjoint/adjoint_constraint_history.hpp"
#include "flexadj/adjoint/gradient.hpp"
#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/model/parameter_space.hpp"
#include "flexadj/objectives/objective.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::adjoint {

// The trajectory must hold every step of a forward run of the joint-space Hamiltonian integrator. InputError for an
// implicit or free final time, more than one rank, or a model that is not a planar tree. `history` (if given)
// receives C_q xi of the absolute adjoint xi = H xi_hat ([MMF22] eq. (27a)): zero by construction, to round-off.
Gradient joint_space_continuous_adjoint_gradient(assembly::Assembler& assembler,
                                                 const integrators::TimeIntegrator& integrator,
                                                 storage::Trajectory& trajectory,
                                                 const objectives::Objective& objective,
                                                 const model::ParameterSpace& parameters,
                                                 AdjointConstraintHistory* history = nullptr);

}  // namespace flexadj::adjoint
