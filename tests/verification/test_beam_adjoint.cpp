// Discrete adjoint through geometrically exact beams: the gradient with respect to material, section and
// damping parameters, an initial node position and the values of a boundary control torque, against central
// differences of the discrete objective and Taylor tests; the same gradient at any rank count.
#include <gtest/gtest.h>

#include <cmath>

#include "flexadj/io/problem_reader.hpp"
#include "flexadj/model/parameter_space.hpp"
#include "adjoint_checks.hpp"
#include "gradient_support.hpp"

namespace flexadj::testing {
namespace {

using objectives::ObjectiveTerm;

// The "fairly rigid beam" of Schubert et al. (2024, sec. 5) with 5 elements: L = 1, square section of side 0.1
// (A = 0.01, I2 = I3 = 8.333e-6), E = 210000, nu = 0.3, rho = 7.85, eta = 0.1, zeta = 0.01 (the paper's units;
// they are not consistent, see docs/references.md); here pinned at the origin about z (revolute joint), under
// gravity, driven by a torque u(t) about z at the pinned end (a control signal on a grid of 0.01 s), 40 steps
// of 2.5 ms (about 35 steps per period of the first bending mode).
problem::Problem flexible_beam() {
  const char* yaml = R"yaml(
dimension: 3
gravity: [0, -9.81, 0]
integrator: {end_time: 0.1, step_size: 0.0025, spectral_radius: 0.8, newton_tolerance: 1.0e-12}
controls:
  - {name: torque, grid: {start: 0, end: 0.1, count: 11}, values: [0, 0.2, 0.4, 0.6, 0.4, 0.2, 0, -0.2, -0.4, -0.2, 0]}
beams:
  - name: beam
    section: {E: 2.1e5, nu: 0.3, rho: 7.85, A: 0.01, I2: 8.333333e-6, I3: 8.333333e-6,
              shear_factor: 0.8333333333, shear_viscosity: 0.1, bulk_viscosity: 0.01}
    elements: 5
    line: {start: [0, 0, 0], end: [1, 0, 0]}
joints:
  - {type: revolute, bodies: [ground, beam.start], point: [0, 0, 0], axis: [0, 0, 1]}
forces:
  - {type: load, body: beam.start, control: {name: torque, moment_direction: [0, 0, 1]}}
)yaml";
  return io::read_problem_string(yaml, "flexible_beam.yaml");
}

// J = 1/2 (y_tip(T) - y*)^2 + 1/2 int (v_y,mid - 0)^2 dt, weighted to order one.
objectives::Objective tip_objective(const model::Model& model) {
  objectives::Objective objective;
  ObjectiveTerm tip;
  tip.kind = ObjectiveTerm::Kind::FinalSquare;
  tip.coordinate = model.body_offset(model.find_body("beam.end")) + 1;
  tip.target = 0.1;
  tip.weight = 100.0;
  objective.add(tip);
  ObjectiveTerm middle;
  middle.kind = ObjectiveTerm::Kind::Tracking;
  middle.quantity = ObjectiveTerm::Quantity::Velocity;
  middle.coordinate = model.body_offset(model.find_body("beam.node3")) + 1;
  middle.weight = 100.0;
  objective.add(middle);
  return objective;
}

TEST(BeamAdjoint, ParametersMatchCentralDifferencesAndTaylor) {
  auto problem = flexible_beam();
  const auto objective = tip_objective(*problem.model);
  const model::ParameterSpace space(*problem.model);
  const Evaluation e = evaluate(problem, objective, world(), true);
  ASSERT_GT(e.value, 1e-3);
  const std::vector<std::string> names = {"beam.element2.youngs_modulus", "beam.element1.youngs_modulus",
                                          "beam.element4.density",        "beam.element3.shear_viscosity",
                                          "beam.element2.bulk_viscosity", "beam.element1.area",
                                          "beam.element5.I3",             "beam.element3.shear_modulus"};
  std::vector<int> indices;
  for (const auto& name : names) {
    const int index = space.find(name);
    ASSERT_GE(index, 0) << name;
    indices.push_back(index);
    // Relative step 1e-6; 3e-2 for the viscosities. They act weakly (p dJ/dp / J = 4e-5 for the shear viscosity,
    // 2.4e-7 for the bulk viscosity), so that at 1e-6 the bulk viscosity's difference is 2.4 x its noise floor;
    // J is linear in them to far below the tolerance (measured: differences at steps of 10 % and 100 % of the
    // value agree with the adjoint to 4e-9 relative), so the larger step costs no truncation error.
    const double step = name.find("viscosity") != std::string::npos ? 3e-2 : 1e-6;
    EXPECT_TRUE(matches_central_difference(name, e.gradient.parameters[index],
                                           central_difference(problem, objective, world(), index, step), e.value));
  }
  // Taylor test along all of them, each scaled by its value.
  std::vector<double> direction;
  for (std::size_t k = 0; k < indices.size(); ++k)
    direction.push_back(space.value(*problem.model, indices[k]) * (k % 2 ? -0.7 : 1.0));
  std::vector<double> remainders;
  const auto orders = taylor_orders(problem, objective, world(), indices, direction, 1e-2, &remainders);
  std::printf("J = %.10e, Taylor remainders %.3e %.3e %.3e %.3e\n", e.value, remainders[0], remainders[1],
              remainders[2], remainders[3]);
  expect_second_order(orders, remainders);
}

TEST(BeamAdjoint, NodePositionAndControlTorqueMatchCentralDifferences) {
  auto problem = flexible_beam();
  const auto objective = tip_objective(*problem.model);
  const Evaluation e = evaluate(problem, objective, world(), true);
  // The given initial y of node 2 (pre-stress: the elements keep their stress-free reference).
  const int node = problem.model->find_body("beam.node2");
  const long long y = problem.model->body_offset(node) + 1;
  EXPECT_TRUE(matches_central_difference("initial y of beam.node2", e.gradient.initial_coordinates[y],
                                         initial_position_central_difference(problem, objective, world(), node, 1, 1e-6),
                                         e.value));

  auto signal = problem.model->controls().at("torque");
  const auto& gradient = e.gradient.controls.at("torque");
  for (std::size_t k = 0; k < signal->size(); ++k) {
    const double h = relative_step(signal->values()[k], 1e-6);
    EXPECT_TRUE(matches_central_difference("torque[" + std::to_string(k) + "]", gradient[k],
                                           control_central_difference(problem, objective, world(), *signal, k, h),
                                           e.value));
  }
  std::vector<double> direction(signal->size());
  for (std::size_t k = 0; k < direction.size(); ++k) direction[k] = std::sin(1.0 + double(k));
  std::vector<double> remainders;
  const auto orders =
      control_taylor_orders(problem, objective, world(), *signal, gradient, direction, 0.5, &remainders);
  expect_second_order(orders, remainders);
}

// The distributed forward and adjoint runs give the single-rank gradient.
TEST(BeamAdjoint, GradientIsIndependentOfTheRankCount) {
  FLEXADJ_SKIP_UNLESS_DISTRIBUTED();
  auto problem = flexible_beam();
  const auto objective = tip_objective(*problem.model);
  const Evaluation distributed = evaluate(problem, objective, world(), true);
  const Evaluation serial = evaluate(problem, objective, self(), true);
  EXPECT_NEAR(distributed.value, serial.value, 1e-12 * std::abs(serial.value));
  double scale = 0.0, difference = 0.0;
  for (std::size_t k = 0; k < serial.gradient.parameters.size(); ++k) {
    scale = std::max(scale, std::abs(serial.gradient.parameters[k]));
    difference = std::max(difference, std::abs(serial.gradient.parameters[k] - distributed.gradient.parameters[k]));
  }
  EXPECT_LT(difference, 1e-10 * scale);
  const auto& u_serial = serial.gradient.controls.at("torque");
  const auto& u_distributed = distributed.gradient.controls.at("torque");
  for (std::size_t k = 0; k < u_serial.size(); ++k)
    EXPECT_NEAR(u_distributed[k], u_serial[k], 1e-10 * std::max(1.0, std::abs(u_serial[k])));
}

// meshes/beam_swing_up.yaml (after Schubert et al. 2024, very flexible beam), its own objective, over the first
// 0.1 s (120 steps): the gradient with respect to the torque values against central differences and a Taylor
// test (the full horizon: flexadj check meshes/beam_swing_up.yaml, Taylor order 2.00, differences within 1e-8).
TEST(BeamAdjoint, SwingUpModelControlGradient) {
  auto problem = io::read_problem_file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/beam_swing_up.yaml",
                                       {"integrator.end_time=0.1", "integrator.newton_tolerance=1e-12"});
  const objectives::Objective objective(problem.objective_terms);
  const Evaluation e = evaluate(problem, objective, world(), true);
  auto signal = problem.model->controls().at("torque");
  const auto& gradient = e.gradient.controls.at("torque");
  for (std::size_t k : {0, 3, 7, 10}) {
    const double h = relative_step(signal->values()[k], 1e-6);
    EXPECT_TRUE(matches_central_difference("torque[" + std::to_string(k) + "]", gradient[k],
                                           control_central_difference(problem, objective, world(), *signal, k, h),
                                           e.value));
  }
  EXPECT_EQ(gradient[20], 0.0);  // values after the end time cannot act
  std::vector<double> direction(signal->size());
  for (std::size_t k = 0; k < direction.size(); ++k) direction[k] = 5.0 * std::cos(0.7 * double(k));
  std::vector<double> remainders;
  const auto orders =
      control_taylor_orders(problem, objective, world(), *signal, gradient, direction, 0.5, &remainders);
  expect_second_order(orders, remainders);
}

}  // namespace
}  // namespace flexadj::testing
