#pragma once
// The variational integrator whose discrete Lagrangian is the midpoint rule in the joint coordinates themselves
// (Schubert et al. 2024, sec. 2.3, the pendulum in minimal coordinates; Marsden and West 2001, sec. 2.2):
// `integrator: {type: variational, coordinates: joint_midpoint}`, for open-loop models (model/joint_tree.hpp:
// q = g(alpha), H = dg/dalpha):
//   L_d^J(alpha_n, alpha_{n+1}) = h L(g(alpha_m), g'(alpha_m)[beta]),  alpha_m = (alpha_n + alpha_{n+1})/2,
//   beta = (alpha_{n+1} - alpha_n)/h,   f_d^{J-} = f_d^{J+} = h/2 H(alpha_m)^T f,
// one step solving  p_n + D1 L_d^J + f_d^{J-} = 0  for alpha_{n+1} (simplified Newton; beyond a few joint
// coordinates with H(alpha_m)^T d(minus)/dq_{n+1} H(alpha_m), which differs from the exact Jacobian by O(1) against
// its -M_hat/h) and p_{n+1} = D2 L_d^J + f_d^{J+}  (eq. (16)).
// For the pendulum q = l (sin phi, -cos phi) this is the paper's L_d = h m l^2/2 ((phi_{n+1} - phi_n)/h)^2 + h m g l
// cos((phi_n + phi_{n+1})/2) and f_d = h u_n / 2. The null-space form (null_space_variational.hpp) instead takes
// the midpoint in the absolute coordinates; both are of second order and agree to O(h^2).
//
// It is the absolute midpoint rule (variational.hpp: minus, plus) composed with the map
//   Phi(alpha_n, alpha_{n+1}) = (g(alpha_m) - g'(alpha_m)[Delta]/2, g(alpha_m) + g'(alpha_m)[Delta]/2),
// Delta = alpha_{n+1} - alpha_n, whose two points have the midpoint g(alpha_m) and the difference quotient
// g'(alpha_m)[beta]: L_d^J = L_d(Phi) exactly, and (D1, D2) L_d^J + f_d^J = (dPhi/d alpha_n, dPhi/d alpha_{n+1})^T
// (minus, plus) (the g'' terms of the forces cancel between the two ends). Every product below is a gradient of
// w . Phi or of w . dPhi[delta] (w = (minus, plus) held), formed by JointSpaceEquations' passes over the tree, and
// the transposed products of minus and plus (VariationalAssembly).
//
// The discrete adjoint (transpose_step) is the transpose of that step in the same unknowns (k adjoint variables,
// the paper's lambda of eq. (18)). The Newton loop, the continuous Legendre maps (alpha, p) <-> (q, v) and the
// step's adjoint solve are JointVariational's (joint_variational.hpp). Serial: one rank; cost per step O(k) tree
// passes and element sweeps for the k x k Jacobian (the small trees of the paper's examples).
#include <string>
#include <vector>

#include "flexadj/integrators/joint_variational.hpp"

namespace flexadj::integrators {

class JointMidpointVariational final : public JointVariational {
 public:
  // InputError for more than one rank or a model that is not an open-loop tree (model/joint_tree.hpp).
  JointMidpointVariational(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
                           const linalg::LinearSolverOptions& solver_options);
  std::string description() const override;

 private:
  // The step's alpha_m, Delta and Phi (the two points of the absolute midpoint rule), by step (forward_ or
  // recomputed_).
  struct Midpoint {
    std::vector<double> mid, delta, first, second;
  };
  Midpoint& midpoint(const Step& s) { return &s == &forward_ ? forward_midpoint_ : recomputed_midpoint_; }
  // Gradients of sigma = w . dPhi[delta_n, delta_next] (w = (s.minus, s.plus) and their dependence on Phi) with
  // respect to alpha_n (+= into grad_n unless nullptr) and alpha_{n+1} (grad_next), and the parameters (gradient,
  // unless nullptr). delta_n, delta_next: nullptr for 0. sigma is lambda . (D1 + f^-) for (lambda, 0) and
  // mu . (D2 + f^+) for (0, mu).
  void direction_gradient(Step& s, double t, double h, const double* delta_n, const double* delta_next,
                          double* grad_n, double* grad_next, assembly::LocalGradient* gradient);
  // grad_n += d/d alpha_n and grad_next += d/d alpha_{n+1} (either may be nullptr) of a . Phi_1 + b . Phi_2 with a, b
  // held, and its parameter terms into gradient (unless nullptr).
  void phi_gradient(const Midpoint& m, const std::vector<double>& a, const std::vector<double>& b, double* grad_n,
                    double* grad_next, assembly::LocalGradient* gradient);
  // sum_n_ = a + b, half_difference_n_ = (b - a)/2.
  void split_pair(const std::vector<double>& a, const std::vector<double>& b);
  // grad_n += grad_mid_/2 - grad_delta_, grad_next += grad_mid_/2 + grad_delta_ (d/d alpha_n, d/d alpha_{n+1} from the
  // gradients in alpha_m and Delta).
  void add_split_gradients(double* grad_n, double* grad_next) const;
  // Phi, s.minus and s.plus, and the discrete momenta D1 (into d1) and D2 (into d2, unless nullptr) with forces.
  void discrete_momenta(Step& s, double t, double h, std::vector<double>& d1, std::vector<double>* d2);
  // B = D1 L_d^J + f_d^{J-} (Schubert et al. 2024, eq. (16)).
  void momentum_balance(Step& s, double t, double h, std::vector<double>& out) override;
  // p_{n+1} = D2 L_d^J + f_d^{J+}.
  void end_momentum(Step& s, double t, double h) override;
  // Up to this many joint coordinates, Newton and the adjoint use the exact dE/d alpha_{n+1} (k rows, each one
  // element sweep and a few tree passes); beyond, Newton's matrix is the approximation below, and the adjoint
  // equation is solved by iterative refinement with it (one transposed product per iteration).
  static constexpr int kExactJacobianMax = 4;
  bool exact_jacobian() const { return tree_->size() <= kExactJacobianMax; }
  // Newton's matrix: the exact dE/d alpha_{n+1} (exact_jacobian()) or H(alpha_m)^T d(minus)/dq_{n+1} H(alpha_m);
  // !new_start: the exact one (the adjoint's fallback).
  void fill_jacobian(Step& s, double t, double h, bool new_start) override;
  // The exact Jacobian (exact_jacobian()); else Newton's factorized approximation stays for the refinement.
  void prepare_adjoint(Step& s, double t, double h) override;
  // lambda_ with (dE/d alpha_{n+1})^T lambda = -alpha_bar at the recomputed step: the LU solve (exact_jacobian()),
  // else iterative refinement lambda += A^-T (-alpha_bar - J^T lambda) with Newton's matrix A, J^T lambda the
  // gradient in alpha_{n+1} of lambda . (D1 + f^-), to round-off; the exact Jacobian if it stalls.
  void solve_adjoint_equation(double t, double h);
  void transpose_step(double t, double t_next, assembly::LocalGradient& gradient) override;

  Midpoint forward_midpoint_, recomputed_midpoint_;
  // Work: n-vectors and k-vectors; no allocation in the time loop.
  std::vector<double> sum_n_, half_difference_n_, mu_first_, mu_second_, out_first_, out_second_, values_, values2_;
  std::vector<double> d1_, unit_, mid_direction_, delta_direction_, grad_mid_, grad_delta_, row_;
  std::vector<double> mid_columns_;  // H(alpha_m), n x k column-major
  std::vector<double> refinement_residual_, refinement_product_;
};

}  // namespace flexadj::integrators
