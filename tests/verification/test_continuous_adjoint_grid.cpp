// The continuous adjoint on its own grid (Bestle and Eberhard 1992, sec. 4: the adjoint on its own steps, the
// stored forward trajectory interpolated): the interpolation of the stored steps (adjoint/forward_interpolation.hpp)
// against a cubic it must reproduce, and the gradient over error-controlled forward steps against the
// oscillator's closed form and against central differences of a fine fixed-step run of a pendulum (index 3).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "flexadj/adjoint/forward_interpolation.hpp"
#include "gradient_support.hpp"
#include "models.hpp"

namespace flexadj::testing {
namespace {

const double kPi = std::acos(-1.0);

std::vector<double> orders(const std::vector<double>& errors) {
  std::vector<double> result;
  for (std::size_t k = 1; k < errors.size(); ++k) result.push_back(std::log2(errors[k - 1] / errors[k]));
  return result;
}

void print_row(const char* what, const std::vector<double>& errors) {
  std::printf("%-40s errors", what);
  for (double e : errors) std::printf(" %.2e", e);
  std::printf("  orders");
  for (double o : orders(errors)) std::printf(" %.2f", o);
  std::printf("\n");
}

double cubic(double t, double shift) { return shift + 0.3 * t - 1.2 * t * t + 0.7 * t * t * t; }

// Stored steps at irregular times ending in a tiny step (as a located final time leaves): every field of the
// cubic of t is reproduced to round-off at times between the steps, the stored states at the steps, and every
// step is visited once, in decreasing order, with at most the window of steps read ahead.
TEST(ForwardInterpolation, ReproducesACubicOnIrregularStepsWithATinyLastStep) {
  storage::MemoryTrajectory trajectory;
  trajectory.begin_recording();
  const std::vector<double> times{0.0, 0.1, 0.25, 0.3, 0.42, 0.6, 0.61, 0.8, 0.95, 1.0, 1.0 + 1e-9};
  assembly::State state;
  for (std::size_t k = 0; k < times.size(); ++k) {
    const double t = times[k];
    state.q = {cubic(t, 0.0), cubic(t, 1.0)};
    state.v = {cubic(t, 2.0), cubic(t, 3.0)};
    state.a = {cubic(t, 4.0), cubic(t, 5.0)};
    state.lambda = {cubic(t, 6.0)};
    trajectory.record(static_cast<long long>(k), t, state);
  }
  trajectory.end_recording();
  std::vector<std::size_t> visited;
  adjoint::InterpolatedForwardStates forward(trajectory, state,
                                             [&](std::size_t n, const assembly::State&) { visited.push_back(n); });
  double worst = 0.0;
  const int samples = 397;
  for (int j = samples; j >= 0; --j) {
    const double t = times.back() * double(j) / samples;
    const assembly::State& s = forward.at(t);
    for (int c = 0; c < 2; ++c) {
      worst = std::max(worst, std::abs(s.q[c] - cubic(t, c)));
      worst = std::max(worst, std::abs(s.v[c] - cubic(t, 2.0 + c)));
      worst = std::max(worst, std::abs(s.a[c] - cubic(t, 4.0 + c)));
    }
    worst = std::max(worst, std::abs(s.lambda[0] - cubic(t, 6.0)));
    ASSERT_LE(visited.size(), times.size());
    std::size_t interval = 0;  // t in [t_i, t_i+1]
    while (interval + 1 < times.size() && times[interval + 1] <= t) ++interval;
    EXPECT_GE(visited.back() + 2, interval) << "read ahead of the nodes at t = " << t;
  }
  std::printf("largest interpolation error of a cubic: %.2e\n", worst);
  EXPECT_LT(worst, 1e-12);
  EXPECT_EQ(forward.at(0.0).q[1], cubic(0.0, 1.0));  // a stored step: the stored state itself
  EXPECT_THROW(forward.at(0.5), std::logic_error);   // back up past the window
  ASSERT_EQ(visited.size(), times.size());
  for (std::size_t k = 0; k < visited.size(); ++k) EXPECT_EQ(visited[k], times.size() - 1 - k);
}

objectives::Objective psi_objective() {
  objectives::ObjectiveTerm psi;
  psi.kind = objectives::ObjectiveTerm::Kind::FinalValue;
  psi.coordinate = 0;
  objectives::Objective objective;
  objective.add(psi);
  return objective;
}

// Bestle and Eberhard's oscillator, psi = y(T), T = 2.5, c = 1.3, z0 = 0.6, with error-controlled forward steps:
// dpsi/dc = z0/(2c)(T cos wT - sin(wT)/w), dpsi/dz0 = sin(wT)/w (w = sqrt c).
double oscillator_error(const Evaluation& e, const problem::Problem& problem) {
  const double c = 1.3, z0 = 0.6, T = 2.5, w = std::sqrt(c);
  const int stiffness = model::ParameterSpace(*problem.model).find("spring.stiffness");
  const double dpsi_dc = z0 / (2.0 * c) * (T * std::cos(w * T) - std::sin(w * T) / w);
  return std::max(std::abs(e.gradient.parameters[stiffness] - dpsi_dc),
                  std::abs(e.gradient.initial_velocities[0] - std::sin(w * T) / w));
}

problem::Problem controlled_oscillator(double tolerance) {
  auto problem = oscillator(1.0, 1.3, 0.0, 0.6, 2.5, 100);
  problem.integrator.newton_tolerance = 1e-14;
  problem.integrator.step_control.tolerance = tolerance;
  return problem;
}

// On the forward run's count of steps (the default), the error falls with the tolerance as the forward run's
// (tolerance^(2/3): 21.5 per factor 100); on its own steps over a tight forward run it falls at second order.
TEST(ContinuousAdjointGrid, OscillatorWithControlledStepsConvergesToTheClosedForm) {
  std::vector<double> errors;
  for (double tolerance : {1e-5, 1e-7, 1e-9}) {
    const auto problem = controlled_oscillator(tolerance);
    const Evaluation e = evaluate(problem, psi_objective(), world(), true, nullptr, 2);
    errors.push_back(oscillator_error(e, problem));
    std::printf("tolerance %.0e: %zu forward steps, continuous adjoint error %.2e\n", tolerance, e.times.size() - 1,
                errors.back());
  }
  for (std::size_t k = 1; k < errors.size(); ++k) EXPECT_GT(errors[k - 1] / errors[k], 10.0);
  std::vector<double> own;
  const auto tight = controlled_oscillator(1e-11);
  for (long long steps : {100LL, 200LL, 400LL, 800LL}) {
    const Evaluation e = evaluate(tight, psi_objective(), world(), true, nullptr, 2, steps);
    own.push_back(oscillator_error(e, tight));
  }
  print_row("oscillator, own steps 100 .. 800", own);
  for (double o : orders(own)) EXPECT_GT(o, 1.8);
}

// The damped rod pendulum (index 3: the rod, a torsion spring with damping, velocity tracking) over
// error-controlled steps (rho_inf = 0.6, tolerance 1e-11: 5723 steps), the continuous adjoint on 200 .. 1600 steps
// of its own, against central differences of the discrete J of a fixed-step run at h = 1.5/24000 (its O(h^2)
// distance to the continuous J's gradient is below 1e-8): the error falls at second order (1.85, 1.96, 1.98; at
// 100 steps it is not yet asymptotic). At tolerance 1e-9 (1237 steps) the error at 800 own steps is 5.7e-5, not
// 2.4e-5: each change of h excites an oscillation of a and lambda in an index-3 model (docs/adjoint.md,
// "Error-controlled steps"), which the interpolation passes on to the adjoint.
TEST(ContinuousAdjointGrid, PendulumWithControlledStepsAgainstFineCentralDifferences) {
  const objectives::Objective objective = spring_pendulum_objective();
  auto fine = damped_rod_pendulum("generalized_alpha", 24000);
  fine.integrator.newton_tolerance = 1e-13;
  const model::ParameterSpace space(*fine.model);
  const std::vector<std::string> names{"rod.length", "bob.mass", "torsion.stiffness", "torsion.damping"};
  std::vector<double> reference;
  for (const auto& name : names)
    reference.push_back(central_difference(fine, objective, world(), space.find(name), 1e-5).value);
  auto controlled = damped_rod_pendulum("generalized_alpha", 300);
  controlled.integrator.spectral_radius = 0.6;
  controlled.integrator.newton_tolerance = 1e-13;
  controlled.integrator.step_control.tolerance = 1e-11;
  std::vector<double> errors;
  for (long long steps : {200LL, 400LL, 800LL, 1600LL}) {
    const Evaluation e = evaluate(controlled, objective, world(), true, nullptr, 2, steps);
    double worst = 0.0;
    for (std::size_t k = 0; k < names.size(); ++k)
      worst = std::max(worst, std::abs(e.gradient.parameters[space.find(names[k])] - reference[k]) /
                                  std::max(1.0, std::abs(reference[k])));
    errors.push_back(worst);
    if (steps == 200) std::printf("pendulum: %zu forward steps\n", e.times.size() - 1);
  }
  print_row("pendulum, own steps 200 .. 1600", errors);
  for (double o : orders(errors)) EXPECT_GT(o, 1.8);
  EXPECT_LT(errors.back(), 1e-5);
}

}  // namespace
}  // namespace flexadj::testing
