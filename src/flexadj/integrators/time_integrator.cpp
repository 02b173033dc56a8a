#include "flexadj/integrators/time_integrator.hpp"

#include "flexadj/integrators/registry.hpp"
#include "flexadj/integrators/simulation.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "flexadj/assembly/system_vector.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/core/initial_state_error.hpp"

namespace flexadj::integrators {

std::vector<double> TimeIntegrator::recorded_step_times() const { return step_times(settings()); }

results::RunDescription TimeIntegrator::run_description() const { return describe_run(settings()); }

linalg::LinearSolverOptions linear_solver_options(const IntegratorSettings& settings) {
  linalg::LinearSolverOptions options;
  options.kind = settings.linear_solver;
  options.preconditioner = settings.preconditioner;
  options.overlap = settings.schwarz_overlap;
  return options;
}

double TimeIntegrator::local_error(const assembly::State&, const assembly::State&, double) const {
  throw std::logic_error("TimeIntegrator::local_error: this integrator has no error estimate (" + description() + ")");
}

void TimeIntegrator::tangent_initialize(const assembly::State&, double, const assembly::LocalGradient&,
                                        assembly::State&) {
  throw std::logic_error("TimeIntegrator: no second-order adjoint (" + description() + ")");
}
void TimeIntegrator::tangent_step(const assembly::State&, const assembly::State&, double, double,
                                  const assembly::LocalGradient&, assembly::State&) {
  throw std::logic_error("TimeIntegrator: no second-order adjoint (" + description() + ")");
}
void TimeIntegrator::begin_second_order_adjoint() {
  throw std::logic_error("TimeIntegrator: no second-order adjoint (" + description() + ")");
}
void TimeIntegrator::adjoint_step_with_accelerations(storage::Trajectory&, std::size_t, const assembly::State&,
                                                     std::vector<double>&, std::vector<double>&,
                                                     const std::vector<double>&, assembly::LocalGradient&) {
  throw std::logic_error("adjoint_step_with_accelerations: this integrator's adjoint has no accelerations (" +
                         description() + ")");
}

void TimeIntegrator::second_order_adjoint_step_with_accelerations(storage::Trajectory&, std::size_t,
                                                                  const assembly::State&, const assembly::State&,
                                                                  const assembly::State&,
                                                                  const assembly::LocalGradient&, std::vector<double>&,
                                                                  std::vector<double>&, const std::vector<double>&,
                                                                  assembly::LocalGradient&) {
  throw std::logic_error("second_order_adjoint_step_with_accelerations: this integrator's adjoint has no "
                         "accelerations (" + description() + ")");
}

void TimeIntegrator::second_order_adjoint_step(storage::Trajectory&, std::size_t, const assembly::State&,
                                               const assembly::State&, const assembly::State&,
                                               const assembly::LocalGradient&, std::vector<double>&,
                                               std::vector<double>&, assembly::LocalGradient&) {
  throw std::logic_error("TimeIntegrator: no second-order adjoint (" + description() + ")");
}

TimeIntegrator::TimeIntegrator(assembly::Assembler& assembler, const integrators::IntegratorSettings& settings,
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
  coordinate_count_ = assembler_.dofs().owned_coordinates().size();
  multiplier_count_ = assembler_.dofs().owned_multipliers().size();
  momentum_system_ = assembler_.make_state();
  projection_sigma_.assign(multiplier_count_, 0.0);
  for (std::vector<double>& products : acceleration_adjoint_products_) products.assign(coordinate_count_, 0.0);
}

void TimeIntegrator::begin_adjoint_solver(int matrix_kinds) {
  linalg::LinearSolverOptions options = solver_options_;
  kept_steps_.begin(nullptr, 0, assembler_.comm());  // kept factorizations belong to the solvers replaced here
  adjoint_solvers_.clear();
  for (int k = 0; k < matrix_kinds; ++k) adjoint_solvers_.push_back(linalg::make_linear_solver(assembler_.matrix(), options));
  fresh_adjoint_pivots_.assign(adjoint_solvers_.size(), true);
  use_adjoint_solver(0);
  adjoint_rhs_ = rcp(new Vector(assembler_.system_map()));
  adjoint_solution_ = rcp(new Vector(assembler_.system_map()));
  adjoint_mu_ = rcp(new Vector(assembler_.system_map()));
}

void TimeIntegrator::adjoint_solve(const std::vector<double>& coordinates, double factor, std::vector<double>& x_q,
                                   std::vector<double>& x_lambda, KeptAdjointStep* kept) {
  assembly::SystemVectorView(*adjoint_rhs_, coordinate_count_).assign(coordinates, factor);
  if (kept) kept->factorization->solve(*adjoint_rhs_, *adjoint_solution_);
  else adjoint_solver_->solve(*adjoint_rhs_, *adjoint_solution_);
  assembly::ConstSystemVectorView(*adjoint_solution_, coordinate_count_).extract(&x_q, &x_lambda);
}

void TimeIntegrator::keep_adjoint_steps(const storage::Trajectory* trajectory, std::size_t byte_budget) {
  kept_steps_.begin(trajectory, byte_budget, assembler_.comm());
  if (trajectory && !can_keep_adjoint_steps())
    kept_steps_.refuse("the " + settings_.scheme + " integrator takes its adjoint steps afresh at every product");
}

KeptAdjointStep* TimeIntegrator::keep_adjoint_step(const storage::Trajectory& trajectory, std::size_t n) {
  if (!kept_steps_.wants(trajectory, n)) {
    kept_steps_.count_taken_again(trajectory);
    return nullptr;
  }
  KeptAdjointStep step;
  step.factorization = adjoint_solver_->release_factorization();
  if (!step.factorization) {
    kept_steps_.refuse("the linear solver (" + adjoint_solver_->description() + ") keeps its factorization");
    return nullptr;
  }
  step.jacobians = assembler_.kept_jacobians();
  return kept_steps_.keep(n, std::move(step));
}

const Vector& TimeIntegrator::adjoint_vector(const std::vector<double>* mu_r, const std::vector<double>* mu_c) {
  assembly::SystemVectorView view(*adjoint_mu_, coordinate_count_);
  for (std::size_t i = 0; i < coordinate_count_; ++i) view.coordinates()[i] = mu_r ? (*mu_r)[i] : 0.0;
  for (std::size_t k = 0; k < multiplier_count_; ++k) view.multipliers()[k] = mu_c ? (*mu_c)[k] : 0.0;
  return *adjoint_mu_;
}

Teuchos::ArrayRCP<const double> TimeIntegrator::newton_increment(linalg::Pivots pivots) {
  right_hand_side_->update(-1.0, assembler_.residual(), 0.0);
  return solve(*right_hand_side_, pivots);
}

Teuchos::ArrayRCP<const double> TimeIntegrator::solve(const Vector& right_hand_side, linalg::Pivots pivots) {
  solver_->update(pivots);
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
  // (With the projection's target at the position level, where non-holonomic constraints have no rows.)
  auto check = [&](assembly::ConstraintLevel level, const char* what, double scale) {
    const bool positions = level == assembly::ConstraintLevel::Position;
    assembler_.assemble(state, t0, level, 1.0, nullptr, positions ? &projection_.given_q : nullptr);
    check_finite_residual(state, t0, level, 0);
    const auto [worst, residual] = assembler_.worst_constraint();
    const double tolerance = 1e-2 * scale;
    if (residual > tolerance) {
      std::ostringstream message;
      message << "the initial " << what << " violate constraint '" << model.constraints()[worst]->name() << "' ("
              << model.constraints()[worst]->type() << ") by " << residual << " (more than " << tolerance
              << "; smaller violations are projected onto the constraints); give consistent initial " << what;
      throw InitialStateError(model.source_file, "bodies", message.str());
    }
  };
  projection_.given_q = state.q;
  projection_.given_v = state.v;
  std::fill(state.lambda.begin(), state.lambda.end(), 0.0);
  check(assembly::ConstraintLevel::Position, "positions", 1.0 + max_norm(state.q));

  // Position projection: Newton on [q - q_given + C_q^T nu; C(q)] = 0.
  const model::JacobianCoefficients with_hessian{1.0, 0.0, 0.0};
  const double reference = 1.0 + max_norm(state.q);
  bool converged = false;
  double previous = std::numeric_limits<double>::infinity();
  for (int iteration = 0; iteration < settings_.max_newton_iterations && !converged; ++iteration) {
    assembler_.assemble(state, t0, assembly::ConstraintLevel::Position, 1.0, &with_hessian, &projection_.given_q);
    newton_increment();
    const assembly::ConstSystemVectorView x(*increment_, n);
    double largest = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      state.q[i] += x.coordinates()[i];
      largest = std::max(largest, std::abs(x.coordinates()[i]));
    }
    for (std::size_t k = 0; k < state.lambda.size(); ++k) state.lambda[k] += x.multipliers()[k];
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
    newton_increment();
    const assembly::ConstSystemVectorView x(*increment_, n);
    for (std::size_t i = 0; i < n; ++i) state.v[i] += x.coordinates()[i];
    x.extract(nullptr, &state.lambda);
  }
  projection_.velocity_multipliers = state.lambda;
}

void TimeIntegrator::project_positions(const std::vector<double>& target, double t, assembly::State& p,
                                       StepStatistics& statistics, linalg::Pivots first) {
  const model::JacobianCoefficients with_hessian{1.0, 0.0, 0.0};  // [I + d(C_q^T nu)/dq, C_q^T; C_q 0]
  const std::size_t n = coordinate_count_;
  p.q = target;
  std::fill(p.lambda.begin(), p.lambda.end(), 0.0);
  const double reference = 1.0 + max_norm(target);
  double previous = std::numeric_limits<double>::infinity();
  bool converged = false;
  for (int iteration = 1;; ++iteration) {
    // After convergence the residual alone (the statistics); the callers assemble their next matrices themselves.
    assembler_.assemble(p, t, assembly::ConstraintLevel::Position, 1.0, converged ? nullptr : &with_hessian, &target);
    check_finite_residual(p, t, assembly::ConstraintLevel::Position, current_step_);
    statistics.constraint_residual = assembler_.constraint_residual_norm();  // at the current q
    if (converged) break;
    if (iteration > settings_.max_newton_iterations) throw_newton_failure(current_step_, t, statistics);
    // Later iterations reuse the first one's pivot order (the same step: recomputation repeats it bit for bit).
    const auto x = newton_increment(iteration == 1 ? first : linalg::Pivots::Reuse);
    double largest = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      p.q[i] += x[i];
      largest = std::max(largest, std::abs(x[i]));
      if (!std::isfinite(x[i])) largest = std::numeric_limits<double>::infinity();
    }
    for (std::size_t k = 0; k < multiplier_count_; ++k) p.lambda[k] += x[n + k];
    Teuchos::reduceAll(*assembler_.comm(), Teuchos::REDUCE_MAX, largest, Teuchos::outArg(statistics.increment));
    statistics.newton_iterations = iteration;
    if (!std::isfinite(statistics.increment)) throw_newton_failure(current_step_, t, statistics);
    converged = statistics.increment <= 1e-13 * reference ||
                (statistics.increment <= 1e-9 * reference && statistics.increment > 0.25 * previous);
    previous = statistics.increment;
  }
}

void TimeIntegrator::position_projection_adjoint(const assembly::State& projected, const std::vector<double>& target,
                                                 double t, const std::vector<double>& q_bar,
                                                 std::vector<double>& target_bar, assembly::LocalGradient& gradient,
                                                 linalg::Pivots pivots) {
  const model::JacobianCoefficients with_hessian{1.0, 0.0, 0.0};
  assembler_.assemble(projected, t, assembly::ConstraintLevel::Position, 1.0, &with_hessian, &target);
  update_adjoint_solver(pivots);
  adjoint_solve(q_bar, -1.0, target_bar, projection_sigma_);  // target_bar holds rho here
  assembler_.add_parameter_gradient(projected, t, adjoint_vector(&target_bar, &projection_sigma_),
                                    assembly::ConstraintLevel::Position, true, gradient);
  for (double& value : target_bar) value = -value;
}

void TimeIntegrator::solve_momentum_system(const std::vector<double>& q, double t, const std::vector<double>& p,
                                           std::vector<double>& v, std::vector<double>& sigma,
                                           linalg::Pivots pivots) {
  const std::size_t n = coordinate_count_;
  // The matrix of the consistent accelerations (coefficients {0, 0, 1}); at v = 0 the velocity-level constraint
  // residual is C_t.
  momentum_system_.q = q;
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  assembler_.assemble(momentum_system_, t, assembly::ConstraintLevel::Velocity, 1.0, &mass_only);
  {
    assembly::SystemVectorView rhs(*right_hand_side_, n);
    const assembly::ConstSystemVectorView residual(assembler_.residual(), n);
    for (std::size_t i = 0; i < n; ++i) rhs.coordinates()[i] = p[i];
    for (std::size_t k = 0; k < multiplier_count_; ++k) rhs.multipliers()[k] = -residual.multipliers()[k];
  }
  solve(*right_hand_side_, pivots);
  assembly::ConstSystemVectorView(*increment_, n).extract(&v, &sigma);
}

void TimeIntegrator::solve_consistent_accelerations(assembly::State& state, double t, bool factorized,
                                                    linalg::Pivots pivots) {
  consistent_accelerations(state, t, factorized ? solver_.get() : nullptr, pivots);
}

void TimeIntegrator::solve_consistent_accelerations_with(assembly::State& state, double t,
                                                         linalg::LinearSolver& factorized) {
  consistent_accelerations(state, t, &factorized, linalg::Pivots::Fresh);
}

void TimeIntegrator::consistent_accelerations(assembly::State& state, double t, linalg::LinearSolver* factorized,
                                              linalg::Pivots pivots) {
  // [M C_q^T; C_q 0] [a; lambda] = -[M 0 - Q; C_q 0 + gamma] at a = 0, lambda = 0.
  const std::size_t n = state.q.size();
  std::fill(state.a.begin(), state.a.end(), 0.0);
  std::fill(state.lambda.begin(), state.lambda.end(), 0.0);
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  assembler_.assemble(state, t, assembly::ConstraintLevel::Acceleration, 1.0, factorized ? nullptr : &mass_only);
  check_finite_residual(state, t, assembly::ConstraintLevel::Acceleration, current_step_);
  right_hand_side_->update(-1.0, assembler_.residual(), 0.0);
  linalg::LinearSolver& solver = factorized ? *factorized : *solver_;
  if (!factorized) solver.update(pivots);
  solver.solve(*right_hand_side_, *increment_);
  assembly::ConstSystemVectorView(*increment_, n).extract(&state.a, &state.lambda);
  for (double value : state.a)
    if (!std::isfinite(value)) throw SolverError("the accelerations are not finite (singular mass matrix?)");
}

void TimeIntegrator::add_consistent_accelerations_adjoint(const assembly::State& state, double t,
                                                          const std::vector<double>& dJ_da, std::vector<double>& mu_a,
                                                          std::vector<double>& mu_acc, std::vector<double>& dJ_dq,
                                                          std::vector<double>& dJ_dv, assembly::LocalGradient& gradient) {
  using assembly::ConstraintLevel;
  adjoint_solve(dJ_da, -1.0, mu_a, mu_acc);
  std::vector<double>& y_k = acceleration_adjoint_products_[0];
  std::vector<double>& y_d = acceleration_adjoint_products_[1];
  std::vector<double>& y_m = acceleration_adjoint_products_[2];
  assembler_.adjoint_products(state, t, mu_a, {}, false, y_k, y_d, y_m);
  for (std::size_t i = 0; i < coordinate_count_; ++i) {
    dJ_dq[i] += y_k[i];
    dJ_dv[i] += y_d[i];
  }
  if (!assembler_.model().constraints().empty())
    assembler_.add_constraint_level_transposed(state, t, ConstraintLevel::Acceleration, mu_acc, dJ_dq, dJ_dv);
  if (!gradient.discarded)
    assembler_.add_parameter_gradient(state, t, adjoint_vector(&mu_a, &mu_acc), ConstraintLevel::Acceleration, false,
                                      gradient);
}

void TimeIntegrator::add_initial_projection_adjoint(linalg::LinearSolver& solver, const assembly::State& initial_state,
                                                    double t0, std::vector<double>& dJ_dq, std::vector<double>& dJ_dv,
                                                    assembly::LocalGradient& gradient) const {
  using assembly::ConstraintLevel;
  const std::size_t n = coordinate_count_;
  Vector rhs(assembler_.system_map()), solution(assembler_.system_map());
  std::vector<double> rho(n), sigma(multiplier_count_), y_k(n), y_d(n), y_m(n);
  assembly::State projected = initial_state;
  // Solves the transposed projection system of `level` for the right-hand side [-derivative; 0].
  auto solve_projection = [&](ConstraintLevel level, const std::vector<double>& multipliers,
                              const std::vector<double>& target, const std::vector<double>& derivative) {
    projected.lambda = multipliers;
    const model::JacobianCoefficients coefficients{level == ConstraintLevel::Position ? 1.0 : 0.0, 0.0, 0.0};
    assembler_.assemble(projected, t0, level, 1.0, &coefficients, &target);
    solver.update();
    assembly::SystemVectorView(rhs, n).assign(derivative, -1.0);
    solver.solve(rhs, solution);
    assembly::ConstSystemVectorView(solution, n).extract(&rho, &sigma);
  };
  // Velocities first (docs/adjoint.md, "The initial state"): with
  // v0 - v_given + C_q^T nu' = 0, C_q v0 + C_t = 0 and multipliers (rho_v, sigma_v),
  //   [I C_q^T; C_q 0] [rho_v; sigma_v] = [-dJ/dv0; 0],  dJ/dv_given = -rho_v,
  //   dJ/dq0 += d(C_q^T nu')/dq^T rho_v + (d(C_q v0 + C_t)/dq)^T sigma_v.
  solve_projection(ConstraintLevel::Velocity, projection_.velocity_multipliers, projection_.given_v, dJ_dv);
  for (std::size_t i = 0; i < n; ++i) dJ_dv[i] = -rho[i];
  assembler_.adjoint_products(projected, t0, rho, {}, true, y_k, y_d, y_m);
  for (std::size_t i = 0; i < n; ++i) dJ_dq[i] += y_k[i];
  std::fill(y_d.begin(), y_d.end(), 0.0);
  assembler_.add_constraint_level_transposed(projected, t0, ConstraintLevel::Velocity, sigma, dJ_dq, y_d);
  assembler_.add_parameter_gradient(projected, t0, solution, ConstraintLevel::Velocity, true, gradient);
  // Positions: q0 - q_given + C_q^T nu = 0, C(q0) = 0: [I + d(C_q^T nu)/dq, C_q^T; C_q 0] [rho; sigma] =
  // [-dJ/dq0; 0], dJ/dq_given = -rho.
  solve_projection(ConstraintLevel::Position, projection_.position_multipliers, projection_.given_q, dJ_dq);
  for (std::size_t i = 0; i < n; ++i) dJ_dq[i] = -rho[i];
  assembler_.add_parameter_gradient(projected, t0, solution, ConstraintLevel::Position, true, gradient);
}

void TimeIntegrator::check_finite_residual(const assembly::State& state, double t, assembly::ConstraintLevel level,
                                           long long step_index) {
  if (std::isfinite(assembler_.residual().norm2())) return;
  const std::string source = assembler_.nonfinite_source(state, t, level);
  std::ostringstream message;
  message.precision(10);
  message << "the equations of motion are not finite (NaN or Inf) at step " << step_index << ", t = " << t << " s";
  if (source.empty())
    message << " (no single component's residual is; the stiffness and mass scales may overflow)";
  else if (source.rfind("the state", 0) == 0)
    message << ": " << source << " is not finite (the iteration diverged; try a smaller integrator.step_size)";
  else
    message << ": they come from " << source << " (check its expressions, data and parameters at this time)";
  throw SolverError(message.str());
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
                                                     const integrators::IntegratorSettings& settings,
                                                     const linalg::LinearSolverOptions& solver_options) {
  const IntegratorKind& kind = integrator_kind(settings);
  // The dual-quaternion beam's discrete Lagrangian is trapezoidal in time: the RATTLE form's steps only.
  for (const auto& element : assembler.model().force_elements())
    if (element->trapezoidal_in_time() && !kind.can.trapezoidal_lagrangians)
      throw InputError(assembler.model().source_file, "integrator",
                       "'" + element->name() + "' (a beam of formulation dual_quaternion) is discretised in time by "
                       "its own trapezoidal discrete Lagrangian (Schubert et al. 2024, sec. 4.3): it needs integrator "
                       "type " + types_with([](const IntegratorKind& k) { return k.can.trapezoidal_lagrangians; }, "or") +
                       " with coordinates absolute, got type " + kind.type +
                       (kind.joint_coordinates() ? " with coordinates " + kind.coordinates : ""));
  return kind.make(assembler, settings, solver_options);
}

}  // namespace flexadj::integrators
