#pragma once
// What the two variational integrators in joint coordinates share (null_space_variational.hpp: the midpoint in the
// absolute coordinates with the discrete null-space method; joint_midpoint_variational.hpp: the midpoint in the joint
// coordinates): for an open-loop model (model/joint_tree.hpp: q = g(alpha), H = dg/dalpha) one step from the joint
// state (alpha_n, p_n) of the absolute (q_n, v_n) (the continuous Legendre map p = H^T T_v of JointSpaceEquations)
// solves k equations
//   E(alpha_{n+1}) = p_n + B(alpha_n, alpha_{n+1}) = 0,   p_{n+1} = P(alpha_n, alpha_{n+1})
// by simplified Newton (a dense k x k Jacobian dE/d alpha_{n+1} at the predictor alpha_n + h beta_n), and
// (q_{n+1}, v_{n+1}) follow from (alpha_{n+1}, p_{n+1}). A form supplies B, P and the Jacobian, and the transpose of
// its step; the carried adjoint is dJ/d(q_n, v_n) (CarriedStateIntegrator), so checkpoints, restarts and the
// spacetime adjoint work unchanged. Serial: one rank.
#include <memory>
#include <string>
#include <vector>

#include "flexadj/integrators/carried_state_adjoint.hpp"
#include "flexadj/integrators/joint_space_equations.hpp"
#include "flexadj/integrators/variational_assembly.hpp"
#include "flexadj/model/joint_tree.hpp"

namespace flexadj::integrators {

class JointVariational : public CarriedStateIntegrator {
 public:
  void initialize(assembly::State& state, double t0) override;
  StepStatistics step(assembly::State& state, double t, double h, long long step_index) override;
  void begin_adjoint(storage::Trajectory& trajectory) override;
  // The adjoint variable of the equation E of the step last transposed (adjoint_step(n): step n's E, the momentum
  // balance at t_{n-1}), k values: the paper's minimal-dimension adjoint (Schubert et al. 2024, secs. 2.3 and 3.3).
  const std::vector<double>& step_adjoint() const { return lambda_; }
  // Not available: an implicit or free final time is refused with these integrators by the problem checks.
  double step_size_sensitivity(storage::Trajectory& trajectory, std::size_t n) override;

 protected:
  struct Step {
    JointSpaceEquations::Point start, end;  // (alpha_n, p_n) and (alpha_{n+1}, p_{n+1}) with q, v
    std::vector<double> minus, plus;        // the absolute midpoint rule's discrete momenta of the step
    std::vector<double> jacobian;           // dE/d alpha_{n+1}, column-major k x k, LU-factorized
    std::vector<int> pivots;
    StepStatistics statistics;
  };

  // InputError for more than one rank or a model that is not an open-loop tree. `form`: the integrator's name in
  // messages.
  JointVariational(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
                   const linalg::LinearSolverOptions& solver_options, std::string form);

  // B(alpha_n, alpha_{n+1}) into `out` (k values) at s.end.alpha.
  virtual void momentum_balance(Step& s, double t, double h, std::vector<double>& out) = 0;
  // p_{n+1} = P(alpha_n, alpha_{n+1}) into s.end.p_hat at the converged s.end.alpha.
  virtual void end_momentum(Step& s, double t, double h) = 0;
  // s.jacobian = dE/d alpha_{n+1} at s.end.alpha (new_start: the step's first call), not yet factorized.
  virtual void fill_jacobian(Step& s, double t, double h, bool new_start) = 0;
  // The step's Jacobian filled and LU-factorized; SolverError if singular.
  void factorize_jacobian(Step& s, double t, double h, bool new_start);
  // What the step's transpose needs at the converged alpha_{n+1}: by default the exact Jacobian, LU-factorized.
  virtual void prepare_adjoint(Step& s, double t, double h) { factorize_jacobian(s, t, h, false); }
  // Step n from the absolute state (q_n, v_n) at t: simplified Newton on alpha_{n+1}; prepare_adjoint() at the
  // converged alpha_{n+1} if factorize_last (a recomputed step). SolverError if Newton fails.
  void advance(const assembly::State& state, double t, double h, long long step_index, bool factorize_last, Step& s);
  void recompute_step(const assembly::State& previous, double t, double h) override;
  // lambda_ = -(dE/d alpha_{n+1})^-T alpha_bar (the recomputed step's Jacobian).
  void solve_step_adjoint(const std::vector<double>& alpha_bar);
  // s.minus and s.plus of the absolute midpoint rule on the step q_n = first -> q_{n+1} = second
  // (variational_assembly.hpp: with p_n = 0 and no impulse the coordinate rows of its residual are -h minus).
  void absolute_momenta(const std::vector<double>& first, const std::vector<double>& second, double t, double h,
                        Step& s);
  // s.jacobian = left^T d(minus)/dq_{n+1} right on the step (first, second): one assembly of the step's matrix
  // (coordinate block -h d(minus)/dq_{n+1}) and k sparse products; left and right n x k, column-major.
  void project_step_matrix(const std::vector<double>& first, const std::vector<double>& second, double t, double h,
                           const std::vector<double>& left, const std::vector<double>& right, Step& s);

  std::string form_;
  std::unique_ptr<model::JointTree> tree_;
  std::unique_ptr<JointSpaceEquations> equations_;
  VariationalAssembly momenta_;
  Step forward_, recomputed_;
  // Work: n-vectors (zero), multipliers (zero), k-vectors (residual, adjoints); no allocation in the time loop.
  std::vector<double> zero_n_, zero_m_, residual_, end_alpha_bar_, end_p_bar_, start_alpha_bar_, lambda_;
  Teuchos::RCP<Vector> column_vector_, product_vector_;  // system vectors for the matrix products
};

}  // namespace flexadj::integrators
