#pragma once
// The forward time loop: initial conditions, steps, observers (output, tests), progress and summary.
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "flexadj/integrators/time_integrator.hpp"
#include "flexadj/results/trajectory_output.hpp"

namespace flexadj::storage {
class Trajectory;
class CheckpointedTrajectory;
}

namespace flexadj::integrators {

struct SimulationSummary {
  long long steps = 0;
  double end_time = 0.0;
  long long newton_iterations = 0;
  int max_newton_iterations = 0;
  double max_constraint_residual = 0.0;  // ||C(q_n)||_inf over all steps
  bool energy_tracked = false;           // only for conservative, scleronomic models
  double initial_energy = 0.0, max_energy_deviation = 0.0;
  double max_kinetic_energy = 0.0;       // the scale of the energy exchanged (E0 depends on the potential's zero)
  double wall_seconds = 0.0;
  // Error-controlled steps (IntegratorSettings::step_control): steps taken again smaller, and the sizes taken.
  long long rejected_steps = 0;
  double smallest_step = 0.0, largest_step = 0.0;
  // The energy scale of the run: |E0| or the largest kinetic energy (E0 alone depends on where the potential is 0).
  double energy_scale() const { return std::max({std::abs(initial_energy), max_kinetic_energy, 1e-12}); }
  // A conservative model whose energy changed by more than its energy scale: the integrator did not resolve the
  // motion (k = 1e150 gave |E - E0| = 6e117 J from E0 = 0.125 J).
  bool energy_untrustworthy() const { return energy_tracked && !(max_energy_deviation <= energy_scale()); }
};

struct SimulationOptions {
  bool progress = true;
  bool track_energy = true;
  // > 0: continue a run whose `state` (and the integrator's restart data) is already at this step: no
  // initialization, and the observers see the steps after it only.
  long long first_step = 0;
  std::string label;  // starts the progress line
};

// Observer called after initialization (step 0) and after every step: (step, t, state).
using StepObserver = std::function<void(long long, double, const assembly::State&)>;

SimulationSummary simulate(assembly::Assembler& assembler, TimeIntegrator& integrator, assembly::State& state,
                           const SimulationOptions& options, const std::vector<StepObserver>& observers);

// The times t_0 .. t_N of a run with these settings, as simulate() steps through them (the last is end_time).
std::vector<double> step_times(const IntegratorSettings& settings);
// What a trajectory file of a run with these settings says of it.
results::RunDescription describe_run(const IntegratorSettings& settings);

// The forward run of a gradient: no progress line or energy, every step recorded into `trajectory`
// (begin_recording ... end_recording). Collective.
// `also` (if given) sees every step as well (e.g. to sum the objective while the states pass).
SimulationSummary record_forward_run(assembly::Assembler& assembler, TimeIntegrator& integrator,
                                     assembly::State& state, storage::Trajectory& trajectory,
                                     const StepObserver& also = {}, bool progress = false);
// Restart from the disk checkpoints of an earlier process of the same run. `state` holds the model's initial state
// on entry: the integrator initializes from it again (the projection of the initial state, which the adjoint of
// step 0 needs, is kept by the integrator, not on disk). resume_forward_run continues the forward run from the disk
// checkpoint of step `from` (CheckpointedTrajectory::resume_recording(), then steps from + 1 .. N; `also` sees those
// steps only); resume_recorded_run takes the forward run as complete on disk (resume_recorded()).
SimulationSummary resume_forward_run(assembly::Assembler& assembler, TimeIntegrator& integrator,
                                     assembly::State& state, storage::CheckpointedTrajectory& trajectory,
                                     std::size_t from, const StepObserver& also = {}, bool progress = false);
void resume_recorded_run(TimeIntegrator& integrator, assembly::State& state,
                         storage::CheckpointedTrajectory& trajectory);

}  // namespace flexadj::integrators
