// Objective terms on body sensors (a body point's position or velocity, the angular velocity, a body-fixed
// direction) on the spinning 3D body: the sensor values against independent facts of the motion, and the
// adjoint gradient through the body kinematics against central differences and a Taylor test.
#include <gtest/gtest.h>

#include <cmath>

#include "gradient_support.hpp"
#include "models.hpp"

namespace flexadj::testing {
namespace {

using objectives::ObjectiveTerm;

ObjectiveTerm sensor(ObjectiveTerm::Kind kind, ObjectiveTerm::Quantity quantity, std::array<double, 3> point,
                     int component) {
  ObjectiveTerm term;
  term.kind = kind;
  term.quantity = quantity;
  term.sensor_body = 0;
  term.sensor_point = point;
  term.sensor_component = component;
  return term;
}

// The joint point (0, 0, 0.5) in body axes stays at the origin: its position is zero at every step to the
// constraint tolerance, its velocity to the O(h^2) by which index-3 generalized-alpha meets the velocity
// constraint; the body's direction (0, 0, 1) is a unit vector.
TEST(ObjectiveSensors, ValuesFollowTheMotion) {
  auto problem = spinning_top_pendulum(0.3, 150, 0.9);
  problem.integrator.newton_tolerance = 1e-12;
  using Q = ObjectiveTerm::Quantity;
  using K = ObjectiveTerm::Kind;
  for (int component : {0, 1, 2}) {
    objectives::Objective position, velocity;
    position.add(sensor(K::Tracking, Q::Position, {0.0, 0.0, 0.5}, component));
    velocity.add(sensor(K::Tracking, Q::Velocity, {0.0, 0.0, 0.5}, component));
    EXPECT_LT(evaluate(problem, position, world(), false).value, 1e-20) << "component " << component;
    // Measured 5e-14 .. 8e-12 (velocity errors ~1e-5 m/s at h = 2e-3 s).
    EXPECT_LT(evaluate(problem, velocity, world(), false).value, 1e-10) << "component " << component;
  }
  // J = 1/2 (e_z . R e_z)^2 + 1/2 (e_x . R e_z)^2 + 1/2 (e_y . R e_z)^2 = 1/2 at the end: R e_z is a unit vector.
  objectives::Objective direction;
  for (int component : {0, 1, 2}) direction.add(sensor(K::FinalSquare, Q::Direction, {0.0, 0.0, 1.0}, component));
  EXPECT_NEAR(evaluate(problem, direction, world(), false).value, 0.5, 1e-10);
  // The centre of mass falls: its z position at the end is below its start.
  objectives::Objective height;
  height.add(sensor(K::FinalValue, Q::Position, {0.0, 0.0, 0.0}, 2));
  EXPECT_LT(evaluate(problem, height, world(), false).value, problem.model->body(0).initial_coordinates[2]);
}

// Every sensor kind in one objective; the gradient for inertia entries, mass, gravity, the joint point and
// the initial velocity against central differences of the discrete J, and a Taylor test.
TEST(ObjectiveSensors, GradientMatchesFiniteDifferencesAndTaylor) {
  auto problem = spinning_top_pendulum(0.3, 150, 0.9);
  problem.integrator.newton_tolerance = 1e-12;
  const model::ParameterSpace space(*problem.model);
  space.set_value(*problem.model, space.find("box.inertia_xy"), 0.01);
  using Q = ObjectiveTerm::Quantity;
  using K = ObjectiveTerm::Kind;
  objectives::Objective objective;
  ObjectiveTerm tip = sensor(K::Tracking, Q::Position, {0.1, -0.15, -0.5}, 0);  // a corner of the box
  tip.reference = functions::Expression::parse("0.2*t");
  objective.add(tip);
  objective.add(sensor(K::FinalSquare, Q::Velocity, {0.1, -0.15, -0.5}, 1));
  ObjectiveTerm spin = sensor(K::Tracking, Q::AngularVelocity, {}, 2);
  spin.reference = functions::Expression::parse("4");
  objective.add(spin);
  ObjectiveTerm axis = sensor(K::FinalSquare, Q::Direction, {0.0, 1.0, 0.0}, 0);
  axis.target = 0.3;
  objective.add(axis);
  ObjectiveTerm low = sensor(K::Penalty, Q::Position, {0.0, 0.0, -0.5}, 2);
  low.lower = -0.9;
  low.weight = 100;
  objective.add(low);
  const Evaluation e = evaluate(problem, objective, world(), true);
  std::vector<int> indices;
  for (const char* name : {"box.mass", "box.inertia_xx", "box.inertia_xy", "box.inertia_zz", "box.gravity_z",
                           "pivot.point_b_z"}) {
    const int index = space.find(name);
    ASSERT_GE(index, 0) << name;
    indices.push_back(index);
    EXPECT_TRUE(matches_central_difference(name, e.gradient.parameters[index],
                                           central_difference(problem, objective, world(), index), e.value));
  }
  std::vector<double> remainders;
  const auto orders =
      taylor_orders(problem, objective, world(), indices, {0.3, 0.05, 0.02, -0.01, 0.5, 0.05}, 1e-2, &remainders);
  for (std::size_t k = 0; k < orders.size(); ++k)
    EXPECT_GT(orders[k], 1.9) << "remainders " << remainders[k] << " -> " << remainders[k + 1];
  // The initial velocity of an Euler parameter (a spin change) through the projection onto the constraints.
  EXPECT_TRUE(matches_central_difference("initial velocity of e1", e.gradient.initial_velocities[4],
                                         initial_velocity_central_difference(problem, objective, world(), 4, 1e-6),
                                         e.value));
}

}  // namespace
}  // namespace flexadj::testing
