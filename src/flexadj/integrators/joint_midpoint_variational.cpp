#include "flexadj/integrators/joint_midpoint_variational.hpp"

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

JointMidpointVariational::JointMidpointVariational(assembly::Assembler& assembler,
                                                   const integrators::IntegratorSettings& settings,
                                                   const linalg::LinearSolverOptions& solver_options)
    : CarriedStateIntegrator(assembler, settings, solver_options), momenta_(assembler) {
  tree_ = make_joint_tree(assembler, "integrator.coordinates");
  equations_ = std::make_unique<JointSpaceEquations>(assembler, *tree_);
  const auto k = std::size_t(tree_->size()), n = std::size_t(tree_->coordinate_count());
  for (Step* s : {&forward_, &recomputed_}) {
    s->start = equations_->make_point();
    s->end = equations_->make_point();
    for (auto* v : {&s->mid, &s->delta}) v->assign(k, 0.0);
    for (auto* v : {&s->first, &s->second, &s->minus, &s->plus}) v->assign(n, 0.0);
    s->jacobian.assign(k * k, 0.0);
    s->pivots.assign(k, 0);
  }
  for (auto* v : {&zero_n_, &sum_n_, &half_difference_n_, &mu_first_, &mu_second_, &out_first_, &out_second_,
                  &values_, &values2_})
    v->assign(n, 0.0);
  zero_m_.assign(assembler.dofs().owned_multipliers().size(), 0.0);
  for (auto* v : {&residual_, &d2_, &unit_, &mid_direction_, &delta_direction_, &grad_mid_, &grad_delta_, &row_,
                  &end_alpha_bar_, &end_p_bar_, &start_alpha_bar_, &lambda_})
    v->assign(k, 0.0);
}

std::string JointMidpointVariational::description() const {
  return "variational integrator, midpoint rule in " + std::to_string(tree_->size()) +
         " joint coordinates (Schubert et al. 2024, sec. 2.3), no multipliers, no numerical damping";
}

void JointMidpointVariational::initialize(assembly::State& state, double t0) {
  current_step_ = 0;
  tree_->refresh(assembler_.model());
  project_initial_state(state, t0);
  solve_consistent_accelerations(state, t0);
}

void JointMidpointVariational::discrete_momenta(Step& s, double t, double h, std::vector<double>& d1,
                                                std::vector<double>* d2) {
  const auto k = s.mid.size(), n = s.first.size();
  for (std::size_t j = 0; j < k; ++j) {
    s.mid[j] = 0.5 * (s.start.alpha[j] + s.end.alpha[j]);
    s.delta[j] = s.end.alpha[j] - s.start.alpha[j];
  }
  // Phi = (g(alpha_m) - g'(alpha_m)[Delta]/2, g(alpha_m) + g'(alpha_m)[Delta]/2).
  tree_->positions(s.mid.data(), tree_->parameters().data(), values_.data());
  equations_->directional_values(s.mid, s.delta.data(), nullptr, values2_.data(), nullptr);
  for (std::size_t i = 0; i < n; ++i) {
    s.first[i] = values_[i] - 0.5 * values2_[i];
    s.second[i] = values_[i] + 0.5 * values2_[i];
  }
  // With p_n = 0 and no impulse the coordinate rows of the step's residual are -h minus (variational_assembly.hpp).
  momenta_.assemble_step(s.first, zero_n_, s.second, zero_m_, t, h, false, &s.plus);
  const assembly::ConstSystemVectorView r(assembler_.residual(), n);
  for (std::size_t i = 0; i < n; ++i) s.minus[i] = -r.coordinates()[i] / h;
  // (D1, D2) = (dPhi/d alpha_n, dPhi/d alpha_{n+1})^T (minus, plus): with Phi's gradients in alpha_m (Delta held)
  // and in Delta (alpha_m held), d/d alpha_n = 1/2 d/d alpha_m - d/d Delta, d/d alpha_{n+1} = 1/2 d/d alpha_m +
  // d/d Delta.
  for (std::size_t i = 0; i < n; ++i) {
    sum_n_[i] = s.minus[i] + s.plus[i];
    half_difference_n_[i] = 0.5 * (s.plus[i] - s.minus[i]);
  }
  std::fill(grad_mid_.begin(), grad_mid_.end(), 0.0);
  equations_->directional_gradient(s.mid, s.delta.data(), nullptr, sum_n_.data(), half_difference_n_.data(), nullptr,
                                   nullptr, grad_mid_.data(), nullptr);
  equations_->jacobian_transpose_times(s.mid, half_difference_n_, grad_delta_);
  for (std::size_t j = 0; j < k; ++j) {
    d1[j] = 0.5 * grad_mid_[j] - grad_delta_[j];
    if (d2) (*d2)[j] = 0.5 * grad_mid_[j] + grad_delta_[j];
  }
}

void JointMidpointVariational::direction_gradient(Step& s, double t, double h, const double* delta_n,
                                                  const double* delta_next, double* grad_n, double* grad_next,
                                                  assembly::LocalGradient* gradient) {
  const auto k = s.mid.size(), n = s.first.size();
  for (std::size_t j = 0; j < k; ++j) {
    const double a = delta_n ? delta_n[j] : 0.0, b = delta_next ? delta_next[j] : 0.0;
    mid_direction_[j] = 0.5 * (a + b);
    delta_direction_[j] = b - a;
  }
  // mu = dPhi[delta] = (g'[d_m - d_Delta/2] - g''[d_m, Delta]/2, g'[d_m + d_Delta/2] + g''[d_m, Delta]/2).
  equations_->directional_values(s.mid, mid_direction_.data(), s.delta.data(), values_.data(), values2_.data());
  for (std::size_t i = 0; i < n; ++i) {
    mu_first_[i] = values_[i] - 0.5 * values2_[i];
    mu_second_[i] = values_[i] + 0.5 * values2_[i];
  }
  equations_->directional_values(s.mid, delta_direction_.data(), nullptr, values_.data(), nullptr);
  for (std::size_t i = 0; i < n; ++i) {
    mu_first_[i] -= 0.5 * values_[i];
    mu_second_[i] += 0.5 * values_[i];
  }
  // (minus, plus) through Phi: o = (d(minus, plus)/d Phi)^T mu, then the gradient of o . Phi (o held).
  std::fill(out_first_.begin(), out_first_.end(), 0.0);
  std::fill(out_second_.begin(), out_second_.end(), 0.0);
  momenta_.add_discrete_momenta_transposed(s.first, s.second, t, h, mu_first_, mu_second_, out_first_, out_second_);
  if (gradient)
    momenta_.add_discrete_momenta_parameter_gradient(s.first, s.second, t, h, mu_first_, mu_second_, *gradient);
  for (std::size_t i = 0; i < n; ++i) {
    sum_n_[i] = out_first_[i] + out_second_[i];
    half_difference_n_[i] = 0.5 * (out_second_[i] - out_first_[i]);
  }
  std::fill(grad_mid_.begin(), grad_mid_.end(), 0.0);
  equations_->directional_gradient(s.mid, s.delta.data(), nullptr, sum_n_.data(), half_difference_n_.data(), nullptr,
                                   nullptr, grad_mid_.data(), gradient);
  equations_->jacobian_transpose_times(s.mid, half_difference_n_, grad_delta_);
  // dPhi[delta] with (minus, plus) held: w . dPhi = (minus + plus) . g'[d_m] + (plus - minus)/2 . (g'[d_Delta] +
  // g''[d_m, Delta]).
  for (std::size_t i = 0; i < n; ++i) {
    sum_n_[i] = s.minus[i] + s.plus[i];
    half_difference_n_[i] = 0.5 * (s.plus[i] - s.minus[i]);
  }
  equations_->directional_gradient(s.mid, mid_direction_.data(), s.delta.data(), nullptr, sum_n_.data(), nullptr,
                                   half_difference_n_.data(), grad_mid_.data(), gradient);
  equations_->directional_gradient(s.mid, delta_direction_.data(), nullptr, nullptr, half_difference_n_.data(),
                                   nullptr, nullptr, grad_mid_.data(), gradient);
  // d/d Delta of (plus - minus)/2 . g''(alpha_m)[d_m, Delta] = d/d alpha_m of (plus - minus)/2 . g'(alpha_m)[d_m].
  equations_->directional_gradient(s.mid, mid_direction_.data(), nullptr, nullptr, half_difference_n_.data(), nullptr,
                                   nullptr, grad_delta_.data(), nullptr);
  for (std::size_t j = 0; j < k; ++j) {
    if (grad_n) grad_n[j] += 0.5 * grad_mid_[j] - grad_delta_[j];
    if (grad_next) grad_next[j] += 0.5 * grad_mid_[j] + grad_delta_[j];
  }
}

void JointMidpointVariational::factorize_jacobian(Step& s, double t, double h) {
  const auto k = s.mid.size();
  // Row i of dE/d alpha_{n+1}: the gradient in alpha_{n+1} of e_i . (D1 + f^-).
  for (std::size_t i = 0; i < k; ++i) {
    std::fill(unit_.begin(), unit_.end(), 0.0);
    unit_[i] = 1.0;
    std::fill(row_.begin(), row_.end(), 0.0);
    direction_gradient(s, t, h, unit_.data(), nullptr, nullptr, row_.data(), nullptr);
    for (std::size_t j = 0; j < k; ++j) s.jacobian[i + j * k] = row_[j];
  }
  int info = 0;
  Teuchos::LAPACK<int, double>().GETRF(int(k), int(k), s.jacobian.data(), int(k), s.pivots.data(), &info);
  if (info != 0)
    throw SolverError("joint-midpoint variational step at t = " + std::to_string(t) + " s: the step's Jacobian " +
                      "d(D1 L_d)/d(alpha_{n+1}) is singular (a singular configuration of the joints, or a step too "
                      "large)");
}

void JointMidpointVariational::advance(const assembly::State& state, double t, double h, long long step_index,
                                       bool factorize_last, Step& s) {
  const auto k = std::size_t(tree_->size());
  s.start.t = t;
  equations_->joint_state(state, t, s.start.alpha, s.start.p_hat);
  equations_->evaluate(s.start);  // beta_n for the predictor
  s.end.t = t + h;
  for (std::size_t j = 0; j < k; ++j) s.end.alpha[j] = s.start.alpha[j] + h * s.start.beta[j];
  const Teuchos::LAPACK<int, double> lapack;
  double increment = 0.0;
  for (int iteration = 1; iteration <= settings_.max_newton_iterations; ++iteration) {
    // E = p_n + D1 L_d^J + f_d^{J-} (Schubert et al. 2024, eq. (16)).
    discrete_momenta(s, t, h, residual_, nullptr);
    for (std::size_t j = 0; j < k; ++j) residual_[j] = -(residual_[j] + s.start.p_hat[j]);
    // Simplified Newton: the Jacobian of the predictor for all iterations (it changes by O(h) over the step).
    if (iteration == 1) factorize_jacobian(s, t, h);
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
      // p_{n+1} = D2 L_d^J + f_d^{J+} at the converged alpha_{n+1}, then q = g(alpha_{n+1}) and v = H beta.
      discrete_momenta(s, t, h, residual_, &s.end.p_hat);
      if (factorize_last) factorize_jacobian(s, t, h);
      equations_->evaluate(s.end);
      return;
    }
  }
  std::ostringstream message;
  message << "Newton iteration of the joint-midpoint variational integrator failed at step " << step_index
          << ", t = " << t + h << " s: last increment " << increment
          << " of the joint coordinates. Try a smaller integrator.step_size or more integrator.max_newton_iterations.";
  throw SolverError(message.str());
}

StepStatistics JointMidpointVariational::step(assembly::State& state, double t, double h, long long step_index) {
  current_step_ = step_index;
  advance(state, t, h, step_index, false, forward_);
  state.q = forward_.end.state.q;
  state.v = forward_.end.state.v;
  solve_consistent_accelerations(state, t + h);
  return forward_.statistics;
}

// ---- the discrete adjoint ------------------------------------------------------------------------------------

void JointMidpointVariational::begin_adjoint(storage::Trajectory& trajectory) {
  tree_->refresh(assembler_.model());
  assembler_.assemble(trajectory.step(0), trajectory.step_times()[0], assembly::ConstraintLevel::Acceleration, 1.0,
                      &kMassOnly);
  begin_adjoint_solver();
  begin_carried_adjoint();
}

void JointMidpointVariational::recompute_step(const assembly::State& previous, double t, double h) {
  advance(previous, t, h, current_step_, true, recomputed_);
}

// On entry (q_bar_, v_bar_) = dJ/d(q_{n+1}, v_{n+1}); on exit the carry holds dJ/d(q_n, v_n) through this step
// (Schubert et al. 2024, eq. (18), in the integrator's own unknowns).
void JointMidpointVariational::transpose_step(double t, double t_next, assembly::LocalGradient& gradient) {
  const auto k = std::size_t(tree_->size());
  const double h = t_next - t;
  Step& s = recomputed_;
  // (alpha_{n+1}, p_{n+1}) -> (q_{n+1}, v_{n+1}).
  equations_->absolute_state_transposed(s.end, q_bar_, v_bar_, end_alpha_bar_, end_p_bar_, gradient);
  // p_{n+1} = D2 L_d^J + f^+: p_bar . D2 differentiated in alpha_n, alpha_{n+1} and the parameters.
  std::fill(start_alpha_bar_.begin(), start_alpha_bar_.end(), 0.0);
  direction_gradient(s, t, h, nullptr, end_p_bar_.data(), start_alpha_bar_.data(), end_alpha_bar_.data(), &gradient);
  // The adjoint of the discrete Euler-Lagrange equation E: (dE/d alpha_{n+1})^T lambda = -alpha_bar_{n+1}.
  for (std::size_t j = 0; j < k; ++j) lambda_[j] = -end_alpha_bar_[j];
  int info = 0;
  Teuchos::LAPACK<int, double>().GETRS('T', int(k), 1, s.jacobian.data(), int(k), s.pivots.data(), lambda_.data(),
                                       int(k), &info);
  // E = p_n + D1 L_d^J + f^-: lambda . D1 in alpha_n and the parameters (alpha_{n+1} is eliminated by lambda);
  // p_n enters E with the identity.
  direction_gradient(s, t, h, lambda_.data(), nullptr, start_alpha_bar_.data(), nullptr, &gradient);
  // (q_n, v_n) -> (alpha_n, p_n).
  std::fill(carry_q_.begin(), carry_q_.end(), 0.0);
  std::fill(carry_v_.begin(), carry_v_.end(), 0.0);
  equations_->joint_state_transposed(previous_, t, s.start.alpha, start_alpha_bar_, lambda_, carry_q_, carry_v_,
                                     gradient);
}

double JointMidpointVariational::step_size_sensitivity(storage::Trajectory&, std::size_t) {
  throw std::logic_error("JointMidpointVariational::step_size_sensitivity: an implicit or free final time is refused "
                         "with the joint-midpoint variational integrator");
}

}  // namespace flexadj::integrators
