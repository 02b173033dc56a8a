#include "flexadj/adjoint/discrete_adjoint.hpp"

#include "flexadj/adjoint/sweep_checkpoints.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/core/progress.hpp"
#include "flexadj/integrators/end_condition.hpp"

#include <Teuchos_CommHelpers.hpp>

#include <cmath>
#include <sstream>

namespace flexadj::adjoint {
namespace {

// The last step of a run that ended at an implicit final time (docs/adjoint.md, "Implicit final time"): its size
// h_N solves H(x_N) = 0, so with L = J + nu H + sum_n mu_n . E_n the stationarity in h_N,
//   dJ/dh_N + nu dH/dh_N = 0,   d./dh_N = the partial in t_N + mu_n . dE_N/dh_N of the adjoint of the partials,
// fixes nu (the multiplier tau of H at t1 of Bestle and Eberhard 1992, eq. (43), in discrete form), and the sweep continues from the last step with
// the partials dJ/dx_N + nu dH/dx_N: h_N is eliminated and dh_N/dp enters every gradient. The adjoint step is
// affine in the partials (zero after the last step), so three calls of it do: one for H, one for J, one for both.
// dJ_da: the objective's dJ/da_N if it has terms on accelerations (H has none), else nullptr.
void implicit_final_step(assembly::Assembler& assembler, integrators::TimeIntegrator& integrator,
                         storage::Trajectory& trajectory, const objectives::Objective& objective,
                         const integrators::EndCondition& end, const assembly::State& state,
                         std::vector<double>& dJ_dq, std::vector<double>& dJ_dv, const std::vector<double>* dJ_da,
                         assembly::LocalGradient& scratch, assembly::LocalGradient& gradient) {
  const std::vector<double>& times = trajectory.step_times();
  const std::size_t last = times.size() - 1;
  if (last == 0) throw std::logic_error("implicit_final_step: a run with an end condition takes a step at least");
  auto adjoint_step = [&](std::vector<double>& dq, std::vector<double>& dv, const std::vector<double>* da,
                          assembly::LocalGradient& g) {
    if (da) integrator.adjoint_step_with_accelerations(trajectory, last, state, dq, dv, *da, g);
    else integrator.adjoint_step(trajectory, last, state, dq, dv, g);
  };
  const std::size_t n = dJ_dq.size();
  std::vector<double> dH_dq(n, 0.0), dH_dv(n, 0.0), work_q(n), work_v(n);
  end.add_partials(assembler, state, dH_dq, dH_dv);
  // dH/dh_N (H holds no t explicitly).
  integrator.seek_adjoint(trajectory, last);
  work_q = dH_dq, work_v = dH_dv;
  adjoint_step(work_q, work_v, nullptr, scratch);
  const double dH_dh = integrator.step_size_sensitivity(trajectory, last);
  // dJ/dh_N: through x_N, and explicitly through t_N (quadrature weights of steps N - 1 and N, references, t_N).
  integrator.seek_adjoint(trajectory, last);
  work_q = dJ_dq, work_v = dJ_dv;
  adjoint_step(work_q, work_v, dJ_da, scratch);
  double dJ_dh = integrator.step_size_sensitivity(trajectory, last);
  std::vector<double> dt(times.size(), 0.0);
  dt[last] = 1.0;
  double local = objective.local_step_time_derivative(assembler, times, last, state, dt);
  local += objective.local_step_time_derivative(assembler, times, last - 1, trajectory.step(last - 1), dt);
  local += objective.control_time_derivative(assembler, times, dt);
  double explicit_part = 0.0;
  Teuchos::reduceAll(*assembler.comm(), Teuchos::REDUCE_SUM, local, Teuchos::outArg(explicit_part));
  dJ_dh += explicit_part;
  if (!(std::abs(dH_dh) > 0.0) || !std::isfinite(dH_dh)) {
    std::ostringstream message;
    message << "the end condition " << end.description() << " is met tangentially at t = " << times[last]
            << " s (dH/dt = " << dH_dh << " along the last step): its time has no derivative";
    throw SolverError(message.str());
  }
  const double nu = -dJ_dh / dH_dh;
  integrator.seek_adjoint(trajectory, last);
  for (std::size_t i = 0; i < n; ++i) {
    dJ_dq[i] += nu * dH_dq[i];
    dJ_dv[i] += nu * dH_dv[i];
  }
  adjoint_step(dJ_dq, dJ_dv, dJ_da, gradient);
}

}  // namespace

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
  // dJ/da_n of terms on accelerations (Objective::on_accelerations; else none is formed).
  const bool on_accelerations = objective.on_accelerations();
  std::vector<double> dJ_da(on_accelerations ? n : 0);
  std::vector<double>* da = on_accelerations ? &dJ_da : nullptr;
  assembly::State state = assembler.make_state();

  const assembly::ScopedTransposedAssembly transposed_assembly(assembler);
  integrator.begin_adjoint(trajectory);
  const integrators::IntegratorSettings& settings = integrator.settings();
  const integrators::EndCondition* end = settings.end_condition.get();
  assembly::LocalGradient scratch = make_local_gradient(assembler.model(), parameters);  // the trial adjoint steps
  // A free final time: t_n = t_0 + (n/N)(t_1 - t_0), so every h_n = (t_1 - t_0)/N and dt_n/dt_1 = (t_n - t_0)/(t_1 - t_0).
  const bool free_final_time = settings.fixed_steps > 0 && !end;
  std::vector<double> dt_dt1;
  double local_final_time = 0.0, step_terms = 0.0;  // explicit (rank-local) and through the steps (summed)
  if (free_final_time) {
    dt_dt1.resize(times.size());
    for (std::size_t k = 0; k < times.size(); ++k)
      dt_dt1[k] = (times[k] - times.front()) / (times.back() - times.front());
  }
  if ((end || free_final_time) && restart)
    throw std::logic_error("discrete_adjoint_gradient: no restart files with an implicit or free final time");
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
    std::fill(dJ_da.begin(), dJ_da.end(), 0.0);
    objective.add_partials(assembler, times, step, state, dJ_dq, dJ_dv, objectives::Objective::Partials::Discrete,
                           &local, da);
    if (end && step + 1 == times.size())
      implicit_final_step(assembler, integrator, trajectory, objective, *end, state, dJ_dq, dJ_dv, da, scratch, local);
    else if (da)
      integrator.adjoint_step_with_accelerations(trajectory, step, state, dJ_dq, dJ_dv, dJ_da, local);
    else
      integrator.adjoint_step(trajectory, step, state, dJ_dq, dJ_dv, local);
    if (options.after_step) options.after_step(step, integrator);
    if (free_final_time) {
      // dJ/dt_1 = sum_n mu_n . dE_n/dh_n / N + the explicit time dependence of J.
      if (step > 0)
        step_terms += integrator.step_size_sensitivity(trajectory, step) / double(times.size() - 1);
      local_final_time += objective.local_step_time_derivative(assembler, times, step, state, dt_dt1);
    }
    if (restart && restart->due(step)) restart->save(step, times[step], integrator, objective_parts, local);
    progress.update(last + 1 - static_cast<long long>(step), times[step], -1);
  }
  progress.finish();
  if (restart) restart->finish();
  // At step 0 the integrator turned dJ_dq, dJ_dv into the derivatives with respect to the given initial state.
  const double objective_value = objective.total(assembler, times, objective_parts);
  Gradient gradient = reduce_gradient(assembler, objective, times, objective_value, local, dJ_dq, dJ_dv);
  if (free_final_time) {
    local_final_time += objective.control_time_derivative(assembler, times, dt_dt1);
    Teuchos::reduceAll(*assembler.comm(), Teuchos::REDUCE_SUM, local_final_time,
                       Teuchos::outArg(gradient.final_time));
    gradient.final_time += step_terms;
  }
  return gradient;
}

}  // namespace flexadj::adjoint
