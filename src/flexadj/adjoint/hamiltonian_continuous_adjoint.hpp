#pragma once
// The redundant-coordinate continuous adjoint of the constrained Hamiltonian equations (6a)/(6b) of Maciag,
// Malczyk and Fraczek 2022 ([MMF22], sec. 3.3 and App. A, B), `--adjoint continuous --continuous-form hamiltonian`
// with `integrator: {type: hamiltonian}` (docs/adjoint.md, "The redundant-coordinate Hamiltonian adjoint").
//
// [MMF22] eq. (20) joins (6a), (6b) and the velocity constraints to J with eta, xi (n) and mu (m); with
// p~ = M v + D sigma, F = Q + D' sigma (D' sigma = (d(C_q v + C_t)/dq)^T sigma), A = F_v^T, its stationarity is
//   eta = d(xi)/dt                                                                  (21a)
//   d/dt (M eta + A xi + D mu - h_v^T) = -h_q^T + p~_q^T eta + F_q^T xi + (C_q v + C_t)_q^T mu   ((21b), App. B)
//   D^T eta + D'^T xi = 0                                                           (21c)
// flexadj integrates (21b) in this once-integrated form, with Pi = M eta + A xi + D mu - h_v^T as the unknown: then
// (21a)-(21c) are an index-2 system shaped like (6a)/(6b),
//   [M D; D^T 0] [eta; mu] = [Pi + h_v^T - A xi; -D'^T xi],   d(xi)/dt = eta,   d(Pi)/dt = (the right side above),
// whose algebraic part is the matrix of (6a) and whose right-hand sides are (6a)/(6b)'s transposed first
// derivatives. [MMF22] eq. (22b) differentiates (21b), (21c) once more (index 1: jerk-level constraints), which needs
// the time derivatives of M, A and D' along the trajectory; the solutions are the same (both forms below).
// Terminal values ([MMF22] eqs. (A.4a)-(A.4c)): [M D; D^T 0] [nu; epsilon] = [S_v^T; 0], xi(t1) = -nu,
// Pi(t1) = S_q^T - p~_q^T nu - (C_q v + C_t)_q^T epsilon. Gradient ([MMF22] eq. (B.10), with the parameter terms of
// M, D and C): dJ/dp = int (h_p - eta . p~_p - xi . F_p - mu . (C_q v + C_t)_p) dt - nu . p~_p - epsilon . (C_q v + C_t)_p
// at t1, and through the initial state (p*(t0) = T_v + D sigma(t0)): dJ/dq0 = Pi - p~_q^T xi, dJ/dv0 = -T_vv^T xi at t0.
//
// The multiplier impulse sigma = int lambda dt is a gauge of (6a)/(6b) (sigma + delta, p* + D delta give the same
// motion for a constant delta); the forward integrator restarts it at each step, so the adjoint fixes it by
// sigma(t1) = 0 and integrates its rate backwards (trapezoidal rule; Hamiltonian::hamiltonian_multipliers). Heun
// backwards on the forward grid, the trapezoidal rule for the integral: O(h^2) against the gradient of the
// continuous J.
#include <vector>

#include "flexadj/adjoint/adjoint_constraint_history.hpp"
#include "flexadj/adjoint/gradient.hpp"
#include "flexadj/integrators/hamiltonian.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::adjoint {

// Index2: (21a)-(21c) in (xi, Pi) as above. Index1: [MMF22]'s own form (22a)/(22b) in (xi, eta, mu),
//   d(xi)/dt = eta,   [M D; D^T 0] [d(eta)/dt; d(mu)/dt] = [-h_q + p~_q^T eta + F_q^T xi - A eta - dG/dt;
//                                                          -2 D'^T eta - d(D'^T)/dt xi],   G = M eta + A xi - h_v,
// (21b) differentiated once with the terms in d(mu)/dt cancelling, (21c) differentiated once, from eta(t1), mu(t1)
// of (A.4c); D^T xi = 0 and (21c) hold there only through their derivatives (the jerk level of the paper's Table 2).
// The time derivatives of G and D'^T xi at fixed (eta, xi) are central differences along the trajectory's tangent,
// the state moved by +-epsilon (v, a, d sigma/dt, 1), epsilon = 1e-6 (t1 - t0) (its error ~1e-11 relative, far
// below the O(h^2) of the integration); dJ/dq0 takes Pi(t0) = M eta + A xi + D mu - h_v.
enum class HamiltonianAdjointForm { Index2, Index1 };

// The gradient by the continuous adjoint above; `history` (if given) receives the adjoint's constraint violation.
// Collective.
Gradient hamiltonian_continuous_adjoint_gradient(assembly::Assembler& assembler, integrators::Hamiltonian& integrator,
                                                 storage::Trajectory& trajectory,
                                                 const objectives::Objective& objective,
                                                 const model::ParameterSpace& parameters,
                                                 HamiltonianAdjointForm form = HamiltonianAdjointForm::Index2,
                                                 AdjointConstraintHistory* history = nullptr);

}  // namespace flexadj::adjoint
