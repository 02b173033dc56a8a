#include "flexadj/integrators/variational.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::integrators {

Variational::Variational(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
                         const linalg::LinearSolverOptions& solver_options)
    : TimeIntegrator(assembler, settings, solver_options),
      assembly_(assembler),
      velocity_system_(assembler.make_state()) {
  const std::size_t n = assembler.dofs().owned_coordinates().size();
  previous_q_.assign(n, 0.0);
  previous_v_.assign(n, 0.0);
  mean_acceleration_.assign(n, 0.0);
  momentum_.assign(n, 0.0);
  impulse_.assign(assembler.dofs().owned_multipliers().size(), 0.0);
  impulse_velocity_ = impulse_;
  multiplier_part_ = rcp(new Vector(assembler.system_map()));
  constraint_force_ = rcp(new Vector(assembler.system_map()));
}

std::string Variational::description() const {
  for (const auto& element : assembler_.model().force_elements())
    if (element->trapezoidal_in_time())
      return "variational integrator (RATTLE; midpoint rule, trapezoidal rule for the dual-quaternion beam)";
  return "midpoint variational integrator (RATTLE, no numerical damping)";
}

void Variational::initialize(assembly::State& state, double t0) {
  current_step_ = 0;
  project_initial_state(state, t0);
  // p_0 = T_v(q_0, v_0): the continuous Legendre transform (Schubert et al. 2024, sec. 2.1).
  assembly_.momentum(state, t0, state.aux);
  solve_consistent_accelerations(state, t0);
  mean_acceleration_ = state.a;
}

StepStatistics Variational::step(assembly::State& state, double t, double h, long long step_index) {
  const double t_next = t + h;
  const std::size_t n = state.q.size();
  current_step_ = step_index;
  previous_q_ = state.q;
  previous_v_ = state.v;
  // Predictor q_{n+1} = q_n + h v_n + h^2/2 (v_n - v_{n-1})/h (the scheme's own acceleration: the consistent one
  // carries stiff modes the step does not resolve, and costs more Newton iterations); impulse Lambda = h/2 lambda_n,
  // iterated as y = h Lambda.
  for (std::size_t i = 0; i < n; ++i) state.q[i] += h * state.v[i] + 0.5 * h * h * mean_acceleration_[i];
  for (std::size_t k = 0; k < impulse_.size(); ++k) impulse_[k] = 0.5 * h * h * state.lambda[k];

  // Step 1: Newton on p_n + minus - C_q(q_n)^T Lambda = 0, C(q_{n+1}) = 0 (Marsden and West 2001, sec. 3.5).
  StepStatistics statistics;
  const Comm& comm = *assembler_.comm();
  for (int iteration_count = 1; iteration_count <= settings_.max_newton_iterations; ++iteration_count) {
    assembly_.assemble_step(previous_q_, state.aux, state.q, impulse_, t, h, true, nullptr);
    check_finite_residual(state, t + 0.5 * h, assembly::ConstraintLevel::Position, step_index);
    newton_increment(iteration_count == 1 ? linalg::Pivots::Fresh : linalg::Pivots::Reuse);
    const assembly::ConstSystemVectorView x(*increment_, n);
    double local_increment = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double dq = x.coordinates()[i];
      state.q[i] += dq;
      local_increment = std::max(local_increment, std::abs(dq));
      if (!std::isfinite(dq)) local_increment = std::numeric_limits<double>::infinity();
    }
    for (std::size_t k = 0; k < impulse_.size(); ++k) impulse_[k] += x.multipliers()[k];
    Teuchos::reduceAll(comm, Teuchos::REDUCE_MAX, local_increment, Teuchos::outArg(statistics.increment));
    statistics.newton_iterations = iteration_count;
    if (!std::isfinite(statistics.increment)) break;

    const double reference = 1.0 + max_norm(state.q);
    if (statistics.increment <= settings_.newton_tolerance * reference) {
      // Step 2: p_hat = D2 L_d + f_d^+ at the converged q_{n+1}.
      assembly_.assemble_step(previous_q_, state.aux, state.q, impulse_, t, h, false, &momentum_);
      statistics.constraint_residual = assembler_.constraint_residual_norm();
      if (statistics.constraint_residual <= settings_.newton_tolerance * reference) {
        project_momentum(state, t_next, h);
        return statistics;
      }
    }
  }
  assembly_.assemble_step(previous_q_, state.aux, state.q, impulse_, t, h, false, nullptr);
  throw_newton_failure(step_index, t_next, statistics);
}

void Variational::project_momentum(assembly::State& state, double t_next, double h) {
  const std::size_t n = state.q.size();
  // Step 3: [M C_q^T; C_q 0] [v; nu] = [p_hat; -C_t] at q_{n+1} (TimeIntegrator::solve_momentum_system).
  solve_momentum_system(state.q, t_next, momentum_, state.v, impulse_velocity_);
  {
    assembly::SystemVectorView nu(*multiplier_part_, n);
    for (std::size_t i = 0; i < n; ++i) {
      mean_acceleration_[i] = (state.v[i] - previous_v_[i]) / h;
      nu.coordinates()[i] = 0.0;
    }
    for (std::size_t k = 0; k < state.lambda.size(); ++k) nu.multipliers()[k] = impulse_velocity_[k];
  }
  // p_{n+1} = p_hat - C_q^T nu: [C_q^T nu; 0] = A [0; nu].
  assembler_.matrix()->apply(*multiplier_part_, *constraint_force_);
  const assembly::ConstSystemVectorView force(*constraint_force_, n);
  for (std::size_t i = 0; i < n; ++i) state.aux[i] = momentum_[i] - force.coordinates()[i];
  // Output: a and lambda at t_{n+1} with the factorization of the same matrix (nu/h is a first-order multiplier).
  solve_consistent_accelerations(state, t_next, true);
}

void Variational::begin_adjoint(storage::Trajectory& trajectory) {
  const std::size_t n = coordinate_count_, m = multiplier_count_;
  const std::size_t last = trajectory.step_count() - 1;
  // The velocity system of step 3 (project_momentum) at q_N fixes the values' layout before the solver reads it.
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  velocity_system_.q = trajectory.step(last).q;
  assembler_.assemble_matrix(velocity_system_, trajectory.step_times()[last], assembly::ConstraintLevel::Velocity,
                             mass_only);
  begin_adjoint_solver(kAdjointMatrixKinds);
  AdjointSweep& w = sweep_;
  w.current = w.previous = w.multipliers = assembler_.make_state();
  for (auto* v : {&w.next_q, &w.momentum_current, &w.momentum_previous, &w.momentum_hat, &w.impulse_rhs, &w.nu_rhs,
                  &w.a1, &w.a3, &w.a3_plus_b1, &w.minus_a3, &w.z, &w.g_q, &w.g_v, &w.rhs_q, &w.scratch, &w.y_k,
                  &w.y_d, &w.y_m, &w.dh_first, &w.dh_second, &w.dh_mu_plus, &w.dh_force, &w.mu_a, &w.plus_product})
    v->assign(n, 0.0);
  for (auto* v : {&w.impulse, &w.nu, &w.a2, &w.a4, &w.mu_acc}) v->assign(m, 0.0);
  w.b1.assign(n, 0.0);
  w.b3.assign(n, 0.0);
  w.zero_n.assign(n, 0.0);
  w.zero_m.assign(m, 0.0);
}

namespace {
// What the variational sweep passes from step k to step k - 1, in this order (save/load_adjoint_data).
template <class Sweep>
auto carried(Sweep& w) {
  return std::array{&w.b1, &w.b3, &w.impulse_rhs, &w.next_q, &w.momentum_current, &w.current.q, &w.current.v,
                    &w.current.a, &w.current.aux, &w.current.lambda};
}
}  // namespace

void Variational::save_adjoint_data(std::vector<double>& data) const {
  data.clear();
  for (const std::vector<double>* v : carried(sweep_)) {
    data.push_back(static_cast<double>(v->size()));
    data.insert(data.end(), v->begin(), v->end());
  }
}

void Variational::load_adjoint_data(const std::vector<double>& data) {
  std::size_t at = 0;
  for (std::vector<double>* v : carried(sweep_)) {
    if (at >= data.size() || data.size() - at - 1 < static_cast<std::size_t>(data[at]))
      throw std::invalid_argument("Variational::load_adjoint_data: wrong length");
    const auto length = static_cast<std::size_t>(data[at]);
    v->assign(data.begin() + long(at + 1), data.begin() + long(at + 1 + length));
    at += 1 + length;
  }
  if (at != data.size()) throw std::invalid_argument("Variational::load_adjoint_data: wrong length");
}

void Variational::impulse_right_hand_side(const std::vector<double>& previous_q,
                                          const std::vector<double>& previous_momentum, const std::vector<double>& q,
                                          double t_previous, double h) {
  // p_hat_k and p_{k-1} + minus(q_{k-1}, q_k) = C_q(q_{k-1})^T Lambda_k (the residual at zero impulse).
  assembly_.assemble_step(previous_q, previous_momentum, q, sweep_.zero_m, t_previous, h, false, &sweep_.momentum_hat);
  take_impulse_right_hand_side(h);
}

void Variational::take_impulse_right_hand_side(double h) {
  const assembly::ConstSystemVectorView residual(assembler_.residual(), coordinate_count_);
  for (std::size_t i = 0; i < coordinate_count_; ++i) sweep_.impulse_rhs[i] = -residual.coordinates()[i] / h;
}

void Variational::save_adjoint_variables(std::vector<double>& x) const {
  x = sweep_.b1;
  x.insert(x.end(), sweep_.b3.begin(), sweep_.b3.end());
}

void Variational::load_adjoint_variables(const std::vector<double>& x) {
  const std::size_t n = coordinate_count_;
  if (x.size() != 2 * n) throw std::invalid_argument("Variational::load_adjoint_variables: wrong length");
  sweep_.b1.assign(x.begin(), x.begin() + long(n));
  sweep_.b3.assign(x.begin() + long(n), x.end());
}

// What adjoint_step(n + 1) leaves for adjoint_step(n): current = x_n with its momentum, next_q = q_{n+1} and the
// impulse right-hand side of step n + 1 (the step's own computation, impulse_right_hand_side()).
void Variational::seek_adjoint(storage::Trajectory& trajectory, std::size_t n) {
  AdjointSweep& w = sweep_;
  const std::vector<double>& times = trajectory.step_times();
  w.current = trajectory.step(n);
  assembly_.momentum(w.current, times[n], w.momentum_current);
  if (n + 1 < times.size()) {
    w.next_q = trajectory.step(n + 1).q;
    impulse_right_hand_side(w.current.q, w.momentum_current, w.next_q, times[n], times[n + 1] - times[n]);
  }
  w.b1.assign(coordinate_count_, 0.0);
  w.b3.assign(coordinate_count_, 0.0);
}

// After adjoint_step(k): current = x_{k-1}, next_q = q_k, (b1, b3) = (a1, a3). minus and plus hold h through the factor h/2 of
// (h/2)(T_q + f) = (minus + plus)/2 and through v_mid = (q_k - q_{k-1})/h, d/dv_mid = (h/2)(d/dq_k - d/dq_{k-1}):
//   a1 . minus_h - a3 . plus_h = (a1 - a3) . (minus + plus)/(2h) - v_mid . (h/2)(out_k - out_{k-1})/h
// with out the transposed products of (mu_minus, mu_plus) = (a1, -a3). E2, E4 and the constraint term of E1 hold h
// only through t (not formed: time-invariant models only).
double Variational::step_size_sensitivity(storage::Trajectory& trajectory, std::size_t step) {
  if (step == 0) throw std::logic_error("Variational::step_size_sensitivity: step 0 has no size");
  AdjointSweep& w = sweep_;
  const std::vector<double>& times = trajectory.step_times();
  const double t_previous = times[step - 1], h = times[step] - t_previous;
  const std::size_t n = coordinate_count_;
  for (std::size_t i = 0; i < n; ++i) {
    w.dh_mu_plus[i] = -w.b3[i];
    w.dh_first[i] = w.dh_second[i] = 0.0;
  }
  assembly_.add_discrete_momenta_transposed(w.current.q, w.next_q, t_previous, h, w.b1, w.dh_mu_plus, w.dh_first,
                                            w.dh_second);
  // (minus + plus)/(2h) = (T_q + f)/2, formed directly: from minus and plus it would lose T_v/h of its digits.
  assembly_.midpoint_force(w.current.q, w.next_q, t_previous, h, w.dh_force);
  double local = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double v_mid = (w.next_q[i] - w.current.q[i]) / h;
    local += (w.b1[i] - w.b3[i]) * w.dh_force[i] - 0.5 * v_mid * (w.dh_second[i] - w.dh_first[i]);
  }
  double global = 0.0;
  Teuchos::reduceAll(*assembler_.comm(), Teuchos::REDUCE_SUM, local, Teuchos::outArg(global));
  return global;
}

// Step k (x_{k-1} -> y_k) with x = (q, v), p = T_v(q, v):
//   E1 = T_v(q_{k-1}, v_{k-1}) + minus(q_{k-1}, q_k) - C_q(q_{k-1})^T Lambda_k,   E2 = C(q_k, t_k),
//   E3 = T_v(q_k, v_k) + C_q(q_k)^T nu_k - plus(q_{k-1}, q_k),                E4 = C_q(q_k) v_k + C_t(q_k, t_k),
// multipliers (a1, a2, a3, a4). dE/dy is block lower triangular: first (a3, a4) from the velocity system
// [M C_q^T; C_q 0] at q_k, then (a1, a2) from the transposed Newton matrix of the step. The impulses Lambda and nu
// are recovered with the same velocity factorization (their right-hand sides lie in the range of C_q^T).
void Variational::adjoint_step(storage::Trajectory& trajectory, std::size_t step, const assembly::State& state,
                               std::vector<double>& dJ_dq, std::vector<double>& dJ_dv,
                               assembly::LocalGradient& gradient) {
  adjoint_step(trajectory, step, state, dJ_dq, dJ_dv, nullptr, gradient);
}

void Variational::adjoint_step_with_accelerations(storage::Trajectory& trajectory, std::size_t step,
                                                  const assembly::State& state, std::vector<double>& dJ_dq,
                                                  std::vector<double>& dJ_dv, const std::vector<double>& dJ_da,
                                                  assembly::LocalGradient& gradient) {
  adjoint_step(trajectory, step, state, dJ_dq, dJ_dv, &dJ_da, gradient);
}

void Variational::adjoint_step(storage::Trajectory& trajectory, std::size_t step, const assembly::State& state,
                               std::vector<double>& dJ_dq, std::vector<double>& dJ_dv, const std::vector<double>* dJ_da,
                               assembly::LocalGradient& gradient) {
  using assembly::ConstraintLevel;
  AdjointSweep& w = sweep_;
  const std::size_t n = coordinate_count_;
  const std::vector<double>& times = trajectory.step_times();
  const std::size_t last = times.size() - 1;
  const double t = times[step];
  if (step == last) {
    w.current = state;
    assembly_.momentum(w.current, t, w.momentum_current);
  }
  if (step > 0) {
    w.previous = trajectory.step(step - 1);
    assembly_.momentum(w.previous, times[step - 1], w.momentum_previous);
  }
  w.g_q = dJ_dq;
  w.g_v = dJ_dv;

  // Velocity system at q_k, factorized once for Lambda_{k+1}, (a3, a4) and nu_k.
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  velocity_system_.q = w.current.q;
  assembler_.assemble_matrix(velocity_system_, t, ConstraintLevel::Velocity, mass_only);
  // Step k's matrices are close to step k + 1's: their pivot orders serve (see fresh_adjoint_pivots_at()).
  const linalg::Pivots pivots = fresh_adjoint_pivots_at(step) ? linalg::Pivots::Fresh : linalg::Pivots::Reuse;
  use_adjoint_solver(kVelocitySystem);
  update_adjoint_solver(pivots);
  if (dJ_da) {
    // a_k from [M C_q^T; C_q 0] [a; lambda] = [Q; -(C_acc at a = 0)] at x_k (solve_consistent_accelerations; the
    // velocity system's matrix): [mu_a; mu_acc] = A^-T [-dJ/da_k; 0], then dJ/dq_k += K^T mu_a + (dC_acc/dq)^T mu_acc,
    // dJ/dv_k += D^T mu_a + (dC_acc/dv)^T mu_acc, and mu_a . dR/dp + mu_acc . dC_acc/dp with the controls' terms.
    add_consistent_accelerations_adjoint(w.current, t, *dJ_da, w.mu_a, w.mu_acc, w.g_q, w.g_v, gradient);
  }

  // Step k + 1's dependence on x_k: E1 through T_v(q_k, v_k), minus and -C_q(q_k)^T Lambda_{k+1}, E3 through plus.
  w.multipliers.q = w.current.q;
  w.multipliers.v = w.current.v;
  if (step < last) {
    const double h_next = times[step + 1] - t;
    assembly_.add_discrete_momenta_transposed(w.current.q, w.current.v, t, 0.0, w.zero_n, w.b1, w.g_q, w.g_v);
    adjoint_solve(w.impulse_rhs, 1.0, w.scratch, w.impulse);
    for (std::size_t i = 0; i < n; ++i) w.minus_a3[i] = -w.b3[i];
    assembly_.add_discrete_momenta_transposed_at_end(w.current.q, w.next_q, t, h_next, w.b1, w.minus_a3, false, w.g_q);
    w.multipliers.lambda = w.impulse;
    assembler_.adjoint_products(w.multipliers, t, w.b1, {}, true, w.y_k, w.y_d, w.y_m);
    for (std::size_t i = 0; i < n; ++i) {
      w.g_q[i] -= w.y_k[i];
      w.minus_a3[i] = -w.b1[i];
    }
    // b1 . d(-C_q^T Lambda_{k+1})/dp at q_k, t_k.
    assembler_.add_parameter_gradient(w.multipliers, t, adjoint_vector(&w.minus_a3, nullptr),
                                      ConstraintLevel::Position, true, gradient);
  }

  if (step == 0) {
    // x_0 = (q_0, v_0); p_0 = T_v(q_0, v_0) in E1 of step 1.
    assembly_.add_discrete_momenta_parameter_gradient(w.current.q, w.current.v, t, 0.0, w.zero_n, w.b1, gradient);
    dJ_dq = w.g_q;
    dJ_dv = w.g_v;
    keep_initial_partials(dJ_dq, dJ_dv);
    add_initial_projection_adjoint(*adjoint_solver_, w.current, t, dJ_dq, dJ_dv, gradient);
    return;
  }

  const double t_previous = times[step - 1], h = t - t_previous;
  // [M C_q^T; C_q 0] [a3; a4] = [-g_v; 0].
  adjoint_solve(w.g_v, -1.0, w.a3, w.a4);
  for (std::size_t i = 0; i < n; ++i) {
    w.minus_a3[i] = -w.a3[i];
    w.plus_product[i] = 0.0;
  }
  // The matrix of the Newton step's transposed system below, [-h d(minus)/dq_k, C_q(q_{k-1})^T; C_q(q_k), 0], with
  // the same element derivatives' product (d plus/dq_k)^T (-a3); its residual (at zero impulse) and p_hat_k are
  // those of impulse_right_hand_side(), which it stands in for.
  assembly_.assemble_step(w.previous.q, w.momentum_previous, w.current.q, w.zero_m, t_previous, h, true,
                          &w.momentum_hat, &w.minus_a3, &w.plus_product);
  take_impulse_right_hand_side(h);
  // C_q(q_k)^T nu_k = p_hat_k - p_k (the velocity system's factorization still).
  for (std::size_t i = 0; i < n; ++i) w.nu_rhs[i] = w.momentum_hat[i] - w.momentum_current[i];
  adjoint_solve(w.nu_rhs, 1.0, w.scratch, w.nu);

  // dE3/dq_k^T a3 + dE4/dq_k^T a4 + g_q: the right-hand side of the Newton step's transposed system.
  w.rhs_q = w.g_q;
  assembly_.add_discrete_momenta_transposed_at_end(w.current.q, w.current.v, t, 0.0, w.zero_n, w.a3, false, w.rhs_q);
  w.multipliers.lambda = w.nu;
  assembler_.adjoint_products(w.multipliers, t, w.a3, {}, true, w.y_k, w.y_d, w.y_m);
  for (std::size_t i = 0; i < n; ++i) w.rhs_q[i] += w.y_k[i];
  assembler_.add_constraint_level_transposed(w.current, t, ConstraintLevel::Velocity, w.a4, w.rhs_q, w.scratch);
  for (std::size_t i = 0; i < n; ++i) w.rhs_q[i] += w.plus_product[i];

  // [-h d(minus)/dq_k, C_q(q_{k-1})^T; C_q(q_k), 0]^T z = [-rhs_q; 0]: a1 = -h z_q (row scale -h), a2 = z_c.
  use_adjoint_solver(kStepMatrix);
  update_adjoint_solver(pivots);
  adjoint_solve(w.rhs_q, -1.0, w.z, w.a2);
  for (std::size_t i = 0; i < n; ++i) w.a1[i] = -h * w.z[i];

  // Parameters and controls of step k: a1 . dE1/dp + a2 . dE2/dp + a3 . dE3/dp + a4 . dE4/dp (the constraint
  // term of E1 at q_{k-1} follows in the next call, with Lambda_k).
  assembly_.add_discrete_momenta_parameter_gradient(w.previous.q, w.current.q, t_previous, h, w.a1, w.minus_a3,
                                                    gradient);
  for (std::size_t i = 0; i < n; ++i) w.a3_plus_b1[i] = w.a3[i] + w.b1[i];
  assembly_.add_discrete_momenta_parameter_gradient(w.current.q, w.current.v, t, 0.0, w.zero_n, w.a3_plus_b1,
                                                    gradient);
  assembler_.add_parameter_gradient(w.multipliers, t, adjoint_vector(&w.a3, &w.a4), ConstraintLevel::Velocity, true,
                                    gradient);
  assembler_.add_parameter_gradient(velocity_system_, t, adjoint_vector(nullptr, &w.a2), ConstraintLevel::Position,
                                    true, gradient);

  w.b1 = w.a1;
  w.b3 = w.a3;
  w.next_q = w.current.q;
  std::swap(w.current, w.previous);
  std::swap(w.momentum_current, w.momentum_previous);
}

}  // namespace flexadj::integrators
