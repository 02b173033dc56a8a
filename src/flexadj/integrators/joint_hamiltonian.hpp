#pragma once
// The joint-space Hamiltonian equations of Maciag, Malczyk and Fraczek 2022 ([MMF22], docs/references.md), eqs.
// (8)-(10), for open-loop models: `integrator: {type: hamiltonian, coordinates: joint}`. The state is that
// of the other integrators, the absolute (q, v) of every body; each step maps it to the joint coordinates and
// momenta, alpha = g^-1(q), p_hat = H^T T_v(q, v) (eq. (8) with D^T H = 0), takes the explicit trapezoidal rule
// (Heun, order 2; Hairer, Norsett and Wanner, Solving ODE I, sec. II.1) on y = (alpha, p_hat),
//   y* = y_n + h Phi(y_n, t_n),   y_{n+1} = y_n + h/2 (Phi(y_n, t_n) + Phi(y*, t_n + h)),   Phi = (beta, F_hat)
// (integrators/joint_space_equations.hpp), and maps back, q = g(alpha), v = H beta. No projection: g satisfies the
// constraints for every alpha, so C(q) = 0 and C_q v = 0 hold to round-off at every step. a and lambda (output, as
// the other integrators fill them) from the saddle-point system of the consistent accelerations. The same scheme as
// the absolute-coordinate Hamiltonian integrator (hamiltonian.hpp), the same order, on k instead of n + m unknowns.
//
// The discrete adjoint (transpose_step) is the transpose of that step map, stage by stage in reverse order:
// (q_bar, v_bar) -> (alpha_bar, p_bar) at y_{n+1}, then the two stages of Heun with the transposed Jacobian products
// of Phi, then the map (q_n, v_n) -> y_n; the adjoint variables are dJ/d(q_n, v_n) (CarriedStateIntegrator), so
// checkpoints, restarts and the spacetime adjoint work unchanged.
//
// O(n) per step for chains of any length (JointSpaceEquations: recursions over the tree and one sparse saddle-point
// factorization per stage); serial: one rank.
#include <memory>
#include <string>
#include <vector>

#include "flexadj/integrators/carried_state_adjoint.hpp"
#include "flexadj/integrators/joint_space_equations.hpp"
#include "flexadj/model/joint_tree.hpp"

namespace flexadj::integrators {

class JointHamiltonian final : public CarriedStateIntegrator {
 public:
  // InputError for more than one rank or a model that is not an open-loop planar tree (model/joint_tree.hpp).
  JointHamiltonian(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
                   const linalg::LinearSolverOptions& solver_options);

  void initialize(assembly::State& state, double t0) override;
  StepStatistics step(assembly::State& state, double t, double h, long long step_index) override;
  std::string description() const override;

  void begin_adjoint(storage::Trajectory& trajectory) override;
  // y_bar_{n+1} . dy_{n+1}/dh_n = y_bar . (Phi_n + Phi*)/2 + z* . Phi_n (explicit time held: refused by the problem
  // checks), z* the adjoint of the stage from the last adjoint_step(n).
  double step_size_sensitivity(storage::Trajectory& trajectory, std::size_t n) override;

 private:
  struct Stages {
    JointSpaceEquations::Point start, stage, end;  // y_n, y*, y_{n+1}
  };
  void advance(const assembly::State& state, double t, double h, Stages& s);
  void recompute_step(const assembly::State& previous, double t, double h) override;
  void transpose_step(double t, double t_next, assembly::LocalGradient& gradient) override;

  std::unique_ptr<model::JointTree> tree_;
  std::unique_ptr<JointSpaceEquations> equations_;
  Stages forward_, recomputed_;
  // The sweep's joint-space adjoints: of y_{n+1}, of the stage y*, of y_n, and work.
  std::vector<double> end_alpha_bar_, end_p_bar_, stage_alpha_bar_, stage_p_bar_, start_alpha_bar_, start_p_bar_,
      lambda_alpha_, lambda_p_;
};

}  // namespace flexadj::integrators
