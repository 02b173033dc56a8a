#include "flexadj/adjoint/hamiltonian_continuous_adjoint.hpp"

#include <algorithm>

#include "flexadj/adjoint/initial_state_gradient.hpp"

namespace flexadj::adjoint {

Gradient hamiltonian_continuous_adjoint_gradient(assembly::Assembler& assembler, integrators::Hamiltonian& integrator,
                                                 storage::Trajectory& trajectory,
                                                 const objectives::Objective& objective,
                                                 const model::ParameterSpace& parameters,
                                                 AdjointConstraintHistory* history) {
  using Partials = objectives::Objective::Partials;
  const model::Model& model = assembler.model();
  const std::vector<double>& times = trajectory.step_times();
  const std::size_t last =
      forward_grid_last_step(model, integrator, times, "--continuous-form", "the Hamiltonian continuous adjoint");
  const assembly::ScopedTransposedAssembly transposed_assembly(assembler);
  integrator.begin_adjoint(trajectory);
  const std::size_t n = assembler.dofs().owned_coordinates().size();

  assembly::LocalGradient local = make_local_gradient(model, parameters), terms = local, no_direction = local;
  std::vector<double> objective_parts(times.size());
  std::vector<double> xi(n), pi(n), rate_xi(n), rate_pi(n), star_xi(n), star_pi(n), star_rate_xi(n),
      star_rate_pi(n), h_q(n), h_v(n), q_bar(n), v_bar(n), minus_xi(n), nu(n), later_lambda;
  // point: the stored (q, v) with lambda = sigma(t) (the gauge sigma(t1) = 0; hamiltonian_continuous_adjoint.hpp).
  assembly::State state, point = assembler.make_state(), work = assembler.make_state();
  std::vector<double> sigma_bar(point.lambda.size()), lambda(point.lambda.size());
  auto load = [&](std::size_t step) {
    state = trajectory.step(step);
    integrator.hamiltonian_multipliers(state, times[step], no_direction, lambda);
    if (step == last) {
      std::fill(point.lambda.begin(), point.lambda.end(), 0.0);
    } else {
      const double h = times[step + 1] - times[step];
      for (std::size_t k = 0; k < point.lambda.size(); ++k) point.lambda[k] -= 0.5 * h * (lambda[k] + later_lambda[k]);
    }
    later_lambda = lambda;
    point.q = state.q;
    point.v = state.v;
    objective_parts[step] = objective.local_step_value(assembler, times, step, state);
    std::fill(h_q.begin(), h_q.end(), 0.0);
    std::fill(h_v.begin(), h_v.end(), 0.0);
    objective.add_partials(assembler, times, step, state, h_q, h_v, Partials::Integrand);
  };
  // (d xi/dt, d Pi/dt) at the loaded step for (xi, Pi); weight * the gradient's integrand into `local`.
  auto rate = [&](std::size_t step, const std::vector<double>& x, const std::vector<double>& p, double weight,
                  std::vector<double>& out_xi, std::vector<double>& out_pi) {
    std::fill(q_bar.begin(), q_bar.end(), 0.0);
    std::fill(sigma_bar.begin(), sigma_bar.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      v_bar[i] = p[i] + h_v[i];
      minus_xi[i] = -x[i];
    }
    terms.clear();
    // -F^T xi: v_bar = Pi + h_v - A xi, sigma_bar = -D'^T xi, q_bar = -F_q^T xi, terms = -xi . F_p.
    integrator.rate_adjoint(point, times[step], minus_xi, q_bar, v_bar, sigma_bar, terms);
    // [eta; mu] from the matrix of (6a); q_bar -= p~_q^T eta + (C_q v + C_t)_q^T mu, terms -= their p parts.
    integrator.momentum_system_adjoint(point, times[step], v_bar, &sigma_bar, out_xi, q_bar, terms);
    for (std::size_t i = 0; i < n; ++i) out_pi[i] = -h_q[i] - q_bar[i];
    if (weight != 0.0) local.add_scaled(weight, terms);
  };
  auto record = [&](std::size_t step) {
    if (history) history->record(assembler, step, times[step], point.q, xi, work);
  };
  if (history) history->reset(times.size());

  // Terminal values (A.4a)-(A.4c): xi = -nu, Pi = S_q^T - p~_q^T nu - (C_q v + C_t)_q^T epsilon.
  load(last);
  std::vector<double> s_q(n, 0.0), s_v(n, 0.0);
  objective.add_partials(assembler, times, last, state, s_q, s_v, Partials::Terminal);
  integrator.momentum_system_adjoint(point, times[last], s_v, nullptr, nu, s_q, local);
  for (std::size_t i = 0; i < n; ++i) {
    xi[i] = -nu[i];
    pi[i] = s_q[i];
  }
  record(last);
  // Heun backwards: y* = y_n - h g(t_n, y_n), y_{n-1} = y_n - h/2 (g(t_n, y_n) + g(t_{n-1}, y*)).
  rate(last, xi, pi, trapezoidal_weight(times, last), rate_xi, rate_pi);
  for (std::size_t step = last; step-- > 0;) {
    const double h = times[step + 1] - times[step];
    for (std::size_t i = 0; i < n; ++i) {
      star_xi[i] = xi[i] - h * rate_xi[i];
      star_pi[i] = pi[i] - h * rate_pi[i];
    }
    load(step);
    rate(step, star_xi, star_pi, 0.0, star_rate_xi, star_rate_pi);
    for (std::size_t i = 0; i < n; ++i) {
      xi[i] -= 0.5 * h * (rate_xi[i] + star_rate_xi[i]);
      pi[i] -= 0.5 * h * (rate_pi[i] + star_rate_pi[i]);
    }
    record(step);
    rate(step, xi, pi, trapezoidal_weight(times, step), rate_xi, rate_pi);
  }

  // Through p*(t0) = T_v(q0, v0) + D sigma(t0): dJ/dq0 = Pi - p~_q^T xi, dJ/dv0 = -T_vv^T xi; then the adjoint of the
  // initial projection.
  std::vector<double> dJ_dv(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) minus_xi[i] = -xi[i];
  integrator.add_momentum_transposed(point, times[0], minus_xi, pi, dJ_dv, local);
  return initial_state_gradient(assembler, integrator, state, objective, times, objective_parts, local, pi, dJ_dv);
}

}  // namespace flexadj::adjoint
