#include "flexadj/integrators/variational.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <cmath>
#include <limits>

namespace flexadj::integrators {

Variational::Variational(assembly::Assembler& assembler, const model::IntegratorSettings& settings,
                         const linalg::LinearSolverOptions& solver_options)
    : TimeIntegrator(assembler, settings, solver_options), velocity_system_(assembler.make_state()) {
  const std::size_t n = assembler.dofs().owned_coordinates().size();
  previous_q_.assign(n, 0.0);
  previous_v_.assign(n, 0.0);
  mean_acceleration_.assign(n, 0.0);
  momentum_.assign(n, 0.0);
  impulse_.assign(assembler.dofs().owned_multipliers().size(), 0.0);
  multiplier_part_ = rcp(new Vector(assembler.system_map()));
  constraint_force_ = rcp(new Vector(assembler.system_map()));
}

std::string Variational::description() const {
  return "midpoint variational integrator (RATTLE, no numerical damping)";
}

void Variational::initialize(assembly::State& state, double t0) {
  project_initial_state(state, t0);
  // p_0 = T_v(q_0, v_0): the continuous Legendre transform (Schubert et al. 2024, sec. 2.1).
  assembler_.momentum(state, t0, state.aux);
  solve_consistent_accelerations(state, t0);
  mean_acceleration_ = state.a;
}

StepStatistics Variational::step(assembly::State& state, double t, double h, long long step_index) {
  const double t_next = t + h;
  const std::size_t n = state.q.size();
  previous_q_ = state.q;
  previous_v_ = state.v;
  // Predictor q_{n+1} = q_n + h v_n + h^2/2 (v_n - v_{n-1})/h (the scheme's own acceleration: the consistent one
  // carries stiff modes the step does not resolve, and costs more Newton iterations); impulse Lambda = h/2 lambda_n,
  // iterated as y = h Lambda.
  for (std::size_t i = 0; i < n; ++i) state.q[i] += h * state.v[i] + 0.5 * h * h * mean_acceleration_[i];
  for (std::size_t k = 0; k < impulse_.size(); ++k) impulse_[k] = 0.5 * h * h * state.lambda[k];

  // Step 1: Newton on p_n + minus - C_q(q_n)^T Lambda = 0, C(q_{n+1}) = 0 (Marsden and West 2001, sec. 3.5).
  StepStatistics statistics;
  const Comm& comm = *assembler_.comm();
  for (int iteration_count = 1; iteration_count <= settings_.max_newton_iterations; ++iteration_count) {
    assembler_.assemble_variational_step(previous_q_, state.aux, state.q, impulse_, t, h, true, nullptr);
    const auto x = newton_increment();
    double local_increment = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      state.q[i] += x[i];
      local_increment = std::max(local_increment, std::abs(x[i]));
      if (!std::isfinite(x[i])) local_increment = std::numeric_limits<double>::infinity();
    }
    for (std::size_t k = 0; k < impulse_.size(); ++k) impulse_[k] += x[n + k];
    Teuchos::reduceAll(comm, Teuchos::REDUCE_MAX, local_increment, Teuchos::outArg(statistics.increment));
    statistics.newton_iterations = iteration_count;
    if (!std::isfinite(statistics.increment)) break;

    const double reference = 1.0 + max_norm(state.q);
    if (statistics.increment <= settings_.newton_tolerance * reference) {
      // Step 2: p_hat = D2 L_d + f_d^+ at the converged q_{n+1}.
      assembler_.assemble_variational_step(previous_q_, state.aux, state.q, impulse_, t, h, false, &momentum_);
      statistics.constraint_residual = assembler_.constraint_residual_norm();
      if (statistics.constraint_residual <= settings_.newton_tolerance * reference) {
        project_momentum(state, t_next, h);
        return statistics;
      }
    }
  }
  assembler_.assemble_variational_step(previous_q_, state.aux, state.q, impulse_, t, h, false, nullptr);
  throw_newton_failure(step_index, t_next, statistics);
}

void Variational::project_momentum(assembly::State& state, double t_next, double h) {
  const std::size_t n = state.q.size();
  // Step 3: [M C_q^T; C_q 0] [v; nu] = [p_hat; -C_t] at q_{n+1}: the matrix of the consistent accelerations
  // (coefficients {0, 0, 1}); at v = 0 the velocity-level constraint residual is C_t.
  velocity_system_.q = state.q;
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  assembler_.assemble(velocity_system_, t_next, assembly::ConstraintLevel::Velocity, 1.0, &mass_only);
  {
    auto rhs = right_hand_side_->getDataNonConst(0);
    const auto residual = assembler_.residual().getData(0);
    for (std::size_t i = 0; i < n; ++i) rhs[i] = momentum_[i];
    for (std::size_t k = 0; k < state.lambda.size(); ++k) rhs[n + k] = -residual[n + k];
  }
  const auto x = solve(*right_hand_side_);
  {
    auto nu = multiplier_part_->getDataNonConst(0);
    for (std::size_t i = 0; i < n; ++i) {
      mean_acceleration_[i] = (x[i] - previous_v_[i]) / h;
      state.v[i] = x[i];
      nu[i] = 0.0;
    }
    for (std::size_t k = 0; k < state.lambda.size(); ++k) nu[n + k] = x[n + k];
  }
  // p_{n+1} = p_hat - C_q^T nu: [C_q^T nu; 0] = A [0; nu].
  assembler_.matrix()->apply(*multiplier_part_, *constraint_force_);
  const auto force = constraint_force_->getData(0);
  for (std::size_t i = 0; i < n; ++i) state.aux[i] = momentum_[i] - force[i];
  // Output: a and lambda at t_{n+1} with the factorization of the same matrix (nu/h is a first-order multiplier).
  solve_consistent_accelerations(state, t_next, true);
}

}  // namespace flexadj::integrators
