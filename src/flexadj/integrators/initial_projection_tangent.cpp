// The projection of the given initial state onto the constraints (TimeIntegrator::project_initial_state),
// differentiated: its tangent along a direction of the given state and the constraints' parameters, and its adjoint
// (add_initial_projection_adjoint) differentiated along that direction, for the second-order adjoint (docs/adjoint.md,
// "Second-order adjoint"). With H(nu) = d(C_q^T nu)/dq, L_q = d(C_q v + C_t)/dq and the projections
//   q0 - q_given + C_q^T nu = 0, C(q0) = 0,   v0 - v_given + C_q^T nu' = 0, C_q v0 + C_t = 0
// (matrices A_p = [I + H(nu), C_q^T; C_q 0] and A_v = [I C_q^T; C_q 0], both symmetric).
#include <algorithm>

#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/integrators/time_integrator.hpp"

namespace flexadj::integrators {
namespace {

const model::JacobianCoefficients kPositionProjection{1.0, 0.0, 0.0};
const model::JacobianCoefficients kVelocityProjection{0.0, 0.0, 0.0};

}  // namespace

// A_p [q0_dot; nu_dot] = [q_given_dot - (C_q^T nu)_p p_dot; -C_p p_dot],
// A_v [v0_dot; nu'_dot] = [v_given_dot - H(nu') q0_dot - (C_q^T nu')_p p_dot; -L_q q0_dot - (C_q v0 + C_t)_p p_dot].
void TimeIntegrator::tangent_initial_projection(const assembly::State& initial_state, double t0,
                                                const assembly::LocalGradient& direction, assembly::State& tangent) {
  using assembly::ConstraintLevel;
  if (assembler_.model().constraints().empty()) return;
  const std::size_t n = coordinate_count_;
  assembly::State projected = initial_state, along = assembler_.make_state();
  std::vector<double> c_dot(multiplier_count_), coordinates(n);
  auto solve_projection = [&](const std::vector<double>& right_coordinates, const std::vector<double>& right_multipliers,
                              std::vector<double>& x_q, std::vector<double>& x_m) {
    assembly::SystemVectorView(*right_hand_side_, n).assign(right_coordinates, 1.0, &right_multipliers);
    const auto x = solve(*right_hand_side_);
    for (std::size_t i = 0; i < n; ++i) x_q[i] = x[i];
    x_m.resize(multiplier_count_);
    for (std::size_t k = 0; k < multiplier_count_; ++k) x_m[k] = x[n + k];
  };
  // The joints' own parameters: (C_q^T nu)_p p_dot and C_p p_dot.
  const bool moving_parameters = direction.constraint_parameters();
  std::vector<double> parameter_part(n, 0.0), scratch_m(multiplier_count_);
  coordinates = tangent.q;
  projected.lambda = projection_.position_multipliers;
  if (moving_parameters) {
    assembler_.constraint_parameter_tangent(projected, t0, direction, parameter_part, c_dot);
    for (std::size_t i = 0; i < n; ++i) coordinates[i] -= parameter_part[i];
    for (double& value : c_dot) value = -value;
  }
  assembler_.assemble(projected, t0, ConstraintLevel::Position, 1.0, &kPositionProjection, &projection_.given_q);
  solve_projection(coordinates, c_dot, tangent.q, projection_tangent_.position_multipliers);

  projected.lambda = projection_.velocity_multipliers;
  along.q = tangent.q;
  // H(nu') q0_dot + (C_q^T nu')_p p_dot (non-holonomic: A^T nu'; H is not symmetric then).
  assembler_.constraint_parameter_tangent(projected, t0, direction, parameter_part, scratch_m, &along);
  assembler_.constraint_level_tangent(projected, along, t0, ConstraintLevel::Velocity, c_dot, &direction);
  for (std::size_t i = 0; i < n; ++i) coordinates[i] = tangent.v[i] - parameter_part[i];
  for (double& value : c_dot) value = -value;
  assembler_.assemble(projected, t0, ConstraintLevel::Velocity, 1.0, &kVelocityProjection, &projection_.given_v);
  solve_projection(coordinates, c_dot, tangent.v, projection_tangent_.velocity_multipliers);
}

// With (rho_v, sigma_v) and (rho, sigma) the first-order multipliers (add_initial_projection_adjoint) and
// q_bar = dJ/dq0 + H(nu') rho_v + L_q^T sigma_v:
//   A_v [rho_v_dot; sigma_v_dot] = [-dJ/dv0_dot - H(sigma_v) q0_dot; -C_q_dot rho_v],  dJ/dv_given_dot = -rho_v_dot,
//   q_bar_dot = dJ/dq0_dot + d/de (H(nu') rho_v + L_q^T sigma_v),
//   A_p [rho_dot; sigma_dot] = [-q_bar_dot - d/de (H(nu)) rho - H(sigma) q0_dot; -C_q_dot rho],
//   dJ/dq_given_dot = -rho_dot,
// the derivatives of the matrices' products from Assembler::constraint_second_order_products (mu held), and each
// level's parameter terms nu . (C_q rho)_p + sigma . c_p differentiated (with the multipliers' derivatives).
void TimeIntegrator::add_initial_projection_second_order(linalg::LinearSolver& solver,
                                                         const assembly::State& initial_state, double t0,
                                                         const assembly::State& tangent,
                                                         const assembly::LocalGradient& direction,
                                                         std::vector<double>& dJ_dq_dot,
                                                         std::vector<double>& dJ_dv_dot,
                                                         assembly::LocalGradient& gradient_dot) {
  using assembly::ConstraintLevel;
  if (assembler_.model().constraints().empty()) return;
  const std::size_t n = coordinate_count_, m = multiplier_count_;
  Vector rhs(assembler_.system_map()), solution(assembler_.system_map());
  std::vector<double> rho(n), sigma(m), rho_dot(n), sigma_dot(m), q_bar(initial_partials_.dJ_dq), right(n),
      right_m(m), out(n), m_dot(m), y_k(n), y_d(n), y_m(n), scratch(n);
  const std::vector<double> zero_m(m, 0.0);
  assembly::State projected = initial_state, along = tangent;
  std::fill(along.a.begin(), along.a.end(), 0.0);
  auto factorize = [&](ConstraintLevel level, const std::vector<double>& multipliers,
                       const std::vector<double>& target) {
    projected.lambda = multipliers;
    assembler_.assemble(projected, t0, level, 1.0,
                        level == ConstraintLevel::Position ? &kPositionProjection : &kVelocityProjection, &target);
    solver.update();
  };
  auto solve_with = [&](const std::vector<double>& coordinates, const std::vector<double>& multipliers,
                        std::vector<double>& x_q, std::vector<double>& x_m) {
    assembly::SystemVectorView(rhs, n).assign(coordinates, 1.0, &multipliers);
    solver.solve(rhs, solution);
    assembly::ConstSystemVectorView(solution, n).extract(&x_q, &x_m);
  };
  auto negated = [](std::vector<double>& x) {
    for (double& value : x) value = -value;
    return x;
  };

  // Velocities.
  const bool parameters_wanted = gradient_dot.constraint_parameters();
  factorize(ConstraintLevel::Velocity, projection_.velocity_multipliers, projection_.given_v);
  right = initial_partials_.dJ_dv;
  solve_with(negated(right), zero_m, rho, sigma);
  projected.lambda = zero_m;  // H(0) = 0: out = H(sigma_v) q0_dot
  std::fill(along.lambda.begin(), along.lambda.end(), 0.0);
  assembler_.constraint_second_order_products(projected, along, t0, ConstraintLevel::Velocity, rho, sigma, out, m_dot,
                                              &direction);
  for (std::size_t i = 0; i < n; ++i) right[i] = -dJ_dv_dot[i] - out[i];
  solve_with(right, negated(m_dot), rho_dot, sigma_dot);
  for (std::size_t i = 0; i < n; ++i) dJ_dv_dot[i] = -rho_dot[i];
  projected.lambda = projection_.velocity_multipliers;
  along.lambda = projection_tangent_.velocity_multipliers;
  if (parameters_wanted) {
    assembler_.add_parameter_gradient(projected, t0, solution, ConstraintLevel::Velocity, true, gradient_dot);
    assembler_.add_constraint_parameter_second_order(projected, along, t0, direction, rho, sigma,
                                                     ConstraintLevel::Velocity, gradient_dot);
  }
  // q_bar and its derivative.
  assembler_.adjoint_products(projected, t0, rho, {}, true, y_k, y_d, y_m);
  for (std::size_t i = 0; i < n; ++i) q_bar[i] += y_k[i];
  assembler_.add_constraint_level_transposed(projected, t0, ConstraintLevel::Velocity, sigma, q_bar, scratch);
  assembler_.constraint_second_order_products(projected, along, t0, ConstraintLevel::Velocity, rho, {}, out, m_dot,
                                              &direction);
  assembler_.adjoint_products(projected, t0, rho_dot, {}, true, y_k, y_d, y_m);
  for (std::size_t i = 0; i < n; ++i) dJ_dq_dot[i] += out[i] + y_k[i];
  assembler_.add_constraint_level_transposed(projected, t0, ConstraintLevel::Velocity, sigma_dot, dJ_dq_dot, scratch);
  assembler_.add_constraint_level_transposed_tangent(projected, along, t0, ConstraintLevel::Velocity, sigma, dJ_dq_dot,
                                                     scratch, &direction);

  // Positions.
  factorize(ConstraintLevel::Position, projection_.position_multipliers, projection_.given_q);
  solve_with(negated(q_bar), zero_m, rho, sigma);
  along.lambda = projection_tangent_.position_multipliers;
  assembler_.constraint_second_order_products(projected, along, t0, ConstraintLevel::Position, rho, sigma, out, m_dot,
                                              &direction);
  for (std::size_t i = 0; i < n; ++i) right[i] = -dJ_dq_dot[i] - out[i];
  solve_with(right, negated(m_dot), rho_dot, sigma_dot);
  for (std::size_t i = 0; i < n; ++i) dJ_dq_dot[i] = -rho_dot[i];
  if (parameters_wanted) {
    assembler_.add_parameter_gradient(projected, t0, solution, ConstraintLevel::Position, true, gradient_dot);
    assembler_.add_constraint_parameter_second_order(projected, along, t0, direction, rho, sigma,
                                                     ConstraintLevel::Position, gradient_dot);
  }
}

}  // namespace flexadj::integrators
