#include "flexadj/integrators/state_space.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::integrators {

namespace {
const model::JacobianCoefficients kMassOnly{0.0, 0.0, 1.0};      // [M C_q^T; C_q 0]
const model::JacobianCoefficients kProjection{0.0, 0.0, 0.0};    // [I C_q^T; C_q 0]
}  // namespace

StateSpace::StateSpace(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
                       const linalg::LinearSolverOptions& solver_options)
    : CarriedStateIntegrator(assembler, settings, solver_options) {
  for (Stages* s : {&forward_, &recomputed_}) {
    s->stage = s->projected = assembler.make_state();
    s->q_tilde.assign(coordinate_count_, 0.0);
    s->v_tilde.assign(coordinate_count_, 0.0);
    s->nu.assign(multiplier_count_, 0.0);
    s->nu_velocity.assign(multiplier_count_, 0.0);
  }
}

std::string StateSpace::description() const {
  return "state-space form (Held and Seifried): explicit trapezoidal rule (Heun, order 2) on the accelerations of "
         "[M C_q^T; C_q 0], projection onto C = 0 and C_q v + C_t = 0 after each step";
}

void StateSpace::initialize(assembly::State& state, double t0) {
  current_step_ = 0;
  project_initial_state(state, t0);
  solve_consistent_accelerations(state, t0);
}

StepStatistics StateSpace::step(assembly::State& state, double t, double h, long long step_index) {
  current_step_ = step_index;
  StepStatistics statistics;
  advance(state, t, h, forward_, statistics);
  state.q = forward_.projected.q;
  state.v = forward_.projected.v;
  // a_{n+1}, lambda_{n+1}: the first stage of the next step (with the pivot order of this step's first factorization:
  // every factorization of a step after its first reuses it, so that the step depends on its start state alone).
  solve_consistent_accelerations(state, t + h, false, linalg::Pivots::Reuse);
  return statistics;
}

// Heun's method and the projections (state_space.hpp); `state` holds a_n and lambda_n consistent with q_n, v_n.
void StateSpace::advance(const assembly::State& state, double t, double h, Stages& s, StepStatistics& statistics) {
  const std::size_t n = coordinate_count_;
  const double t_next = t + h;
  for (std::size_t i = 0; i < n; ++i) {
    s.stage.q[i] = state.q[i] + h * state.v[i];
    s.stage.v[i] = state.v[i] + h * state.a[i];
  }
  solve_consistent_accelerations(s.stage, t_next);
  for (std::size_t i = 0; i < n; ++i) {
    s.q_tilde[i] = state.q[i] + 0.5 * h * (state.v[i] + s.stage.v[i]);
    s.v_tilde[i] = state.v[i] + 0.5 * h * (state.a[i] + s.stage.a[i]);
  }
  project_positions(s, t_next, statistics);
  project_velocities(s, t_next);
}

// q - q~ + C_q(q)^T nu = 0, C(q, t) = 0 by Newton to round-off (TimeIntegrator::project_positions): the adjoint
// takes these equations as exact.
void StateSpace::project_positions(Stages& s, double t, StepStatistics& statistics) {
  TimeIntegrator::project_positions(s.q_tilde, t, s.projected, statistics, linalg::Pivots::Reuse);
  s.nu = s.projected.lambda;
}

// v - v~ + C_q^T nu' = 0, C_q v + C_t = 0 at q_{n+1}: one solve from (v~, 0).
void StateSpace::project_velocities(Stages& s, double t) {
  assembly::State& p = s.projected;
  const std::size_t n = coordinate_count_;
  p.v = s.v_tilde;
  std::fill(p.lambda.begin(), p.lambda.end(), 0.0);
  assembler_.assemble(p, t, assembly::ConstraintLevel::Velocity, 1.0, &kProjection, &s.v_tilde);
  const auto x = newton_increment(linalg::Pivots::Reuse);
  for (std::size_t i = 0; i < n; ++i) p.v[i] += x[i];
  for (std::size_t k = 0; k < multiplier_count_; ++k) p.lambda[k] = x[n + k];
  s.nu_velocity = p.lambda;
}

// ---- the discrete adjoint ------------------------------------------------------------------------------------

void StateSpace::begin_adjoint(storage::Trajectory& trajectory) {
  // A first assembly fixes the values' layout before the solver reads the structure.
  assembler_.assemble(trajectory.step(0), trajectory.step_times()[0], assembly::ConstraintLevel::Acceleration, 1.0,
                      &kMassOnly);
  begin_adjoint_solver(kAdjointMatrices);
  begin_carried_adjoint();
  for (auto* v : {&q_tilde_bar_, &v_tilde_bar_, &stage_q_bar_, &stage_v_bar_,
                  &a_bar_, &mu_r_, &rho_, &y_k_, &y_d_, &y_m_})
    v->assign(coordinate_count_, 0.0);
  mu_c_.assign(multiplier_count_, 0.0);
}

// dq*/dh = v, dv*/dh = a, dq~/dh = (v + v*)/2, dv~/dh = (a + a*)/2 with the adjoints of q*, v*, q~, v~ that
// adjoint_step(n) left (the projections and a* depend on h only through the time, held here).
double StateSpace::step_size_sensitivity(storage::Trajectory&, std::size_t n) {
  if (n == 0) throw std::logic_error("StateSpace::step_size_sensitivity: step 0 has no size");
  const assembly::State& stage = recomputed_.stage;
  double local = 0.0;
  for (std::size_t i = 0; i < coordinate_count_; ++i)
    local += stage_q_bar_[i] * previous_.v[i] + stage_v_bar_[i] * previous_.a[i] +
             0.5 * q_tilde_bar_[i] * (previous_.v[i] + stage.v[i]) + 0.5 * v_tilde_bar_[i] * (previous_.a[i] + stage.a[i]);
  double global = 0.0;
  Teuchos::reduceAll(*assembler_.comm(), Teuchos::REDUCE_SUM, local, Teuchos::outArg(global));
  return global;
}

void StateSpace::acceleration_adjoint(const assembly::State& state, double t, const std::vector<double>& a_bar,
                                      std::vector<double>& q_bar, std::vector<double>& v_bar,
                                      assembly::LocalGradient& gradient) {
  using assembly::ConstraintLevel;
  assembler_.assemble(state, t, ConstraintLevel::Acceleration, 1.0, &kMassOnly);
  use_adjoint_solver(kAccelerations);
  update_adjoint_solver(step_pivots_);
  add_consistent_accelerations_adjoint(state, t, a_bar, mu_r_, mu_c_, q_bar, v_bar, gradient);
}

// The transpose of the linearised step n (x_{n-1} -> x_n, state_space.hpp), in reverse order of the forward step:
// velocity projection, position projection, Heun's combination, second stage, first stage. On entry
// (q_bar, v_bar) = dJ/d(q_n, v_n) (the objective's partials plus what steps n + 1, ... carried); on exit the carry
// holds what step n gives dJ/d(q_{n-1}, v_{n-1}) (CarriedStateIntegrator::adjoint_step around it).
void StateSpace::recompute_step(const assembly::State& previous, double t, double h) {
  StepStatistics statistics;
  advance(previous, t, h, recomputed_, statistics);
}

void StateSpace::transpose_step(double t, double t_next, assembly::LocalGradient& gradient) {
  using assembly::ConstraintLevel;
  const std::size_t size = coordinate_count_;
  const double h = t_next - t;
  Stages& s = recomputed_;
  assembly::State& p = s.projected;

  // Velocity projection: [I C_q^T; C_q 0]^T [rho; sigma] = [-v_bar; 0], v~_bar = -rho,
  // q_bar += d(C_q^T nu')/dq^T rho + d(C_q v + C_t)/dq^T sigma (as TimeIntegrator::add_initial_projection_adjoint).
  p.lambda = s.nu_velocity;
  assembler_.assemble(p, t_next, ConstraintLevel::Velocity, 1.0, &kProjection, &s.v_tilde);
  use_adjoint_solver(kVelocityProjection);
  update_adjoint_solver(step_pivots_);
  adjoint_solve(v_bar_, -1.0, rho_, mu_c_);
  for (std::size_t i = 0; i < size; ++i) v_tilde_bar_[i] = -rho_[i];
  assembler_.adjoint_products(p, t_next, rho_, {}, true, y_k_, y_d_, y_m_);
  for (std::size_t i = 0; i < size; ++i) q_bar_[i] += y_k_[i];
  assembler_.add_constraint_level_transposed(p, t_next, ConstraintLevel::Velocity, mu_c_, q_bar_, y_d_);
  assembler_.add_parameter_gradient(p, t_next, adjoint_vector(&rho_, &mu_c_), ConstraintLevel::Velocity, true,
                                    gradient);

  // Position projection: [I + d(C_q^T nu)/dq, C_q^T; C_q 0]^T [rho; sigma] = [-q_bar; 0], q~_bar = -rho.
  p.lambda = s.nu;
  use_adjoint_solver(kPositionProjection);
  position_projection_adjoint(p, s.q_tilde, t_next, q_bar_, q_tilde_bar_, gradient, step_pivots_);

  // q~ = q + h/2 (v + v*), v~ = v + h/2 (a + a*): the second stage gets a*_bar = h/2 v~_bar, v*_bar = h/2 q~_bar.
  for (std::size_t i = 0; i < size; ++i) {
    a_bar_[i] = 0.5 * h * v_tilde_bar_[i];
    stage_q_bar_[i] = 0.0;
    stage_v_bar_[i] = 0.5 * h * q_tilde_bar_[i];
  }
  acceleration_adjoint(s.stage, t_next, a_bar_, stage_q_bar_, stage_v_bar_, gradient);
  // q* = q + h v, v* = v + h a; then the first stage with a_bar = h/2 v~_bar + h v*_bar.
  for (std::size_t i = 0; i < size; ++i) {
    carry_q_[i] = q_tilde_bar_[i] + stage_q_bar_[i];
    carry_v_[i] = 0.5 * h * q_tilde_bar_[i] + v_tilde_bar_[i] + h * stage_q_bar_[i] + stage_v_bar_[i];
    a_bar_[i] = 0.5 * h * v_tilde_bar_[i] + h * stage_v_bar_[i];
  }
  acceleration_adjoint(previous_, t, a_bar_, carry_q_, carry_v_, gradient);
}

}  // namespace flexadj::integrators
