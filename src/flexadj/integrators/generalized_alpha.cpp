#include "flexadj/integrators/generalized_alpha.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::integrators {

GeneralizedAlphaCoefficients GeneralizedAlphaCoefficients::from_spectral_radius(double rho) {
  GeneralizedAlphaCoefficients c;
  c.alpha_m = (2.0 * rho - 1.0) / (rho + 1.0);
  c.alpha_f = rho / (rho + 1.0);
  c.gamma = 0.5 + c.alpha_f - c.alpha_m;
  c.beta = 0.25 * (c.gamma + 0.5) * (c.gamma + 0.5);
  return c;
}

GeneralizedAlphaCoefficients GeneralizedAlphaCoefficients::hht(double rho) {
  GeneralizedAlphaCoefficients c;
  c.alpha_m = 0.0;
  c.alpha_f = (1.0 - rho) / (1.0 + rho);
  c.gamma = 0.5 + c.alpha_f;
  c.beta = 0.25 * (1.0 + c.alpha_f) * (1.0 + c.alpha_f);
  return c;
}

StepJacobian GeneralizedAlpha::step_jacobian(double h) const {
  const auto& c = coefficients_;
  const double scale = c.beta * h * h;
  const double c_a = (1.0 - c.alpha_m) / (1.0 - c.alpha_f);
  return {scale, {1.0, c.gamma / (c.beta * h), c_a / scale}};
}

GeneralizedAlpha::GeneralizedAlpha(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
                                   const linalg::LinearSolverOptions& solver_options, Variant variant)
    : TimeIntegrator(assembler, settings, solver_options),
      variant_(variant),
      coefficients_(variant == Variant::Hht ? GeneralizedAlphaCoefficients::hht(settings.spectral_radius)
                                            : GeneralizedAlphaCoefficients::from_spectral_radius(settings.spectral_radius)),
      last_increment_(assembler.system_map()->getNodeNumElements(), 0.0) {}

std::string GeneralizedAlpha::description() const {
  std::ostringstream out;
  out.precision(4);
  out << (variant_ == Variant::Hht ? "HHT" : "generalized-alpha") << ", rho_inf = " << settings_.spectral_radius
      << " (alpha_m = " << coefficients_.alpha_m << ", alpha_f = " << coefficients_.alpha_f << ")";
  return out.str();
}

// The estimate of Zienkiewicz and Xie 1991 for Newmark's method, e = (beta - 1/6) h^3 da/dt ~ (beta - 1/6) h^2
// (a_{n+1} - a_n), carried over to generalized-alpha: aux_n approximates a(t_n + (alpha_m - alpha_f) h) to second
// order (Arnold and Bruls 2007, sec. 3), and the Taylor expansion of the position update then leaves
// h^3 (beta - gamma/2 + 1/12) da/dt (gamma = 1/2 - alpha_m + alpha_f; beta - 1/6 for alpha_m = alpha_f, Newmark's).
double GeneralizedAlpha::local_error(const assembly::State& before, const assembly::State& after, double h) const {
  const auto& c = coefficients_;
  const auto& control = settings_.step_control;
  const double factor = std::abs(c.beta - 0.5 * c.gamma + 1.0 / 12.0) * h * h;
  const double absolute = control.absolute_tolerance > 0.0 ? control.absolute_tolerance : control.tolerance;
  // Relative to |q|_inf over all coordinates, as the Newton iteration's convergence test (a coordinate held at 0 by
  // a joint is converged relative to the others only, and a scale of its own made the steps shrink without end as
  // the others grew).
  double local[2] = {0.0, 0.0};  // max_i e_i, |q|_inf
  for (std::size_t i = 0; i < after.q.size(); ++i) {
    local[0] = std::max(local[0], std::abs(after.aux[i] - before.aux[i]));
    local[1] = std::max({local[1], std::abs(before.q[i]), std::abs(after.q[i])});
    if (!std::isfinite(after.aux[i]) || !std::isfinite(after.q[i])) local[0] = std::numeric_limits<double>::infinity();
  }
  double global[2] = {0.0, 0.0};
  Teuchos::reduceAll(*assembler_.comm(), Teuchos::REDUCE_MAX, 2, local, global);
  return factor * global[0] / (absolute + control.tolerance * global[1]);
}

void GeneralizedAlpha::initialize(assembly::State& state, double t0) {
  current_step_ = 0;
  project_initial_state(state, t0);
  solve_consistent_accelerations(state, t0);
  state.aux = state.a;
}

StepStatistics GeneralizedAlpha::step(assembly::State& state, double t, double h, long long step_index) {
  const auto& c = coefficients_;
  current_step_ = step_index;
  const double t_next = t + h;
  const StepJacobian jacobian = step_jacobian(h);
  const double scale = jacobian.scale, dv_dq = jacobian.coefficients.v, da_dq = jacobian.coefficients.a;
  const model::JacobianCoefficients& iteration = jacobian.coefficients;
  const std::size_t n = state.q.size();

  // Predictor: a_{n+1} = a_n, lambda_{n+1} = lambda_n.
  previous_a_ = state.a;
  previous_aux_ = state.aux;
  for (std::size_t i = 0; i < n; ++i) {
    const double aux_next = (c.alpha_f * previous_a_[i] + (1.0 - c.alpha_f) * state.a[i] - c.alpha_m * previous_aux_[i]) /
                            (1.0 - c.alpha_m);
    state.q[i] += h * state.v[i] + h * h * ((0.5 - c.beta) * previous_aux_[i] + c.beta * aux_next);
    state.v[i] += h * ((1.0 - c.gamma) * previous_aux_[i] + c.gamma * aux_next);
  }

  StepStatistics statistics;
  const Comm& comm = *assembler_.comm();
  // Damped Newton: a full step that multiplies the residual norm by more than kDivergenceFactor is halved
  // (backtracking on |R|, Deuflhard 2004, sec. 3.1); the converged solution is the same, only the iterates
  // differ. Large steps of very flexible beams otherwise make the plain iteration wander and fail. Residuals
  // below the Newton tolerance are round-off and never damped.
  constexpr double kDivergenceFactor = 2.0;
  constexpr int kMaxHalvings = 10;
  double previous_merit = std::numeric_limits<double>::infinity(), applied_fraction = 1.0;
  int halvings = 0;
  // x = [dq; beta h^2 dlambda] (assembler.hpp).
  auto apply = [&](double fraction, const double* x) {
    for (std::size_t i = 0; i < n; ++i) {
      state.q[i] += fraction * x[i];
      state.v[i] += fraction * dv_dq * x[i];
      state.a[i] += fraction * da_dq * x[i];
    }
    const double* dlambda = x + n;
    for (std::size_t k = 0; k < state.lambda.size(); ++k) state.lambda[k] += fraction * dlambda[k] / scale;
  };
  for (int iteration_count = 1; iteration_count <= settings_.max_newton_iterations; ++iteration_count) {
    assembler_.assemble(state, t_next, assembly::ConstraintLevel::Position, scale, &iteration);
    const double merit = assembler_.residual().norm2();
    if (!std::isfinite(merit)) check_finite_residual(state, t_next, assembly::ConstraintLevel::Position, step_index);
    const bool diverging = !(merit <= kDivergenceFactor * previous_merit) &&
                           !(merit <= settings_.newton_tolerance * (1.0 + max_norm(state.q)));
    if (diverging && halvings < kMaxHalvings) {
      applied_fraction *= 0.5;
      apply(-applied_fraction, last_increment_.data());
      ++halvings;
      continue;
    }
    previous_merit = merit;
    halvings = 0;
    applied_fraction = 1.0;
    const auto x = newton_increment(iteration_count == 1 ? linalg::Pivots::Fresh : linalg::Pivots::Reuse);
    std::copy(x.begin(), x.end(), last_increment_.begin());
    apply(1.0, last_increment_.data());
    double local_increment = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      local_increment = std::max(local_increment, std::abs(x[i]));
      if (!std::isfinite(x[i])) local_increment = std::numeric_limits<double>::infinity();
    }
    Teuchos::reduceAll(comm, Teuchos::REDUCE_MAX, local_increment, Teuchos::outArg(statistics.increment));
    statistics.newton_iterations = iteration_count;
    if (!std::isfinite(statistics.increment)) break;

    const double reference = 1.0 + max_norm(state.q);
    if (statistics.increment <= settings_.newton_tolerance * reference) {
      // The constraints at the new positions (none to check in a model without multipliers: no assembly).
      if (assembler_.dofs().multiplier_count() > 0) {
        assembler_.assemble_constraint_rows(state, t_next, scale);
        statistics.constraint_residual = assembler_.constraint_residual_norm();
      }
      if (statistics.constraint_residual <= settings_.newton_tolerance * reference) {
        for (std::size_t i = 0; i < n; ++i)
          state.aux[i] = (c.alpha_f * previous_a_[i] + (1.0 - c.alpha_f) * state.a[i] - c.alpha_m * previous_aux_[i]) /
                         (1.0 - c.alpha_m);
        return statistics;
      }
    }
  }
  assembler_.assemble(state, t_next, assembly::ConstraintLevel::Position, scale, nullptr);
  throw_newton_failure(step_index, t_next, statistics);
}

void GeneralizedAlpha::begin_adjoint(storage::Trajectory& trajectory) {
  // A first assembly fixes the values' layout before the solver reads the structure.
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  assembler_.assemble(trajectory.step(0), trajectory.step_times()[0], assembly::ConstraintLevel::Acceleration, 1.0,
                      &mass_only);
  begin_adjoint_solver();
  for (auto* v : {&mu_q_next_, &mu_v_next_, &mu_aux_next_}) v->assign(coordinate_count_, 0.0);
  for (auto* v : {&g_q_, &g_v_, &g_a_, &g_aux_, &rhs_q_, &mu_r_, &y_k_, &y_d_, &y_m_, &aux_n_}) v->resize(coordinate_count_);
  mu_c_.resize(multiplier_count_);
}

void GeneralizedAlpha::save_adjoint_data(std::vector<double>& data) const {
  data = mu_q_next_;
  data.insert(data.end(), mu_v_next_.begin(), mu_v_next_.end());
  data.insert(data.end(), mu_aux_next_.begin(), mu_aux_next_.end());
}

void GeneralizedAlpha::load_adjoint_data(const std::vector<double>& data) {
  const std::size_t n = coordinate_count_;
  if (data.size() != 3 * n) throw std::invalid_argument("GeneralizedAlpha::load_adjoint_data: wrong length");
  mu_q_next_.assign(data.begin(), data.begin() + long(n));
  mu_v_next_.assign(data.begin() + long(n), data.begin() + long(2 * n));
  mu_aux_next_.assign(data.begin() + long(2 * n), data.end());
}

void GeneralizedAlpha::seek_adjoint(storage::Trajectory&, std::size_t) {
  // adjoint_step(n) reads the state of step n only: nothing but the adjoint variables to set.
  for (auto* v : {&mu_q_next_, &mu_v_next_, &mu_aux_next_}) v->assign(coordinate_count_, 0.0);
}

// With E3 = q_n - q_{n-1} - h v_{n-1} - h^2 (1/2 - beta) aux_{n-1} - h^2 beta aux_n and
// E4 = v_n - v_{n-1} - h (1 - gamma) aux_{n-1} - h gamma aux_n (docs/adjoint.md), whose multipliers of step n are
// mu_q_next_, mu_v_next_ after adjoint_step(n); E1, E2 and E5 hold h only through t_n (not formed: time-invariant
// models only, see the declaration).
double GeneralizedAlpha::step_size_sensitivity(storage::Trajectory& trajectory, std::size_t n) {
  if (n == 0) throw std::logic_error("GeneralizedAlpha::step_size_sensitivity: step 0 has no size");
  const auto& c = coefficients_;
  const std::vector<double>& times = trajectory.step_times();
  const double h = times[n] - times[n - 1];
  aux_n_ = trajectory.step(n).aux;  // a trajectory may serve one state at a time
  const assembly::State& previous = trajectory.step(n - 1);
  double local = 0.0;
  for (std::size_t i = 0; i < coordinate_count_; ++i) {
    const double dE3 = -previous.v[i] - 2.0 * h * ((0.5 - c.beta) * previous.aux[i] + c.beta * aux_n_[i]);
    const double dE4 = -(1.0 - c.gamma) * previous.aux[i] - c.gamma * aux_n_[i];
    local += mu_q_next_[i] * dE3 + mu_v_next_[i] * dE4;
  }
  double global = 0.0;
  Teuchos::reduceAll(*assembler_.comm(), Teuchos::REDUCE_SUM, local, Teuchos::outArg(global));
  return global;
}

void GeneralizedAlpha::newmark_partials(double h_next, const std::vector<double>& dJ_dq,
                                        const std::vector<double>& dJ_dv, const std::vector<double>* dJ_da,
                                        const std::vector<double>& mu_q_next, const std::vector<double>& mu_v_next,
                                        const std::vector<double>& mu_aux_next, std::vector<double>& g_q,
                                        std::vector<double>& g_v, std::vector<double>& g_a,
                                        std::vector<double>& g_aux) const {
  const auto& c = coefficients_;
  for (std::size_t i = 0; i < coordinate_count_; ++i) {
    g_q[i] = dJ_dq[i] - mu_q_next[i];
    g_v[i] = dJ_dv[i] - h_next * mu_q_next[i] - mu_v_next[i];
    // a_n enters J (terms on accelerations) and the next step's aux relation E5, alpha_f a_n.
    g_a[i] = (dJ_da ? (*dJ_da)[i] : 0.0) - c.alpha_f * mu_aux_next[i];
    g_aux[i] = -h_next * h_next * (0.5 - c.beta) * mu_q_next[i] - h_next * (1.0 - c.gamma) * mu_v_next[i] +
               c.alpha_m * mu_aux_next[i];
  }
}

// The discrete adjoint of one step (docs/adjoint.md, "Generalized-alpha"): the step residual R_{n+1} = 0 and the
// Newmark relations of q, v, aux with multipliers; the coordinate and multiplier parts solve one system with the
// transpose of the converged Newton matrix, and the Newmark multipliers pass to step n - 1 explicitly.
void GeneralizedAlpha::adjoint_step(storage::Trajectory& trajectory, std::size_t n, const assembly::State& state,
                                    std::vector<double>& dJ_dq, std::vector<double>& dJ_dv,
                                    assembly::LocalGradient& gradient) {
  adjoint_step(trajectory, n, state, dJ_dq, dJ_dv, nullptr, gradient);
}

void GeneralizedAlpha::adjoint_step_with_accelerations(storage::Trajectory& trajectory, std::size_t n,
                                                       const assembly::State& state, std::vector<double>& dJ_dq,
                                                       std::vector<double>& dJ_dv, const std::vector<double>& dJ_da,
                                                       assembly::LocalGradient& gradient) {
  adjoint_step(trajectory, n, state, dJ_dq, dJ_dv, &dJ_da, gradient);
}

void GeneralizedAlpha::adjoint_step(storage::Trajectory& trajectory, std::size_t n, const assembly::State& state,
                                    std::vector<double>& dJ_dq, std::vector<double>& dJ_dv,
                                    const std::vector<double>* dJ_da, assembly::LocalGradient& gradient) {
  using assembly::ConstraintLevel;
  const auto& c = coefficients_;
  const std::vector<double>& times = trajectory.step_times();
  const std::size_t last = times.size() - 1, size = coordinate_count_;
  const double t = times[n];
  const double h_next = n < last ? times[n + 1] - t : 0.0;
  newmark_partials(h_next, dJ_dq, dJ_dv, dJ_da, mu_q_next_, mu_v_next_, mu_aux_next_, g_q_, g_v_, g_a_, g_aux_);

  if (n > 0) {
    // [S^T C_q^T; C_q 0] [mu_r; beta h^2 mu_c] = [-(beta h^2 g_q + gamma h g_v + c_a g_a + g_aux); 0]
    const double h = t - times[n - 1];
    const StepJacobian jacobian = step_jacobian(h);
    const double scale = jacobian.scale, c_a = (1.0 - c.alpha_m) / (1.0 - c.alpha_f);
    // The spacetime adjoint's repeated steps take the matrix's factorization and the element Jacobians from the
    // step's first pass (kept_adjoint_steps.hpp).
    KeptAdjointStep* kept = kept_adjoint_step(trajectory, n);
    if (!kept) {
      // The element Jacobians of this assembly are kept for the products below (one kernel pass per element).
      assembler_.assemble_adjoint_matrix(state, t, scale, jacobian.coefficients);
      // Step n's matrix is close to step n + 1's: its pivot order serves (see fresh_adjoint_pivots_at()).
      update_adjoint_solver(fresh_adjoint_pivots_at(n) ? linalg::Pivots::Fresh : linalg::Pivots::Reuse);
      kept = keep_adjoint_step(trajectory, n);
    }
    for (std::size_t i = 0; i < size; ++i) rhs_q_[i] = scale * g_q_[i] + c.gamma * h * g_v_[i] + c_a * g_a_[i] + g_aux_[i];
    adjoint_solve(rhs_q_, -1.0, mu_r_, mu_c_, kept);
    for (double& value : mu_c_) value /= scale;
    // mu_q = -(K^T mu_r + C_q^T mu_c + g_q), mu_v = -(D^T mu_r + g_v), mu_aux = (M^T mu_r + g_a)/(1 - alpha_f)
    assembler_.kept_adjoint_products(mu_r_, mu_c_, y_k_, y_d_, y_m_, kept ? &kept->jacobians : nullptr);
    for (std::size_t i = 0; i < size; ++i) {
      mu_q_next_[i] = -(y_k_[i] + g_q_[i]);
      mu_v_next_[i] = -(y_d_[i] + g_v_[i]);
      mu_aux_next_[i] = (y_m_[i] + g_a_[i]) / (1.0 - c.alpha_f);
    }
    if (!gradient.discarded)
      assembler_.add_parameter_gradient(state, t, adjoint_vector(&mu_r_, &mu_c_), ConstraintLevel::Position, false,
                                        gradient);
    return;
  }

  // Start: aux_0 = a_0 (multiplier -g_aux), and [M^T C_q^T; C_q 0] [mu_r; mu_acc] = [-g_aux - g_a; 0]
  // from the consistent initial accelerations M a + C_q^T lambda = Q, C_acc(q, v, a) = 0.
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  assembler_.assemble(state, t, ConstraintLevel::Acceleration, 1.0, &mass_only);
  update_adjoint_solver();
  for (std::size_t i = 0; i < size; ++i) rhs_q_[i] = g_aux_[i] + g_a_[i];
  adjoint_solve(rhs_q_, -1.0, mu_r_, mu_c_);
  // dJ/dq_0 = g_q + K^T mu_r + (dC_acc/dq)^T mu_acc, dJ/dv_0 = g_v + D^T mu_r + (dC_acc/dv)^T mu_acc.
  dJ_dq = g_q_;
  dJ_dv = g_v_;
  assembler_.adjoint_products(state, t, mu_r_, {}, false, y_k_, y_d_, y_m_);
  for (std::size_t i = 0; i < size; ++i) {
    dJ_dq[i] += y_k_[i];
    dJ_dv[i] += y_d_[i];
  }
  assembler_.add_constraint_level_transposed(state, t, ConstraintLevel::Acceleration, mu_c_, dJ_dq, dJ_dv);
  assembler_.add_parameter_gradient(state, t, adjoint_vector(&mu_r_, &mu_c_), ConstraintLevel::Acceleration, false,
                                    gradient);
  keep_initial_partials(dJ_dq, dJ_dv);
  add_initial_projection_adjoint(*adjoint_solver_, state, t, dJ_dq, dJ_dv, gradient);
}

}  // namespace flexadj::integrators
