#pragma once
// Models and the problem set-up shared by the second-order tests (test_hessian_vector, test_gauss_newton).
#include <memory>
#include <string>
#include <vector>

#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "simulation_support.hpp"

namespace flexadj::second_order_models {

// A pendulum hinged to a cart on a rail (prismatic and revolute joints), the cart on a damped spring and pushed
// by a control force; the force elements' parameters and the control values are the design.
inline const char* kCartPendulum = R"YAML(dimension: 2
gravity: [0, -9.81]
integrator: {end_time: 1.0, step_size: 0.005, spectral_radius: 0.8}
controls:
  - {name: F, times: [0, 0.25, 0.5, 0.75, 1.0], values: [1, -2, 0.5, 3, -1]}
bodies:
  - {name: cart, type: point_mass, mass: 2, position: [0, 0], velocity: [0.3, 0]}
  - {name: pendulum, type: rigid_body, mass: 0.5, inertia: 0.01, position: [0.3, -0.4], velocity: [0.3, 0]}
forces:
  - {name: push, type: load, body: cart, control: {name: F, force_direction: [1, 0]}}
  - {name: spring, type: spring_damper, bodies: [ground, cart], points: [[-1, 0], [0, 0]], stiffness: 10, damping: 0.5, free_length: 0.8}
joints:
  - {name: rail, type: prismatic, bodies: [ground, cart], axis: [1, 0]}
  - {name: hinge, type: revolute, bodies: [cart, pendulum], point: [0, 0]}
objective:
  - {type: tracking, coordinate: pendulum.x, reference: "0.3*cos(3*t)", weight: 2}
  - {type: final_square, coordinate: pendulum.y, target: -0.45}
  - {type: final_square, quantity: velocity, coordinate: cart.x, target: 0.1, weight: 0.5}
  - {type: control_effort, control: F, weight: 0.01}
design_variables: [cart.mass, pendulum.mass, pendulum.inertia_zz, pendulum.gravity_y, spring.stiffness, spring.damping, spring.free_length, {control: F}]
)YAML";

// A gradient problem of `yaml` with its forward states in memory (the second-order sweeps need them), named for
// `command` in messages.
inline std::unique_ptr<GradientProblem> make_problem(const std::string& yaml, const std::string& command,
                                                     const std::vector<std::string>& overrides = {}) {
  auto problem = std::make_unique<GradientProblem>(io::read_problem_string(yaml, "test.yaml", overrides), testing::world(),
                                                   command);
  AdjointSettings settings;
  settings.storage = "memory";
  problem->set_adjoint(settings);
  return problem;
}

}  // namespace flexadj::second_order_models
