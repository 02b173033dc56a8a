#include "flexadj/adjoint/discrete_adjoint.hpp"

#include "flexadj/integrators/simulation.hpp"

namespace flexadj::adjoint {
StoredTrajectory simulate_and_store(assembly::Assembler& assembler, integrators::GeneralizedAlpha& integrator,
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

Gradient discrete_adjoint_gradient(assembly::Assembler& assembler, const integrators::GeneralizedAlpha& integrator,
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

}  // namespace flexadj::adjoint
