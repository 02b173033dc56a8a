#pragma once
// The forward time loop: initial conditions, steps, observers (output, tests), progress and summary.
#include <functional>
#include <vector>

#include "flexadj/integrators/time_integrator.hpp"

namespace flexadj::storage {
class Trajectory;
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
  double wall_seconds = 0.0;
};

struct SimulationOptions {
  bool progress = true;
  bool track_energy = true;
};

// Observer called after initialization (step 0) and after every step: (step, t, state).
using StepObserver = std::function<void(long long, double, const assembly::State&)>;

SimulationSummary simulate(assembly::Assembler& assembler, TimeIntegrator& integrator, assembly::State& state,
                           const SimulationOptions& options, const std::vector<StepObserver>& observers);

// The forward run of a gradient: no progress line or energy, every step recorded into `trajectory`
// (begin_recording ... end_recording). Collective.
// The times t_0 .. t_N of a run with these settings, as simulate() steps through them (the last is end_time).
std::vector<double> step_times(const IntegratorSettings& settings);

// `also` (if given) sees every step as well (e.g. to sum the objective while the states pass).
SimulationSummary record_forward_run(assembly::Assembler& assembler, TimeIntegrator& integrator,
                                     assembly::State& state, storage::Trajectory& trajectory,
                                     const StepObserver& also = {});

}  // namespace flexadj::integrators
