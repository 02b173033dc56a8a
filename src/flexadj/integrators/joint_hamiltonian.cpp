#include "flexadj/integrators/joint_hamiltonian.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "flexadj/core/error.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::integrators {

namespace {
const model::JacobianCoefficients kMassOnly{0.0, 0.0, 1.0};
}  // namespace

JointHamiltonian::JointHamiltonian(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
                                   const linalg::LinearSolverOptions& solver_options)
    : CarriedStateIntegrator(assembler, settings, solver_options) {
  tree_ = make_joint_tree(assembler, "integrator.coordinates");
  equations_ = std::make_unique<JointSpaceEquations>(assembler, *tree_);
  for (Stages* s : {&forward_, &recomputed_})
    for (auto* e : {&s->start, &s->stage, &s->end}) *e = equations_->make_point();
  const auto k = std::size_t(tree_->size());
  for (auto* v : {&end_alpha_bar_, &end_p_bar_, &stage_alpha_bar_, &stage_p_bar_, &start_alpha_bar_, &start_p_bar_,
                  &lambda_alpha_, &lambda_p_})
    v->assign(k, 0.0);
}

std::string JointHamiltonian::description() const {
  return "joint-space Hamiltonian equations (Maciag, Malczyk and Fraczek 2022, eqs. (10a)/(10b)), " +
         std::to_string(tree_->size()) + " joint coordinates: explicit trapezoidal rule (Heun, order 2) on " +
         "(alpha, p_hat), no projection";
}

void JointHamiltonian::initialize(assembly::State& state, double t0) {
  current_step_ = 0;
  tree_->refresh(assembler_.model());
  project_initial_state(state, t0);
  solve_consistent_accelerations(state, t0);
}

void JointHamiltonian::advance(const assembly::State& state, double t, double h, Stages& s) {
  const std::size_t k = std::size_t(tree_->size());
  equations_->begin_step();
  s.start.t = t;
  equations_->joint_state(state, t, s.start.alpha, s.start.p_hat);
  equations_->evaluate(s.start);
  s.stage.t = s.end.t = t + h;
  for (std::size_t j = 0; j < k; ++j) {
    s.stage.alpha[j] = s.start.alpha[j] + h * s.start.beta[j];
    s.stage.p_hat[j] = s.start.p_hat[j] + h * s.start.rate[j];
  }
  equations_->evaluate(s.stage);
  for (std::size_t j = 0; j < k; ++j) {
    s.end.alpha[j] = s.start.alpha[j] + 0.5 * h * (s.start.beta[j] + s.stage.beta[j]);
    s.end.p_hat[j] = s.start.p_hat[j] + 0.5 * h * (s.start.rate[j] + s.stage.rate[j]);
  }
  equations_->evaluate(s.end);
  equations_->end_step();
}

StepStatistics JointHamiltonian::step(assembly::State& state, double t, double h, long long step_index) {
  current_step_ = step_index;
  advance(state, t, h, forward_);
  const auto& end = forward_.end.state;
  for (std::size_t i = 0; i < end.q.size(); ++i)
    if (!std::isfinite(end.q[i]) || !std::isfinite(end.v[i]))
      throw SolverError("joint-space Hamiltonian step " + std::to_string(step_index) + " at t = " +
                        std::to_string(t + h) + " s: the state is not finite (a NaN or Inf force, or a step too "
                        "large for the explicit scheme: reduce integrator.step_size)");
  state.q = end.q;
  state.v = end.v;
  // The step's last evaluation has factorized the same matrix at q_{n+1} (holonomic joints only in a joint tree).
  if (linalg::LinearSolver* held = equations_->factorization_at(state.q))
    solve_consistent_accelerations_with(state, t + h, *held);
  else
    solve_consistent_accelerations(state, t + h);
  return {};
}

// ---- the discrete adjoint ------------------------------------------------------------------------------------

void JointHamiltonian::begin_adjoint(storage::Trajectory& trajectory) {
  tree_->refresh(assembler_.model());
  assembler_.assemble(trajectory.step(0), trajectory.step_times()[0], assembly::ConstraintLevel::Acceleration, 1.0,
                      &kMassOnly);
  begin_adjoint_solver();
  begin_carried_adjoint();
}

void JointHamiltonian::recompute_step(const assembly::State& previous, double t, double h) {
  advance(previous, t, h, recomputed_);
}

// On entry (q_bar_, v_bar_) = dJ/d(q_{n+1}, v_{n+1}); on exit the carry holds dJ/d(q_n, v_n) through this step.
void JointHamiltonian::transpose_step(double t, double t_next, assembly::LocalGradient& gradient) {
  const std::size_t k = std::size_t(tree_->size());
  const double h = t_next - t;
  Stages& s = recomputed_;
  // recompute_step() has just evaluated these stages: its factorization at y_{n+1} serves the first solve below.
  equations_->resume_step();
  // (alpha, p_hat) -> (q, v) at y_{n+1}.
  equations_->absolute_state_transposed(s.end, q_bar_, v_bar_, end_alpha_bar_, end_p_bar_, gradient);
  // y_{n+1} = y_n + h/2 (Phi(y_n) + Phi(y*)): the stage's adjoint z* = Phi_y(y*)^T (h/2 y_bar_{n+1}).
  for (std::size_t j = 0; j < k; ++j) {
    lambda_alpha_[j] = 0.5 * h * end_alpha_bar_[j];
    lambda_p_[j] = 0.5 * h * end_p_bar_[j];
  }
  equations_->rate_transposed(s.stage, lambda_alpha_, lambda_p_, stage_alpha_bar_, stage_p_bar_, gradient);
  // y* = y_n + h Phi(y_n): Phi(y_n) is weighted by h/2 y_bar_{n+1} + h z*.
  for (std::size_t j = 0; j < k; ++j) {
    lambda_alpha_[j] = 0.5 * h * end_alpha_bar_[j] + h * stage_alpha_bar_[j];
    lambda_p_[j] = 0.5 * h * end_p_bar_[j] + h * stage_p_bar_[j];
  }
  equations_->rate_transposed(s.start, lambda_alpha_, lambda_p_, start_alpha_bar_, start_p_bar_, gradient);
  for (std::size_t j = 0; j < k; ++j) {
    start_alpha_bar_[j] += end_alpha_bar_[j] + stage_alpha_bar_[j];
    start_p_bar_[j] += end_p_bar_[j] + stage_p_bar_[j];
  }
  // (q_n, v_n) -> y_n.
  std::fill(carry_q_.begin(), carry_q_.end(), 0.0);
  std::fill(carry_v_.begin(), carry_v_.end(), 0.0);
  equations_->joint_state_transposed(previous_, t, s.start.alpha, start_alpha_bar_, start_p_bar_, carry_q_, carry_v_,
                                     gradient);
  equations_->end_step();
}

double JointHamiltonian::step_size_sensitivity(storage::Trajectory&, std::size_t n) {
  if (n == 0) throw std::logic_error("JointHamiltonian::step_size_sensitivity: step 0 has no size");
  const Stages& s = recomputed_;
  double sum = 0.0;
  for (std::size_t j = 0; j < std::size_t(tree_->size()); ++j)
    sum += 0.5 * end_alpha_bar_[j] * (s.start.beta[j] + s.stage.beta[j]) +
           0.5 * end_p_bar_[j] * (s.start.rate[j] + s.stage.rate[j]) + stage_alpha_bar_[j] * s.start.beta[j] +
           stage_p_bar_[j] * s.start.rate[j];
  return sum;  // one rank
}

}  // namespace flexadj::integrators
