// The second-order adjoint of generalized-alpha / HHT (docs/adjoint.md, "Second-order adjoint"), beside the
// forward and adjoint steps of generalized_alpha.cpp: the tangent-linear step (the step's equations E1-E5
// differentiated along a direction e of parameters, controls and initial state) and the adjoint step differentiated
// along e (forward over reverse; Wang, Navon, Le Dimet and Zou 1992; Griewank and Walther 2008, sec. 5.4).
#include <algorithm>
#include <stdexcept>

#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/integrators/generalized_alpha.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::integrators {

// The tangent of initialize(): the projections' (tangent_initial_projection), then [M C_q^T; C_q 0] [a_dot;
// lambda_dot] = [-R_dot(q_dot, v_dot, 0; p_dot, u_dot); -C_acc_dot(q_dot, v_dot, 0)] from M a - Q + C_q^T lambda = 0,
// C_acc = C_q a + (C_q v)_q v + 2 C_qt v + C_tt = 0; aux_dot = a_dot.
void GeneralizedAlpha::tangent_initialize(const assembly::State& state, double t0,
                                          const assembly::LocalGradient& direction, assembly::State& tangent) {
  const std::size_t n = coordinate_count_;
  for (auto* v : {&r_dot_, &tangent_a_, &tangent_aux_}) v->assign(n, 0.0);
  c_dot_.assign(multiplier_count_, 0.0);
  tangent.a.assign(n, 0.0);
  tangent.lambda.assign(multiplier_count_, 0.0);
  tangent_initial_projection(state, t0, direction, tangent);
  tangent_consistent_accelerations(state, t0, direction, tangent);
  tangent.aux = tangent.a;
}

// E1-E5 differentiated: E3-E5 are linear, so the predictor with a_dot_{n+1} = 0, lambda_dot_{n+1} = 0, then the Newton
// matrix of the step at the converged state, [s (K + H + c_v D + c_a M), C_q^T; C_q, 0] [x; s lambda_dot] =
// -[s R_dot; C_dot](predictor), gives q_dot += x, v_dot += c_v x, a_dot = c_a x (step()'s update).
void GeneralizedAlpha::tangent_step(const assembly::State& previous, const assembly::State& state, double t, double h,
                                    const assembly::LocalGradient& direction, assembly::State& tangent) {
  (void)previous;  // the step's equations hold x_n through the tangent only
  const auto& c = coefficients_;
  const std::size_t n = coordinate_count_;
  const StepJacobian jacobian = step_jacobian(h);
  tangent_a_ = tangent.a;
  tangent_aux_ = tangent.aux;
  for (std::size_t i = 0; i < n; ++i) {
    const double aux_next = (c.alpha_f * tangent_a_[i] - c.alpha_m * tangent_aux_[i]) / (1.0 - c.alpha_m);
    tangent.q[i] += h * tangent.v[i] + h * h * ((0.5 - c.beta) * tangent_aux_[i] + c.beta * aux_next);
    tangent.v[i] += h * ((1.0 - c.gamma) * tangent_aux_[i] + c.gamma * aux_next);
    tangent.a[i] = 0.0;
  }
  std::fill(tangent.lambda.begin(), tangent.lambda.end(), 0.0);
  const double t_next = t + h;
  assembler_.tangent_residual(state, tangent, t_next, direction, r_dot_, c_dot_);
  assembler_.assemble(state, t_next, assembly::ConstraintLevel::Position, jacobian.scale, &jacobian.coefficients);
  {
    assembly::SystemVectorView rhs(*right_hand_side_, n);
    for (std::size_t i = 0; i < n; ++i) rhs.coordinates()[i] = -jacobian.scale * r_dot_[i];
    for (std::size_t k = 0; k < multiplier_count_; ++k) rhs.multipliers()[k] = -c_dot_[k];
  }
  const auto x = solve(*right_hand_side_);
  for (std::size_t i = 0; i < n; ++i) {
    tangent.q[i] += x[i];
    tangent.v[i] += jacobian.coefficients.v * x[i];
    tangent.a[i] = jacobian.coefficients.a * x[i];
    tangent.aux[i] =
        (c.alpha_f * tangent_a_[i] + (1.0 - c.alpha_f) * tangent.a[i] - c.alpha_m * tangent_aux_[i]) / (1.0 - c.alpha_m);
  }
  for (std::size_t k = 0; k < multiplier_count_; ++k) tangent.lambda[k] = x[n + k] / jacobian.scale;
}

void GeneralizedAlpha::begin_second_order_adjoint() {
  for (auto* v : {&mu_q_dot_next_, &mu_v_dot_next_, &mu_aux_dot_next_}) v->assign(coordinate_count_, 0.0);
  for (auto* v : {&g_q_dot_, &g_v_dot_, &g_a_dot_, &g_aux_dot_, &z_k_, &z_d_, &z_m_, &mu_r_dot_, &rhs_q_})
    v->resize(coordinate_count_);
  mu_c_dot_.resize(multiplier_count_);
  c_dot_.resize(multiplier_count_);
}

// adjoint_step() differentiated along e (its mu_r_, mu_c_ and kept Jacobians of step n at hand): with dots for d/de,
//   [S^T C_q^T; C_q 0] [mu_r_dot; s mu_c_dot] = [-(s g_q_dot + gamma h g_v_dot + c_a g_a_dot + g_aux_dot) - S_dot^T mu_r
//                                                - s C_q_dot^T mu_c; -C_q_dot mu_r],
//   mu_q_dot = -(K_dot^T mu_r + C_q_dot^T mu_c + K^T mu_r_dot + C_q^T mu_c_dot + g_q_dot) (K with H = d(C_q^T
//   lambda)/dq), mu_v_dot likewise with D, mu_aux_dot with M,
//   gradient_dot += mu_r_dot . dR/dp + d/de (mu_r . dR/dp) (R with C_q^T lambda, and mu_c . C_p likewise), and the
//   same for the controls,
// where K_dot^T mu_r = d/de (K^T mu_r) at mu_r held (Assembler::second_order_products).
void GeneralizedAlpha::second_order_adjoint_step(storage::Trajectory& trajectory, std::size_t n,
                                                 const assembly::State& state, const assembly::State& tangent,
                                                 const assembly::State& previous_tangent,
                                                 const assembly::LocalGradient& direction,
                                                 std::vector<double>& dJ_dq_dot, std::vector<double>& dJ_dv_dot,
                                                 assembly::LocalGradient& gradient_dot) {
  (void)previous_tangent;  // the step's equations hold x_{n-1} through the kept Jacobians only
  second_order_adjoint_step(trajectory, n, state, tangent, direction, dJ_dq_dot, dJ_dv_dot, nullptr, gradient_dot);
}

// d/de of dJ/da_n enters g_a_dot as dJ/da_n enters g_a (adjoint_step_with_accelerations).
void GeneralizedAlpha::second_order_adjoint_step_with_accelerations(
    storage::Trajectory& trajectory, std::size_t n, const assembly::State& state, const assembly::State& tangent,
    const assembly::State& previous_tangent, const assembly::LocalGradient& direction, std::vector<double>& dJ_dq_dot,
    std::vector<double>& dJ_dv_dot, const std::vector<double>& dJ_da_dot, assembly::LocalGradient& gradient_dot) {
  (void)previous_tangent;
  second_order_adjoint_step(trajectory, n, state, tangent, direction, dJ_dq_dot, dJ_dv_dot, &dJ_da_dot, gradient_dot);
}

void GeneralizedAlpha::second_order_adjoint_step(storage::Trajectory& trajectory, std::size_t n,
                                                 const assembly::State& state, const assembly::State& tangent,
                                                 const assembly::LocalGradient& direction,
                                                 std::vector<double>& dJ_dq_dot, std::vector<double>& dJ_dv_dot,
                                                 const std::vector<double>* dJ_da_dot,
                                                 assembly::LocalGradient& gradient_dot) {
  using assembly::ConstraintLevel;
  const auto& c = coefficients_;
  const std::vector<double>& times = trajectory.step_times();
  const std::size_t last = times.size() - 1, size = coordinate_count_;
  const double t = times[n];
  const double h_next = n < last ? times[n + 1] - t : 0.0;
  newmark_partials(h_next, dJ_dq_dot, dJ_dv_dot, dJ_da_dot, mu_q_dot_next_, mu_v_dot_next_, mu_aux_dot_next_, g_q_dot_,
                   g_v_dot_, g_a_dot_, g_aux_dot_);
  if (n > 0) {
    assembler_.second_order_products(state, tangent, t, direction, mu_r_, mu_c_, z_k_, z_d_, z_m_, c_dot_,
                                     gradient_dot);
    const double h = t - times[n - 1];
    const StepJacobian jacobian = step_jacobian(h);
    const double scale = jacobian.scale, c_a = (1.0 - c.alpha_m) / (1.0 - c.alpha_f);
    // The factorization and kept Jacobians of adjoint_step(n) serve.
    for (std::size_t i = 0; i < size; ++i)
      rhs_q_[i] = scale * (g_q_dot_[i] + z_k_[i]) + c.gamma * h * (g_v_dot_[i] + z_d_[i]) +
                  c_a * (g_a_dot_[i] + z_m_[i]) + g_aux_dot_[i];
    {
      assembly::SystemVectorView rhs(*adjoint_rhs_, size);
      for (std::size_t i = 0; i < size; ++i) rhs.coordinates()[i] = -rhs_q_[i];
      for (std::size_t k = 0; k < multiplier_count_; ++k) rhs.multipliers()[k] = -c_dot_[k];
    }
    adjoint_solver_->solve(*adjoint_rhs_, *adjoint_solution_);
    assembly::ConstSystemVectorView(*adjoint_solution_, size).extract(&mu_r_dot_, &mu_c_dot_);
    for (double& value : mu_c_dot_) value /= scale;
    assembler_.kept_adjoint_products(mu_r_dot_, mu_c_dot_, y_k_, y_d_, y_m_);
    for (std::size_t i = 0; i < size; ++i) {
      mu_q_dot_next_[i] = -(z_k_[i] + y_k_[i] + g_q_dot_[i]);
      mu_v_dot_next_[i] = -(z_d_[i] + y_d_[i] + g_v_dot_[i]);
      mu_aux_dot_next_[i] = (z_m_[i] + y_m_[i] + g_a_dot_[i]) / (1.0 - c.alpha_f);
    }
    assembler_.add_parameter_gradient(state, t, adjoint_vector(&mu_r_dot_, &mu_c_dot_), ConstraintLevel::Position,
                                      false, gradient_dot);
    if (gradient_dot.constraint_parameters())
      assembler_.add_constraint_parameter_second_order(state, tangent, t, direction, mu_r_, mu_c_,
                                                       ConstraintLevel::Position, gradient_dot);
    return;
  }

  // Start (adjoint_step()'s, differentiated; the projection adjoint has refactorized): a_0 = aux_0 is the
  // consistent acceleration of x_0 (its multipliers mu_r, mu_acc = mu_c), whose right-hand side g_aux + g_a
  // differentiated is g_aux_dot + g_a_dot; then the projections' (add_initial_projection_second_order).
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  assembler_.assemble(state, t, ConstraintLevel::Acceleration, 1.0, &mass_only);
  update_adjoint_solver();
  for (std::size_t i = 0; i < size; ++i) rhs_q_[i] = g_aux_dot_[i] + g_a_dot_[i];
  dJ_dq_dot = g_q_dot_;
  dJ_dv_dot = g_v_dot_;
  add_consistent_accelerations_second_order(*adjoint_solver_, state, tangent, t, direction, mu_r_, mu_c_, rhs_q_,
                                            dJ_dq_dot, dJ_dv_dot, gradient_dot);
  if (!assembler_.model().constraints().empty())  // on every rank
    add_initial_projection_second_order(*adjoint_solver_, state, t, tangent, direction, dJ_dq_dot, dJ_dv_dot,
                                        gradient_dot);
}

}  // namespace flexadj::integrators
