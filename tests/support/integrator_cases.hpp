#pragma once
// Checks shared by the tests of the explicit projected integrators (state_space and hamiltonian:
// test_<name>_integrator.cpp, test_<name>_adjoint.cpp, tests/mpi/test_<name>_ranks.cpp), each run with the
// integrator named by `scheme`: the same models, closed forms and finite differences, written once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "adjoint_checks.hpp"
#include "gradient_support.hpp"
#include "models.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {

inline problem::Problem with_scheme(problem::Problem problem, const std::string& scheme) {
  problem.integrator.scheme = scheme;
  return problem;
}

// Held and Seifried's torsional spring pendulum: alpha(t) = alpha0 cos(w t), w = sqrt(c_r/(m l^2)), exact for any
// amplitude; z = l (cos alpha, sin alpha), dz2/dt = l cos(alpha) dalpha/dt. m = 1, l = 1.2, c_r = 2, alpha0 = 0.4,
// t1 = 2: the errors of z2 and dz2/dt at t1 and the largest |C| and |C_q v| over the run.
struct PendulumErrors {
  double position = 0.0, velocity = 0.0, position_constraint = 0.0, velocity_constraint = 0.0;
};

inline PendulumErrors torsional_pendulum_errors(const std::string& scheme, long long steps) {
  const double m = 1.0, l = 1.2, c_r = 2.0, alpha0 = 0.4, t1 = 2.0;
  const Trajectory trajectory = run(with_scheme(torsional_pendulum(m, l, c_r, alpha0, t1, steps), scheme), world());
  const double w = std::sqrt(c_r / (m * l * l)), alpha = alpha0 * std::cos(w * t1);
  const double alpha_dot = -alpha0 * w * std::sin(w * t1);
  PendulumErrors e;
  e.position = std::abs(trajectory.q.back()[1] - l * std::sin(alpha));
  e.velocity = std::abs(trajectory.v.back()[1] - l * std::cos(alpha) * alpha_dot);
  for (std::size_t n = 0; n < trajectory.q.size(); ++n) {
    const auto& q = trajectory.q[n];
    const auto& v = trajectory.v[n];
    e.position_constraint = std::max(e.position_constraint, std::abs(q[0] * q[0] + q[1] * q[1] - l * l));
    e.velocity_constraint = std::max(e.velocity_constraint, std::abs(q[0] * v[0] + q[1] * v[1]));
  }
  return e;
}

// The projections hold C = 0 and C_q v = 0 to round-off at every step: the torsional pendulum at a coarse step (50
// steps) and the planar pendulum under gravity over about 16 periods (l = 1, 2000 steps of 0.025 s), |x^2 + y^2 - 1|,
// |x vx + y vy| and the integrator's own constraint statistics.
inline void expect_constraints_at_round_off(const std::string& scheme) {
  const PendulumErrors coarse = torsional_pendulum_errors(scheme, 50);
  std::printf("position constraint %.2e, velocity constraint %.2e (50 steps)\n", coarse.position_constraint,
              coarse.velocity_constraint);
  EXPECT_LT(coarse.position_constraint, 1e-14);
  EXPECT_LT(coarse.velocity_constraint, 1e-14);
  const Trajectory trajectory = run(with_scheme(planar_pendulum(1.0, 1.0, 1.0, 50.0, 2000, 0.9), scheme), world());
  double position = 0.0, velocity = 0.0;
  for (std::size_t n = 0; n < trajectory.q.size(); ++n) {
    const auto& q = trajectory.q[n];
    const auto& v = trajectory.v[n];
    position = std::max(position, std::abs(q[0] * q[0] + q[1] * q[1] - 1.0));
    velocity = std::max(velocity, std::abs(q[0] * v[0] + q[1] * v[1]));
  }
  std::printf("pendulum, 2000 steps: position constraint %.2e, velocity constraint %.2e, reported %.2e\n", position,
              velocity, trajectory.summary.max_constraint_residual);
  EXPECT_LT(position, 1e-14);
  EXPECT_LT(velocity, 1e-13);
  EXPECT_LT(trajectory.summary.max_constraint_residual, 1e-14);
}

// The oscillator on its slider (a prismatic joint) with a damper: stiffness, damping, mass, the spring's free length
// (central differences of the discrete J, computed to relative `accuracy`, and a Taylor test) and the given
// initial velocity.
inline void check_oscillator_gradient(const std::string& scheme, double accuracy) {
  auto problem = with_scheme(oscillator(1.3, 2.0, 0.1, 0.5, 2.0, 200), scheme);
  const model::ParameterSpace space(*problem.model);
  space.set_value(*problem.model, space.find("spring.damping"), 0.3);
  const objectives::Objective objective = oscillator_objective();
  const Evaluation e = evaluate(problem, objective, world(), true);
  check_parameters(problem, objective, e,
                              {"spring.stiffness", "spring.damping", "mass.mass", "spring.free_length"},
                              {0.5, 0.1, 0.3, 0.05}, 1e-1, accuracy);
  EXPECT_TRUE(matches_central_difference("initial velocity 0", e.gradient.initial_velocities[0],
                                         initial_velocity_central_difference(problem, objective, world(), 0, 1e-6),
                                         e.value, accuracy));
}

// damped_rod_pendulum(): rod length, mass, gravity, the spring, and the given initial velocity and position, both
// off the constraints (the initial projections act; the step projections act at every step).
inline void check_damped_rod_pendulum_gradient(const std::string& scheme, double accuracy) {
  auto problem = damped_rod_pendulum(scheme);
  const int bob = problem.model->find_body("bob");
  const objectives::Objective objective = spring_pendulum_objective();
  const Evaluation e = evaluate(problem, objective, world(), true);
  check_parameters(problem, objective, e,
                              {"rod.length", "bob.mass", "bob.gravity_y", "torsion.stiffness", "torsion.damping"},
                              {0.1, 0.3, 0.5, 0.4, 0.1}, 1e-2, accuracy);
  EXPECT_TRUE(matches_central_difference("initial velocity 0", e.gradient.initial_velocities[0],
                                         initial_velocity_central_difference(problem, objective, world(), 0, 1e-6),
                                         e.value, accuracy));
  EXPECT_TRUE(matches_central_difference("initial y", e.gradient.initial_coordinates[1],
                                         initial_position_central_difference(problem, objective, world(), bob, 1, 1e-6),
                                         e.value, accuracy));
}

// A chain of 6 spatial rigid links (links 1 and 6 on different ranks at np 2): J and its gradient (parameters, given
// initial velocities and coordinates) on all ranks against one rank.
inline void expect_chain_gradient_independent_of_ranks(const std::string& scheme) {
  auto problem = with_scheme(rigid_chain(6, 0.2, 100), scheme);
  const Evaluation serial = expect_gradient_independent_of_ranks(problem, rigid_chain_objective());
  // A real gradient: the links' masses matter.
  const model::ParameterSpace space(*problem.model);
  EXPECT_GT(std::abs(serial.gradient.parameters[space.find("link3.mass")]), 1e-6);
}

}  // namespace flexadj::testing
