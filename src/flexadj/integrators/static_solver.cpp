#include "flexadj/integrators/static_solver.hpp"

#include "flexadj/assembly/system_vector.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

#include "flexadj/core/error.hpp"
#include "flexadj/core/progress.hpp"

namespace flexadj::integrators {

StaticSummary solve_static(assembly::Assembler& assembler, assembly::State& state,
                           const integrators::StaticSettings& settings,
                           const linalg::LinearSolverOptions& solver_options, bool progress_lines,
                           const std::vector<LoadStepObserver>& observers) {
  const auto start = std::chrono::steady_clock::now();
  const Comm& comm = *assembler.comm();
  const double t = settings.time;
  const std::size_t n = state.q.size();
  std::fill(state.v.begin(), state.v.end(), 0.0);
  std::fill(state.a.begin(), state.a.end(), 0.0);
  std::fill(state.aux.begin(), state.aux.end(), 0.0);
  const model::JacobianCoefficients stiffness{1.0, 0.0, 0.0};

  assembler.set_load_factor(0.0);
  assembler.assemble(state, t, assembly::ConstraintLevel::Position, 1.0, &stiffness);
  linalg::LinearSolverOptions options = solver_options;
  options.local_coordinate_rows = static_cast<int>(assembler.dofs().owned_coordinates().size());
  auto solver = linalg::make_linear_solver(assembler.matrix(), options);
  Vector increment(assembler.system_map()), right_hand_side(assembler.system_map());
  for (const auto& observer : observers) observer(0, 0.0, state);

  auto max_abs = [&](const std::vector<double>& x) {
    double local = 0.0, global = 0.0;
    for (double value : x) local = std::max(local, std::abs(value));
    Teuchos::reduceAll(comm, Teuchos::REDUCE_MAX, local, Teuchos::outArg(global));
    return global;
  };

  StaticSummary summary;
  Progress progress(progress_lines, comm.getRank(), settings.load_steps);
  for (int k = 1; k <= settings.load_steps; ++k) {
    const double factor = double(k) / double(settings.load_steps);
    assembler.set_load_factor(factor);
    bool converged = false;
    double step = 0.0;
    int iteration = 0;
    while (!converged && iteration < settings.max_newton_iterations) {
      ++iteration;
      assembler.assemble(state, t, assembly::ConstraintLevel::Position, 1.0, &stiffness);
      solver->update(iteration == 1 ? linalg::Pivots::Fresh : linalg::Pivots::Reuse);
      right_hand_side.update(-1.0, assembler.residual(), 0.0);
      solver->solve(right_hand_side, increment);
      const assembly::ConstSystemVectorView x(increment, n);
      double local = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        const double dq = x.coordinates()[i];
        state.q[i] += dq;
        local = std::isfinite(dq) ? std::max(local, std::abs(dq)) : std::numeric_limits<double>::infinity();
      }
      for (std::size_t i = 0; i < state.lambda.size(); ++i) state.lambda[i] += x.multipliers()[i];
      Teuchos::reduceAll(comm, Teuchos::REDUCE_MAX, local, Teuchos::outArg(step));
      if (!std::isfinite(step)) break;
      if (step <= settings.newton_tolerance * (1.0 + max_abs(state.q))) {
        assembler.assemble(state, t, assembly::ConstraintLevel::Position, 1.0, nullptr);
        converged = assembler.constraint_residual_norm() <= settings.newton_tolerance * (1.0 + max_abs(state.q));
      }
    }
    summary.newton_iterations += iteration;
    summary.max_newton_iterations = std::max(summary.max_newton_iterations, iteration);
    if (!converged) {
      assembler.assemble(state, t, assembly::ConstraintLevel::Position, 1.0, nullptr);
      std::ostringstream message;
      message << "Newton iteration failed in load step " << k << " of " << settings.load_steps << " (load factor "
              << factor << ") after " << iteration << " iterations: last increment " << step
              << ", force residual " << assembler.dynamic_residual_norm() << ", constraint residual "
              << assembler.constraint_residual_norm() << ". Try more static.load_steps or static.max_newton_iterations.";
      throw SolverError(message.str());
    }
    for (const auto& observer : observers) observer(k, factor, state);
    progress.update(k, factor, iteration);
  }
  progress.finish();
  summary.load_steps = settings.load_steps;
  assembler.assemble(state, t, assembly::ConstraintLevel::Position, 1.0, nullptr);
  summary.residual = assembler.dynamic_residual_norm();
  summary.constraint_residual = assembler.constraint_residual_norm();
  summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace flexadj::integrators
