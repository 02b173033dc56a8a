#include "flexadj/integrators/joint_variational.hpp"

#include <Teuchos_LAPACK.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::integrators {

namespace {
const model::JacobianCoefficients kMassOnly{0.0, 0.0, 1.0};
}  // namespace

JointVariational::JointVariational(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
                                   const linalg::LinearSolverOptions& solver_options, std::string form)
    : CarriedStateIntegrator(assembler, settings, solver_options), form_(std::move(form)), momenta_(assembler) {
  tree_ = make_joint_tree(assembler, "integrator.coordinates");
  equations_ = std::make_unique<JointSpaceEquations>(assembler, *tree_);
  const auto k = std::size_t(tree_->size()), n = std::size_t(tree_->coordinate_count());
  for (Step* s : {&forward_, &recomputed_}) {
    s->start = equations_->make_point();
    s->end = equations_->make_point();
    s->minus.assign(n, 0.0);
    s->plus.assign(n, 0.0);
    s->jacobian.assign(k * k, 0.0);
    s->pivots.assign(k, 0);
  }
  zero_n_.assign(n, 0.0);
  zero_m_.assign(assembler.dofs().owned_multipliers().size(), 0.0);
  for (auto* v : {&residual_, &end_alpha_bar_, &end_p_bar_, &start_alpha_bar_, &lambda_}) v->assign(k, 0.0);
  column_vector_ = Teuchos::rcp(new Vector(assembler.system_map()));
  product_vector_ = Teuchos::rcp(new Vector(assembler.system_map()));
}

void JointVariational::initialize(assembly::State& state, double t0) {
  current_step_ = 0;
  tree_->refresh(assembler_.model());
  project_initial_state(state, t0);
  solve_consistent_accelerations(state, t0);
}

void JointVariational::factorize_jacobian(Step& s, double t, double h, bool new_start) {
  fill_jacobian(s, t, h, new_start);
  const int k = tree_->size();
  int info = 0;
  Teuchos::LAPACK<int, double>().GETRF(k, k, s.jacobian.data(), k, s.pivots.data(), &info);
  if (info != 0)
    throw SolverError(form_ + " step at t = " + std::to_string(t) + " s: the step's Jacobian dE/d(alpha_{n+1}) is " +
                      "singular (a singular configuration of the joints, or a step too large)");
}

void JointVariational::advance(const assembly::State& state, double t, double h, long long step_index,
                               bool factorize_last, Step& s) {
  const auto k = std::size_t(tree_->size());
  s.start.t = t;
  equations_->joint_state(state, t, s.start.alpha, s.start.p_hat);
  equations_->evaluate(s.start);  // q_n = g(alpha_n) and beta_n for the predictor
  s.end.t = t + h;
  for (std::size_t j = 0; j < k; ++j) s.end.alpha[j] = s.start.alpha[j] + h * s.start.beta[j];
  const Teuchos::LAPACK<int, double> lapack;
  double increment = 0.0;
  for (int iteration = 1; iteration <= settings_.max_newton_iterations; ++iteration) {
    momentum_balance(s, t, h, residual_);
    for (std::size_t j = 0; j < k; ++j) residual_[j] = -(residual_[j] + s.start.p_hat[j]);
    // Simplified Newton: the Jacobian of the predictor for all iterations (it changes by O(h) over the step).
    if (iteration == 1) factorize_jacobian(s, t, h, true);
    int info = 0;
    lapack.GETRS('N', int(k), 1, s.jacobian.data(), int(k), s.pivots.data(), residual_.data(), int(k), &info);
    increment = 0.0;
    double size = 0.0;
    for (std::size_t j = 0; j < k; ++j) {
      s.end.alpha[j] += residual_[j];
      increment = std::max(increment, std::abs(residual_[j]));
      size = std::max(size, std::abs(s.end.alpha[j]));
      if (!std::isfinite(residual_[j])) increment = std::numeric_limits<double>::infinity();
    }
    s.statistics.newton_iterations = iteration;
    s.statistics.increment = increment;
    if (!std::isfinite(increment)) break;
    if (increment <= settings_.newton_tolerance * (1.0 + size)) {
      // p_{n+1} at the converged alpha_{n+1}, then q = g(alpha_{n+1}) and v = H beta.
      end_momentum(s, t, h);
      if (factorize_last) prepare_adjoint(s, t, h);
      equations_->evaluate(s.end);
      return;
    }
  }
  std::ostringstream message;
  message << "Newton iteration of the " << form_ << " failed at step " << step_index << ", t = " << t + h
          << " s: last increment " << increment
          << " of the joint coordinates. Try a smaller integrator.step_size or more integrator.max_newton_iterations.";
  throw SolverError(message.str());
}

StepStatistics JointVariational::step(assembly::State& state, double t, double h, long long step_index) {
  current_step_ = step_index;
  advance(state, t, h, step_index, false, forward_);
  state.q = forward_.end.state.q;
  state.v = forward_.end.state.v;
  solve_consistent_accelerations(state, t + h);
  return forward_.statistics;
}

void JointVariational::begin_adjoint(storage::Trajectory& trajectory) {
  tree_->refresh(assembler_.model());
  assembler_.assemble(trajectory.step(0), trajectory.step_times()[0], assembly::ConstraintLevel::Acceleration, 1.0,
                      &kMassOnly);
  begin_adjoint_solver();
  begin_carried_adjoint();
}

void JointVariational::recompute_step(const assembly::State& previous, double t, double h) {
  advance(previous, t, h, current_step_, true, recomputed_);
}

void JointVariational::solve_step_adjoint(const std::vector<double>& alpha_bar) {
  const int k = tree_->size();
  for (std::size_t j = 0; j < lambda_.size(); ++j) lambda_[j] = -alpha_bar[j];
  int info = 0;
  Teuchos::LAPACK<int, double>().GETRS('T', k, 1, recomputed_.jacobian.data(), k, recomputed_.pivots.data(),
                                       lambda_.data(), k, &info);
}

void JointVariational::absolute_momenta(const std::vector<double>& first, const std::vector<double>& second, double t,
                                        double h, Step& s) {
  momenta_.assemble_step(first, zero_n_, second, zero_m_, t, h, false, &s.plus);
  const assembly::ConstSystemVectorView r(assembler_.residual(), s.minus.size());
  for (std::size_t i = 0; i < s.minus.size(); ++i) s.minus[i] = -r.coordinates()[i] / h;
}

void JointVariational::project_step_matrix(const std::vector<double>& first, const std::vector<double>& second,
                                           double t, double h, const std::vector<double>& left,
                                           const std::vector<double>& right, Step& s) {
  const auto k = std::size_t(tree_->size()), n = s.minus.size();
  // Forward orientation: adjoint_step() recomputes with the assembler untransposed.
  momenta_.assemble_step(first, zero_n_, second, zero_m_, t, h, true, nullptr);
  for (std::size_t j = 0; j < k; ++j) {
    {
      assembly::SystemVectorView x(*column_vector_, n);
      for (std::size_t i = 0; i < n; ++i) x.coordinates()[i] = right[j * n + i];
      for (std::size_t i = 0; i < x.multiplier_count(); ++i) x.multipliers()[i] = 0.0;
    }
    assembler_.matrix()->apply(*column_vector_, *product_vector_);
    const assembly::ConstSystemVectorView y(*product_vector_, n);
    for (std::size_t i = 0; i < k; ++i) {
      double sum = 0.0;
      for (std::size_t c = 0; c < n; ++c) sum += left[i * n + c] * y.coordinates()[c];
      s.jacobian[i + j * k] = -sum / h;
    }
  }
}

double JointVariational::step_size_sensitivity(storage::Trajectory&, std::size_t) {
  throw std::logic_error("JointVariational::step_size_sensitivity: an implicit or free final time is refused with "
                         "the variational integrators in joint coordinates");
}

}  // namespace flexadj::integrators
