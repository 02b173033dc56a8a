// The second-order adjoint of the variational integrator (docs/adjoint.md, "Second-order adjoint of the variational
// integrator"), beside the forward and adjoint steps of variational.cpp: the tangent-linear step (E1-E4 of a step
// differentiated along a direction e of parameters, controls and initial state) and adjoint_step() differentiated
// along e (forward over reverse; Wang, Navon, Le Dimet and Zou 1992; Griewank and Walther 2008, sec. 5.4), with the
// factorizations of adjoint_step(). Force elements and position-level scleronomic joints, whose parameters are held
// (GradientProblem::check_second_order refuses the rest).
#include <stdexcept>

#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/integrators/variational.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::integrators {

namespace {
const model::JacobianCoefficients kMassOnly{0.0, 0.0, 1.0};
}  // namespace

void Variational::solve_forward(const std::vector<double>& coordinates, const std::vector<double>& multipliers,
                                std::vector<double>& x_q, std::vector<double>& x_lambda) {
  assembly::SystemVectorView(*right_hand_side_, coordinate_count_)
      .assign(coordinates, 1.0, multipliers.empty() ? nullptr : &multipliers);
  solver_->solve(*right_hand_side_, *increment_);
  assembly::ConstSystemVectorView(*increment_, coordinate_count_).extract(&x_q, &x_lambda);
}

// a_k's multipliers (mu_a, mu_acc) from adjoint_step_with_accelerations(k), with the velocity system's factorization
// at q_k (the same matrix; at k = 0 the projections' adjoint has used the solver: factorized again).
void Variational::second_order_adjoint_step_with_accelerations(
    storage::Trajectory& trajectory, std::size_t k, const assembly::State& state, const assembly::State& tangent,
    const assembly::State& previous_tangent, const assembly::LocalGradient& direction, std::vector<double>& dJ_dq_dot,
    std::vector<double>& dJ_dv_dot, const std::vector<double>& dJ_da_dot, assembly::LocalGradient& gradient_dot) {
  const double t = trajectory.step_times()[k];
  if (k == 0) {
    velocity_system_.q = state.q;
    assembler_.assemble(velocity_system_, t, assembly::ConstraintLevel::Velocity, 1.0, &kMassOnly);
    use_adjoint_solver(kVelocitySystem);
    update_adjoint_solver(linalg::Pivots::Fresh);
  }
  use_adjoint_solver(kVelocitySystem);
  add_consistent_accelerations_second_order(*adjoint_solver_, state, tangent, t, direction, sweep_.mu_a, sweep_.mu_acc,
                                            dJ_da_dot, dJ_dq_dot, dJ_dv_dot, gradient_dot);
  second_order_adjoint_step(trajectory, k, state, tangent, previous_tangent, direction, dJ_dq_dot, dJ_dv_dot,
                            gradient_dot);
}

void Variational::add_constraint_parameter_tangent(const assembly::State& state, double t,
                                                   const assembly::LocalGradient& direction, std::vector<double>& out) {
  if (!direction.constraint_parameters()) return;
  SecondOrderSweep& s = second_;
  s.parameter_part.resize(coordinate_count_);
  s.parameter_c.resize(multiplier_count_);
  assembler_.constraint_parameter_tangent(state, t, direction, s.parameter_part, s.parameter_c);
  for (std::size_t i = 0; i < coordinate_count_; ++i) out[i] += s.parameter_part[i];
}

void Variational::solve_adjoint(int matrix, const std::vector<double>& coordinates,
                                const std::vector<double>& multipliers, std::vector<double>& x_q,
                                std::vector<double>& x_lambda) {
  use_adjoint_solver(matrix);
  assembly::SystemVectorView(*adjoint_rhs_, coordinate_count_)
      .assign(coordinates, 1.0, multipliers.empty() ? nullptr : &multipliers);
  adjoint_solver_->solve(*adjoint_rhs_, *adjoint_solution_);
  assembly::ConstSystemVectorView(*adjoint_solution_, coordinate_count_).extract(&x_q, &x_lambda);
}

// q_dot_0, v_dot_0 from the projections of initialize() (tangent_initial_projection). The tangent holds
// q_dot, v_dot and p_dot = d/de T_v(q, v) in aux (the backward sweep forms p_dot again: an HDF5 trajectory keeps
// no aux); a and lambda, output only, are not differentiated.
void Variational::tangent_initialize(const assembly::State& state, double t0, const assembly::LocalGradient& direction,
                                     assembly::State& tangent) {
  const std::size_t n = coordinate_count_, m = multiplier_count_;
  TangentWork& w = tangent_work_;
  w.multipliers = w.constraint_direction = assembler_.make_state();
  for (auto* v : {&w.momentum, &w.momentum_hat, &w.momentum_dot, &w.minus_dot, &w.plus_dot, &w.previous_q_dot, &w.rhs,
                  &w.x, &w.y_k, &w.y_d, &w.y_m, &w.zero_n, &w.parameter_part})
    v->assign(n, 0.0);
  for (auto* v : {&w.impulse, &w.impulse_dot, &w.m_dot, &w.parameter_c}) v->assign(m, 0.0);
  tangent.a.assign(n, 0.0);
  tangent.aux.assign(n, 0.0);
  tangent.lambda.assign(m, 0.0);
  tangent_initial_projection(state, t0, direction, tangent);
  assembly_.discrete_momenta_tangent(state.q, state.v, tangent.q, tangent.v, t0, 0.0, direction, w.minus_dot,
                                     tangent.aux);
  if (tangent_accelerations()) tangent_consistent_accelerations(state, t0, direction, tangent);
}

// E1-E4 of the step x_n = previous -> x_{n+1} = state (variational.cpp, adjoint_step) differentiated along e, with
// y = h Lambda, A the Newton matrix of E1, E2 at q_{n+1} and p_dot_n = d/de T_v(q_n, v_n):
//   A [q_dot_{n+1}; y_dot] = [h (p_dot_n + minus_dot|q_dot_{n+1} = 0) - H(q_n, y) q_dot_n; 0],
//   [M C_q^T; C_q 0] [v_dot_{n+1}; nu_dot] = [plus_dot - d/de T_v|v_dot = 0 - H(q_{n+1}, nu) q_dot_{n+1};
//                                              -d/de (C_q v)|v held]
// at q_{n+1} (H(q, lambda) = d(C_q^T lambda)/dq), and p_dot_{n+1} = plus_dot - C_q^T nu_dot - H(q_{n+1}, nu)
// q_dot_{n+1} from E3 into tangent.aux. y and nu, which the State does not keep, from the same factorizations:
// A [0; y] = [h (p_n + minus); 0] and [M C_q^T; C_q 0] [0; nu] = [p_hat - p_{n+1}; 0] (right-hand sides in the range
// of C_q^T, as in adjoint_step()).
void Variational::tangent_step(const assembly::State& previous, const assembly::State& state, double t, double h,
                               const assembly::LocalGradient& direction, assembly::State& tangent) {
  using assembly::ConstraintLevel;
  TangentWork& w = tangent_work_;
  const std::size_t n = coordinate_count_;
  const double t_next = t + h;
  const bool constrained = !assembler_.model().constraints().empty();
  const bool moving_parameters = constrained && direction.constraint_parameters();
  assembly_.momentum(previous, t, w.momentum);
  w.momentum_dot = tangent.aux;
  w.previous_q_dot = tangent.q;

  // E1, E2: the Newton matrix at the converged q_{n+1}, its residual at zero impulse -[h (p_n + minus); 0].
  assembly_.assemble_step(previous.q, w.momentum, state.q, w.impulse, t, h, true, &w.momentum_hat);
  solver_->update(linalg::Pivots::Fresh);
  if (constrained) {
    const assembly::ConstSystemVectorView residual(assembler_.residual(), n);
    for (std::size_t i = 0; i < n; ++i) w.rhs[i] = -residual.coordinates()[i];
    solve_forward(w.rhs, {}, w.x, w.impulse);
    w.multipliers.q = previous.q;
    w.multipliers.lambda = w.impulse;
    assembler_.adjoint_products(w.multipliers, t, w.previous_q_dot, {}, true, w.y_k, w.y_d, w.y_m);
    if (moving_parameters) {  // (C_q(q_n)^T y)_p p_dot, and E2's C_p(q_{n+1}) p_dot
      assembler_.constraint_parameter_tangent(w.multipliers, t, direction, w.parameter_part, w.parameter_c);
      for (std::size_t i = 0; i < n; ++i) w.y_k[i] += w.parameter_part[i];
      assembler_.constraint_parameter_tangent(state, t_next, direction, w.parameter_part, w.parameter_c);
      for (double& value : w.parameter_c) value = -value;
    }
    std::fill(w.impulse.begin(), w.impulse.end(), 0.0);  // assemble_step() reads it as the impulse: zero
  }
  assembly_.discrete_momenta_tangent(previous.q, state.q, w.previous_q_dot, w.zero_n, t, h, direction, w.minus_dot,
                                     w.plus_dot);
  for (std::size_t i = 0; i < n; ++i)
    w.rhs[i] = h * (w.momentum_dot[i] + w.minus_dot[i]) - (constrained ? w.y_k[i] : 0.0);
  solve_forward(w.rhs, moving_parameters ? w.parameter_c : std::vector<double>{}, tangent.q, w.impulse_dot);
  std::fill(w.impulse_dot.begin(), w.impulse_dot.end(), 0.0);

  // E3, E4: the velocity system at q_{n+1}.
  assembly_.discrete_momenta_tangent(previous.q, state.q, w.previous_q_dot, tangent.q, t, h, direction, w.minus_dot,
                                     w.plus_dot);
  assembly_.discrete_momenta_tangent(state.q, state.v, tangent.q, w.zero_n, t_next, 0.0, direction, w.minus_dot,
                                     w.momentum_dot);
  velocity_system_.q = state.q;
  assembler_.assemble(velocity_system_, t_next, ConstraintLevel::Velocity, 1.0, &kMassOnly);
  solver_->update(linalg::Pivots::Fresh);
  for (std::size_t i = 0; i < n; ++i) w.rhs[i] = w.plus_dot[i] - w.momentum_dot[i];
  if (constrained) {
    assembly_.momentum(state, t_next, w.momentum);
    for (std::size_t i = 0; i < n; ++i) w.x[i] = w.momentum_hat[i] - w.momentum[i];
    solve_forward(w.x, {}, w.y_d, w.impulse);
    w.multipliers.q = state.q;
    w.multipliers.v = state.v;
    w.multipliers.lambda = w.impulse;
    assembler_.adjoint_products(w.multipliers, t_next, tangent.q, {}, true, w.y_k, w.y_d, w.y_m);
    if (moving_parameters) {  // (C_q(q_{n+1})^T nu)_p p_dot
      assembler_.constraint_parameter_tangent(w.multipliers, t_next, direction, w.parameter_part, w.parameter_c);
      for (std::size_t i = 0; i < n; ++i) w.y_k[i] += w.parameter_part[i];
    }
    for (std::size_t i = 0; i < n; ++i) w.rhs[i] -= w.y_k[i];
    w.constraint_direction.q = tangent.q;
    // -d/de (C_q v + C_t) at v held (constraint_direction: v_dot = a_dot = 0).
    assembler_.constraint_level_tangent(w.multipliers, w.constraint_direction, t_next, ConstraintLevel::Velocity,
                                        w.m_dot, &direction);
    for (double& value : w.m_dot) value = -value;
    std::fill(w.impulse.begin(), w.impulse.end(), 0.0);
  }
  solve_forward(w.rhs, w.m_dot, tangent.v, w.impulse_dot);
  for (std::size_t i = 0; i < n; ++i) tangent.aux[i] = w.plus_dot[i] - (constrained ? w.y_k[i] : 0.0);
  if (constrained) {
    // C_q^T nu_dot: [C_q^T nu_dot; 0] = [M C_q^T; C_q 0] [0; nu_dot] (the velocity system's matrix).
    {
      assembly::SystemVectorView nu(*multiplier_part_, n);
      for (std::size_t i = 0; i < n; ++i) nu.coordinates()[i] = 0.0;
      for (std::size_t k = 0; k < w.impulse_dot.size(); ++k) nu.multipliers()[k] = w.impulse_dot[k];
    }
    assembler_.matrix()->apply(*multiplier_part_, *constraint_force_);
    const assembly::ConstSystemVectorView force(*constraint_force_, n);
    for (std::size_t i = 0; i < n; ++i) tangent.aux[i] -= force.coordinates()[i];
  }
  // The output a_{n+1} (terms on accelerations): the consistent accelerations' tangent.
  if (tangent_accelerations()) tangent_consistent_accelerations(state, t_next, direction, tangent);
}

void Variational::begin_second_order_adjoint() {
  const std::size_t n = coordinate_count_, m = multiplier_count_;
  SecondOrderSweep& s = second_;
  s.multipliers = s.constraint_direction = assembler_.make_state();
  for (auto* v : {&s.b1, &s.b3, &s.b1_dot, &s.b3_dot, &s.a1_dot, &s.a3_dot, &s.next_q, &s.next_q_dot,
                  &s.carried_first_end, &s.g_q_dot, &s.g_v_dot, &s.rhs, &s.constraint_q, &s.momentum_dot,
                  &s.minus_dot, &s.plus_dot, &s.mu_plus, &s.scratch, &s.y_k, &s.y_d, &s.y_m})
    v->assign(n, 0.0);
  for (auto* v : {&s.impulse_dot, &s.nu_dot, &s.a2_dot, &s.a4_dot, &s.m_dot, &s.scratch_m}) v->assign(m, 0.0);
}

// adjoint_step(k) differentiated along e, after it (its a1..a4, Lambda_{k+1}, nu_k and factorizations of step k at
// hand; b1, b3 of step k + 1 kept by the previous call). With dots for d/de and "held" for the derivative of a
// product at its multiplier held (the nested passes):
//   Lambda_dot_{k+1}, nu_dot_k from E1_dot of step k + 1 and E3_dot of step k (velocity system at q_k);
//   g_q_dot, g_v_dot = dJ/dx_k_dot + step k + 1's terms differentiated;
//   [M C_q^T; C_q 0] [a3_dot; a4_dot] = -[g_v_dot + held d/de(T_vv^T (a3 + b1) + C_q^T a4); d/de(C_q a3) held];
//   transposed Newton matrix [z_dot; a2_dot] = [-rhs_q_dot; d/de(C_q(q_{k-1}) a1) held / h], a1_dot = -h z_dot,
// where rhs_q_dot is the right-hand side of adjoint_step() differentiated, and the parameter and control terms of
// step k differentiated into gradient_dot.
void Variational::second_order_adjoint_step(storage::Trajectory& trajectory, std::size_t k,
                                            const assembly::State& state, const assembly::State& tangent,
                                            const assembly::State& previous_tangent,
                                            const assembly::LocalGradient& direction, std::vector<double>& dJ_dq_dot,
                                            std::vector<double>& dJ_dv_dot, assembly::LocalGradient& gradient_dot) {
  using assembly::ConstraintLevel;
  AdjointSweep& w = sweep_;
  SecondOrderSweep& s = second_;
  const std::size_t n = coordinate_count_;
  const std::vector<double>& times = trajectory.step_times();
  const std::size_t last = times.size() - 1;
  const double t = times[k];
  const bool constrained = !assembler_.model().constraints().empty();
  const bool parameters_wanted = constrained && gradient_dot.constraint_parameters();
  const std::vector<double>&q_dot = tangent.q, &v_dot = tangent.v;
  s.g_q_dot = dJ_dq_dot;
  s.g_v_dot = dJ_dv_dot;
  if (constrained)  // p_dot_k, for the impulses' derivatives
    assembly_.discrete_momenta_tangent(state.q, state.v, q_dot, v_dot, t, 0.0, direction, s.scratch, s.momentum_dot);
  s.multipliers.q = state.q;
  s.multipliers.v = state.v;

  // Step k + 1's dependence on x_k (adjoint_step(), first block).
  if (k < last) {
    const double h_next = times[k + 1] - t;
    if (constrained) {
      if (k == 0) {  // the projections' adjoint has used the velocity system's solver: at q_0 again
        velocity_system_.q = state.q;
        assembler_.assemble(velocity_system_, t, ConstraintLevel::Velocity, 1.0, &kMassOnly);
        use_adjoint_solver(kVelocitySystem);
        update_adjoint_solver(linalg::Pivots::Fresh);
      }
      // C_q(q_k)^T Lambda_dot = p_dot_k + minus_dot - H(q_k, Lambda) q_dot_k (minus_dot of step k + 1 from the
      // previous call).
      s.multipliers.lambda = w.impulse;
      assembler_.adjoint_products(s.multipliers, t, q_dot, {}, true, s.y_k, s.y_d, s.y_m);
      add_constraint_parameter_tangent(s.multipliers, t, direction, s.y_k);
      for (std::size_t i = 0; i < n; ++i) s.rhs[i] = s.momentum_dot[i] + s.minus_dot[i] - s.y_k[i];
      solve_adjoint(kVelocitySystem, s.rhs, {}, s.scratch, s.impulse_dot);
      // -d/de (H(q_k, Lambda) b1): held, then with b1_dot.
      s.constraint_direction.q = q_dot;
      s.constraint_direction.lambda = s.impulse_dot;
      assembler_.constraint_second_order_products(s.multipliers, s.constraint_direction, t, ConstraintLevel::Position,
                                                  s.b1, {}, s.y_k, s.scratch_m, &direction);
      for (std::size_t i = 0; i < n; ++i) s.g_q_dot[i] -= s.y_k[i];
      assembler_.adjoint_products(s.multipliers, t, s.b1_dot, {}, true, s.y_k, s.y_d, s.y_m);
      for (std::size_t i = 0; i < n; ++i) s.g_q_dot[i] -= s.y_k[i];
      if (parameters_wanted) {  // -b1 . (C_q(q_k)^T Lambda_{k+1})_p differentiated
        for (std::size_t i = 0; i < n; ++i) {
          s.mu_plus[i] = -s.b1_dot[i];
          s.scratch[i] = -s.b1[i];
        }
        assembler_.add_parameter_gradient(s.multipliers, t, adjoint_vector(&s.mu_plus, nullptr),
                                          ConstraintLevel::Position, true, gradient_dot);
        assembler_.add_constraint_parameter_second_order(s.multipliers, s.constraint_direction, t, direction,
                                                         s.scratch, {}, ConstraintLevel::Position, gradient_dot);
      }
    }
    // T_v(q_k, v_k) of E1 with b1_dot; minus and plus of step k + 1 at q_k with (b1_dot, -b3_dot), and held with
    // (b1, -b3) (the previous call's pass, carried).
    assembly_.add_discrete_momenta_transposed(state.q, state.v, t, 0.0, w.zero_n, s.b1_dot, s.g_q_dot, s.g_v_dot);
    for (std::size_t i = 0; i < n; ++i) {
      s.mu_plus[i] = -s.b3_dot[i];
      s.g_q_dot[i] += s.carried_first_end[i];
    }
    assembly_.add_discrete_momenta_transposed_at_end(state.q, s.next_q, t, h_next, s.b1_dot, s.mu_plus, false,
                                                     s.g_q_dot);
  }
  // T_v(q_k, v_k) held, with the multipliers of E3 of step k and E1 of step k + 1: its q, v and parameter terms.
  for (std::size_t i = 0; i < n; ++i) s.mu_plus[i] = (k > 0 ? w.a3[i] : 0.0) + s.b1[i];
  assembly_.add_discrete_momenta_second_order_products(state.q, state.v, q_dot, v_dot, t, 0.0, direction, w.zero_n,
                                                       s.mu_plus, s.g_q_dot, s.g_v_dot, gradient_dot);

  if (k == 0) {
    assembly_.add_discrete_momenta_parameter_gradient(state.q, state.v, t, 0.0, w.zero_n, s.b1_dot, gradient_dot);
    dJ_dq_dot = s.g_q_dot;
    dJ_dv_dot = s.g_v_dot;
    if (constrained)
      add_initial_projection_second_order(*adjoint_solver_, state, t, tangent, direction, dJ_dq_dot, dJ_dv_dot,
                                          gradient_dot);
    return;
  }

  const double t_previous = times[k - 1], h = t - t_previous;
  const assembly::State& previous = w.current;  // x_{k-1}: adjoint_step(k) has stepped back
  const std::vector<double>& q_dot_previous = previous_tangent.q;
  std::fill(s.constraint_q.begin(), s.constraint_q.end(), 0.0);
  if (constrained) {
    // C_q(q_k)^T nu_dot = plus_dot - p_dot_k - H(q_k, nu) q_dot_k; minus_dot kept for step k - 1.
    assembly_.discrete_momenta_tangent(previous.q, state.q, q_dot_previous, q_dot, t_previous, h, direction,
                                       s.minus_dot, s.plus_dot);
    s.multipliers.lambda = w.nu;
    assembler_.adjoint_products(s.multipliers, t, q_dot, {}, true, s.y_k, s.y_d, s.y_m);
    add_constraint_parameter_tangent(s.multipliers, t, direction, s.y_k);
    for (std::size_t i = 0; i < n; ++i) s.rhs[i] = s.plus_dot[i] - s.momentum_dot[i] - s.y_k[i];
    solve_adjoint(kVelocitySystem, s.rhs, {}, s.scratch, s.nu_dot);
    // Held at q_k: d/de (H(q_k, nu) a3 + C_q^T a2) and m_dot = d/de (C_q a3).
    s.constraint_direction.q = q_dot;
    s.constraint_direction.lambda = s.nu_dot;
    assembler_.constraint_second_order_products(s.multipliers, s.constraint_direction, t, ConstraintLevel::Position,
                                                w.a3, w.a2, s.constraint_q, s.m_dot, &direction);
    // E4 = C_q v + C_t with a4: d/de of its transposed Jacobians, (C_q v + C_t)_q^T a4 into the q rows and
    // C_q^T a4 into the v rows (a4 held).
    s.constraint_direction.v = v_dot;
    assembler_.add_constraint_level_transposed_tangent(s.multipliers, s.constraint_direction, t,
                                                       ConstraintLevel::Velocity, w.a4, s.constraint_q, s.g_v_dot,
                                                       &direction);
    std::fill(s.constraint_direction.v.begin(), s.constraint_direction.v.end(), 0.0);
    for (double& value : s.m_dot) value = -value;
  }
  for (std::size_t i = 0; i < n; ++i) s.rhs[i] = -s.g_v_dot[i];
  solve_adjoint(kVelocitySystem, s.rhs, s.m_dot, s.a3_dot, s.a4_dot);

  // rhs_q_dot: adjoint_step()'s rhs_q differentiated.
  s.rhs = s.g_q_dot;
  assembly_.add_discrete_momenta_transposed_at_end(state.q, state.v, t, 0.0, w.zero_n, s.a3_dot, false, s.rhs);
  if (constrained) {
    s.multipliers.lambda = w.nu;
    assembler_.adjoint_products(s.multipliers, t, s.a3_dot, {}, true, s.y_k, s.y_d, s.y_m);
    for (std::size_t i = 0; i < n; ++i) s.rhs[i] += s.y_k[i] + s.constraint_q[i];
    assembler_.add_constraint_level_transposed(s.multipliers, t, ConstraintLevel::Velocity, s.a4_dot, s.rhs,
                                               s.scratch);
  }
  for (std::size_t i = 0; i < n; ++i) s.mu_plus[i] = -s.a3_dot[i];
  assembly_.add_discrete_momenta_transposed_at_end(previous.q, state.q, t_previous, h, w.zero_n, s.mu_plus, true,
                                                   s.rhs);
  // Step k's minus and plus held with (a1, -a3): at q_k into rhs_q_dot, at q_{k-1} carried to step k - 1, and their
  // parameter and control terms.
  for (std::size_t i = 0; i < n; ++i) {
    s.mu_plus[i] = -w.a3[i];
    s.carried_first_end[i] = s.scratch[i] = 0.0;
  }
  assembly_.add_discrete_momenta_second_order_products(previous.q, state.q, q_dot_previous, q_dot, t_previous, h,
                                                       direction, w.a1, s.mu_plus, s.carried_first_end, s.scratch,
                                                       gradient_dot);
  for (std::size_t i = 0; i < n; ++i) s.rhs[i] = -(s.rhs[i] + s.scratch[i]);
  if (constrained) {
    // C_q(q_{k-1}) a1_dot = -d/de (C_q(q_{k-1}) a1) held; a1 = -h z.
    s.multipliers.q = previous.q;
    s.multipliers.v = previous.v;
    s.constraint_direction.q = q_dot_previous;
    assembler_.constraint_second_order_products(s.multipliers, s.constraint_direction, t_previous,
                                                ConstraintLevel::Position, w.a1, {}, s.y_k, s.m_dot, &direction);
    for (double& value : s.m_dot) value /= h;
  }
  solve_adjoint(kStepMatrix, s.rhs, s.m_dot, s.a1_dot, s.a2_dot);
  for (double& value : s.a1_dot) value *= -h;

  if (parameters_wanted) {
    // The constraints' parameter terms of step k, a3 . (C_q^T nu)_p + a4 . (C_q v + C_t)_p and a2 . C_p at q_k,
    // differentiated.
    s.multipliers.q = state.q;
    s.multipliers.v = state.v;
    s.multipliers.lambda = w.nu;
    s.constraint_direction.q = q_dot;
    s.constraint_direction.v = v_dot;
    s.constraint_direction.lambda = s.nu_dot;
    assembler_.add_parameter_gradient(s.multipliers, t, adjoint_vector(&s.a3_dot, &s.a4_dot),
                                      ConstraintLevel::Velocity, true, gradient_dot);
    assembler_.add_constraint_parameter_second_order(s.multipliers, s.constraint_direction, t, direction, w.a3, w.a4,
                                                     ConstraintLevel::Velocity, gradient_dot);
    assembler_.add_parameter_gradient(s.multipliers, t, adjoint_vector(nullptr, &s.a2_dot), ConstraintLevel::Position,
                                      true, gradient_dot);
    assembler_.add_constraint_parameter_second_order(s.multipliers, s.constraint_direction, t, direction, w.zero_n,
                                                     w.a2, ConstraintLevel::Position, gradient_dot);
    std::fill(s.constraint_direction.v.begin(), s.constraint_direction.v.end(), 0.0);
  }
  // Parameter and control terms of step k with the multipliers' derivatives.
  for (std::size_t i = 0; i < n; ++i) s.mu_plus[i] = -s.a3_dot[i];
  assembly_.add_discrete_momenta_parameter_gradient(previous.q, state.q, t_previous, h, s.a1_dot, s.mu_plus,
                                                    gradient_dot);
  for (std::size_t i = 0; i < n; ++i) s.mu_plus[i] = s.a3_dot[i] + s.b1_dot[i];
  assembly_.add_discrete_momenta_parameter_gradient(state.q, state.v, t, 0.0, w.zero_n, s.mu_plus, gradient_dot);

  s.b1 = w.a1;
  s.b3 = w.a3;
  s.b1_dot = s.a1_dot;
  s.b3_dot = s.a3_dot;
  s.next_q = state.q;
  s.next_q_dot = q_dot;
}

}  // namespace flexadj::integrators
