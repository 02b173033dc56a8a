#include "flexadj/integrators/generalized_alpha.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <cmath>
#include <limits>
#include <sstream>

#include "flexadj/core/error.hpp"

namespace flexadj::integrators {
namespace {

double max_abs(const std::vector<double>& x, const Comm& comm) {
  double local = 0.0, global = 0.0;
  for (double value : x) local = std::max(local, std::abs(value));
  Teuchos::reduceAll(comm, Teuchos::REDUCE_MAX, local, Teuchos::outArg(global));
  return global;
}

std::string format_time(double t) {
  std::ostringstream out;
  out.precision(10);
  out << t;
  return out.str();
}

}  // namespace

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
    : assembler_(assembler),
      settings_(settings),
      coefficients_(GeneralizedAlphaCoefficients::for_scheme(settings.scheme, settings.spectral_radius)) {
  // A first assembly fixes the matrix values' layout before the solver reads the structure.
  assembly::State state = assembler_.make_state();
  const model::JacobianCoefficients unit{1.0, 1.0, 1.0};
  assembler_.assemble(state, settings.start_time, assembly::ConstraintLevel::Position, 1.0, &unit);
  solver_options_ = solver_options;
  solver_options_.local_coordinate_rows = static_cast<int>(assembler_.dofs().owned_coordinates().size());
  solver_options_.transposed = false;
  solver_ = linalg::make_linear_solver(assembler_.matrix(), solver_options_);
  increment_ = rcp(new Vector(assembler_.system_map()));
  last_increment_.assign(assembler_.system_map()->getNodeNumElements(), 0.0);
  right_hand_side_ = rcp(new Vector(assembler_.system_map()));
}

Teuchos::ArrayRCP<const double> GeneralizedAlpha::newton_increment() {
  solver_->update();
  right_hand_side_->update(-1.0, assembler_.residual(), 0.0);
  solver_->solve(*right_hand_side_, *increment_);
  return increment_->getData(0);
}

void GeneralizedAlpha::initialize(assembly::State& state, double t0) {
  const auto& model = assembler_.model();
  const Comm& comm = *assembler_.comm();
  const std::size_t n = state.q.size();
  // Given states far off the constraints are mistakes in the model file, not something to project.
  auto check = [&](assembly::ConstraintLevel level, const char* what, double scale) {
    assembler_.assemble(state, t0, level, 1.0, nullptr);
    const auto [worst, residual] = assembler_.worst_constraint();
    const double tolerance = 1e-2 * scale;
    if (residual > tolerance) {
      std::ostringstream message;
      message << "the initial " << what << " violate constraint '" << model.constraints()[worst]->name() << "' ("
              << model.constraints()[worst]->type() << ") by " << residual << " (more than " << tolerance
              << "; smaller violations are projected onto the constraints); give consistent initial " << what;
      throw InputError(model.source_file, "bodies", message.str());
    }
  };
  projection_.given_q = state.q;
  projection_.given_v = state.v;
  check(assembly::ConstraintLevel::Position, "positions", 1.0 + max_abs(state.q, comm));

  // Position projection: Newton on [q - q_given + C_q^T nu; C(q)] = 0.
  std::fill(state.lambda.begin(), state.lambda.end(), 0.0);
  const model::JacobianCoefficients with_hessian{1.0, 0.0, 0.0};
  const double reference = 1.0 + max_abs(state.q, comm);
  bool converged = false;
  double previous = std::numeric_limits<double>::infinity();
  for (int iteration = 0; iteration < settings_.max_newton_iterations && !converged; ++iteration) {
    assembler_.assemble(state, t0, assembly::ConstraintLevel::Position, 1.0, &with_hessian, &projection_.given_q);
    const auto x = newton_increment();
    double largest = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      state.q[i] += x[i];
      largest = std::max(largest, std::abs(x[i]));
    }
    for (std::size_t k = 0; k < state.lambda.size(); ++k) state.lambda[k] += x[n + k];
    double global = 0.0;
    Teuchos::reduceAll(comm, Teuchos::REDUCE_MAX, largest, Teuchos::outArg(global));
    // Quadratic convergence down to round-off: stop when tiny, or when no longer decreasing near round-off.
    converged = global <= 1e-13 * reference || (global <= 1e-9 * reference && global > 0.25 * previous);
    previous = global;
  }
  if (!converged) throw SolverError("the projection of the initial positions onto the constraints did not converge");
  projection_.position_multipliers = state.lambda;

  // Velocity projection (linear): [v - v_given + C_q^T nu; C_q v + C_t] = 0.
  check(assembly::ConstraintLevel::Velocity, "velocities", 1.0 + max_abs(state.v, comm));
  std::fill(state.lambda.begin(), state.lambda.end(), 0.0);
  const model::JacobianCoefficients without_hessian{0.0, 0.0, 0.0};
  assembler_.assemble(state, t0, assembly::ConstraintLevel::Velocity, 1.0, &without_hessian, &projection_.given_v);
  {
    const auto x = newton_increment();
    for (std::size_t i = 0; i < n; ++i) state.v[i] += x[i];
    for (std::size_t k = 0; k < state.lambda.size(); ++k) state.lambda[k] = x[n + k];
  }
  projection_.velocity_multipliers = state.lambda;

  // [M C_q^T; C_q 0] [a; lambda] = -[M 0 - Q; C_q 0 + gamma] at a = 0, lambda = 0.
  std::fill(state.a.begin(), state.a.end(), 0.0);
  std::fill(state.lambda.begin(), state.lambda.end(), 0.0);
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  assembler_.assemble(state, t0, assembly::ConstraintLevel::Acceleration, 1.0, &mass_only);
  const auto x = newton_increment();
  for (std::size_t i = 0; i < n; ++i) state.a[i] = x[i];
  for (std::size_t k = 0; k < state.lambda.size(); ++k) state.lambda[k] = x[n + k];
  state.aux = state.a;
  for (double value : state.a)
    if (!std::isfinite(value)) throw SolverError("the initial accelerations are not finite (singular mass matrix?)");
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
                           !(merit <= settings_.newton_tolerance * (1.0 + max_abs(state.q, comm)));
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

    const double reference = 1.0 + max_abs(state.q, comm);
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
  std::ostringstream message;
  message << "Newton iteration failed at step " << step_index << ", t = " << format_time(t_next) << " s after "
          << statistics.newton_iterations << " iterations: last increment " << statistics.increment
          << ", constraint residual " << assembler_.constraint_residual_norm() << ", scaled dynamic residual "
          << assembler_.dynamic_residual_norm()
          << ". Try a smaller integrator.step_size or more integrator.max_newton_iterations.";
  throw SolverError(message.str());
}

}  // namespace flexadj::integrators
