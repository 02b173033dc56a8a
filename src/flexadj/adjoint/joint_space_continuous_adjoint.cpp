#include "flexadj/adjoint/joint_space_continuous_adjoint.hpp"

#include "flexadj/adjoint/initial_state_gradient.hpp"
#include "flexadj/integrators/joint_space_equations.hpp"

namespace flexadj::adjoint {

Gradient joint_space_continuous_adjoint_gradient(assembly::Assembler& assembler,
                                                 const integrators::TimeIntegrator& integrator,
                                                 storage::Trajectory& trajectory,
                                                 const objectives::Objective& objective,
                                                 const model::ParameterSpace& parameters,
                                                 AdjointConstraintHistory* history) {
  using Partials = objectives::Objective::Partials;
  const model::Model& model = assembler.model();
  const std::vector<double>& times = trajectory.step_times();
  const std::size_t last =
      forward_grid_last_step(model, integrator, times, "--adjoint", "the joint-coordinate continuous adjoint");
  const std::unique_ptr<model::JointTree> tree = integrators::make_joint_tree(assembler, "--adjoint");
  tree->refresh(model);
  integrators::JointSpaceEquations equations(assembler, *tree);
  const std::size_t n = assembler.dofs().owned_coordinates().size(), k = std::size_t(tree->size());

  assembly::LocalGradient local = make_local_gradient(model, parameters);
  std::vector<double> objective_parts(times.size());
  std::vector<double> mu(k), nu(k), rate_mu(k), rate_nu(k), star_mu(k), star_nu(k), star_rate_mu(k),
      star_rate_nu(k), h_alpha(k), h_p(k), f_q(n), f_v(n);
  // The stored state `step` in joint space, evaluated (alpha = g^-1(q), p_hat = H^T T_v).
  integrators::JointSpaceEquations::Point point = equations.make_point();
  assembly::State state;
  auto load = [&](std::size_t step) {
    state = trajectory.step(step);
    point.t = times[step];
    equations.joint_state(state, point.t, point.alpha, point.p_hat);
    equations.evaluate(point);
    objective_parts[step] = objective.local_step_value(assembler, times, step, state);
  };
  // h_y at `step` (the integrand's partials mapped to the joint space; weight times its parameter terms).
  auto integrand = [&](std::size_t step, double weight) {
    std::fill(f_q.begin(), f_q.end(), 0.0);
    std::fill(f_v.begin(), f_v.end(), 0.0);
    objective.add_partials(assembler, times, step, state, f_q, f_v, Partials::Integrand);
    equations.absolute_state_transposed(point, f_q, f_v, h_alpha, h_p, local, weight);
  };
  // g = Phi_y^T lambda + h_y = -d(lambda)/dt; with weight != 0 also weight * lambda . Phi_p into the gradient.
  auto backward_rate = [&](const std::vector<double>& m, const std::vector<double>& v, double weight,
                           std::vector<double>& out_mu, std::vector<double>& out_nu) {
    equations.rate_transposed(point, m, v, out_mu, out_nu, local, weight);
    for (std::size_t j = 0; j < k; ++j) {
      out_mu[j] += h_alpha[j];
      out_nu[j] += h_p[j];
    }
  };
  auto weight = [&](std::size_t step) { return trapezoidal_weight(times, step); };
  // xi = H xi_hat, xi_hat = -nu ([MMF22] eqs. (26), (27a)), and C_q xi.
  assembly::State work = assembler.make_state();
  std::vector<double> xi_hat(k), xi(n);
  auto record = [&](std::size_t step) {
    if (!history) return;
    for (std::size_t j = 0; j < k; ++j) xi_hat[j] = -nu[j];
    equations.directional_values(point.alpha, xi_hat.data(), nullptr, xi.data(), nullptr);
    history->record(assembler, step, times[step], state.q, xi, work);
  };
  if (history) history->reset(times.size());

  // lambda(t1) = S_y, then Heun backwards:
  //   lambda* = lambda_n + h g(t_n, lambda_n),  lambda_{n-1} = lambda_n + h/2 (g(t_n, lambda_n) + g(t_{n-1}, lambda*)).
  load(last);
  std::fill(f_q.begin(), f_q.end(), 0.0);
  std::fill(f_v.begin(), f_v.end(), 0.0);
  objective.add_partials(assembler, times, last, state, f_q, f_v, Partials::Terminal);
  equations.absolute_state_transposed(point, f_q, f_v, mu, nu, local, 1.0);
  integrand(last, weight(last));
  record(last);
  backward_rate(mu, nu, weight(last), rate_mu, rate_nu);
  for (std::size_t step = last; step-- > 0;) {
    const double h = times[step + 1] - times[step];
    for (std::size_t j = 0; j < k; ++j) {
      star_mu[j] = mu[j] + h * rate_mu[j];
      star_nu[j] = nu[j] + h * rate_nu[j];
    }
    load(step);
    integrand(step, weight(step));
    backward_rate(star_mu, star_nu, 0.0, star_rate_mu, star_rate_nu);
    for (std::size_t j = 0; j < k; ++j) {
      mu[j] += 0.5 * h * (rate_mu[j] + star_rate_mu[j]);
      nu[j] += 0.5 * h * (rate_nu[j] + star_rate_nu[j]);
    }
    record(step);
    backward_rate(mu, nu, weight(step), rate_mu, rate_nu);
  }

  // lambda(t0) through y0 = (g^-1(q0), H^T T_v(q0, v0)), then the adjoint of the initial projection.
  std::vector<double> dJ_dq(n, 0.0), dJ_dv(n, 0.0);
  equations.joint_state_transposed(state, times[0], point.alpha, mu, nu, dJ_dq, dJ_dv, local);
  return initial_state_gradient(assembler, integrator, state, objective, times, objective_parts, local, dJ_dq, dJ_dv);
}

}  // namespace flexadj::adjoint
