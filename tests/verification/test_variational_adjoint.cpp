// Discrete adjoint of the midpoint variational integrator (Schubert et al. 2024, eqs. (10)-(13), sec. 3): the
// gradient against central differences of the discrete objective and Taylor tests, for parameters, the initial
// state and control values, without and with constraints.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "flexadj/elements/elements.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "gradient_support.hpp"
#include "models.hpp"

namespace flexadj::testing {
namespace {

using objectives::ObjectiveTerm;

void expect_second_order(const std::vector<double>& orders, const std::vector<double>& remainders) {
  for (std::size_t k = 0; k < orders.size(); ++k) {
    std::printf("Taylor remainder %.3e -> %.3e: order %.3f\n", remainders[k], remainders[k + 1], orders[k]);
    EXPECT_GT(orders[k], 1.9) << "remainders " << remainders[k] << " -> " << remainders[k + 1];
  }
}

void use_variational(problem::Problem& problem) {
  problem.integrator.scheme = "variational";
  problem.integrator.newton_tolerance = 1e-12;
}

// Central differences of J along each named parameter against the adjoint (fd_check.hpp, the variational
// integrator's accuracy of J), then a Taylor test along all of them.
void check_parameters(problem::Problem& problem, const objectives::Objective& objective, const Evaluation& e,
                      const std::vector<std::string>& names, const std::vector<double>& direction, double h0,
                      double relative_step = 1e-6) {
  model::Model& model = *problem.model;
  const model::ParameterSpace space(model);
  std::vector<int> indices;
  for (const auto& name : names) {
    const int index = space.find(name);
    ASSERT_GE(index, 0) << name;
    indices.push_back(index);
    EXPECT_TRUE(matches_central_difference(name, e.gradient.parameters[index],
                                           central_difference(problem, objective, world(), index, relative_step),
                                           e.value, kVariationalAccuracy));
  }
  std::vector<double> remainders;
  const auto orders = taylor_orders(problem, objective, world(), indices, direction, h0, &remainders);
  expect_second_order(orders, remainders);
}

// dJ/d(given v_k) against central differences.
void check_initial_velocity(problem::Problem& problem, const objectives::Objective& objective, const Evaluation& e,
                            int coordinate) {
  EXPECT_TRUE(matches_central_difference("initial velocity " + std::to_string(coordinate),
                                         e.gradient.initial_velocities[coordinate],
                                         initial_velocity_central_difference(problem, objective, world(), coordinate, 1e-6),
                                         e.value, kVariationalAccuracy));
}

// The oscillator on its slider (a prismatic joint) with a damper: stiffness, damping, mass and the initial velocity.
TEST(VariationalAdjoint, OscillatorMatchesFiniteDifferencesAndTaylor) {
  auto problem = oscillator(1.3, 2.0, 0.1, 0.5, 2.0, 200);
  use_variational(problem);
  const model::ParameterSpace space(*problem.model);
  space.set_value(*problem.model, space.find("spring.damping"), 0.3);
  const objectives::Objective objective = oscillator_objective();
  const Evaluation e = evaluate(problem, objective, world(), true);
  check_parameters(problem, objective, e, {"spring.stiffness", "spring.damping", "mass.mass", "spring.free_length"},
                   {0.5, 0.1, 0.3, 0.05}, 1e-1);
  check_initial_velocity(problem, objective, e, 0);
}

// Planar pendulum on a rod (distance constraint) under gravity with a damped torsion spring at the pivot (so that
// the mass acts): rod length, mass, gravity, spring, the initial velocity and position (through the projections).
TEST(VariationalAdjoint, ConstrainedPendulumMatchesFiniteDifferencesAndTaylor) {
  auto problem = damped_rod_pendulum("variational");  // nearly along the tangent: the velocity projection acts
  use_variational(problem);
  const int bob = problem.model->find_body("bob");
  const objectives::Objective objective = spring_pendulum_objective();
  const Evaluation e = evaluate(problem, objective, world(), true);
  check_parameters(problem, objective, e,
                   {"rod.length", "bob.mass", "bob.gravity_y", "torsion.stiffness", "torsion.damping"},
                   {0.1, 0.3, 0.5, 0.4, 0.1}, 1e-2);
  check_initial_velocity(problem, objective, e, 0);
  // The given initial y (off the rod: the position projection acts).
  EXPECT_TRUE(matches_central_difference("initial y", e.gradient.initial_coordinates[1],
                                         initial_position_central_difference(problem, objective, world(), bob, 1, 1e-6),
                                         e.value, kVariationalAccuracy));
}

// Spatial rigid body with Euler parameters on a spherical joint: inertia entries (with products), mass, gravity.
TEST(VariationalAdjoint, SpinningRigidBodyMatchesFiniteDifferencesAndTaylor) {
  auto problem = spinning_top_pendulum(0.3, 150, 0.9);
  use_variational(problem);
  const model::ParameterSpace space(*problem.model);
  space.set_value(*problem.model, space.find("box.inertia_xy"), 0.01);
  space.set_value(*problem.model, space.find("box.inertia_yz"), -0.02);
  const objectives::Objective objective = spinning_body_objective(true);
  const Evaluation e = evaluate(problem, objective, world(), true);
  check_parameters(problem, objective, e,
                   {"box.mass", "box.inertia_xx", "box.inertia_yy", "box.inertia_zz", "box.inertia_xy",
                    "box.inertia_xz", "box.inertia_yz", "box.gravity_z"},
                   {0.3, 0.05, -0.04, 0.02, 0.01, -0.03, 0.02, 0.5}, 1e-2);
}

// meshes/beam_swing_up.yaml with the variational integrator over its first 0.05 s (60 steps): E and rho of two
// elements, the given y of a node, and the torque values (a boundary control at the pinned end).
TEST(VariationalAdjoint, BeamSwingUpMatchesFiniteDifferencesAndTaylor) {
  auto problem = io::read_problem_file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/beam_swing_up.yaml",
                                       {"integrator.end_time=0.05"});
  use_variational(problem);
  const objectives::Objective objective(problem.objective_terms);
  const Evaluation e = evaluate(problem, objective, world(), true);
  check_parameters(problem, objective, e, {"beam.element2.youngs_modulus", "beam.element4.density"}, {5e6, -100.0},
                   1e-1, 1e-5);
  const int node = problem.model->find_body("beam.node2");
  const long long x = problem.model->body_offset(node);
  EXPECT_TRUE(matches_central_difference("initial x of beam.node2", e.gradient.initial_coordinates[x],
                                         initial_position_central_difference(problem, objective, world(), node, 0, 1e-6),
                                         e.value, kVariationalAccuracy));
  auto signal = problem.model->controls().at("torque");
  const auto& gradient = e.gradient.controls.at("torque");
  for (std::size_t k : {0, 2, 4}) {
    const double h = relative_step(signal->values()[k], 1e-4);
    EXPECT_TRUE(matches_central_difference("torque[" + std::to_string(k) + "]", gradient[k],
                                           control_central_difference(problem, objective, world(), *signal, k, h),
                                           e.value, kVariationalAccuracy));
  }
  std::vector<double> direction(signal->size());
  for (std::size_t k = 0; k < direction.size(); ++k) direction[k] = 5.0 * std::cos(0.7 * double(k));
  std::vector<double> remainders;
  const auto orders =
      control_taylor_orders(problem, objective, world(), *signal, gradient, direction, 0.5, &remainders);
  expect_second_order(orders, remainders);
}

}  // namespace
}  // namespace flexadj::testing
