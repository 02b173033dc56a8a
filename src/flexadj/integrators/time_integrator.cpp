#include "flexadj/integrators/time_integrator.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <cmath>
#include <limits>
#include <sstream>

#include "flexadj/core/error.hpp"
#include "flexadj/integrators/generalized_alpha.hpp"
#include "flexadj/integrators/variational.hpp"

namespace flexadj::integrators {

TimeIntegrator::TimeIntegrator(assembly::Assembler& assembler, const model::IntegratorSettings& settings,
                               const linalg::LinearSolverOptions& solver_options)
    : assembler_(assembler), settings_(settings), solver_options_(solver_options) {
  // A first assembly fixes the matrix values' layout before the solver reads the structure.
  assembly::State state = assembler_.make_state();
  const model::JacobianCoefficients unit{1.0, 1.0, 1.0};
  assembler_.assemble(state, settings.start_time, assembly::ConstraintLevel::Position, 1.0, &unit);
  solver_options_.local_coordinate_rows = static_cast<int>(assembler_.dofs().owned_coordinates().size());
  solver_options_.transposed = false;
  solver_ = linalg::make_linear_solver(assembler_.matrix(), solver_options_);
  increment_ = rcp(new Vector(assembler_.system_map()));
  right_hand_side_ = rcp(new Vector(assembler_.system_map()));
}

Teuchos::ArrayRCP<const double> TimeIntegrator::newton_increment() {
  right_hand_side_->update(-1.0, assembler_.residual(), 0.0);
  return solve(*right_hand_side_);
}

Teuchos::ArrayRCP<const double> TimeIntegrator::solve(const Vector& right_hand_side) {
  solver_->update();
  solver_->solve(right_hand_side, *increment_);
  return increment_->getData(0);
}

double TimeIntegrator::max_norm(const std::vector<double>& x) const {
  double local = 0.0, global = 0.0;
  for (double value : x) local = std::max(local, std::abs(value));
  Teuchos::reduceAll(*assembler_.comm(), Teuchos::REDUCE_MAX, local, Teuchos::outArg(global));
  return global;
}

void TimeIntegrator::project_initial_state(assembly::State& state, double t0) {
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
  check(assembly::ConstraintLevel::Position, "positions", 1.0 + max_norm(state.q));

  // Position projection: Newton on [q - q_given + C_q^T nu; C(q)] = 0.
  std::fill(state.lambda.begin(), state.lambda.end(), 0.0);
  const model::JacobianCoefficients with_hessian{1.0, 0.0, 0.0};
  const double reference = 1.0 + max_norm(state.q);
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
  check(assembly::ConstraintLevel::Velocity, "velocities", 1.0 + max_norm(state.v));
  std::fill(state.lambda.begin(), state.lambda.end(), 0.0);
  const model::JacobianCoefficients without_hessian{0.0, 0.0, 0.0};
  assembler_.assemble(state, t0, assembly::ConstraintLevel::Velocity, 1.0, &without_hessian, &projection_.given_v);
  {
    const auto x = newton_increment();
    for (std::size_t i = 0; i < n; ++i) state.v[i] += x[i];
    for (std::size_t k = 0; k < state.lambda.size(); ++k) state.lambda[k] = x[n + k];
  }
  projection_.velocity_multipliers = state.lambda;
}

void TimeIntegrator::solve_consistent_accelerations(assembly::State& state, double t, bool factorized) {
  // [M C_q^T; C_q 0] [a; lambda] = -[M 0 - Q; C_q 0 + gamma] at a = 0, lambda = 0.
  const std::size_t n = state.q.size();
  std::fill(state.a.begin(), state.a.end(), 0.0);
  std::fill(state.lambda.begin(), state.lambda.end(), 0.0);
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  assembler_.assemble(state, t, assembly::ConstraintLevel::Acceleration, 1.0, factorized ? nullptr : &mass_only);
  right_hand_side_->update(-1.0, assembler_.residual(), 0.0);
  if (!factorized) solver_->update();
  solver_->solve(*right_hand_side_, *increment_);
  const auto x = increment_->getData(0);
  for (std::size_t i = 0; i < n; ++i) state.a[i] = x[i];
  for (std::size_t k = 0; k < state.lambda.size(); ++k) state.lambda[k] = x[n + k];
  for (double value : state.a)
    if (!std::isfinite(value)) throw SolverError("the accelerations are not finite (singular mass matrix?)");
}

void TimeIntegrator::throw_newton_failure(long long step_index, double t, const StepStatistics& statistics) const {
  std::ostringstream time;
  time.precision(10);
  time << t;
  std::ostringstream message;
  message << "Newton iteration failed at step " << step_index << ", t = " << time.str() << " s after "
          << statistics.newton_iterations << " iterations: last increment " << statistics.increment
          << ", constraint residual " << assembler_.constraint_residual_norm() << ", scaled dynamic residual "
          << assembler_.dynamic_residual_norm()
          << ". Try a smaller integrator.step_size or more integrator.max_newton_iterations.";
  throw SolverError(message.str());
}

std::unique_ptr<TimeIntegrator> make_time_integrator(assembly::Assembler& assembler,
                                                     const model::IntegratorSettings& settings,
                                                     const linalg::LinearSolverOptions& solver_options) {
  if (settings.scheme == "variational") return std::make_unique<Variational>(assembler, settings, solver_options);
  return std::make_unique<GeneralizedAlpha>(assembler, settings, solver_options);
}

}  // namespace flexadj::integrators
