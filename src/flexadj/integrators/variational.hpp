#pragma once
// Midpoint variational integrator in position-momentum form with holonomic constraints (RATTLE):
// Marsden and West 2001, Acta Numerica 10, sec. 3.2 (forced) and 3.5 (constraints, SHAKE/RATTLE); Schubert et al.
// 2024, eqs. (6)-(8) (discrete Legendre transforms). Discrete Lagrangian L_d = h T(q_m, v_m) with
// q_m = (q_n + q_{n+1})/2, v_m = (q_{n+1} - q_n)/h; all other forces f (elastic, gravity, damping, loads,
// controls) as discrete forces f_d^- = f_d^+ = (h/2) f(q_m, v_m, t_n + h/2). With the element sums
// minus = D1 L_d + f_d^- and plus = D2 L_d + f_d^+ (ForceElement::discrete_momenta) one step is
//   1. p_n + minus(q_n, q_{n+1}) - C_q(q_n, t_n)^T Lambda = 0,   C(q_{n+1}, t_{n+1}) = 0      (Newton)
//   2. p_hat = plus(q_n, q_{n+1})
//   3. [M(q_{n+1}) C_q^T; C_q 0] [v_{n+1}; nu] = [p_hat; -C_t],   p_{n+1} = p_hat - C_q^T nu = M v_{n+1}.
// Lambda and nu are the constraint impulses of the two half steps (each h/2 times the multiplier to first order).
// The constraint impulse of step 1 acts along C_q at q_n, orthogonal to the symmetry generators there: by discrete
// Noether, a free system conserves linear and angular momentum exactly (to the Newton tolerance), and its energy
// error stays bounded without drift (symplectic). No numerical damping. Per step one linear solve more than
// generalized-alpha's Newton iterations (the velocities of step 3).
//
// State (assembly::State): q, v at t_n; aux = p_n (the momentum, owned coordinates); a and lambda (output only)
// the accelerations and multipliers consistent with q_n, v_n (M a + C_q^T lambda = Q, C_acc = 0, solved with the
// factorization of step 3: one back-substitution), second-order accurate like q and v; nu/h would be first order.
#include <string>
#include <vector>

#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/integrators/variational_assembly.hpp"

namespace flexadj::integrators {

class Variational final : public TimeIntegrator {
 public:
  Variational(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
              const linalg::LinearSolverOptions& solver_options);

  // The given q and v projected onto the constraints (TimeIntegrator::project_initial_state), p_0 = T_v(q_0, v_0)
  // (the continuous Legendre transform), a_0 and lambda_0 from the consistent accelerations (output only).
  void initialize(assembly::State& state, double t0) override;
  StepStatistics step(assembly::State& state, double t, double h, long long step_index) override;
  std::string description() const override;
  void save_restart_data(std::vector<double>& data) const override { data = mean_acceleration_; }
  void load_restart_data(const std::vector<double>& data) override { mean_acceleration_ = data; }

  // The discrete adjoint (Schubert et al. 2024, eqs. (10)-(13) and sec. 3; docs/adjoint.md, "The variational
  // integrator"). Reads q and v only (p = T_v(q, v)); keeps step n - 1 read from the trajectory for the next call.
  void begin_adjoint(storage::Trajectory& trajectory) override;
  void save_adjoint_data(std::vector<double>& data) const override;
  void load_adjoint_data(const std::vector<double>& data) override;
  // The adjoint variables are (b1, b3), the multipliers of E1 and E3 of step n + 1; the rest of the adjoint data is
  // the forward context of step n + 1 (its state, momentum, q_{n+1} and the right-hand side of its impulse).
  void save_adjoint_variables(std::vector<double>& x) const override;
  void load_adjoint_variables(const std::vector<double>& x) override;
  void seek_adjoint(storage::Trajectory& trajectory, std::size_t n) override;
  // a1 . d(minus)/dh - a3 . d(plus)/dh of step n, through the factor h/2 and v_mid = (q_n - q_{n-1})/h (docs/adjoint.md,
  // "Implicit final time").
  double step_size_sensitivity(storage::Trajectory& trajectory, std::size_t n) override;
  void adjoint_step(storage::Trajectory& trajectory, std::size_t n, const assembly::State& state,
                    std::vector<double>& dJ_dq, std::vector<double>& dJ_dv, assembly::LocalGradient& gradient) override;
  // Terms on accelerations: a_k is the consistent acceleration of x_k (the step's output,
  // solve_consistent_accelerations), whose adjoint adds dJ/da_k into the partials of x_k and the parameters.
  void adjoint_step_with_accelerations(storage::Trajectory& trajectory, std::size_t n, const assembly::State& state,
                                       std::vector<double>& dJ_dq, std::vector<double>& dJ_dv,
                                       const std::vector<double>& dJ_da, assembly::LocalGradient& gradient) override;

  // The second-order adjoint (variational_second_order.cpp; docs/adjoint.md, "Second-order adjoint of the
  // variational integrator"). The tangent holds q_dot and v_dot.
  void tangent_initialize(const assembly::State& state, double t0, const assembly::LocalGradient& direction,
                          assembly::State& tangent) override;
  void tangent_step(const assembly::State& previous, const assembly::State& state, double t, double h,
                    const assembly::LocalGradient& direction, assembly::State& tangent) override;
  void begin_second_order_adjoint() override;
  // The adjoint of a_k differentiated (TimeIntegrator::add_consistent_accelerations_second_order), then
  // second_order_adjoint_step().
  void second_order_adjoint_step_with_accelerations(storage::Trajectory& trajectory, std::size_t n,
                                                    const assembly::State& state, const assembly::State& tangent,
                                                    const assembly::State& previous_tangent,
                                                    const assembly::LocalGradient& direction,
                                                    std::vector<double>& dJ_dq_dot, std::vector<double>& dJ_dv_dot,
                                                    const std::vector<double>& dJ_da_dot,
                                                    assembly::LocalGradient& gradient_dot) override;
  void second_order_adjoint_step(storage::Trajectory& trajectory, std::size_t n, const assembly::State& state,
                                 const assembly::State& tangent, const assembly::State& previous_tangent,
                                 const assembly::LocalGradient& direction, std::vector<double>& dJ_dq_dot,
                                 std::vector<double>& dJ_dv_dot, assembly::LocalGradient& gradient_dot) override;

 private:
  // [x_q; x_lambda] = A^-1 [coordinates; multipliers] with the forward solver's factorization (solve_forward), or
  // A^-T with the adjoint solver of `matrix` (solve_adjoint); empty multipliers: zero.
  void solve_forward(const std::vector<double>& coordinates, const std::vector<double>& multipliers,
                     std::vector<double>& x_q, std::vector<double>& x_lambda);
  void solve_adjoint(int matrix, const std::vector<double>& coordinates, const std::vector<double>& multipliers,
                     std::vector<double>& x_q, std::vector<double>& x_lambda);
  // out += d/dp (C_q^T state.lambda) p_dot where the direction moves the joints' own parameters (second-order sweep).
  void add_constraint_parameter_tangent(const assembly::State& state, double t, const assembly::LocalGradient& direction,
                                        std::vector<double>& out);

  // Step 3: v_{n+1}, p_{n+1} and lambda at q_{n+1} = state.q from p_hat.
  void project_momentum(assembly::State& state, double t_next, double h);
  // sweep_.impulse_rhs = (p_{k-1} + minus(q_{k-1}, q_k))/h = C_q(q_{k-1})^T Lambda_k / h (the step's residual at
  // zero impulse) and sweep_.momentum_hat = p_hat_k, from q_{k-1}, p_{k-1} and q_k.
  void impulse_right_hand_side(const std::vector<double>& previous_q, const std::vector<double>& previous_momentum,
                               const std::vector<double>& q, double t_previous, double h);
  // sweep_.impulse_rhs from the residual of the last assemble_step at zero impulse (its step size h).
  void take_impulse_right_hand_side(double h);

  // The adjoint sweep factorizes two kinds of matrices per step, each with its own solver, so that each reuses its
  // own pivot order from step to step (TimeIntegrator::fresh_adjoint_pivots_at).
  enum AdjointMatrix : int { kVelocitySystem = 0, kStepMatrix = 1, kAdjointMatrixKinds = 2 };

  VariationalAssembly assembly_;
  std::vector<double> previous_q_, previous_v_, mean_acceleration_, momentum_, impulse_, impulse_velocity_;
  assembly::State velocity_system_;  // q_{n+1} with v = a = lambda = 0: the system of step 3
  RCP<Vector> multiplier_part_, constraint_force_;

  // The backward sweep: states k (current) and k - 1 (previous), the state carrying a multiplier set, q_{k+1}, the
  // momenta and impulses of the steps, the multipliers of step k + 1 (b1 of E1, b3 of E3) and of step k (a1..a4).
  void adjoint_step(storage::Trajectory& trajectory, std::size_t n, const assembly::State& state,
                    std::vector<double>& dJ_dq, std::vector<double>& dJ_dv, const std::vector<double>* dJ_da,
                    assembly::LocalGradient& gradient);
  struct AdjointSweep {
    assembly::State current, previous, multipliers;
    std::vector<double> next_q, momentum_current, momentum_previous, momentum_hat, impulse_rhs, impulse, nu, nu_rhs;
    std::vector<double> b1, b3, a1, a2, a3, a4, a3_plus_b1, minus_a3, z, g_q, g_v, rhs_q, scratch, y_k, y_d, y_m;
    std::vector<double> plus_product;  // (d plus/dq_k)^T (-a3), from the step matrix's assembly
    std::vector<double> mu_a, mu_acc;  // the consistent accelerations' multipliers (terms on accelerations)
    std::vector<double> zero_n, zero_m;
    std::vector<double> dh_first, dh_second, dh_mu_plus, dh_force;  // step_size_sensitivity()
  } sweep_;

  // The tangent-linear steps': momenta p_n (then p_{n+1}), p_hat and their tangents, the impulses y (then nu),
  // the state carrying them, and work vectors.
  struct TangentWork {
    assembly::State multipliers, constraint_direction;
    std::vector<double> momentum, momentum_hat, momentum_dot, minus_dot, plus_dot, previous_q_dot, rhs, x, y_k, y_d,
        y_m, zero_n, impulse, impulse_dot, m_dot, parameter_part, parameter_c;
  } tangent_work_;
  // The second-order sweep's: the multipliers of step k + 1 and their derivatives (b1, b3, b1_dot, b3_dot),
  // q_{k+1} and its tangent, step k + 1's held second-order products at q_k (carried_first_end), the impulses'
  // derivatives, and work vectors.
  struct SecondOrderSweep {
    assembly::State multipliers, constraint_direction;
    std::vector<double> b1, b3, b1_dot, b3_dot, a1_dot, a3_dot, next_q, next_q_dot, carried_first_end, g_q_dot,
        g_v_dot, rhs, constraint_q, momentum_dot, minus_dot, plus_dot, mu_plus, scratch, y_k, y_d, y_m;
    std::vector<double> impulse_dot, nu_dot, a2_dot, a4_dot, m_dot, scratch_m, parameter_part, parameter_c;
  } second_;
};

}  // namespace flexadj::integrators
