#pragma once
// The midpoint variational integrator with the discrete null-space method and nodal reparametrization (Betsch and
// Leyendecker 2006, Int. J. Numer. Meth. Eng. 67, 499-552; Schubert et al. 2024, sec. 3.1, eq. (25)) for open-loop
// models: `integrator: {type: variational, coordinates: joint}`. With the joint coordinates of the tree
// (model/joint_tree.hpp: q = g(alpha), H = dg/dalpha),
//   null-space matrix         P(q_n) = H(alpha_n)                     (C_q H = 0: its columns span T_q M)
//   nodal reparametrization   q_{n+1} = F_d(q_n, v_{n+1}) = g(alpha_n + v_{n+1}),  C(F_d(q_n, v)) = 0 for every v,
// and the discrete Lagrangian, forces and momenta of the RATTLE form (variational.hpp: L_d = h T(q_m, (q_{n+1} -
// q_n)/h), f_d^- = f_d^+ = h/2 f(q_m, v_m)), one step solves the k = n - m equations
//   P(q_n)^T [p_n + minus(q_n, F_d(q_n, v_{n+1}))] = 0                 (Newton on v_{n+1}, a dense k x k Jacobian)
//   p_hat_{n+1} = H(alpha_{n+1})^T plus(q_n, q_{n+1})
// in position-momentum form with the projected momentum p_hat = H^T T_v: the constraint forces, which the null-space
// projection eliminates, need no multipliers. As P^T r = 0 if and only if r = C_q^T Lambda, the configurations are
// those of the RATTLE form (to the Newton tolerance), and so are the velocities v_{n+1} = H beta, H^T M H beta =
// p_hat_{n+1} (RATTLE's step 3); the two forms differ in their unknowns (k instead of n + m) and conditioning.
//
// The discrete adjoint (transpose_step) is the transpose of that step, with adjoint variables of the minimal
// dimension k (Schubert et al. 2024, sec. 3.2: the null-space projection of the adjoint equations): for the step's
// equation E = p_hat_n + H_n^T minus and momentum D = H_{n+1}^T plus, with (alpha_bar, p_bar) the adjoint of
// (alpha_{n+1}, p_hat_{n+1}),
//   (dE/d alpha_{n+1})^T lambda = -(alpha_bar + (dD/d alpha_{n+1})^T p_bar),   dE/d alpha_{n+1} = H_n^T minus_q H_{n+1}
//   alpha_bar_n = (dD/d alpha_n)^T p_bar + (dE/d alpha_n)^T lambda,   p_bar_n = lambda,
// and the maps between (q, v) and (alpha, p_hat) on both sides (JointSpaceEquations). lambda (k values) is the
// paper's adjoint variable of the null-space discrete Euler-Lagrange equations. The carried adjoint is dJ/d(q_n, v_n)
// (CarriedStateIntegrator), so checkpoints, restarts and the spacetime adjoint work unchanged.
//
// The Newton loop, the Legendre maps and the step's adjoint solve are JointVariational's (joint_variational.hpp).
// Cost per step: the k x k Jacobian once (simplified Newton; one element sweep with the sparse matrix, 2k passes
// over the tree for the columns of H_n and H_{n+1}, k sparse products, O(n k^2) dot products and an O(k^3) dense LU),
// one element sweep and one tree pass per iteration: for the small trees of the paper's examples, not for long
// chains (the joint-space Hamiltonian form is O(n)); serial: one rank.
#include <string>
#include <vector>

#include "flexadj/integrators/joint_variational.hpp"

namespace flexadj::integrators {

class NullSpaceVariational final : public JointVariational {
 public:
  // InputError for more than one rank or a model that is not an open-loop tree (model/joint_tree.hpp).
  NullSpaceVariational(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
                       const linalg::LinearSolverOptions& solver_options);
  std::string description() const override;

 private:
  // s.minus and s.plus at (s.start.state.q, s.end.state.q); s.end.state.q = g(s.end.alpha) first.
  void discrete_momenta(Step& s, double t, double h);
  // B = H(alpha_n)^T minus (Schubert et al. 2024, eq. (25a)).
  void momentum_balance(Step& s, double t, double h, std::vector<double>& out) override;
  // p_hat_{n+1} = H(alpha_{n+1})^T plus (eq. (25b)).
  void end_momentum(Step& s, double t, double h) override;
  // s.jacobian = H(alpha_n)^T d(minus)/dq_{n+1} H(alpha_{n+1}) from the step's sparse matrix and the columns of
  // both H (those of H(alpha_n) kept from the step's first call unless new_start).
  void fill_jacobian(Step& s, double t, double h, bool new_start) override;
  void transpose_step(double t, double t_next, assembly::LocalGradient& gradient) override;

  // Work: n-vectors (products) and k-vectors (unit vector).
  std::vector<double> column_, first_bar_, second_bar_, unit_;
  // The columns of H(alpha_n) and H(alpha_{n+1}) (n x k, column-major).
  std::vector<double> start_columns_, end_columns_;
};

}  // namespace flexadj::integrators
