// Error-controlled steps of generalized-alpha (IntegratorSettings::step_control; integrators/simulation.cpp and
// GeneralizedAlpha::local_error; docs/adjoint.md, "Error-controlled steps"): the local error estimate against the
// true local error of a step, the oscillator of Bestle and Eberhard 1992 whose J and gradient converge to the
// closed form as the tolerance falls (their Figs. 3-4 study), steps that follow the motion, and the discrete
// adjoint, which holds the chosen steps fixed, against central differences and a Taylor test of the same discrete
// J (the steps taken again).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "adjoint_checks.hpp"
#include "flexadj/integrators/generalized_alpha.hpp"
#include "gradient_support.hpp"
#include "models.hpp"

namespace flexadj::testing {
namespace {

const double kPi = std::acos(-1.0);

// x'' = -x (m = c = 1 on the slider): for h -> 0 the estimate of one step's position error approaches the error
// of q_{n+1} against the exact solution started from (q_n, v_n), once aux_n has left its start value a_0.
TEST(StepControl, LocalErrorEstimateMatchesTheTrueLocalError) {
  for (double rho : {1.0, 0.9, 0.6}) {
    auto problem = oscillator(1.0, 1.0, 0.0, 0.5, 1.0, 100, rho);
    problem.integrator.newton_tolerance = 1e-14;
    problem.integrator.step_control.tolerance = 1e-300;  // the norm e / (1 + 1e-300 |q|) = e
    problem.integrator.step_control.absolute_tolerance = 1.0;
    assembly::Assembler assembler(*problem.model, self());
    linalg::LinearSolverOptions options;
    options.kind = "direct";
    auto integrator = integrators::make_time_integrator(assembler, problem.integrator, options);
    assembly::State state = assembler.make_state();
    assembler.scatter_global(problem.model->initial_coordinates(), problem.model->initial_velocities(), state);
    integrator->initialize(state, 0.0);
    const double h = 1e-3;
    double t = 0.0;
    for (int n = 1; n <= 400; ++n, t += h) integrator->step(state, t, h, n);
    const assembly::State before = state;
    integrator->step(state, t, h, 401);
    const double exact = before.q[0] * std::cos(h) + before.v[0] * std::sin(h);
    const double truth = std::abs(state.q[0] - exact);
    const double estimate = integrator->local_error(before, state, h);
    std::printf("rho %.1f: estimate %.4e, true local error %.4e, ratio %.4f\n", rho, estimate, truth, estimate / truth);
    EXPECT_NEAR(estimate / truth, 1.0, 0.05) << "rho " << rho;
  }
}

// psi = x(pi/2), m = c = 1, z0 = 0.5: psi = 0.5, dpsi/dc = -0.25, dpsi/dz0 = 1 (Bestle and Eberhard 1992, sec. 5).
// The local error per step is at most the tolerance, so the global error falls as tolerance^(2/3) (order 2,
// steps ~ tolerance^(-1/3)); the gradient of the discrete psi follows it.
TEST(StepControl, OscillatorGradientConvergesAsTheToleranceFalls) {
  objectives::Objective objective;
  objectives::ObjectiveTerm psi;
  psi.kind = objectives::ObjectiveTerm::Kind::FinalValue;
  psi.coordinate = 0;
  objective.add(psi);
  std::vector<double> errors, steps;
  for (double tolerance : {1e-5, 1e-7, 1e-9}) {
    auto problem = oscillator(1.0, 1.0, 0.0, 0.5, kPi / 2, 1000);
    problem.integrator.newton_tolerance = 1e-14;
    problem.integrator.step_control.tolerance = tolerance;
    const Evaluation e = evaluate(problem, objective, world(), true);
    const model::ParameterSpace space(*problem.model);
    const double error = std::max({std::abs(e.value - 0.5),
                                   std::abs(e.gradient.parameters[space.find("spring.stiffness")] + 0.25),
                                   std::abs(e.gradient.initial_velocities[0] - 1.0)});
    std::printf("tolerance %.0e: %zu steps, largest error of psi and its gradient %.3e\n", tolerance,
                e.times.size() - 1, error);
    EXPECT_DOUBLE_EQ(e.times.back(), kPi / 2);
    errors.push_back(error);
    steps.push_back(double(e.times.size() - 1));
  }
  for (std::size_t k = 1; k < errors.size(); ++k) {
    EXPECT_GT(errors[k - 1] / errors[k], 10.0);   // 100^(2/3) = 21.5
    EXPECT_GT(steps[k] / steps[k - 1], 3.0);      // 100^(1/3) = 4.6
    EXPECT_LT(steps[k] / steps[k - 1], 7.0);
  }
  EXPECT_LT(errors.back(), 2e-6);
}

// A pendulum released 1.5 rad from the bottom: the controller takes small steps where the acceleration changes
// fast and large ones near the turning points; the error against a fine fixed-step run falls with the tolerance
// (the local error per step is controlled: about tolerance^(2/3) globally). rho_inf = 0.6: the oscillation of a
// and lambda that each change of h excites in an index-3 model decays by rho_inf per step (docs/adjoint.md).
TEST(StepControl, StepsFollowTheMotion) {
  auto fine = planar_pendulum(1.0, 1.0, 1.5, 3.0, 60000, 0.6);
  fine.integrator.newton_tolerance = 1e-13;
  const Trajectory reference = run(fine, world());
  std::vector<double> errors;
  for (double tolerance : {1e-5, 1e-7}) {
    auto problem = planar_pendulum(1.0, 1.0, 1.5, 3.0, 300, 0.6);
    problem.integrator.newton_tolerance = 1e-13;
    problem.integrator.step_control.tolerance = tolerance;
    const Trajectory adaptive = run(problem, world());
    double smallest = 1e300, largest = 0.0;
    for (std::size_t n = 1; n < adaptive.times.size(); ++n) {
      smallest = std::min(smallest, adaptive.times[n] - adaptive.times[n - 1]);
      largest = std::max(largest, adaptive.times[n] - adaptive.times[n - 1]);
    }
    const double error = std::max(std::abs(adaptive.q.back()[0] - reference.q.back()[0]),
                                  std::abs(adaptive.q.back()[1] - reference.q.back()[1]));
    std::printf("tolerance %.0e: %zu steps of %.3e .. %.3e s, %lld rejected; error at t = 3: %.3e\n", tolerance,
                adaptive.times.size() - 1, smallest, largest, adaptive.summary.rejected_steps, error);
    EXPECT_DOUBLE_EQ(adaptive.times.back(), 3.0);
    EXPECT_GT(largest / smallest, 2.0);
    EXPECT_LT(double(adaptive.summary.rejected_steps), 0.2 * double(adaptive.times.size()));
    EXPECT_LE(adaptive.summary.max_constraint_residual, 1e-10);
    errors.push_back(error);
  }
  EXPECT_GT(errors[0] / errors[1], 10.0);  // 100^(2/3) = 21.5
}

// The discrete adjoint of a run with step control holds its steps fixed: it is the gradient of the discrete J
// over those steps, which a run taking them again reproduces bit for bit; central differences and a Taylor test
// of that J (steps held) check it for parameters of a force element, a body and a joint, and the initial velocity.
TEST(StepControl, AdjointMatchesDifferencesWithTheStepsHeld) {
  auto problem = damped_rod_pendulum("generalized_alpha");
  problem.integrator.newton_tolerance = 1e-13;
  problem.integrator.step_control.tolerance = 1e-6;
  const objectives::Objective objective = spring_pendulum_objective();
  const Evaluation e = evaluate(problem, objective, world(), true);
  problem.integrator.replayed_times = std::make_shared<const std::vector<double>>(e.times);
  const Evaluation again = evaluate(problem, objective, world(), false);
  std::printf("%zu steps; J %.15g, taken again %.15g\n", e.times.size() - 1, e.value, again.value);
  EXPECT_EQ(again.value, e.value);
  EXPECT_EQ(again.times, e.times);
  check_parameters(problem, objective, e,
                   {"rod.length", "bob.mass", "bob.gravity_y", "torsion.stiffness", "torsion.damping"},
                   {0.1, 0.3, 0.5, 0.4, 0.1}, 1e-2);
  EXPECT_TRUE(matches_central_difference("initial velocity 0", e.gradient.initial_velocities[0],
                                         initial_velocity_central_difference(problem, objective, world(), 0, 1e-6),
                                         e.value));
}

}  // namespace
}  // namespace flexadj::testing
