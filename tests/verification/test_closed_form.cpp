// Forward dynamics against closed-form solutions and conservation laws.
#include <gtest/gtest.h>

#include <cmath>

#include "models.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {
namespace {

// Bestle and Eberhard 1992 oscillator: m = 1, c = 1, y(0) = 0, z(0) = 0.5, t1 = pi/2: y(t1) = 0.5.
double oscillator_error(long long steps, const std::string& scheme = "generalized_alpha") {
  auto problem = oscillator(1.0, 1.0, 0.0, 0.5, M_PI / 2, steps);
  problem.integrator.scheme = scheme;
  const Trajectory trajectory = run(problem, world());
  return std::abs(trajectory.q.back()[0] - 0.5);
}

TEST(ClosedForm, OscillatorConvergesAtSecondOrder) {
  double previous = oscillator_error(50);
  EXPECT_LT(previous, 1e-3);
  for (long long steps : {100, 200, 400}) {
    const double error = oscillator_error(steps);
    const double order = std::log2(previous / error);
    EXPECT_GT(order, 1.9) << "steps " << steps << " error " << error;
    EXPECT_LT(order, 2.1) << "steps " << steps << " error " << error;
    previous = error;
  }
}

TEST(ClosedForm, HhtConvergesAtSecondOrder) {
  double previous = oscillator_error(50, "hht");
  for (long long steps : {100, 200, 400}) {
    const double error = oscillator_error(steps, "hht");
    EXPECT_GT(std::log2(previous / error), 1.9) << "steps " << steps << " error " << error;
    previous = error;
  }
  // A different scheme: its error differs from generalized-alpha's at the same step.
  EXPECT_GT(std::abs(oscillator_error(400, "hht") - oscillator_error(400)), 1e-12);
}

TEST(ClosedForm, OscillatorTrajectoryFollowsTheSolutionEveryStep) {
  const double omega = 2.0, x0 = 0.1, v0 = 0.3;
  auto problem = oscillator(1.0, 4.0, x0, v0, 3.0, 3000);
  const Trajectory trajectory = run(problem, world());
  double worst = 0.0;
  for (std::size_t n = 0; n < trajectory.times.size(); ++n) {
    const double t = trajectory.times[n];
    const double exact = x0 * std::cos(omega * t) + v0 / omega * std::sin(omega * t);
    worst = std::max(worst, std::abs(trajectory.q[n][0] - exact));
    EXPECT_NEAR(trajectory.q[n][1], 0.0, 1e-14);  // the prismatic joint keeps y = 0
  }
  EXPECT_LT(worst, 2e-6);
  EXPECT_LE(trajectory.summary.max_constraint_residual, 1e-10);
}

// Held and Seifried: alpha(t) = alpha0 cos(w t); z2(t) = l sin(alpha(t)).
double torsional_pendulum_error(long long steps, double* max_constraint = nullptr) {
  const double m = 1.0, l = 1.2, c_r = 2.0, alpha0 = 0.4, t1 = 2.0;
  auto problem = torsional_pendulum(m, l, c_r, alpha0, t1, steps);
  const Trajectory trajectory = run(problem, world());
  const double omega = std::sqrt(c_r / (m * l * l));
  const double exact = l * std::sin(alpha0 * std::cos(omega * t1));
  if (max_constraint) *max_constraint = trajectory.summary.max_constraint_residual;
  return std::abs(trajectory.q.back()[1] - exact);
}

TEST(ClosedForm, TorsionalSpringPendulumConvergesAtSecondOrder) {
  double max_constraint = 1.0;
  double previous = torsional_pendulum_error(100, &max_constraint);
  EXPECT_LE(max_constraint, 1e-10);
  for (long long steps : {200, 400, 800}) {
    const double error = torsional_pendulum_error(steps);
    const double order = std::log2(previous / error);
    EXPECT_GT(order, 1.9) << "steps " << steps << " error " << error;
    previous = error;
  }
  EXPECT_LT(previous, 1e-5);
}

// With rho_inf = 1 generalized-alpha is the trapezoidal rule (no numerical dissipation): on an
// unconstrained elastic pendulum (point mass on a spring under gravity) the energy error stays
// O(h^2) and does not drift over 10^4 steps.
TEST(Conservation, ElasticPendulumAtSpectralRadiusOneKeepsItsEnergy) {
  problem::Problem problem;
  problem.model->dimension = 2;
  problem.model->gravity = {0.0, -9.81, 0.0};
  problem.integrator.end_time = 10.0;
  problem.integrator.step_size = 1e-3;
  problem.integrator.spectral_radius = 1.0;
  const int b = problem.model->add_body(point_mass_2d("bob", 1.0, 0.6, -0.9, 0.0, 0.5));
  elements::SpringDamperData spring;
  spring.stiffness = 200.0;
  spring.free_length = 1.0;
  problem.model->add_force_element(
      elements::make_spring_damper("spring", {kGround, b}, {BodyKind::Ground, BodyKind::PointMass2D}, spring));
  std::vector<double> energy;
  assembly::Assembler assembler(*problem.model, world());
  const auto integrator = integrators::make_time_integrator(assembler, problem.integrator, {});
  auto state = assembler.make_state();
  assembler.scatter_global(problem.model->initial_coordinates(), problem.model->initial_velocities(), state);
  integrators::SimulationOptions options;
  options.progress = false;
  const auto summary = integrators::simulate(assembler, *integrator, state, options,
                                             {[&](long long, double t, const assembly::State& s) { energy.push_back(assembler.energy(s, t)); }});
  ASSERT_EQ(energy.size(), 10001u);
  double first_half = 0.0, second_half = 0.0;
  for (std::size_t n = 0; n < energy.size(); ++n)
    (n < 5000 ? first_half : second_half) = std::max(n < 5000 ? first_half : second_half, std::abs(energy[n] - energy[0]));
  EXPECT_LT(summary.max_energy_deviation / std::abs(energy[0]), 1e-5) << "E0 = " << energy[0];
  // No drift: the second half deviates no more than the first (up to the oscillation).
  EXPECT_LT(second_half, 1.5 * first_half + 1e-12);
}

// Constrained (index-3) systems need a little numerical dissipation: with rho_inf = 1 the multiplier
// carries a (-1)^n parasitic mode that grows (Cardona and Geradin 1989); Arnold and Bruls 2007 prove
// convergence for rho_inf < 1. With rho_inf = 0.9 the pendulum's energy error stays bounded.
TEST(Conservation, ConstrainedPendulumKeepsItsEnergyOver10000Steps) {
  const double mass = 1.0, length = 1.0;
  auto problem = planar_pendulum(mass, length, 1.0, 10.0, 10000, 0.9);
  const Trajectory trajectory = run(problem, world(), false);
  ASSERT_TRUE(trajectory.summary.energy_tracked);
  const double reference = mass * 9.81 * length;  // energy scale m g l
  EXPECT_LT(trajectory.summary.max_energy_deviation / reference, 3e-6)
      << "max |E - E0| = " << trajectory.summary.max_energy_deviation;
  EXPECT_LE(trajectory.summary.max_constraint_residual, 1e-10);
}

TEST(Conservation, SpinningRigidBodyKeepsEnergyAndUnitEulerParameters) {
  auto problem = spinning_top_pendulum(2.0, 4000, 0.95);
  const Trajectory trajectory = run(problem, world());
  ASSERT_TRUE(trajectory.summary.energy_tracked);
  const double initial = trajectory.summary.initial_energy;
  EXPECT_LT(trajectory.summary.max_energy_deviation, 1e-4 * std::abs(initial) + 1e-6);
  EXPECT_LE(trajectory.summary.max_constraint_residual, 1e-10);
  double worst_norm = 0.0;
  for (const auto& q : trajectory.q)
    worst_norm = std::max(worst_norm, std::abs(std::sqrt(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]) - 1.0));
  EXPECT_LT(worst_norm, 1e-10);
  // The body really moves and spins.
  EXPECT_GT(std::abs(trajectory.q.back()[0] - trajectory.q.front()[0]), 1e-2);
}

}  // namespace
}  // namespace flexadj::testing
