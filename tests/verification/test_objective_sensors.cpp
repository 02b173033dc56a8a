// Objective terms on body sensors (a body point's position or velocity, the angular velocity, a body-fixed
// direction, the momenta) on the spinning 3D body: the sensor values against independent facts of the motion
// (constraints, unit vectors, conservation of momentum), and the adjoint gradient through the body kinematics
// and, for the momenta, the mass and inertia against central differences and a Taylor test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "adjoint_checks.hpp"
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

// The spinning top with a product of inertia (I_xy = 0.01) and a tight Newton tolerance: the gradient tests' model.
problem::Problem top_with_product_of_inertia() {
  auto problem = spinning_top_pendulum(0.3, 150, 0.9);
  problem.integrator.newton_tolerance = 1e-12;
  const model::ParameterSpace space(*problem.model);
  space.set_value(*problem.model, space.find("box.inertia_xy"), 0.01);
  return problem;
}

// A momentum sensor on body 0, reading the mass and inertia of its inertia element (the first force element).
ObjectiveTerm momentum_sensor(ObjectiveTerm::Kind kind, ObjectiveTerm::Quantity quantity, int component) {
  ObjectiveTerm term = sensor(kind, quantity, {0.0, 0.0, 0.0}, component);
  term.inertia_element = 0;
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
  auto problem = top_with_product_of_inertia();
  const model::ParameterSpace space(*problem.model);
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

// The box of the spinning top without its joint and weight, with a product of inertia, on the variational
// integrator: its linear momentum m v and angular momentum R J R^T w about the centre, computed here from the
// initial data, are constants of the discrete motion (discrete Noether; Marsden and West 2001, sec. 3.2). The
// momentum sensors at the end must give them while the box turns by about 1.6 rad (|w| = 5.5 rad/s).
TEST(ObjectiveSensors, MomentaAreTheConservedOnesOfAFreeBody) {
  auto problem = spinning_top_pendulum(0.3, 150, 0.9);
  problem.integrator.scheme = "variational";
  problem.integrator.newton_tolerance = 1e-13;
  problem.model->gravity = {0.0, 0.0, 0.0};
  model::Body box = problem.model->body(0);
  box.inertia[3] = 0.02;  // Ixy
  box.inertia[4] = -0.01;  // Ixz
  problem::Problem free;
  free.model->dimension = 3;
  free.integrator = problem.integrator;
  free.model->add_body(box);
  const auto& e = box.initial_coordinates;
  const double euler[4] = {e[3], e[4], e[5], e[6]};
  const auto R = model::rotation_from_euler_parameters(euler);
  const double* de = box.initial_velocities.data() + 3;
  const model::Vec3<double> w_body = model::body_angular_velocity(euler, de);
  const auto& I = box.inertia;
  const model::Vec3<double> L_body{I[0] * w_body[0] + I[3] * w_body[1] + I[4] * w_body[2],
                                   I[3] * w_body[0] + I[1] * w_body[1] + I[5] * w_body[2],
                                   I[4] * w_body[0] + I[5] * w_body[1] + I[2] * w_body[2]};
  const model::Vec3<double> L = model::multiply(R, L_body);
  using Q = ObjectiveTerm::Quantity;
  using K = ObjectiveTerm::Kind;
  for (int component : {0, 1, 2}) {
    objectives::Objective linear, angular;
    ObjectiveTerm p = momentum_sensor(K::FinalValue, Q::Momentum, component);
    ObjectiveTerm l = momentum_sensor(K::FinalValue, Q::AngularMomentum, component);
    linear.add(p);
    angular.add(l);
    const double m = box.mass, v = box.initial_velocities[component];
    const double p_end = evaluate(free, linear, world(), false).value;
    const double L_end = evaluate(free, angular, world(), false).value;
    std::printf("component %d: m v %.15f, p_N - m v %.2e; L %.15f, L_N - L %.2e\n", component, m * v, p_end - m * v,
                L[component], L_end - L[component]);
    EXPECT_NEAR(p_end, m * v, 1e-12);  // measured 5e-14
    EXPECT_NEAR(L_end, L[component], 1e-12) << "component " << component;  // measured 1e-14
  }
  // The box turns: its angular velocity at the end is not the initial one (so the test compares across a rotation).
  objectives::Objective spin;
  spin.add(sensor(K::FinalValue, Q::AngularVelocity, {}, 0));
  EXPECT_GT(std::abs(evaluate(free, spin, world(), false).value - model::multiply(R, w_body)[0]), 0.05);
}

// Momentum terms depend on the mass and inertia explicitly: the gradient in them (and in the joint point and
// gravity, through the motion) against central differences of the discrete J, and a Taylor test.
TEST(ObjectiveSensors, MomentumGradientMatchesFiniteDifferencesAndTaylor) {
  auto problem = top_with_product_of_inertia();
  using Q = ObjectiveTerm::Quantity;
  using K = ObjectiveTerm::Kind;
  objectives::Objective objective;
  ObjectiveTerm px = momentum_sensor(K::FinalSquare, Q::Momentum, 0);
  px.target = 0.3;
  objective.add(px);
  ObjectiveTerm lz = momentum_sensor(K::Tracking, Q::AngularMomentum, 2);
  lz.reference = functions::Expression::parse("0.2*t");
  lz.weight = 10;
  objective.add(lz);
  ObjectiveTerm ly = momentum_sensor(K::FinalSquare, Q::AngularMomentum, 1);
  ly.weight = 5;
  objective.add(ly);
  const Evaluation e = evaluate(problem, objective, world(), true);
  check_parameters(problem, objective, e,
                   {"box.mass", "box.inertia_xx", "box.inertia_xy", "box.inertia_zz", "box.inertia_yz",
                    "pivot.point_b_z"},
                   {0.3, 0.05, 0.02, -0.01, 0.03, 0.05}, 1e-2, kSimulationAccuracy,
                   // Steps of 1e-5: at 1e-6 the small inertia_xx (0.0182) sits at the differences' noise floor,
                   // where a change of round-off in the Newton iterations moved its difference by 3e-5 relative.
                   1e-5);
}

}  // namespace
}  // namespace flexadj::testing
