// Discrete adjoint of generalized-alpha: the gradient against closed forms, central finite differences of
// the discrete objective, and Taylor tests.
#include <gtest/gtest.h>

#include <cmath>

#include "flexadj/io/model_reader.hpp"
#include "gradient_support.hpp"
#include "models.hpp"

namespace flexadj::testing {
namespace {

using objectives::CoordinateTerm;

objectives::Objective final_value(long long coordinate) {
  objectives::Objective objective;
  CoordinateTerm term;
  term.kind = CoordinateTerm::Kind::FinalValue;
  term.coordinate = coordinate;
  objective.add(term);
  return objective;
}

// Bestle and Eberhard 1992: psi = y(pi/2) at (c, z0) = (1, 0.5): psi = 0.5, dpsi/d(c, z0) = (-0.25, 1).
TEST(DiscreteAdjoint, OscillatorGradientMatchesTheClosedFormAtSecondOrder) {
  double previous_error = 0.0;
  for (long long steps : {100, 200, 400, 800}) {
    auto model = oscillator(1.0, 1.0, 0.0, 0.5, M_PI / 2, steps);
    const adjoint::ParameterSpace space(*model);
    const int stiffness = space.find("spring.stiffness");
    ASSERT_GE(stiffness, 0);
    const Evaluation e = evaluate(*model, final_value(0), world(), true);
    EXPECT_NEAR(e.value, 0.5, 2e-4);
    const double error = std::hypot(e.gradient.parameters[stiffness] + 0.25, e.gradient.initial_velocities[0] - 1.0);
    EXPECT_LT(error, 1e-3) << "steps " << steps;
    if (previous_error > 0.0) EXPECT_GT(std::log2(previous_error / error), 1.9) << "steps " << steps;
    previous_error = error;
  }
}

// The adjoint is exact for the discrete objective: it matches central differences of the discrete J.
TEST(DiscreteAdjoint, OscillatorMatchesFiniteDifferencesForEveryParameter) {
  auto model = oscillator(1.3, 2.0, 0.1, 0.5, 2.0, 200);
  model->integrator.newton_tolerance = 1e-12;
  // A damper and an offset attachment so that every spring parameter acts.
  const adjoint::ParameterSpace space(*model);
  space.set_value(*model, space.find("spring.damping"), 0.3);
  objectives::Objective objective;
  CoordinateTerm tracking;
  tracking.kind = CoordinateTerm::Kind::Tracking;
  tracking.coordinate = 0;
  tracking.weight = 2.0;
  tracking.reference = functions::Expression::parse("0.2*sin(3*t)");
  objective.add(tracking);
  CoordinateTerm final_velocity;
  final_velocity.kind = CoordinateTerm::Kind::FinalSquare;
  final_velocity.quantity = CoordinateTerm::Quantity::Velocity;
  final_velocity.coordinate = 0;
  final_velocity.target = 0.1;
  objective.add(final_velocity);
  const Evaluation e = evaluate(*model, objective, world(), true);
  for (const char* name : {"mass.mass", "spring.stiffness", "spring.damping", "spring.free_length", "spring.point_a_x"}) {
    const int index = space.find(name);
    ASSERT_GE(index, 0) << name;
    const double fd = central_difference(*model, objective, world(), index);
    EXPECT_NEAR(e.gradient.parameters[index], fd, 1e-6 * std::max(1.0, std::abs(fd))) << name;
  }
  // Initial velocity along the rail (the direction the constraints leave free).
  std::vector<double> shift(model->coordinate_count(), 0.0);
  const double h = 1e-6;
  shift[0] = h;
  const double plus = evaluate(*model, objective, world(), false, &shift).value;
  shift[0] = -h;
  const double minus = evaluate(*model, objective, world(), false, &shift).value;
  EXPECT_NEAR(e.gradient.initial_velocities[0], (plus - minus) / (2 * h), 1e-6);
}

// 3D rigid body on a spherical joint with an off-axis spin: inertia entries (with products of inertia),
// mass, gravity and the joint's attachment enter through the rotational terms.
TEST(DiscreteAdjoint, SpinningRigidBodyMatchesFiniteDifferencesAndTaylor) {
  auto model = spinning_top_pendulum(0.3, 150, 0.9);
  model->integrator.newton_tolerance = 1e-12;
  const adjoint::ParameterSpace space(*model);
  space.set_value(*model, space.find("box.inertia_xy"), 0.01);
  space.set_value(*model, space.find("box.inertia_yz"), -0.02);
  objectives::Objective objective;
  for (long long coordinate : {0, 1, 4}) {
    CoordinateTerm term;
    term.kind = CoordinateTerm::Kind::FinalSquare;
    term.coordinate = coordinate;
    term.target = 0.05;
    objective.add(term);
  }
  CoordinateTerm tracking;
  tracking.kind = CoordinateTerm::Kind::Tracking;
  tracking.quantity = CoordinateTerm::Quantity::Velocity;
  tracking.coordinate = 2;
  tracking.reference = functions::Expression::parse("0.1*t");
  objective.add(tracking);
  const Evaluation e = evaluate(*model, objective, world(), true);
  std::vector<int> indices;
  for (const char* name : {"box.mass", "box.inertia_xx", "box.inertia_yy", "box.inertia_zz", "box.inertia_xy",
                           "box.inertia_xz", "box.inertia_yz", "box.gravity_z"}) {
    const int index = space.find(name);
    ASSERT_GE(index, 0) << name;
    indices.push_back(index);
    const double fd = central_difference(*model, objective, world(), index);
    EXPECT_NEAR(e.gradient.parameters[index], fd, 1e-6 * std::max(1.0, std::abs(fd))) << name;
  }
  const std::vector<double> direction{0.3, 0.05, -0.04, 0.02, 0.01, -0.03, 0.02, 0.5};
  std::vector<double> remainders;
  const auto orders = taylor_orders(*model, objective, world(), indices, direction, 1e-2, &remainders);
  for (std::size_t k = 0; k < orders.size(); ++k)
    EXPECT_GT(orders[k], 1.9) << "remainders " << remainders[k] << " -> " << remainders[k + 1];
}

// A constraint parameter (the winch's drum radius) and masses of the overhead crane in motion: the
// adjoint carries lambda . (dC_q/dp) mu and dC/dp, at the start on the acceleration level.
TEST(DiscreteAdjoint, OverheadCraneConstraintParameterMatchesFiniteDifferences) {
  auto model = io::read_model_file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/overhead_crane.yaml",
                                   {"integrator.end_time=0.8", "integrator.newton_tolerance=1e-12",
                                    "controls[0].value=300", "controls[1].value=80"});
  const adjoint::ParameterSpace space(*model);
  objectives::Objective objective;
  CoordinateTerm load_x;
  load_x.kind = CoordinateTerm::Kind::FinalSquare;
  load_x.coordinate = 3;  // load.x after the trolley's (x, y, theta)
  load_x.target = 1.0;
  objective.add(load_x);
  CoordinateTerm trolley;
  trolley.kind = CoordinateTerm::Kind::Tracking;
  trolley.coordinate = 0;
  trolley.reference = functions::Expression::parse("t^2");
  objective.add(trolley);
  const Evaluation e = evaluate(*model, objective, world(), true);
  std::vector<int> indices;
  for (const char* name : {"cable.radius", "trolley.mass", "trolley.inertia_zz", "load.mass", "load.gravity_y"}) {
    const int index = space.find(name);
    ASSERT_GE(index, 0) << name;
    indices.push_back(index);
    const double fd = central_difference(*model, objective, world(), index);
    EXPECT_NEAR(e.gradient.parameters[index], fd, 1e-6 * std::max(1.0, std::abs(fd))) << name;
    EXPECT_GT(std::abs(fd), 1e-8) << name << " does not act";
  }
  std::vector<double> remainders;
  const auto orders =
      taylor_orders(*model, objective, world(), indices, {0.01, 0.5, 0.01, 2.0, 0.1}, 1e-1, &remainders);
  for (std::size_t k = 0; k < orders.size(); ++k)
    EXPECT_GT(orders[k], 1.9) << "remainders " << remainders[k] << " -> " << remainders[k + 1];
}

}  // namespace
}  // namespace flexadj::testing
