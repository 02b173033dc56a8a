#include "flexadj/adjoint/discrete_adjoint.hpp"

#include <stdexcept>

#include "flexadj/integrators/simulation.hpp"
#include "flexadj/integrators/variational.hpp"

namespace flexadj::adjoint {
StoredTrajectory simulate_and_store(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                                    assembly::State initial_state) {
  StoredTrajectory trajectory;
  integrators::SimulationOptions options;
  options.progress = false;
  options.track_energy = false;
  integrators::simulate(assembler, integrator, initial_state, options,
                        {[&](long long, double t, const assembly::State& s) {
                          trajectory.times.push_back(t);
                          trajectory.states.push_back(s);
                        }});
  return trajectory;
}

namespace {

Gradient generalized_alpha_adjoint_gradient(assembly::Assembler& assembler,
                                            const integrators::GeneralizedAlpha& integrator,
                                            storage::Trajectory& trajectory, const objectives::Objective& objective,
                                            const ParameterSpace& parameters) {
  const integrators::GeneralizedAlphaCoefficients& c = integrator.coefficients();
  using assembly::ConstraintLevel;
  const auto& dofs = assembler.dofs();
  const std::size_t n = dofs.owned_coordinates().size(), m = dofs.owned_multipliers().size();
  const std::size_t last = trajectory.step_count() - 1;
  const auto& times = trajectory.step_times();

  const double objective_value = objective.value(assembler, trajectory);
  LocalGradient local(assembler.model(), parameters);
  std::vector<double> dJ_dq(n), dJ_dv(n);

  const assembly::ScopedTransposedAssembly transposed_assembly(assembler);
  // A first assembly fixes the values' layout before the solver reads the structure.
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  assembler.assemble(trajectory.step(0), times[0], ConstraintLevel::Acceleration, 1.0, &mass_only);
  // Solves with A^T: the assembler fills the transpose, the solver is the forward run's kind.
  auto solver = linalg::make_linear_solver(assembler.matrix(), integrator.solver_options());

  Vector rhs(assembler.system_map()), solution(assembler.system_map()), mu(assembler.system_map());
  // Adjoint variables of the step after the current one (zero past the last step).
  std::vector<double> mu_q_next(n, 0.0), mu_v_next(n, 0.0), mu_aux_next(n, 0.0);
  std::vector<double> g_q(n), g_v(n), g_a(n), g_aux(n), mu_r(n), mu_c(m), dq(n), dv(n), y_k(n), y_d(n), y_m(n);

  for (std::size_t step = last + 1; step-- > 0;) {
    const assembly::State& state = trajectory.step(step);
    const double t = times[step];
    const double h_next = step < last ? times[step + 1] - times[step] : 0.0;
    // Partial derivatives of J and of the next step's Newmark relations with respect to this step's state.
    std::fill(dq.begin(), dq.end(), 0.0);
    std::fill(dv.begin(), dv.end(), 0.0);
    objective.add_partials(assembler, times, step, state, dq, dv);
    for (std::size_t i = 0; i < n; ++i) {
      g_q[i] = dq[i] - mu_q_next[i];
      g_v[i] = dv[i] - h_next * mu_q_next[i] - mu_v_next[i];
      g_a[i] = -c.alpha_f * mu_aux_next[i];
      g_aux[i] = -h_next * h_next * (0.5 - c.beta) * mu_q_next[i] - h_next * (1.0 - c.gamma) * mu_v_next[i] +
                 c.alpha_m * mu_aux_next[i];
    }

    if (step > 0) {
      // [S^T C_q^T; C_q 0] [mu_r; beta h^2 mu_c] = [-(beta h^2 g_q + gamma h g_v + c_a g_a + g_aux); 0]
      const double h = t - times[step - 1];
      const double scale = c.beta * h * h;
      const double c_a = (1.0 - c.alpha_m) / (1.0 - c.alpha_f);
      const model::JacobianCoefficients iteration{1.0, c.gamma / (c.beta * h), c_a / scale};
      assembler.assemble(state, t, ConstraintLevel::Position, scale, &iteration);
      solver->update();
      {
        auto values = rhs.getDataNonConst(0);
        for (std::size_t i = 0; i < n; ++i)
          values[i] = -(scale * g_q[i] + c.gamma * h * g_v[i] + c_a * g_a[i] + g_aux[i]);
        for (std::size_t k = 0; k < m; ++k) values[n + k] = 0.0;
      }
      solver->solve(rhs, solution);
      {
        const auto x = solution.getData(0);
        for (std::size_t i = 0; i < n; ++i) mu_r[i] = x[i];
        for (std::size_t k = 0; k < m; ++k) mu_c[k] = x[n + k] / scale;
      }
      // mu_q = -(K^T mu_r + C_q^T mu_c + g_q), mu_v = -(D^T mu_r + g_v), mu_aux = (M^T mu_r + g_a)/(1 - alpha_f)
      assembler.adjoint_products(state, t, mu_r, mu_c, false, y_k, y_d, y_m);
      for (std::size_t i = 0; i < n; ++i) {
        mu_q_next[i] = -(y_k[i] + g_q[i]);
        mu_v_next[i] = -(y_d[i] + g_v[i]);
        mu_aux_next[i] = (y_m[i] + g_a[i]) / (1.0 - c.alpha_f);
      }
      {
        auto values = mu.getDataNonConst(0);
        for (std::size_t i = 0; i < n; ++i) values[i] = mu_r[i];
        for (std::size_t k = 0; k < m; ++k) values[n + k] = mu_c[k];
      }
      assembler.add_parameter_gradient(state, t, mu, ConstraintLevel::Position, false, parameters.gradient_force_offsets(),
                                       parameters.gradient_constraint_offsets(), local.parameters, local.controls);
      continue;
    }

    // Start: aux_0 = a_0 (multiplier -g_aux), and [M^T C_q^T; C_q 0] [mu_r; mu_acc] = [-g_aux - g_a; 0]
    // from the consistent initial accelerations M a + C_q^T lambda = Q, C_acc(q, v, a) = 0.
    assembler.assemble(state, t, ConstraintLevel::Acceleration, 1.0, &mass_only);
    solver->update();
    {
      auto values = rhs.getDataNonConst(0);
      for (std::size_t i = 0; i < n; ++i) values[i] = -g_aux[i] - g_a[i];
      for (std::size_t k = 0; k < m; ++k) values[n + k] = 0.0;
    }
    solver->solve(rhs, solution);
    {
      const auto x = solution.getData(0);
      for (std::size_t i = 0; i < n; ++i) mu_r[i] = x[i];
      for (std::size_t k = 0; k < m; ++k) mu_c[k] = x[n + k];
    }
    // dJ/dq_0 = g_q + K^T mu_r + (dC_acc/dq)^T mu_acc, dJ/dv_0 = g_v + D^T mu_r + (dC_acc/dv)^T mu_acc.
    dJ_dq = g_q;
    dJ_dv = g_v;
    assembler.adjoint_products(state, t, mu_r, {}, false, y_k, y_d, y_m);
    for (std::size_t i = 0; i < n; ++i) {
      dJ_dq[i] += y_k[i];
      dJ_dv[i] += y_d[i];
    }
    assembler.add_constraint_level_transposed(state, t, ConstraintLevel::Acceleration, mu_c, dJ_dq, dJ_dv);
    {
      auto values = mu.getDataNonConst(0);
      for (std::size_t i = 0; i < n; ++i) values[i] = mu_r[i];
      for (std::size_t k = 0; k < m; ++k) values[n + k] = mu_c[k];
    }
    assembler.add_parameter_gradient(state, t, mu, ConstraintLevel::Acceleration, false, parameters.gradient_force_offsets(),
                                     parameters.gradient_constraint_offsets(), local.parameters, local.controls);

    add_initial_projection_adjoint(assembler, integrator.initial_projection(), *solver, state, t, parameters, dJ_dq,
                                   dJ_dv, local);
  }
  return reduce_gradient(assembler, objective, times, objective_value, local, dJ_dq, dJ_dv);
}

// The discrete adjoint of the midpoint variational integrator (docs/adjoint.md, "The variational integrator";
// Schubert et al. 2024, eqs. (10)-(13) and sec. 3). Step k (x_{k-1} -> y_k) with x = (q, v), p = T_v(q, v):
//   E1 = T_v(q_{k-1}, v_{k-1}) + minus(q_{k-1}, q_k) - C_q(q_{k-1})^T Lambda_k,   E2 = C(q_k, t_k),
//   E3 = T_v(q_k, v_k) + C_q(q_k)^T nu_k - plus(q_{k-1}, q_k),                E4 = C_q(q_k) v_k + C_t(q_k, t_k),
// multipliers (a1, a2, a3, a4). dE/dy is block lower triangular: first (a3, a4) from the velocity system
// [M C_q^T; C_q 0] at q_k, then (a1, a2) from the transposed Newton matrix of the step. The impulses Lambda and nu
// are recovered with the same velocity factorization (their right-hand sides lie in the range of C_q^T).
Gradient variational_adjoint_gradient(assembly::Assembler& assembler, const integrators::Variational& integrator,
                                      storage::Trajectory& trajectory, const objectives::Objective& objective,
                                      const ParameterSpace& parameters) {
  using assembly::ConstraintLevel;
  const auto& dofs = assembler.dofs();
  const std::size_t n = dofs.owned_coordinates().size(), m = dofs.owned_multipliers().size();
  const std::size_t last = trajectory.step_count() - 1;
  const std::vector<double>& times = trajectory.step_times();
  const std::vector<int>& force_offsets = parameters.gradient_force_offsets();
  const std::vector<int>& constraint_offsets = parameters.gradient_constraint_offsets();

  const double objective_value = objective.value(assembler, trajectory);
  LocalGradient local(assembler.model(), parameters);
  std::vector<double> dJ_dq(n), dJ_dv(n);

  const assembly::ScopedTransposedAssembly transposed_assembly(assembler);
  // The velocity system of step 3 (Variational::project_momentum): q with v = a = lambda = 0.
  assembly::State velocity_system = assembler.make_state();
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  velocity_system.q = trajectory.step(last).q;
  assembler.assemble(velocity_system, times[last], ConstraintLevel::Velocity, 1.0, &mass_only);
  auto solver = linalg::make_linear_solver(assembler.matrix(), integrator.solver_options());

  Vector rhs(assembler.system_map()), solution(assembler.system_map()), mu(assembler.system_map());
  // x = A^{-T} [sign * coordinates; 0] with the current factorization.
  auto solve = [&](const std::vector<double>& coordinates, double sign, std::vector<double>& x_q,
                   std::vector<double>& x_c) {
    {
      auto values = rhs.getDataNonConst(0);
      for (std::size_t i = 0; i < n; ++i) values[i] = sign * coordinates[i];
      for (std::size_t k = 0; k < m; ++k) values[n + k] = 0.0;
    }
    solver->solve(rhs, solution);
    const auto x = solution.getData(0);
    for (std::size_t i = 0; i < n; ++i) x_q[i] = x[i];
    for (std::size_t k = 0; k < m; ++k) x_c[k] = x[n + k];
  };
  auto set_mu = [&](const std::vector<double>& mu_r, const std::vector<double>& mu_c) {
    auto values = mu.getDataNonConst(0);
    for (std::size_t i = 0; i < n; ++i) values[i] = mu_r.empty() ? 0.0 : mu_r[i];
    for (std::size_t k = 0; k < m; ++k) values[n + k] = mu_c.empty() ? 0.0 : mu_c[k];
  };

  // States k (current) and k - 1 (previous), q_{k+1}; multiplier_state: q_k, v_k with a multiplier set.
  assembly::State current = assembler.make_state(), previous = assembler.make_state(),
                  multiplier_state = assembler.make_state();
  const std::vector<double> zero_n(n, 0.0), zero_m(m, 0.0);
  std::vector<double> next_q(n), momentum_current(n), momentum_previous(n), momentum_hat(n), impulse_rhs(n),
      impulse(m), nu(m), nu_rhs(n);
  // Multipliers of step k + 1 (b1 of E1, b3 of E3) and of step k (a1..a4).
  std::vector<double> b1(n, 0.0), b3(n, 0.0), a1(n), a2(m), a3(n), a4(m), a3_plus_b1(n), minus_a3(n), z(n);
  std::vector<double> g_q(n), g_v(n), rhs_q(n), scratch(n), y_k(n), y_d(n), y_m(n);

  current = trajectory.step(last);
  assembler.momentum(current, times[last], momentum_current);
  for (std::size_t step = last + 1; step-- > 0;) {
    const double t = times[step];
    if (step > 0) {
      previous = trajectory.step(step - 1);
      assembler.momentum(previous, times[step - 1], momentum_previous);
    }
    std::fill(g_q.begin(), g_q.end(), 0.0);
    std::fill(g_v.begin(), g_v.end(), 0.0);
    objective.add_partials(assembler, times, step, current, g_q, g_v);

    // Velocity system at q_k, factorized once for Lambda_{k+1}, (a3, a4) and nu_k.
    velocity_system.q = current.q;
    assembler.assemble(velocity_system, t, ConstraintLevel::Velocity, 1.0, &mass_only);
    solver->update();

    // Step k + 1's dependence on x_k: E1 through T_v(q_k, v_k), minus and -C_q(q_k)^T Lambda_{k+1}, E3 through plus.
    multiplier_state.q = current.q;
    multiplier_state.v = current.v;
    if (step < last) {
      const double h_next = times[step + 1] - t;
      assembler.add_discrete_momenta_transposed(current.q, current.v, t, 0.0, zero_n, b1, g_q, g_v);
      solve(impulse_rhs, 1.0, scratch, impulse);
      for (std::size_t i = 0; i < n; ++i) minus_a3[i] = -b3[i];
      assembler.add_discrete_momenta_transposed(current.q, next_q, t, h_next, b1, minus_a3, g_q, scratch);
      multiplier_state.lambda = impulse;
      assembler.adjoint_products(multiplier_state, t, b1, {}, true, y_k, y_d, y_m);
      for (std::size_t i = 0; i < n; ++i) {
        g_q[i] -= y_k[i];
        minus_a3[i] = -b1[i];
      }
      // b1 . d(-C_q^T Lambda_{k+1})/dp at q_k, t_k.
      set_mu(minus_a3, {});
      assembler.add_parameter_gradient(multiplier_state, t, mu, ConstraintLevel::Position, true, force_offsets,
                                       constraint_offsets, local.parameters, local.controls);
    }

    if (step == 0) {
      // x_0 = (q_0, v_0); p_0 = T_v(q_0, v_0) in E1 of step 1.
      assembler.add_discrete_momenta_parameter_gradient(current.q, current.v, t, 0.0, zero_n, b1, force_offsets,
                                                        local.parameters, local.controls);
      dJ_dq = g_q;
      dJ_dv = g_v;
      add_initial_projection_adjoint(assembler, integrator.initial_projection(), *solver, current, t, parameters,
                                     dJ_dq, dJ_dv, local);
      break;
    }

    const double t_previous = times[step - 1], h = t - t_previous;
    // p_hat_k and p_{k-1} + minus(q_{k-1}, q_k) = C_q(q_{k-1})^T Lambda_k (the residual at zero impulse).
    assembler.assemble_variational_step(previous.q, momentum_previous, current.q, zero_m, t_previous, h, false,
                                        &momentum_hat);
    {
      const auto residual = assembler.residual().getData(0);
      for (std::size_t i = 0; i < n; ++i) impulse_rhs[i] = -residual[i] / h;
    }
    // [M C_q^T; C_q 0] [a3; a4] = [-g_v; 0];  C_q(q_k)^T nu_k = p_hat_k - p_k.
    solve(g_v, -1.0, a3, a4);
    for (std::size_t i = 0; i < n; ++i) nu_rhs[i] = momentum_hat[i] - momentum_current[i];
    solve(nu_rhs, 1.0, scratch, nu);

    // dE3/dq_k^T a3 + dE4/dq_k^T a4 + g_q: the right-hand side of the Newton step's transposed system.
    rhs_q = g_q;
    assembler.add_discrete_momenta_transposed(current.q, current.v, t, 0.0, zero_n, a3, rhs_q, scratch);
    multiplier_state.lambda = nu;
    assembler.adjoint_products(multiplier_state, t, a3, {}, true, y_k, y_d, y_m);
    for (std::size_t i = 0; i < n; ++i) {
      rhs_q[i] += y_k[i];
      minus_a3[i] = -a3[i];
    }
    assembler.add_constraint_level_transposed(current, t, ConstraintLevel::Velocity, a4, rhs_q, scratch);
    assembler.add_discrete_momenta_transposed(previous.q, current.q, t_previous, h, zero_n, minus_a3, scratch, rhs_q);

    // [-h d(minus)/dq_k, C_q(q_{k-1})^T; C_q(q_k), 0]^T z = [-rhs_q; 0]: a1 = -h z_q (row scale -h), a2 = z_c.
    assembler.assemble_variational_step(previous.q, momentum_previous, current.q, zero_m, t_previous, h, true, nullptr);
    solver->update();
    solve(rhs_q, -1.0, z, a2);
    for (std::size_t i = 0; i < n; ++i) a1[i] = -h * z[i];

    // Parameters and controls of step k: a1 . dE1/dp + a2 . dE2/dp + a3 . dE3/dp + a4 . dE4/dp (the constraint
    // term of E1 at q_{k-1} follows in the next iteration, with Lambda_k).
    assembler.add_discrete_momenta_parameter_gradient(previous.q, current.q, t_previous, h, a1, minus_a3,
                                                      force_offsets, local.parameters, local.controls);
    for (std::size_t i = 0; i < n; ++i) a3_plus_b1[i] = a3[i] + b1[i];
    assembler.add_discrete_momenta_parameter_gradient(current.q, current.v, t, 0.0, zero_n, a3_plus_b1,
                                                      force_offsets, local.parameters, local.controls);
    set_mu(a3, a4);
    assembler.add_parameter_gradient(multiplier_state, t, mu, ConstraintLevel::Velocity, true, force_offsets,
                                     constraint_offsets, local.parameters, local.controls);
    set_mu({}, a2);
    assembler.add_parameter_gradient(velocity_system, t, mu, ConstraintLevel::Position, true, force_offsets,
                                     constraint_offsets, local.parameters, local.controls);

    b1 = a1;
    b3 = a3;
    next_q = current.q;
    std::swap(current, previous);
    std::swap(momentum_current, momentum_previous);
  }
  return reduce_gradient(assembler, objective, times, objective_value, local, dJ_dq, dJ_dv);
}

}  // namespace

Gradient discrete_adjoint_gradient(assembly::Assembler& assembler, const integrators::TimeIntegrator& integrator,
                                   storage::Trajectory& trajectory, const objectives::Objective& objective,
                                   const ParameterSpace& parameters) {
  if (const auto* variational = dynamic_cast<const integrators::Variational*>(&integrator))
    return variational_adjoint_gradient(assembler, *variational, trajectory, objective, parameters);
  if (const auto* alpha = dynamic_cast<const integrators::GeneralizedAlpha*>(&integrator))
    return generalized_alpha_adjoint_gradient(assembler, *alpha, trajectory, objective, parameters);
  throw std::logic_error("discrete_adjoint_gradient: no discrete adjoint for " + integrator.description());
}

}  // namespace flexadj::adjoint
