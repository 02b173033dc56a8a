#pragma once
// The variational integrator whose discrete Lagrangian is the midpoint rule in the joint coordinates themselves
// (Schubert et al. 2024, sec. 2.3, the pendulum in minimal coordinates; Marsden and West 2001, sec. 2.2):
// `integrator: {type: variational, coordinates: joint_midpoint}`, for open-loop models (model/joint_tree.hpp:
// q = g(alpha), H = dg/dalpha):
//   L_d^J(alpha_n, alpha_{n+1}) = h L(g(alpha_m), g'(alpha_m)[beta]),  alpha_m = (alpha_n + alpha_{n+1})/2,
//   beta = (alpha_{n+1} - alpha_n)/h,   f_d^{J-} = f_d^{J+} = h/2 H(alpha_m)^T f,
// one step solving  p_n + D1 L_d^J + f_d^{J-} = 0  for alpha_{n+1} and  p_{n+1} = D2 L_d^J + f_d^{J+}  (eq. (16)).
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
// the paper's lambda of eq. (18)); the carried adjoint is dJ/d(q_n, v_n) through the continuous Legendre map
// (alpha, p) <-> (q, v) of JointSpaceEquations, as for the null-space form, so checkpoints, restarts and the
// spacetime adjoint work unchanged. Serial: one rank; cost per step O(k) tree passes and element sweeps for the
// k x k Jacobian (the small trees of the paper's examples).
#include <memory>
#include <string>
#include <vector>

#include "flexadj/integrators/carried_state_adjoint.hpp"
#include "flexadj/integrators/joint_space_equations.hpp"
#include "flexadj/integrators/variational_assembly.hpp"
#include "flexadj/model/joint_tree.hpp"

namespace flexadj::integrators {

class JointMidpointVariational final : public CarriedStateIntegrator {
 public:
  // InputError for more than one rank or a model that is not an open-loop tree (model/joint_tree.hpp).
  JointMidpointVariational(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
                           const linalg::LinearSolverOptions& solver_options);

  void initialize(assembly::State& state, double t0) override;
  StepStatistics step(assembly::State& state, double t, double h, long long step_index) override;
  std::string description() const override;

  void begin_adjoint(storage::Trajectory& trajectory) override;
  // The adjoint variable of the discrete Euler-Lagrange equation of the step last transposed (adjoint_step(n): the
  // momentum balance at t_{n-1}), k values: the paper's lambda (sec. 2.3, Fig. 2(b)).
  const std::vector<double>& step_adjoint() const { return lambda_; }
  // Not available: an implicit or free final time is refused with this integrator by the problem checks.
  double step_size_sensitivity(storage::Trajectory& trajectory, std::size_t n) override;

 private:
  struct Step {
    JointSpaceEquations::Point start, end;  // (alpha_n, p_n) and (alpha_{n+1}, p_{n+1}) with q, v
    std::vector<double> mid, delta;         // alpha_m and Delta
    std::vector<double> first, second;      // Phi: the two points of the absolute midpoint rule
    std::vector<double> minus, plus;        // at (first, second)
    std::vector<double> jacobian;           // dE/d alpha_{n+1}, column-major k x k, LU-factorized
    std::vector<int> pivots;
    StepStatistics statistics;
  };
  // Gradients of sigma = w . dPhi[delta_n, delta_next] (w = (s.minus, s.plus) and their dependence on Phi) with
  // respect to alpha_n (+= into grad_n unless nullptr) and alpha_{n+1} (grad_next), and the parameters (gradient,
  // unless nullptr). delta_n, delta_next: nullptr for 0. sigma is lambda . (D1 + f^-) for (lambda, 0) and
  // mu . (D2 + f^+) for (0, mu).
  void direction_gradient(Step& s, double t, double h, const double* delta_n, const double* delta_next,
                          double* grad_n, double* grad_next, assembly::LocalGradient* gradient);
  // Step n from the absolute state (q_n, v_n) at t: simplified Newton on alpha_{n+1}; the Jacobian is factorized
  // again at the converged alpha_{n+1} if factorize_last (the adjoint's). SolverError if Newton fails.
  void advance(const assembly::State& state, double t, double h, long long step_index, bool factorize_last, Step& s);
  // Phi, s.minus and s.plus, and the discrete momenta D1 (into d1) and D2 (into d2, unless nullptr) with forces.
  void discrete_momenta(Step& s, double t, double h, std::vector<double>& d1, std::vector<double>* d2);
  void factorize_jacobian(Step& s, double t, double h);
  void recompute_step(const assembly::State& previous, double t, double h) override;
  void transpose_step(double t, double t_next, assembly::LocalGradient& gradient) override;

  std::unique_ptr<model::JointTree> tree_;
  std::unique_ptr<JointSpaceEquations> equations_;
  VariationalAssembly momenta_;
  Step forward_, recomputed_;
  // Work: n-vectors and k-vectors; no allocation in the time loop.
  std::vector<double> zero_n_, zero_m_, sum_n_, half_difference_n_, mu_first_, mu_second_, out_first_, out_second_,
      values_, values2_;
  std::vector<double> residual_, d2_, unit_, mid_direction_, delta_direction_, grad_mid_, grad_delta_, row_,
      end_alpha_bar_, end_p_bar_, start_alpha_bar_, lambda_;
};

}  // namespace flexadj::integrators
