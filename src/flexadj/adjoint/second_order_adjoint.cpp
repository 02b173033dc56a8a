#include "flexadj/adjoint/second_order_adjoint.hpp"

#include <algorithm>

namespace flexadj::adjoint {

HessianVectorProduct second_order_adjoint(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                                          storage::Trajectory& trajectory, const objectives::Objective& objective,
                                          const model::ParameterSpace& parameters, const Gradient& direction,
                                          std::size_t checkpoint_slots) {
  const std::size_t n = assembler.dofs().owned_coordinates().size();
  // Tangent-linear sweep: the tangent of every step, kept for the backward sweep as the states are.
  assembly::LocalGradient along = make_local_gradient(assembler.model(), parameters);
  const bool on_accelerations = objective.on_accelerations();
  integrator.set_tangent_accelerations(on_accelerations);
  const std::unique_ptr<TangentTrajectory> tangents =
      tangent_linear_sweep(assembler, integrator, trajectory, direction, along, checkpoint_slots);
  storage::Trajectory& states = tangents->states();
  const std::vector<double>& times = states.step_times();
  const std::size_t steps = times.size();

  // Backward: the adjoint step of discrete_adjoint_gradient, then its derivative along the direction.
  std::vector<double> objective_parts(steps);
  assembly::LocalGradient local = make_local_gradient(assembler.model(), parameters);
  assembly::LocalGradient local_dot = make_local_gradient(assembler.model(), parameters);
  std::vector<double> dJ_dq(n), dJ_dv(n), dJ_dq_dot(n), dJ_dv_dot(n);
  // Terms on accelerations: dJ/da_n and its d/de pass to the steps' g_a (adjoint_step_with_accelerations).
  std::vector<double> dJ_da(on_accelerations ? n : 0), dJ_da_dot(dJ_da.size());
  assembly::State state = assembler.make_state(), tangent = assembler.make_state(), previous_tangent = tangent;
  const assembly::ScopedTransposedAssembly transposed_assembly(assembler);
  integrator.begin_adjoint(states);
  integrator.begin_second_order_adjoint();
  tangent = tangents->tangent(steps - 1);
  for (std::size_t step = steps; step-- > 0;) {
    state = states.step(step);
    // The tangent of step - 1 as well (the variational step's equations hold both ends); the next step's tangent.
    if (step > 0) previous_tangent = tangents->tangent(step - 1);
    objective_parts[step] = objective.local_step_value(assembler, times, step, state);
    for (auto* v : {&dJ_dq, &dJ_dv, &dJ_dq_dot, &dJ_dv_dot, &dJ_da, &dJ_da_dot}) std::fill(v->begin(), v->end(), 0.0);
    std::vector<double>* da = on_accelerations ? &dJ_da : nullptr;
    std::vector<double>* da_dot = on_accelerations ? &dJ_da_dot : nullptr;
    objective.add_partials(assembler, times, step, state, dJ_dq, dJ_dv, objectives::Objective::Partials::Discrete,
                           &local, da);
    objective.add_partials_tangent(assembler, times, step, state, tangent, dJ_dq_dot, dJ_dv_dot, da_dot, &along,
                                   &local_dot);
    if (on_accelerations) {
      integrator.adjoint_step_with_accelerations(states, step, state, dJ_dq, dJ_dv, dJ_da, local);
      integrator.second_order_adjoint_step_with_accelerations(states, step, state, tangent, previous_tangent, along,
                                                              dJ_dq_dot, dJ_dv_dot, dJ_da_dot, local_dot);
    } else {
      integrator.adjoint_step(states, step, state, dJ_dq, dJ_dv, local);
      integrator.second_order_adjoint_step(states, step, state, tangent, previous_tangent, along, dJ_dq_dot,
                                           dJ_dv_dot, local_dot);
    }
    std::swap(tangent, previous_tangent);
  }
  HessianVectorProduct result;
  const double objective_value = objective.total(assembler, times, objective_parts);
  result.gradient = reduce_gradient(assembler, objective, times, objective_value, local, dJ_dq, dJ_dv);
  result.product = reduce_gradient(assembler, objectives::Objective(), times, 0.0, local_dot, dJ_dq_dot, dJ_dv_dot);
  objective.add_control_gradient_tangent(assembler.model(), times, along.controls, result.product.controls);
  return result;
}

}  // namespace flexadj::adjoint
