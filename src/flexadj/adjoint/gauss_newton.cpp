#include "flexadj/adjoint/gauss_newton.hpp"

#include <algorithm>

#include "flexadj/adjoint/tangent_trajectory.hpp"

namespace flexadj::adjoint {

Gradient gauss_newton_product(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                              storage::Trajectory& trajectory, const objectives::Objective& objective,
                              const model::ParameterSpace& parameters, const Gradient& direction,
                              std::size_t checkpoint_slots) {
  const std::size_t n = assembler.dofs().owned_coordinates().size();
  // Tangent-linear sweep: x_dot of every step along e, so that J_r e = r_x x_dot + r_u u_dot.
  assembly::LocalGradient along = make_local_gradient(assembler.model(), parameters);
  const bool on_accelerations = objective.on_accelerations();  // the residuals' a-parts pass to g_a
  integrator.set_tangent_accelerations(on_accelerations);
  const std::unique_ptr<TangentTrajectory> tangents =
      tangent_linear_sweep(assembler, integrator, trajectory, direction, along, checkpoint_slots);
  storage::Trajectory& states = tangents->states();
  const std::vector<double>& times = states.step_times();

  // The first-order adjoint sweep of discrete_adjoint_gradient with the partials of the linearised objective
  // sum c w (r_x x) . (r_x x_dot) in place of J's: its gradient is J_r^T (J_r e) in the states' part.
  assembly::LocalGradient local = make_local_gradient(assembler.model(), parameters);
  std::vector<double> dJ_dq(n), dJ_dv(n);
  std::vector<double> dJ_da(on_accelerations ? n : 0);
  assembly::State state = assembler.make_state(), tangent = assembler.make_state();
  const assembly::ScopedTransposedAssembly transposed_assembly(assembler);
  integrator.begin_adjoint(states);
  for (std::size_t step = times.size(); step-- > 0;) {
    state = states.step(step);
    tangent = tangents->tangent(step);
    for (auto* v : {&dJ_dq, &dJ_dv, &dJ_da}) std::fill(v->begin(), v->end(), 0.0);
    if (on_accelerations) {
      objective.add_gauss_newton_partials(assembler, times, step, state, tangent, dJ_dq, dJ_dv, &dJ_da, &along,
                                          &local);
      integrator.adjoint_step_with_accelerations(states, step, state, dJ_dq, dJ_dv, dJ_da, local);
    } else {
      objective.add_gauss_newton_partials(assembler, times, step, state, tangent, dJ_dq, dJ_dv, nullptr, &along,
                                          &local);
      integrator.adjoint_step(states, step, state, dJ_dq, dJ_dv, local);
    }
  }
  Gradient product = reduce_gradient(assembler, objectives::Objective(), times, 0.0, local, dJ_dq, dJ_dv);
  // The control-effort residuals r = sqrt(c w) u(t_n) are linear in the control values: their part of G e is their
  // part of H e (the second derivatives of the control-effort terms).
  objective.add_control_gradient_tangent(assembler.model(), times, along.controls, product.controls);
  return product;
}

}  // namespace flexadj::adjoint
