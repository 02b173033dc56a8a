#include "flexadj/adjoint/discrete_adjoint.hpp"

#include "flexadj/adjoint/sweep_checkpoints.hpp"
#include "flexadj/core/progress.hpp"

namespace flexadj::adjoint {

Gradient discrete_adjoint_gradient(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                                   storage::Trajectory& trajectory, const objectives::Objective& objective,
                                   const model::ParameterSpace& parameters, const SweepOptions& options) {
  SweepCheckpoints* restart = options.restart;
  const std::size_t n = assembler.dofs().owned_coordinates().size();
  const std::vector<double>& times = trajectory.step_times();
  // J from the states the sweep visits (each once): a checkpointed trajectory is never read forward again.
  std::vector<double> objective_parts(times.size());
  assembly::LocalGradient local = make_local_gradient(assembler.model(), parameters);
  std::vector<double> dJ_dq(n), dJ_dv(n);
  assembly::State state = assembler.make_state();

  const assembly::ScopedTransposedAssembly transposed_assembly(assembler);
  integrator.begin_adjoint(trajectory);
  std::size_t first = trajectory.step_count();  // the sweep takes the steps below this one
  if (restart && options.resume)
    if (const auto latest = restart->latest()) {
      restart->load(*latest, times[*latest], integrator, objective_parts, local);
      first = *latest;
    }
  const auto last = static_cast<long long>(times.size()) - 1;
  Progress progress(options.progress, assembler.comm()->getRank(), last + 1, "adjoint");
  for (std::size_t step = first; step-- > 0;) {
    state = trajectory.step(step);
    objective_parts[step] = objective.local_step_value(assembler, times, step, state);
    std::fill(dJ_dq.begin(), dJ_dq.end(), 0.0);
    std::fill(dJ_dv.begin(), dJ_dv.end(), 0.0);
    objective.add_partials(assembler, times, step, state, dJ_dq, dJ_dv);
    integrator.adjoint_step(trajectory, step, state, dJ_dq, dJ_dv, local);
    if (restart && restart->due(step)) restart->save(step, times[step], integrator, objective_parts, local);
    progress.update(last + 1 - static_cast<long long>(step), times[step], -1);
  }
  progress.finish();
  if (restart) restart->finish();
  // At step 0 the integrator turned dJ_dq, dJ_dv into the derivatives with respect to the given initial state.
  const double objective_value = objective.total(assembler, times, objective_parts);
  return reduce_gradient(assembler, objective, times, objective_value, local, dJ_dq, dJ_dv);
}

}  // namespace flexadj::adjoint
