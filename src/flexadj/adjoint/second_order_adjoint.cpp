#include "flexadj/adjoint/second_order_adjoint.hpp"

#include <algorithm>

namespace flexadj::adjoint {

void tangent_linear_sweep(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                          storage::Trajectory& trajectory, const Gradient& direction,
                          assembly::LocalGradient& along,
                          std::vector<assembly::State>& tangents) {
  const std::vector<double>& times = trajectory.step_times();
  const std::size_t steps = times.size();
  // The direction in the sweep's layout: p_dot by component, u_dot by signal.
  std::copy(direction.parameters.begin(), direction.parameters.end(), along.parameters.begin());
  for (auto& [name, values] : along.controls)
    if (const auto it = direction.controls.find(name); it != direction.controls.end()) values = it->second;

  // The tangent of every step, kept for the backward sweep (allocated before the loop).
  tangents.assign(steps, assembler.make_state());
  assembler.scatter_global(direction.initial_coordinates, direction.initial_velocities, tangents[0]);
  integrator.tangent_initialize(trajectory.step(0), times[0], along, tangents[0]);
  for (std::size_t k = 1; k < steps; ++k) {
    tangents[k] = tangents[k - 1];
    integrator.tangent_step(trajectory.step(k), times[k - 1], times[k] - times[k - 1], along, tangents[k]);
  }
}

HessianVectorProduct second_order_adjoint(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                                          storage::Trajectory& trajectory, const objectives::Objective& objective,
                                          const model::ParameterSpace& parameters, const Gradient& direction) {
  const std::size_t n = assembler.dofs().owned_coordinates().size();
  const std::vector<double>& times = trajectory.step_times();
  const std::size_t steps = times.size();
  // Tangent-linear sweep: the tangent of every step, kept for the backward sweep.
  assembly::LocalGradient along = make_local_gradient(assembler.model(), parameters);
  std::vector<assembly::State> tangents;
  tangent_linear_sweep(assembler, integrator, trajectory, direction, along, tangents);

  // Backward: the adjoint step of discrete_adjoint_gradient, then its derivative along the direction.
  std::vector<double> objective_parts(steps);
  assembly::LocalGradient local = make_local_gradient(assembler.model(), parameters);
  assembly::LocalGradient local_dot = make_local_gradient(assembler.model(), parameters);
  std::vector<double> dJ_dq(n), dJ_dv(n), dJ_dq_dot(n), dJ_dv_dot(n);
  assembly::State state = assembler.make_state();
  const assembly::ScopedTransposedAssembly transposed_assembly(assembler);
  integrator.begin_adjoint(trajectory);
  integrator.begin_second_order_adjoint();
  for (std::size_t step = steps; step-- > 0;) {
    state = trajectory.step(step);
    objective_parts[step] = objective.local_step_value(assembler, times, step, state);
    for (auto* v : {&dJ_dq, &dJ_dv, &dJ_dq_dot, &dJ_dv_dot}) std::fill(v->begin(), v->end(), 0.0);
    objective.add_partials(assembler, times, step, state, dJ_dq, dJ_dv, objectives::Objective::Partials::Discrete,
                           &local);
    objective.add_partials_tangent(assembler, times, step, state, tangents[step], dJ_dq_dot, dJ_dv_dot);
    integrator.adjoint_step(trajectory, step, state, dJ_dq, dJ_dv, local);
    integrator.second_order_adjoint_step(trajectory, step, state, tangents[step], along, dJ_dq_dot, dJ_dv_dot,
                                         local_dot);
  }
  HessianVectorProduct result;
  const double objective_value = objective.total(assembler, times, objective_parts);
  result.gradient = reduce_gradient(assembler, objective, times, objective_value, local, dJ_dq, dJ_dv);
  result.product = reduce_gradient(assembler, objectives::Objective(), times, 0.0, local_dot, dJ_dq_dot, dJ_dv_dot);
  objective.add_control_gradient_tangent(assembler.model(), times, along.controls, result.product.controls);
  return result;
}

}  // namespace flexadj::adjoint
