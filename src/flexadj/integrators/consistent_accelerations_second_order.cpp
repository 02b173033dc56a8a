// The consistent accelerations of a state (TimeIntegrator::solve_consistent_accelerations: M a + C_q^T lambda = Q,
// C_acc(q, v, a) = 0) differentiated along a direction e, and their adjoint differentiated, for the second-order
// adjoint (docs/adjoint.md, "Terms on accelerations" and "Second-order adjoint"): generalized-alpha's a_0 and the
// variational integrator's a_k, an output of each step.
#include <algorithm>

#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/integrators/time_integrator.hpp"

namespace flexadj::integrators {
namespace {
const model::JacobianCoefficients kMassOnly{0.0, 0.0, 1.0};
}  // namespace

void TimeIntegrator::tangent_consistent_accelerations(const assembly::State& state, double t,
                                                      const assembly::LocalGradient& direction,
                                                      assembly::State& tangent) {
  auto& w = acceleration_work_;
  const std::size_t n = coordinate_count_;
  w.r_dot.assign(n, 0.0);
  w.c_dot.assign(multiplier_count_, 0.0);
  tangent.a.assign(n, 0.0);
  tangent.lambda.assign(multiplier_count_, 0.0);
  assembler_.tangent_residual(state, tangent, t, direction, w.r_dot, w.c_dot);
  if (!assembler_.model().constraints().empty())  // every rank: collective
    assembler_.constraint_level_tangent(state, tangent, t, assembly::ConstraintLevel::Acceleration, w.c_dot,
                                        &direction);
  assembler_.assemble(state, t, assembly::ConstraintLevel::Acceleration, 1.0, &kMassOnly);
  {
    assembly::SystemVectorView rhs(*right_hand_side_, n);
    for (std::size_t i = 0; i < n; ++i) rhs.coordinates()[i] = -w.r_dot[i];
    for (std::size_t k = 0; k < multiplier_count_; ++k) rhs.multipliers()[k] = -w.c_dot[k];
  }
  const auto x = solve(*right_hand_side_);
  for (std::size_t i = 0; i < n; ++i) tangent.a[i] = x[i];
  for (std::size_t k = 0; k < multiplier_count_; ++k) tangent.lambda[k] = x[n + k];
}

void TimeIntegrator::add_consistent_accelerations_second_order(
    linalg::LinearSolver& solver, const assembly::State& state, const assembly::State& tangent, double t,
    const assembly::LocalGradient& direction, const std::vector<double>& mu_a, const std::vector<double>& mu_acc,
    const std::vector<double>& dJ_da_dot, std::vector<double>& dJ_dq_dot, std::vector<double>& dJ_dv_dot,
    assembly::LocalGradient& gradient_dot) {
  using assembly::ConstraintLevel;
  auto& w = acceleration_work_;
  const std::size_t n = coordinate_count_;
  for (auto* v : {&w.z_k, &w.z_d, &w.z_m, &w.y_k, &w.y_d, &w.y_m, &w.rhs, &w.mu_a_dot}) v->resize(n);
  for (auto* v : {&w.m_dot, &w.c_dot, &w.mu_acc_dot}) v->resize(multiplier_count_);
  const bool constrained = !assembler_.model().constraints().empty();  // on every rank
  // d/de (K^T mu_a, D^T mu_a, M^T mu_a), m_dot = d/de (C_q mu_a), and d/de (mu_a . dR/dp) with the controls'.
  static const std::vector<double> kNoMultipliers;
  assembler_.second_order_products(state, tangent, t, direction, mu_a, kNoMultipliers, w.z_k, w.z_d, w.z_m, w.m_dot,
                                   gradient_dot);
  for (std::size_t i = 0; i < n; ++i) w.rhs[i] = dJ_da_dot[i] + w.z_m[i];
  if (constrained) {  // d/de (C_q^T mu_acc) at mu_r = 0 (non-holonomic: A^T mu_acc)
    std::fill(w.y_m.begin(), w.y_m.end(), 0.0);
    assembler_.constraint_second_order_products(state, tangent, t, ConstraintLevel::Acceleration, w.y_m, mu_acc, w.y_k,
                                                 w.c_dot, &direction);
    for (std::size_t i = 0; i < n; ++i) w.rhs[i] += w.y_k[i];
  }
  {
    assembly::SystemVectorView view(*adjoint_rhs_, n);
    for (std::size_t i = 0; i < n; ++i) view.coordinates()[i] = -w.rhs[i];
    for (std::size_t k = 0; k < multiplier_count_; ++k) view.multipliers()[k] = -w.m_dot[k];
  }
  solver.solve(*adjoint_rhs_, *adjoint_solution_);
  assembly::ConstSystemVectorView(*adjoint_solution_, n).extract(&w.mu_a_dot, &w.mu_acc_dot);
  assembler_.adjoint_products(state, t, w.mu_a_dot, {}, false, w.y_k, w.y_d, w.y_m);
  for (std::size_t i = 0; i < n; ++i) {
    dJ_dq_dot[i] = dJ_dq_dot[i] + w.z_k[i] + w.y_k[i];
    dJ_dv_dot[i] = dJ_dv_dot[i] + w.z_d[i] + w.y_d[i];
  }
  if (constrained) {
    assembler_.add_constraint_level_transposed(state, t, ConstraintLevel::Acceleration, w.mu_acc_dot, dJ_dq_dot,
                                               dJ_dv_dot);
    assembler_.add_constraint_level_transposed_tangent(state, tangent, t, ConstraintLevel::Acceleration, mu_acc,
                                                       dJ_dq_dot, dJ_dv_dot, &direction);
  }
  assembler_.add_parameter_gradient(state, t, adjoint_vector(&w.mu_a_dot, &w.mu_acc_dot),
                                    ConstraintLevel::Acceleration, false, gradient_dot);
  if (gradient_dot.constraint_parameters())
    assembler_.add_constraint_parameter_second_order(state, tangent, t, direction, mu_a, mu_acc,
                                                     ConstraintLevel::Acceleration, gradient_dot);
}

}  // namespace flexadj::integrators
