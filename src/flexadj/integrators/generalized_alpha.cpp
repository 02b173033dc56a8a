#include "flexadj/integrators/generalized_alpha.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <cmath>
#include <limits>
#include <sstream>

#include "flexadj/core/error.hpp"

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

GeneralizedAlphaCoefficients GeneralizedAlphaCoefficients::for_scheme(const std::string& scheme, double rho) {
  return scheme == "hht" ? hht(rho) : from_spectral_radius(rho);
}

GeneralizedAlpha::GeneralizedAlpha(assembly::Assembler& assembler, const model::IntegratorSettings& settings,
                                   const linalg::LinearSolverOptions& solver_options)
    : TimeIntegrator(assembler, settings, solver_options),
      coefficients_(GeneralizedAlphaCoefficients::for_scheme(settings.scheme, settings.spectral_radius)),
      last_increment_(assembler.system_map()->getNodeNumElements(), 0.0) {}

std::string GeneralizedAlpha::description() const {
  std::ostringstream out;
  out.precision(4);
  out << (settings_.scheme == "hht" ? "HHT" : "generalized-alpha") << ", rho_inf = " << settings_.spectral_radius
      << " (alpha_m = " << coefficients_.alpha_m << ", alpha_f = " << coefficients_.alpha_f << ")";
  return out.str();
}

void GeneralizedAlpha::initialize(assembly::State& state, double t0) {
  project_initial_state(state, t0);
  solve_consistent_accelerations(state, t0);
  state.aux = state.a;
}

StepStatistics GeneralizedAlpha::step(assembly::State& state, double t, double h, long long step_index) {
  const auto& c = coefficients_;
  const double t_next = t + h;
  const double scale = c.beta * h * h;
  const double dv_dq = c.gamma / (c.beta * h);
  const double da_dq = (1.0 - c.alpha_m) / ((1.0 - c.alpha_f) * c.beta * h * h);
  const model::JacobianCoefficients iteration{1.0, dv_dq, da_dq};
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
  auto apply = [&](double fraction, const double* x) {
    for (std::size_t i = 0; i < n; ++i) {
      state.q[i] += fraction * x[i];
      state.v[i] += fraction * dv_dq * x[i];
      state.a[i] += fraction * da_dq * x[i];
    }
    for (std::size_t k = 0; k < state.lambda.size(); ++k) state.lambda[k] += fraction * x[n + k] / scale;
  };
  for (int iteration_count = 1; iteration_count <= settings_.max_newton_iterations; ++iteration_count) {
    assembler_.assemble(state, t_next, assembly::ConstraintLevel::Position, scale, &iteration);
    const double merit = assembler_.residual().norm2();
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
    const auto x = newton_increment();
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
      assembler_.assemble(state, t_next, assembly::ConstraintLevel::Position, scale, nullptr);
      statistics.constraint_residual = assembler_.constraint_residual_norm();
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

}  // namespace flexadj::integrators
