// Design variables of gradient problems: names resolved to parameters, initial values and control signals;
// their values read and changed in a model; their derivatives picked out of an adjoint gradient.
#include <gtest/gtest.h>

#include <stdexcept>

#include "flexadj/core/error.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "flexadj/model/coordinate_names.hpp"
#include "flexadj/problem/design_space.hpp"
#include "gradient_support.hpp"
#include "models.hpp"

namespace flexadj::problem {
namespace {

using Kind = DesignSpace::Kind;

// Coordinates: cart (x, y) = 0, 1; pendulum (x, y, theta) = 2, 3, 4.
const char* const kModel = R"yaml(
dimension: 2
integrator: {end_time: 0.1, step_size: 1e-2}
controls:
  - {name: F, times: [0, 1, 2], values: [0, 10, 0]}
  - {name: G, interpolation: constant, grid: {start: 0, end: 2, count: 5}, values: [1, 2, 3, 4, 5]}
bodies:
  - {name: cart, type: point_mass, mass: 2, position: [0, 0], velocity: [1, 0]}
  - {name: pendulum, type: rigid_body, mass: 0.5, inertia: 0.01, position: [0, -0.5], orientation: 0.1}
forces:
  - {name: spring, type: spring_damper, bodies: [ground, cart], points: [[-1, 0], [0, 0]], stiffness: 100}
  - {type: load, body: cart, control: {name: G, force_direction: [1, 0]}}
joints:
  - {name: pivot, type: revolute, bodies: [cart, pendulum], point: [0, 0]}
)yaml";

problem::Problem read(const std::vector<std::string>& overrides = {}) {
  return io::read_problem_string(kModel, "test.yaml", overrides);
}

const std::vector<std::string> kNames = {"spring.stiffness", "initial_velocity:cart.x",
                                         "initial_position:pendulum.theta", "control:G"};

TEST(DesignSpace, ResolvesNamesToScalars) {
  const auto problem = read();
  const DesignSpace design(*problem.model, kNames);
  ASSERT_EQ(design.entries().size(), 4u);
  EXPECT_EQ(design.size(), 1 + 1 + 1 + 5);
  const auto& e = design.entries();
  EXPECT_EQ(e[0].kind, Kind::Parameter);
  EXPECT_EQ(e[0].parameter, design.parameters().find("spring.stiffness"));
  EXPECT_EQ(e[1].kind, Kind::InitialVelocity);
  EXPECT_EQ(e[1].coordinate, 0);
  EXPECT_EQ(e[2].kind, Kind::InitialPosition);
  EXPECT_EQ(e[2].coordinate, 4);
  EXPECT_EQ(e[3].kind, Kind::Control);
  EXPECT_EQ(e[3].control, "G");
  EXPECT_EQ(e[3].offset, 3);
  EXPECT_EQ(e[3].size, 5);
  EXPECT_EQ(design.names(), (std::vector<std::string>{"spring.stiffness", "initial_velocity:cart.x",
                                                      "initial_position:pendulum.theta", "control:G[0]", "control:G[1]",
                                                      "control:G[2]", "control:G[3]", "control:G[4]"}));
}

TEST(DesignSpace, DefaultsToAllComponentParameters) {
  const auto problem = read();
  EXPECT_EQ(DesignSpace::of(problem).names(), ParameterSpace(*problem.model).names());
  const auto named = read({"design_variables=[cart.mass, {control: F}]"});
  EXPECT_EQ(DesignSpace::of(named).names(),
            (std::vector<std::string>{"cart.mass", "control:F[0]", "control:F[1]", "control:F[2]"}));
}

TEST(DesignSpace, CoordinateNames) {
  const auto problem = read();
  EXPECT_EQ(model::coordinate_name(*problem.model, 0), "cart.x");
  EXPECT_EQ(model::coordinate_name(*problem.model, 4), "pendulum.theta");
  EXPECT_EQ(model::find_coordinate(*problem.model, "pendulum.y"), 3);
  const auto spatial = io::read_problem_string(R"yaml(
dimension: 3
integrator: {end_time: 0.1, step_size: 1e-2}
bodies:
  - {name: ball, type: point_mass, mass: 1, position: [0, 0, 0]}
  - {name: box.1, type: rigid_body, mass: 1, inertia: {principal: [1, 1, 1]}, position: [0, 0, 0]}
)yaml",
                                               "spatial.yaml");
  EXPECT_EQ(model::find_coordinate(*spatial.model, "ball.z"), 2);
  EXPECT_EQ(model::find_coordinate(*spatial.model, "box.1.e3"), 3 + 6);  // a dot in the body name
  EXPECT_EQ(model::coordinate_name(*spatial.model, 6), "box.1.e0");
}

TEST(DesignSpace, ValuesAndSetValuesRoundTrip) {
  const auto problem = read();
  const DesignSpace design(*problem.model, kNames);
  const std::vector<double> initial = design.values(*problem.model);
  EXPECT_EQ(initial, (std::vector<double>{100, 1, 0.1, 1, 2, 3, 4, 5}));
  const std::vector<double> changed{120, -2, 0.3, 5, 4, 3, 2, 1};
  design.set_values(*problem.model, changed);
  EXPECT_EQ(design.values(*problem.model), changed);
  // The model itself changed: the component, the body's initial state and the control signal.
  EXPECT_EQ(design.parameters().value(*problem.model, design.parameters().find("spring.stiffness")), 120);
  EXPECT_EQ(problem.model->initial_velocities()[0], -2);
  EXPECT_EQ(problem.model->initial_coordinates()[4], 0.3);
  EXPECT_EQ(problem.model->find_control("G")->values(), (std::vector<double>{5, 4, 3, 2, 1}));
  EXPECT_EQ(problem.model->initial_coordinates()[0], 0.0);  // the rest is untouched
  design.set_values(*problem.model, initial);
  EXPECT_EQ(design.values(*problem.model), initial);
  EXPECT_THROW(design.set_values(*problem.model, {1.0, 2.0}), std::invalid_argument);
}

TEST(DesignSpace, PicksTheGradientEntries) {
  const auto problem = read();
  const DesignSpace design(*problem.model, kNames);
  adjoint::Gradient g;
  for (int i = 0; i < design.parameters().size(); ++i) g.parameters.push_back(10.0 * i);
  for (int i = 0; i < problem.model->coordinate_count(); ++i) {
    g.initial_coordinates.push_back(100.0 + i);
    g.initial_velocities.push_back(200.0 + i);
  }
  g.controls["F"] = {-1, -2, -3};
  g.controls["G"] = {1, 2, 3, 4, 5};
  const double stiffness = 10.0 * design.parameters().find("spring.stiffness");
  EXPECT_EQ(design.gradient(g), (std::vector<double>{stiffness, 200, 104, 1, 2, 3, 4, 5}));
  g.controls.erase("G");  // an adjoint without the control's derivatives is an internal error
  EXPECT_THROW(design.gradient(g), std::logic_error);
}

// Bestle and Eberhard 1992: psi = x(pi/2), dpsi/dc = -0.25, dpsi/dz0 = 1 at (c, z0) = (1, 0.5).
TEST(DesignSpace, PicksTheOscillatorGradient) {
  auto problem = testing::oscillator(1.0, 1.0, 0.0, 0.5, M_PI / 2, 400);
  const DesignSpace design(*problem.model, {"spring.stiffness", "initial_velocity:mass.x"});
  objectives::Objective objective;
  objectives::ObjectiveTerm term;
  term.coordinate = model::find_coordinate(*problem.model, "mass.x");
  objective.add(term);
  const auto e = testing::evaluate(problem, objective, testing::world(), true);
  const std::vector<double> gradient = design.gradient(e.gradient);
  EXPECT_NEAR(gradient[0], -0.25, 1e-4);
  EXPECT_NEAR(gradient[1], 1.0, 1e-4);
  EXPECT_EQ(design.values(*problem.model), (std::vector<double>{1.0, 0.5}));
}

template <class Action>
void expect_input_error(Action action, const std::string& text) {
  try {
    action();
    ADD_FAILURE() << "no InputError; expected '" << text << "'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "test.yaml");
    EXPECT_EQ(e.key(), "design_variables");
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(DesignSpace, Errors) {
  const auto problem = read();
  auto space = [&](const std::vector<std::string>& names) {
    return [&, names] { DesignSpace(*problem.model, names); };
  };
  expect_input_error(space({"spring.stifness"}), "did you mean 'spring.stiffness'?");
  expect_input_error(space({"spring.stifness"}), "component 'spring' has the parameters stiffness, damping, free_length");
  expect_input_error(space({"spirng.stiffness"}), "no component 'spirng' (components are: cart, pendulum, spring");
  expect_input_error(space({"initial_velocity:cart.w"}), "has no coordinate 'w' (its coordinates are: x, y)");
  expect_input_error(space({"initial_position:ground.x"}), "ground has no coordinates");
  expect_input_error(space({"control:H"}), "unknown control 'H' (controls are: F, G)");
  expect_input_error(space({"cart.mass", "cart.mass"}), "duplicate design variable 'cart.mass'");
  expect_input_error(space({"mass"}), "expected '<component>.<parameter>'");
}

}  // namespace
}  // namespace flexadj::problem
