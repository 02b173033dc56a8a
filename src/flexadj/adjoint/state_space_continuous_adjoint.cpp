#include "flexadj/adjoint/state_space_continuous_adjoint.hpp"

#include "flexadj/adjoint/dense_state_equations.hpp"
#include "flexadj/adjoint/initial_state_gradient.hpp"
#include "flexadj/core/error.hpp"

namespace flexadj::adjoint {

void check_dense_state_space(const model::Model& model, int ranks, const std::string& key) {
  const std::string why = "the continuous adjoint of the state-space form uses the dense QR decomposition of Held "
                          "and Seifried (small systems, one rank): ";
  if (ranks > 1)
    throw InputError(model.source_file, key,
                     why + "it runs on one rank, this run has " + std::to_string(ranks) +
                         "; use --adjoint discrete (the saddle-point path, any number of ranks)");
  if (model.coordinate_count() > kMaxDenseStateSpaceCoordinates)
    throw InputError(model.source_file, key,
                     why + "at most " + std::to_string(kMaxDenseStateSpaceCoordinates) +
                         " coordinates (its QR derivatives cost O(n^3 m^2) per step), the model has " +
                         std::to_string(model.coordinate_count()) + "; use --adjoint discrete");
  if (model.multiplier_count() >= model.coordinate_count())
    throw InputError(model.source_file, key,
                     why + "the model has no free motion (" + std::to_string(model.multiplier_count()) +
                         " constraints, " + std::to_string(model.coordinate_count()) + " coordinates)");
}

Gradient state_space_continuous_adjoint_gradient(assembly::Assembler& assembler,
                                                 const integrators::TimeIntegrator& integrator,
                                                 storage::Trajectory& trajectory,
                                                 const objectives::Objective& objective,
                                                 const model::ParameterSpace& parameters) {
  using Partials = objectives::Objective::Partials;
  const model::Model& model = assembler.model();
  check_dense_state_space(model, assembler.comm()->getSize(), "--adjoint");
  const std::vector<double>& times = trajectory.step_times();
  const std::size_t last = forward_grid_last_step(model, integrator, times, "--adjoint", "the continuous adjoint");
  const std::size_t n = assembler.dofs().owned_coordinates().size();

  DenseStateEquations equations(assembler);
  assembly::LocalGradient local = make_local_gradient(model, parameters);
  std::vector<double> objective_parts(times.size());
  std::vector<double> mu(n, 0.0), nu(n, 0.0), rate_q(n), rate_v(n), star_q(n), star_v(n), star_rate_q(n),
      star_rate_v(n), f_q(n), f_v(n);
  // g = J^T (mu, nu) + F_y = -d(mu, nu)/dt of eq. (18) at step `step` (the equations linearized there); with
  // weight != 0 also weight * the parameter integrand of eq. (20) into the gradient.
  auto backward_rate = [&](const assembly::State& state, std::size_t step, const std::vector<double>& m,
                        const std::vector<double>& v, double weight, std::vector<double>& out_q,
                        std::vector<double>& out_v) {
    equations.transposed_products(m, v, out_q, out_v, weight, local);
    std::fill(f_q.begin(), f_q.end(), 0.0);
    std::fill(f_v.begin(), f_v.end(), 0.0);
    objective.add_partials(assembler, times, step, state, f_q, f_v, Partials::Integrand);
    for (std::size_t i = 0; i < n; ++i) {
      out_q[i] += f_q[i];
      out_v[i] += f_v[i];
    }
  };
  auto weight = [&](std::size_t step) { return trapezoidal_weight(times, step); };

  // Eq. (17) at t1, then Heun's method backwards: with g = J^T lambda + F_y at the stored steps,
  //   lambda* = lambda_n + h g(t_n, lambda_n),  lambda_{n-1} = lambda_n + h/2 (g(t_n, lambda_n) + g(t_{n-1}, lambda*)).
  assembly::State state = trajectory.step(last);
  objective_parts[last] = objective.local_step_value(assembler, times, last, state);
  objective.add_partials(assembler, times, last, state, mu, nu, Partials::Terminal);
  equations.linearize(state, times[last]);
  backward_rate(state, last, mu, nu, weight(last), rate_q, rate_v);
  for (std::size_t step = last; step-- > 0;) {
    const double h = times[step + 1] - times[step];
    for (std::size_t i = 0; i < n; ++i) {
      star_q[i] = mu[i] + h * rate_q[i];
      star_v[i] = nu[i] + h * rate_v[i];
    }
    state = trajectory.step(step);
    objective_parts[step] = objective.local_step_value(assembler, times, step, state);
    equations.linearize(state, times[step]);
    backward_rate(state, step, star_q, star_v, 0.0, star_rate_q, star_rate_v);
    for (std::size_t i = 0; i < n; ++i) {
      mu[i] += 0.5 * h * (rate_q[i] + star_rate_q[i]);
      nu[i] += 0.5 * h * (rate_v[i] + star_rate_v[i]);
    }
    backward_rate(state, step, mu, nu, weight(step), rate_q, rate_v);
  }

  // Eq. (19): dJ/d(q0, v0) = (mu(t0), nu(t0)), through the adjoint of the initial projection.
  return initial_state_gradient(assembler, integrator, state, objective, times, objective_parts, local, mu, nu);
}

}  // namespace flexadj::adjoint
