#include "flexadj/integrators/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <string>

#include "flexadj/core/error.hpp"
#include "flexadj/core/progress.hpp"
#include "flexadj/integrators/end_condition.hpp"
#include "flexadj/integrators/event_location.hpp"
#include "flexadj/storage/checkpointed_trajectory.hpp"
#include "flexadj/storage/trajectory.hpp"

namespace flexadj::integrators {
namespace {

// The mean Krylov iterations per linear solve so far, for the progress line; -1 for a direct solver.
double krylov_per_solve(const TimeIntegrator& integrator) {
  const linalg::SolveCounts& counts = integrator.linear_solver().counts();
  return counts.iterative ? counts.mean_iterations() : -1.0;
}

// The last step lands exactly on end_time; a free final time divides the interval into its fixed steps; a run
// taken again has its recorded times.
double step_time(const IntegratorSettings& settings, long long n, long long steps) {
  if (settings.replayed_times) return (*settings.replayed_times)[static_cast<std::size_t>(n)];
  if (n == 0) return settings.start_time;
  if (n == steps) return settings.end_time;
  if (settings.fixed_steps > 0)
    return settings.start_time + double(n) * (settings.end_time - settings.start_time) / double(steps);
  return settings.start_time + double(n) * settings.step_size;
}

// The step-size factor after a step with error estimate `error` (<= 1: accepted): the standard controller for a
// local error of order 3 (Hairer, Norsett and Wanner 1993, sec. II.4, eq. (4.13)) with safety factor 0.9, limited
// to [0.2, 2]; for error 0 (a step without motion), the largest growth.
double step_factor(double error) {
  if (!(error > 0.0)) return 2.0;
  return std::min(2.0, std::max(0.2, 0.9 * std::cbrt(1.0 / error)));
}

// The most steps a run with step control may take or reject (the model reader's limit for fixed steps).
constexpr long long kMaxAdaptiveSteps = 1'000'000'000;

// simulate() with error-controlled steps from t_0 (the state initialized there): each step is taken, its local
// error estimated, and taken again smaller while the estimate exceeds 1; a step whose Newton iteration fails is
// taken again at a quarter of its size. The last step ends exactly on end_time.
void simulate_with_step_control(assembly::Assembler& assembler, TimeIntegrator& integrator, assembly::State& state,
                                const SimulationOptions& options, const std::vector<StepObserver>& observers,
                                SimulationSummary& summary) {
  const auto& settings = integrator.settings();
  const auto& control = settings.step_control;
  const double start = settings.start_time, end = settings.end_time, span = end - start;
  const double min_step = control.min_step > 0.0 ? control.min_step : 1e-12 * span;
  const double max_step = control.max_step > 0.0 ? control.max_step : span;
  double t = start, h = std::min(settings.step_size, max_step);
  assembly::State previous = state;  // sized once; copied into at every step
  Progress progress(options.progress, assembler.comm()->getRank(), start, end, options.label);
  auto failure = [&](const std::string& why) {
    std::ostringstream message;
    message.precision(10);
    message << "at t = " << t << " s: " << why << " (step control: tolerance " << control.tolerance
            << ", min_step " << min_step << " s); raise integrator.step_control.tolerance or lower min_step, or "
            << "look for a force that jumps or grows without bound there";
    return SolverError(message.str());
  };
  long long n = 0;
  bool rejected = false;
  while (t < end) {
    const double remaining = end - t;
    const bool last = h >= remaining * (1.0 - 1e-12) || remaining - h < 1e-3 * h;
    // The step from t to t_next has size t_next - t as a run taking these times again computes it (bit for bit).
    const double t_next = last ? end : t + h;
    h = t_next - t;
    if (n + summary.rejected_steps >= kMaxAdaptiveSteps)
      throw failure("more than " + std::to_string(kMaxAdaptiveSteps) + " steps taken or rejected");
    previous = state;
    StepStatistics statistics;
    try {
      statistics = integrator.step(state, t, h, n + 1);
    } catch (const SolverError& error) {
      if (h * 0.25 < min_step) {
        std::ostringstream why;
        why.precision(6);
        why << "a step of " << h << " s failed: " << error.what();
        throw failure(why.str());
      }
      state = previous;
      h *= 0.25;
      ++summary.rejected_steps;
      rejected = true;
      continue;
    }
    const double error = integrator.local_error(previous, state, h);
    // No growth right after a rejected step (Hairer, Norsett and Wanner 1993, sec. II.4).
    const double factor = rejected ? std::min(1.0, step_factor(error)) : step_factor(error);
    if (!(error <= 1.0)) {
      state = previous;
      if (h <= min_step) throw failure("the local error estimate stays above the tolerance at the smallest step");
      h = std::max(h * factor, min_step);
      ++summary.rejected_steps;
      rejected = true;
      continue;
    }
    rejected = false;
    t = t_next;
    ++n;
    // A dead band: h is kept unless it may grow by half or must shrink by a tenth. Each change of h perturbs
    // generalized-alpha's aux (it approximates a(t_n + (alpha_m - alpha_f) h)), which the position constraints of an
    // index-3 model turn into an oscillation of a and lambda (factor -(1/2 - beta)/beta per step) that the error
    // estimate sees; changing h at every step kept that oscillation alive (measured: a pendulum's accelerations
    // alternating by 50 %, a quarter of the steps rejected).
    const double kept = factor > 0.9 && factor < 1.5 ? 1.0 : factor;
    summary.smallest_step = n == 1 ? h : std::min(summary.smallest_step, h);
    summary.largest_step = std::max(summary.largest_step, h);
    summary.newton_iterations += statistics.newton_iterations;
    summary.max_newton_iterations = std::max(summary.max_newton_iterations, statistics.newton_iterations);
    summary.max_constraint_residual = std::max(summary.max_constraint_residual, statistics.constraint_residual);
    if (summary.energy_tracked) {
      double kinetic = 0.0;
      const double energy = assembler.energy(state, t, &kinetic);
      summary.max_energy_deviation = std::max(summary.max_energy_deviation, std::abs(energy - summary.initial_energy));
      summary.max_kinetic_energy = std::max(summary.max_kinetic_energy, kinetic);
    }
    for (const auto& observer : observers) observer(n, t, state);
    progress.update(n, t, statistics.newton_iterations, krylov_per_solve(integrator));
    h = std::min(h * kept, max_step);
  }
  progress.finish();
  summary.steps = n;
  summary.end_time = t;
}

}  // namespace

std::vector<double> step_times(const IntegratorSettings& settings) {
  const long long steps = settings.step_count();
  std::vector<double> times(static_cast<std::size_t>(steps) + 1);
  for (long long n = 0; n <= steps; ++n) times[static_cast<std::size_t>(n)] = step_time(settings, n, steps);
  return times;
}

results::RunDescription describe_run(const IntegratorSettings& settings) {
  return {settings.step_size, settings.spectral_radius, settings.adaptive() ? -1 : settings.step_count()};
}

SimulationSummary simulate(assembly::Assembler& assembler, TimeIntegrator& integrator, assembly::State& state,
                           const SimulationOptions& options, const std::vector<StepObserver>& observers) {
  const auto start = std::chrono::steady_clock::now();
  const auto& model = assembler.model();
  const auto& settings = integrator.settings();
  const long long steps = settings.step_count();
  SimulationSummary summary;
  summary.energy_tracked = options.track_energy && model.conservative();

  const long long first = options.first_step;
  if (first < 0 || first > steps) throw std::logic_error("simulate(): first_step outside the run");
  double t = step_time(settings, first, steps);
  // A solver failure that does not say where (a singular matrix) gets the step and the time.
  auto located = [](const SolverError& error, long long n, double time) {
    const std::string what = error.what();
    if (what.find(" at step ") != std::string::npos) return SolverError(what);
    std::ostringstream message;
    message.precision(10);
    message << "at step " << n << ", t = " << time << " s: " << what;
    return SolverError(message.str());
  };
  if (first == 0) {
    try {
      integrator.initialize(state, t);
    } catch (const SolverError& error) {
      throw located(error, 0, t);
    }
  }
  if (summary.energy_tracked) summary.initial_energy = assembler.energy(state, t, &summary.max_kinetic_energy);
  if (first == 0)
    for (const auto& observer : observers) observer(0, t, state);

  // An implicit final time: H before each step, the state and the restart data to take the last step again.
  if (settings.adaptive()) {
    if (first > 0 || settings.end_condition) throw std::logic_error("simulate(): step control cannot resume or end early");
    simulate_with_step_control(assembler, integrator, state, options, observers, summary);
    summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return summary;
  }
  const EndCondition* end = settings.end_condition.get();
  if (end && first > 0) throw std::logic_error("simulate(): a run with an end condition cannot resume");
  assembly::State previous;
  std::vector<double> restart;
  double residual = 0.0;
  if (end) {
    previous = state;
    residual = end->residual(assembler, state);
  }
  bool ended = false;
  long long last = steps;

  Progress progress(options.progress, assembler.comm()->getRank(), steps, options.label);
  for (long long n = first + 1; n <= steps && !ended; ++n) {
    double t_next = step_time(settings, n, steps);
    StepStatistics statistics;
    try {
      if (end) {
        previous = state;
        integrator.save_restart_data(restart);
      }
      statistics = integrator.step(state, t, t_next - t, n);
      if (end) {
        const double next_residual = end->residual(assembler, state);
        if (end->crossed(residual, next_residual)) {
          t_next = t + locate_end(assembler, integrator, *end, previous, restart, t, t_next - t, residual,
                                  next_residual, state, n);
          ended = true;
          last = n;
        }
        residual = next_residual;
      }
    } catch (const SolverError& error) {
      throw located(error, n, t_next);
    }
    t = t_next;
    summary.newton_iterations += statistics.newton_iterations;
    summary.max_newton_iterations = std::max(summary.max_newton_iterations, statistics.newton_iterations);
    summary.max_constraint_residual = std::max(summary.max_constraint_residual, statistics.constraint_residual);
    if (summary.energy_tracked) {
      double kinetic = 0.0;
      const double energy = assembler.energy(state, t, &kinetic);
      summary.max_energy_deviation = std::max(summary.max_energy_deviation, std::abs(energy - summary.initial_energy));
      summary.max_kinetic_energy = std::max(summary.max_kinetic_energy, kinetic);
    }
    for (const auto& observer : observers) observer(n, t, state);
    progress.update(n, t, statistics.newton_iterations, krylov_per_solve(integrator));
  }
  progress.finish();
  if (end && !ended) {
    std::ostringstream message;
    message.precision(10);
    message << "the end condition " << end->description() << " was not met by end_time = " << settings.end_time
            << " s (H = " << residual << " there); end_time bounds a run with an end condition: raise it, or check "
            << "the condition's value and direction";
    throw SolverError(message.str());
  }
  summary.steps = last;
  summary.end_time = t;
  summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

namespace {

// The steps first_step + 1 .. N (all from 0 if first_step == 0) into `trajectory`, whose recording has begun.
SimulationSummary record_steps(assembly::Assembler& assembler, TimeIntegrator& integrator, assembly::State& state,
                               storage::Trajectory& trajectory, const StepObserver& also, bool progress,
                               long long first_step) {
  SimulationOptions options;
  options.progress = progress;
  options.label = "forward";
  options.track_energy = false;
  options.first_step = first_step;
  const SimulationSummary summary =
      simulate(assembler, integrator, state, options,
               {[&](long long n, double t, const assembly::State& s) {
                 trajectory.record(n, t, s);
                 if (also) also(n, t, s);
               }});
  trajectory.end_recording();
  return summary;
}

}  // namespace

SimulationSummary record_forward_run(assembly::Assembler& assembler, TimeIntegrator& integrator,
                                     assembly::State& state, storage::Trajectory& trajectory,
                                     const StepObserver& also, bool progress) {
  trajectory.begin_recording();
  return record_steps(assembler, integrator, state, trajectory, also, progress, 0);
}

SimulationSummary resume_forward_run(assembly::Assembler& assembler, TimeIntegrator& integrator,
                                     assembly::State& state, storage::CheckpointedTrajectory& trajectory,
                                     std::size_t from, const StepObserver& also, bool progress) {
  integrator.initialize(state, integrator.settings().start_time);
  trajectory.resume_recording(from, state);
  return record_steps(assembler, integrator, state, trajectory, also, progress, static_cast<long long>(from));
}

void resume_recorded_run(TimeIntegrator& integrator, assembly::State& state,
                         storage::CheckpointedTrajectory& trajectory) {
  integrator.initialize(state, integrator.settings().start_time);
  trajectory.resume_recorded();
}

}  // namespace flexadj::integrators
