// Discrete adjoint of generalized-alpha: the gradient against closed forms, central finite differences of
// the discrete objective, and Taylor tests.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "flexadj/elements/elements.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "adjoint_checks.hpp"
#include "gradient_support.hpp"
#include "models.hpp"

namespace flexadj::testing {
namespace {

using objectives::ObjectiveTerm;

// Terminal squares of the given coordinates (targets 0.1 k) and the tracking of the velocity of `tracked` against
// 0.2 t.
objectives::Objective terminal_and_tracking(const std::vector<long long>& coordinates, long long tracked) {
  objectives::Objective objective;
  for (std::size_t k = 0; k < coordinates.size(); ++k) {
    ObjectiveTerm term;
    term.kind = ObjectiveTerm::Kind::FinalSquare;
    term.coordinate = coordinates[k];
    term.target = 0.1 * double(k + 1);
    objective.add(term);
  }
  ObjectiveTerm tracking;
  tracking.kind = ObjectiveTerm::Kind::Tracking;
  tracking.quantity = ObjectiveTerm::Quantity::Velocity;
  tracking.coordinate = tracked;
  tracking.reference = functions::Expression::parse("0.2*t");
  objective.add(tracking);
  return objective;
}

objectives::Objective final_value(long long coordinate) {
  objectives::Objective objective;
  ObjectiveTerm term;
  term.kind = ObjectiveTerm::Kind::FinalValue;
  term.coordinate = coordinate;
  objective.add(term);
  return objective;
}

// Bestle and Eberhard 1992: psi = y(pi/2) at (c, z0) = (1, 0.5): psi = 0.5, dpsi/d(c, z0) = (-0.25, 1).
TEST(DiscreteAdjoint, OscillatorGradientMatchesTheClosedFormAtSecondOrder) {
  double previous_error = 0.0;
  for (long long steps : {100, 200, 400, 800}) {
    auto problem = oscillator(1.0, 1.0, 0.0, 0.5, M_PI / 2, steps);
    const model::ParameterSpace space(*problem.model);
    const int stiffness = space.find("spring.stiffness");
    ASSERT_GE(stiffness, 0);
    const Evaluation e = evaluate(problem, final_value(0), world(), true);
    EXPECT_NEAR(e.value, 0.5, 2e-4);
    const double error = std::hypot(e.gradient.parameters[stiffness] + 0.25, e.gradient.initial_velocities[0] - 1.0);
    EXPECT_LT(error, 1e-3) << "steps " << steps;
    if (previous_error > 0.0) EXPECT_GT(std::log2(previous_error / error), 1.9) << "steps " << steps;
    previous_error = error;
  }
}

// The adjoint is exact for the discrete objective: it matches central differences of the discrete J.
TEST(DiscreteAdjoint, OscillatorMatchesFiniteDifferencesForEveryParameter) {
  auto problem = oscillator(1.3, 2.0, 0.1, 0.5, 2.0, 200);
  problem.integrator.newton_tolerance = 1e-12;
  // A damper and an offset attachment so that every spring parameter acts.
  const model::ParameterSpace space(*problem.model);
  space.set_value(*problem.model, space.find("spring.damping"), 0.3);
  const objectives::Objective objective = oscillator_objective();
  const Evaluation e = evaluate(problem, objective, world(), true);
  for (const char* name : {"mass.mass", "spring.stiffness", "spring.damping", "spring.free_length", "spring.point_a_x"}) {
    const int index = space.find(name);
    ASSERT_GE(index, 0) << name;
    EXPECT_TRUE(matches_central_difference(name, e.gradient.parameters[index],
                                           central_difference(problem, objective, world(), index), e.value));
  }
  // Initial velocity along the rail (the direction the constraints leave free).
  EXPECT_TRUE(matches_central_difference("initial velocity x", e.gradient.initial_velocities[0],
                                         initial_velocity_central_difference(problem, objective, world(), 0, 1e-6),
                                         e.value));
}

// 3D rigid body on a spherical joint with an off-axis spin: inertia entries (with products of inertia),
// mass, gravity and the joint's attachment enter through the rotational terms.
TEST(DiscreteAdjoint, SpinningRigidBodyMatchesFiniteDifferencesAndTaylor) {
  auto problem = spinning_top_pendulum(0.3, 150, 0.9);
  problem.integrator.newton_tolerance = 1e-12;
  const model::ParameterSpace space(*problem.model);
  space.set_value(*problem.model, space.find("box.inertia_xy"), 0.01);
  space.set_value(*problem.model, space.find("box.inertia_yz"), -0.02);
  const objectives::Objective objective = spinning_body_objective(false);
  const Evaluation e = evaluate(problem, objective, world(), true);
  std::vector<int> indices;
  for (const char* name : {"box.mass", "box.inertia_xx", "box.inertia_yy", "box.inertia_zz", "box.inertia_xy",
                           "box.inertia_xz", "box.inertia_yz", "box.gravity_z"}) {
    const int index = space.find(name);
    ASSERT_GE(index, 0) << name;
    indices.push_back(index);
    EXPECT_TRUE(matches_central_difference(name, e.gradient.parameters[index],
                                           central_difference(problem, objective, world(), index), e.value));
  }
  const std::vector<double> direction{0.3, 0.05, -0.04, 0.02, 0.01, -0.03, 0.02, 0.5};
  std::vector<double> remainders;
  const auto orders = taylor_orders(problem, objective, world(), indices, direction, 1e-2, &remainders);
  expect_second_order(orders, remainders);
}

// A constraint parameter (the winch's drum radius) and masses of the overhead crane in motion: the
// adjoint carries lambda . (dC_q/dp) mu and dC/dp, at the start on the acceleration level.
TEST(DiscreteAdjoint, OverheadCraneConstraintParameterMatchesFiniteDifferences) {
  auto problem = moving_crane();
  const model::ParameterSpace space(*problem.model);
  objectives::Objective objective;
  ObjectiveTerm load_x;
  load_x.kind = ObjectiveTerm::Kind::FinalSquare;
  load_x.coordinate = 3;  // load.x after the trolley's (x, y, theta)
  load_x.target = 1.0;
  objective.add(load_x);
  ObjectiveTerm trolley;
  trolley.kind = ObjectiveTerm::Kind::Tracking;
  trolley.coordinate = 0;
  trolley.reference = functions::Expression::parse("t^2");
  objective.add(trolley);
  const Evaluation e = evaluate(problem, objective, world(), true);
  std::vector<int> indices;
  for (const char* name : {"cable.radius", "trolley.mass", "trolley.inertia_zz", "load.mass", "load.gravity_y"}) {
    const int index = space.find(name);
    ASSERT_GE(index, 0) << name;
    indices.push_back(index);
    EXPECT_TRUE(matches_central_difference(name, e.gradient.parameters[index],
                                           central_difference(problem, objective, world(), index), e.value));
  }
  std::vector<double> remainders;
  const auto orders =
      taylor_orders(problem, objective, world(), indices, {0.01, 0.5, 0.01, 2.0, 0.1}, 1e-1, &remainders);
  expect_second_order(orders, remainders);
}

// Every value of a control signal: central differences and a Taylor test on the crane's force and torque.
TEST(DiscreteAdjoint, CraneControlValuesMatchFiniteDifferencesAndTaylor) {
  auto problem = moving_crane();
  const objectives::Objective objective = crane_load_objective();
  const Evaluation e = evaluate(problem, objective, world(), true);
  for (const std::string name : {"F", "M"}) {
    auto signal = problem.model->controls().at(name);
    const auto& gradient = e.gradient.controls.at(name);
    ASSERT_EQ(gradient.size(), signal->size());
    for (int k : {0, 10, 37, 40, 79, 80}) {
      const double h = relative_step(signal->values()[k], 1e-4);
      EXPECT_TRUE(matches_central_difference(name + "[" + std::to_string(k) + "]", gradient[k],
                                             control_central_difference(problem, objective, world(), *signal, k, h),
                                             e.value));
    }
    // Values after the end time cannot act (t = 0.8 is value 80 of the 0.01 s grid): zero, and J does not change.
    for (int k : {81, 200}) {
      EXPECT_EQ(gradient[k], 0.0) << name << "[" << k << "]";
      EXPECT_EQ(control_central_difference(problem, objective, world(), *signal, k, 1.0).value, 0.0) << name << "[" << k << "]";
    }
  }
  // Taylor test along a smooth direction in both signals.
  auto F = problem.model->controls().at("F");
  auto M = problem.model->controls().at("M");
  const auto F0 = F->values(), M0 = M->values();
  double slope = 0.0;
  std::vector<double> dF(F0.size()), dM(M0.size());
  for (std::size_t k = 0; k < F0.size(); ++k) {
    dF[k] = 50.0 * std::sin(0.05 * double(k));
    dM[k] = 5.0 * std::cos(0.03 * double(k));
    slope += e.gradient.controls.at("F")[k] * dF[k] + e.gradient.controls.at("M")[k] * dM[k];
  }
  std::vector<double> remainders;
  for (double h = 0.2; remainders.size() < 4; h *= 0.5) {
    std::vector<double> f(F0), m(M0);
    for (std::size_t k = 0; k < f.size(); ++k) {
      f[k] += h * dF[k];
      m[k] += h * dM[k];
    }
    F->set_values(f);
    M->set_values(m);
    remainders.push_back(std::abs(evaluate(problem, objective, world(), false).value - e.value - h * slope));
  }
  F->set_values(F0);
  M->set_values(M0);
  for (std::size_t k = 1; k < remainders.size(); ++k)
    EXPECT_GT(std::log2(remainders[k - 1] / remainders[k]), 1.9) << remainders[k - 1] << " -> " << remainders[k];
}

// Oscillator driven by a control force: x(T) = int_0^T u(t) sin(w (T - t)) / (m w) dt, so
// dJ/du_k = int phi_k(t) sin(w (T - t)) / (m w) dt for the hat functions phi_k of the control grid.
TEST(DiscreteAdjoint, ControlGradientMatchesTheClosedForm) {
  const double m = 2.0, c = 8.0, T = 1.5, omega = std::sqrt(c / m);
  auto problem = oscillator(m, c, 0.0, 0.0, T, 3000);
  std::vector<double> times, values;
  for (int k = 0; k <= 10; ++k) {
    times.push_back(0.15 * k);
    values.push_back(1.0 + 0.1 * k);
  }
  auto signal = std::make_shared<functions::ControlSignal>("u", times, values, functions::Interpolation::PiecewiseLinear);
  problem.model->add_control(signal);
  elements::LoadData load;
  load.control = signal;
  load.control_force_direction = {1.0, 0.0, 0.0};
  problem.model->add_force_element(elements::make_load("drive", 0, BodyKind::PointMass2D, load));
  const Evaluation e = evaluate(problem, final_value(0), world(), true);
  const auto& gradient = e.gradient.controls.at("u");
  for (int k = 0; k <= 10; ++k) {
    // Simpson's rule on the hat function's support.
    const double a = std::max(0.0, times[k] - 0.15), b = std::min(T, times[k] + 0.15);
    const int intervals = 2000;
    double integral = 0.0;
    for (int i = 0; i <= intervals; ++i) {
      const double t = a + (b - a) * i / intervals;
      const double hat = 1.0 - std::abs(t - times[k]) / 0.15;
      const double weight = (i == 0 || i == intervals) ? 1.0 : (i % 2 ? 4.0 : 2.0);
      integral += weight * hat * std::sin(omega * (T - t)) / (m * omega);
    }
    integral *= (b - a) / (3.0 * intervals);
    EXPECT_NEAR(gradient[k], integral, 2e-6) << "value " << k;
  }
}

// Penalty and control-effort terms: J depends on the control values also explicitly.
TEST(DiscreteAdjoint, PenaltyAndControlEffortMatchFiniteDifferences) {
  auto problem = oscillator(1.0, 4.0, 0.0, 0.5, 2.0, 400);
  problem.integrator.newton_tolerance = 1e-12;
  std::vector<double> times, values;
  for (int k = 0; k <= 20; ++k) {
    times.push_back(0.1 * k);
    values.push_back(std::sin(0.7 * k));
  }
  auto signal = std::make_shared<functions::ControlSignal>("u", times, values, functions::Interpolation::PiecewiseLinear);
  problem.model->add_control(signal);
  elements::LoadData load;
  load.control = signal;
  load.control_force_direction = {1.0, 0.0, 0.0};
  problem.model->add_force_element(elements::make_load("drive", 0, BodyKind::PointMass2D, load));
  objectives::Objective objective;
  ObjectiveTerm penalty;  // x(t) stays below 0.15: active on part of the oscillation
  penalty.kind = ObjectiveTerm::Kind::Penalty;
  penalty.coordinate = 0;
  penalty.upper = 0.15;
  penalty.weight = 50.0;
  objective.add(penalty);
  ObjectiveTerm effort;
  effort.kind = ObjectiveTerm::Kind::ControlEffort;
  effort.control = "u";
  effort.weight = 0.3;
  objective.add(effort);
  const Evaluation e = evaluate(problem, objective, world(), true);
  const auto& gradient = e.gradient.controls.at("u");
  for (int k : {0, 3, 9, 15, 20}) {
    const double h = relative_step(signal->values()[k], 1e-5);
    EXPECT_TRUE(matches_central_difference("u[" + std::to_string(k) + "]", gradient[k],
                                           control_central_difference(problem, objective, world(), *signal, k, h),
                                           e.value));
  }
  const model::ParameterSpace space(*problem.model);
  const int stiffness = space.find("spring.stiffness");
  // Only the penalty (active on part of the oscillation) depends on the stiffness.
  EXPECT_TRUE(matches_central_difference("spring.stiffness", e.gradient.parameters[stiffness],
                                         central_difference(problem, objective, world(), stiffness), e.value));
  std::vector<double> direction(signal->size()), remainders;
  for (std::size_t k = 0; k < direction.size(); ++k) direction[k] = std::cos(0.4 * double(k));
  expect_second_order(
      control_taylor_orders(problem, objective, world(), *signal, gradient, direction, 0.5, &remainders), remainders);
}

// Nachbagauer et al. 2015, sec. 5.1 at the initial guess: the crane rests, and J0 = 102 * 38251/92378
// (the integral of 34 P(t/3)^2 over [0, 3]); the gradient there matches central differences.
TEST(DiscreteAdjoint, CraneObjectiveAtTheInitialGuessIsTheClosedForm) {
  auto problem = io::read_problem_file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/overhead_crane.yaml",
                                       {"integrator.newton_tolerance=1e-12"});
  const objectives::Objective objective(problem.objective_terms);
  const Evaluation e = evaluate(problem, objective, world(), true);
  EXPECT_NEAR(e.value, 102.0 * 38251.0 / 92378.0, 1e-9);
  auto M = problem.model->controls().at("M");
  // Absolute step of 1 N m (M = 0 here; the moving crane has M = 80 N m): at rest J is nearly quadratic in M
  // (measured: the differences at steps 1e-2, 1e-1 and 1 agree to 1e-10 relative), and dJ/dM_299 = 4e-7 (the value
  // acts in the last 0.01 s only) is 10 times the noise floor at a step of 1e-4, 1e5 times at 1.
  for (int k : {50, 150, 299}) {
    EXPECT_TRUE(matches_central_difference("M[" + std::to_string(k) + "]", e.gradient.controls.at("M")[k],
                                           control_central_difference(problem, objective, world(), *M, k, 1.0),
                                           e.value));
  }
}

// Held and Seifried's torsional spring pendulum: psi = z2(t1) = l sin(alpha0 cos(w t1)), w = sqrt(c_r/m)/l.
// The rod length l enters the constraint, the spring's force (through the geometry) and the initial
// condition: the given initial position is projected onto the circle of radius l, radially.
TEST(DiscreteAdjoint, TorsionalPendulumGradientMatchesTheClosedForm) {
  const double m = 1.0, l = 1.2, c_r = 2.0, alpha0 = 0.4, t1 = 10.0;
  auto problem = torsional_pendulum(m, l, c_r, alpha0, t1, 4000);
  problem.integrator.newton_tolerance = 1e-12;
  const model::ParameterSpace space(*problem.model);
  const Evaluation e = evaluate(problem, final_value(1), world(), true);
  const double omega = std::sqrt(c_r / m) / l, phase = alpha0 * std::cos(omega * t1);
  const double dpsi_domega = l * std::cos(phase) * alpha0 * (-std::sin(omega * t1)) * t1;
  const double dpsi_dl = std::sin(phase) + alpha0 * t1 * omega * std::cos(phase) * std::sin(omega * t1);
  const double dpsi_dcr = dpsi_domega * omega / (2.0 * c_r);
  const double dpsi_dm = -dpsi_domega * omega / (2.0 * m);
  EXPECT_NEAR(e.value, l * std::sin(phase), 1e-5);
  EXPECT_NEAR(e.gradient.parameters[space.find("rod.length")], dpsi_dl, 1e-4 * std::abs(dpsi_dl));
  EXPECT_NEAR(e.gradient.parameters[space.find("torsion.stiffness")], dpsi_dcr, 1e-4 * std::abs(dpsi_dcr));
  EXPECT_NEAR(e.gradient.parameters[space.find("mass.mass")], dpsi_dm, 1e-4 * std::abs(dpsi_dm));
  // Exact for the discrete objective: central differences, and a Taylor test over (l, c_r, m).
  const int length = space.find("rod.length");
  EXPECT_TRUE(matches_central_difference("rod.length", e.gradient.parameters[length],
                                         central_difference(problem, final_value(1), world(), length), e.value));
  std::vector<double> remainders;
  const auto orders = taylor_orders(problem, final_value(1), world(),
                                    {length, space.find("torsion.stiffness"), space.find("mass.mass")},
                                    {0.05, 0.3, 0.2}, 5e-2, &remainders);
  expect_second_order(orders, remainders);
}

// The given initial position of the torsional pendulum, in a direction that is not along the rod: the
// projection onto the circle turns part of it into a change of angle. dJ/dq_given against central
// differences and a Taylor test.
TEST(DiscreteAdjoint, GivenInitialPositionThroughTheProjection) {
  auto problem = torsional_pendulum(1.0, 1.2, 2.0, 0.4, 2.0, 400);
  problem.integrator.newton_tolerance = 1e-12;
  const objectives::Objective objective = final_value(1);
  const Evaluation e = evaluate(problem, objective, world(), true);
  const std::vector<double> q0 = problem.model->body(0).initial_coordinates;
  auto J_at = [&](double dx, double dy) {
    problem.model->set_initial_value(0, 0, false, q0[0] + dx);
    problem.model->set_initial_value(0, 1, false, q0[1] + dy);
    const double value = evaluate(problem, objective, world(), false).value;
    problem.model->set_initial_value(0, 0, false, q0[0]);
    problem.model->set_initial_value(0, 1, false, q0[1]);
    return value;
  };
  const double h = 1e-6;
  EXPECT_TRUE(matches_central_difference("initial x", e.gradient.initial_coordinates[0],
                                         (J_at(h, 0) - J_at(-h, 0)) / (2 * h), h, e.value));
  EXPECT_TRUE(matches_central_difference("initial y", e.gradient.initial_coordinates[1],
                                         (J_at(0, h) - J_at(0, -h)) / (2 * h), h, e.value));
  const double slope = 0.6 * e.gradient.initial_coordinates[0] - 0.8 * e.gradient.initial_coordinates[1];
  std::vector<double> remainders, orders;
  for (double step = 4e-3; remainders.size() < 4; step *= 0.5)
    remainders.push_back(std::abs(J_at(0.6 * step, -0.8 * step) - e.value - step * slope));
  for (std::size_t k = 1; k < remainders.size(); ++k) orders.push_back(std::log2(remainders[k - 1] / remainders[k]));
  expect_second_order(orders, remainders);
}

// Maciag et al. 2022, sec. 5.1: at u = 0 the double pendulum on a cart hangs still and
// J = 1/2 (alpha1 - pi/2)^2 + 1/2 alpha2^2 = pi^2/2 exactly; the control gradient (with gamma = 0 and 1,
// the latter adding the rate terms, alpha2 a joint angle) matches central differences.
TEST(DiscreteAdjoint, DoublePendulumOnACartAtRest) {
  auto problem = io::read_problem_file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/double_pendulum_cart.yaml",
                                       {"integrator.end_time=0.5", "integrator.newton_tolerance=1e-12"});
  for (double gamma : {0.0, 1.0}) {
    std::vector<ObjectiveTerm> terms = problem.objective_terms;
    for (const ObjectiveTerm& angle : problem.objective_terms) {
      ObjectiveTerm rate = angle;
      rate.quantity = ObjectiveTerm::Quantity::Velocity;
      rate.target = 0.0;
      rate.weight = gamma;
      if (gamma > 0.0) terms.push_back(rate);
    }
    const objectives::Objective objective(terms);
    const Evaluation e = evaluate(problem, objective, world(), true);
    EXPECT_NEAR(e.value, M_PI * M_PI / 2.0, 1e-12);
    auto F = problem.model->controls().at("F");
    // Absolute step 1e-4 N (F = 0 at rest): the differences stand 3e4 or more above the noise floor.
    for (int k : {0, 20, 60, 99}) {
      EXPECT_TRUE(matches_central_difference("gamma " + std::to_string(gamma) + " F[" + std::to_string(k) + "]",
                                             e.gradient.controls.at("F")[k],
                                             control_central_difference(problem, objective, world(), *F, k, 1e-4),
                                             e.value));
    }
    std::vector<double> direction(F->size()), remainders;
    for (std::size_t k = 0; k < direction.size(); ++k) direction[k] = std::sin(0.05 * double(k));
    expect_second_order(control_taylor_orders(problem, objective, world(), *F, e.gradient.controls.at("F"), direction,
                                              1.0, &remainders),
                        remainders);
  }
}

// HHT (alpha_m = 0, rho_inf = 0.8) on a chain of three spatial rigid links on spherical joints (quaternion
// constraints, 12 multipliers), with a lateral gravity component so that the motion leaves the x-z plane: masses,
// inertia entries, gravity and a joint's attachment point against central differences and a Taylor test, and the
// initial velocity of the last link.
TEST(DiscreteAdjoint, HhtOnARigidChainMatchesFiniteDifferencesAndTaylor) {
  auto problem = rigid_chain(3, 0.5, 100, 0.8);
  problem.integrator.newton_tolerance = 1e-12;
  const model::ParameterSpace space(*problem.model);
  for (const char* link : {"link1", "link2", "link3"})
    space.set_value(*problem.model, space.find(std::string(link) + ".gravity_y"), 2.0);
  const long long tip = problem.model->body_offset(problem.model->find_body("link3"));
  const objectives::Objective objective = terminal_and_tracking({tip, tip + 1, tip + 2}, tip + 1);
  problem.integrator.scheme = "generalized_alpha";
  const double J_generalized_alpha = evaluate(problem, objective, world(), false).value;
  problem.integrator.scheme = "hht";
  const Evaluation e = evaluate(problem, objective, world(), true);
  // The scheme took effect: HHT's J differs from generalized-alpha's at the same rho_inf and step.
  EXPECT_GT(std::abs(e.value - J_generalized_alpha), 1e-6 * e.value);
  check_parameters(problem, objective, e,
                   {"link1.mass", "link3.mass", "link2.inertia_xx", "link3.inertia_yy", "link1.gravity_y",
                    "link2.gravity_z", "joint2.point_b_z", "joint3.point_a_z"},
                   {0.3, -0.2, 0.01, 0.005, 0.5, 1.0, 0.05, -0.05}, 5e-2, kSimulationAccuracy, 1e-5);
  EXPECT_TRUE(matches_central_difference("initial velocity of link3.y", e.gradient.initial_velocities[tip + 1],
                                         initial_velocity_central_difference(problem, objective, world(), tip + 1, 1e-6),
                                         e.value));
}

// HHT's control gradient (its alpha-shifted force evaluation enters the control terms): the moving crane's force
// and torque values, early, middle and the last two that act (t = 0.79, 0.8), against central differences, and a
// Taylor test along F.
TEST(DiscreteAdjoint, HhtCraneControlValuesMatchFiniteDifferencesAndTaylor) {
  auto problem = moving_crane();
  problem.integrator.scheme = "hht";
  const objectives::Objective objective = crane_load_objective();
  const Evaluation e = evaluate(problem, objective, world(), true);
  for (const std::string name : {"F", "M"}) {
    auto signal = problem.model->controls().at(name);
    const auto& gradient = e.gradient.controls.at(name);
    for (int k : {0, 37, 79, 80}) {
      const double h = relative_step(signal->values()[k], 1e-4);
      EXPECT_TRUE(matches_central_difference(name + "[" + std::to_string(k) + "]", gradient[k],
                                             control_central_difference(problem, objective, world(), *signal, k, h),
                                             e.value));
    }
  }
  auto F = problem.model->controls().at("F");
  std::vector<double> direction(F->size());
  for (std::size_t k = 0; k < direction.size(); ++k) direction[k] = 50.0 * std::sin(0.05 * double(k));
  std::vector<double> remainders;
  const auto orders =
      control_taylor_orders(problem, objective, world(), *F, e.gradient.controls.at("F"), direction, 0.2, &remainders);
  expect_second_order(orders, remainders);
}

// A planar double pendulum of two rigid links on revolute joints with a rotational spring-damper between them
// (moment -(k (theta_b - theta_a - theta_0) + c (omega_b - omega_a))): stiffness, damping and rest angle.
TEST(DiscreteAdjoint, PlanarRotationalSpringDamperParameters) {
  auto problem = io::read_problem_string(R"yaml(
dimension: 2
gravity: [0, -9.81]
integrator: {end_time: 1.0, step_size: 0.005, spectral_radius: 0.9, newton_tolerance: 1.0e-12}
bodies:
  - {name: upper, type: rigid_body, mass: 1.0, inertia: 0.08, position: [0.35, -0.35], orientation: -0.785398}
  - {name: lower, type: rigid_body, mass: 0.7, inertia: 0.05, position: [0.95, -0.7], orientation: -0.4}
forces:
  - {name: elbow, type: rotational_spring_damper, bodies: [upper, lower], stiffness: 8, damping: 0.3, rest_angle: 0.2}
joints:
  - {type: revolute, bodies: [ground, upper], point: [0, 0]}
  - {type: revolute, bodies: [upper, lower], point: [0.7, -0.7]}
)yaml", "rotational_spring_damper.yaml");
  const model::Model& model = *problem.model;
  const long long lower = model.body_offset(model.find_body("lower"));
  const objectives::Objective objective = terminal_and_tracking({lower, lower + 1, lower + 2}, lower + 2);
  const Evaluation e = evaluate(problem, objective, world(), true);
  check_parameters(problem, objective, e, {"elbow.stiffness", "elbow.damping", "elbow.rest_angle", "lower.mass"},
                   {2.0, 0.1, 0.1, 0.2}, 1e-1);
}

// A spatial rotational damper (damping only, on the relative angular velocity about an axis carried by a) between
// ground and the spinning body on its spherical joint: the damping and the axis.
TEST(DiscreteAdjoint, SpatialRotationalDamperParameters) {
  auto problem = spinning_top_pendulum(0.3, 150, 0.9);
  problem.integrator.newton_tolerance = 1e-12;
  elements::RotationalSpringDamperData damper;
  damper.damping = 0.4;
  const double norm = std::sqrt(0.3 * 0.3 + 0.2 * 0.2 + 0.9 * 0.9);
  damper.axis = {0.3 / norm, 0.2 / norm, 0.9 / norm};
  problem.model->add_force_element(elements::make_rotational_spring_damper(
      "damper", {kGround, 0}, {BodyKind::Ground, BodyKind::SpatialRigid}, damper));
  const objectives::Objective objective = spinning_body_objective(true);
  const Evaluation e = evaluate(problem, objective, world(), true);
  // Relative step 1e-5: at 1e-6 the differences of damper.damping sit at the noise floor (they move by 1e-6 .. 2e-5
  // relative with the Newton tolerance, 1e-12 or 1e-14, or with round-off in the joints' derivatives, while the
  // adjoint derivative stays the same to 10 digits).
  check_parameters(problem, objective, e, {"damper.damping", "damper.axis_x", "damper.axis_y", "damper.axis_z"},
                   {0.2, 0.1, -0.1, 0.05}, 1e-1, kSimulationAccuracy, 1e-5);
}

// Two spatial rigid bodies welded by a fixed joint (3 position and 3 rotation equations), the pair hanging from a
// spherical joint and turning about it at w = (1, -2, 5) (velocities w x r): the weld's attachment points and rest rotation, and the welded body's mass and
// inertia.
TEST(DiscreteAdjoint, FixedJointParameters) {
  auto problem = io::read_problem_string(R"yaml(
dimension: 3
gravity: [0, 0, -9.81]
integrator: {end_time: 0.3, step_size: 0.002, spectral_radius: 0.9, newton_tolerance: 1.0e-12}
bodies:
  - {name: arm, type: rigid_body, mass: 2, inertia: [0.1, 0.12, 0.02, 0.01, 0, 0], position: [0.1, 0, -0.4],
     orientation: {axis: [1, 1, 0], angle: 0.3}, velocity: [0.8, 0.9, 0.2], angular_velocity: [1, -2, 5]}
  - {name: head, type: rigid_body, mass: 1, inertia: [0.01, 0.02, 0.015, 0, 0.002, 0], position: [0.25, 0.1, -0.8],
     orientation: {axis: [0, 1, 1], angle: 0.5}, velocity: [1.1, 2.05, 0.6], angular_velocity: [1, -2, 5]}
joints:
  - {type: spherical, bodies: [ground, arm], point: [0, 0, 0]}
  - {name: weld, type: fixed, bodies: [arm, head], point: [0.2, 0.05, -0.7]}
)yaml", "fixed_joint.yaml");
  const model::Model& model = *problem.model;
  ASSERT_EQ(model.constraints().back()->name(), "weld");
  ASSERT_EQ(model.constraints().back()->equation_count(), 6);
  const long long head = model.body_offset(model.find_body("head"));
  const objectives::Objective objective = terminal_and_tracking({head, head + 1, head + 2}, head);
  const Evaluation e = evaluate(problem, objective, world(), true);
  check_parameters(problem, objective, e,
                   {"weld.point_a_x", "weld.point_b_z", "weld.rest_rotation_0", "weld.rest_rotation_2", "head.mass",
                    "head.inertia_xz"},
                   {0.02, -0.02, 0.01, 0.01, 0.3, 0.001}, 1e-1, kSimulationAccuracy, 1e-5);
}

// A spatial point mass (x, y, z) on a rod (distance constraint) from the origin, with a spring to a ground point,
// started off the vertical plane: mass, gravity, rod length, spring, the initial position and velocity.
TEST(DiscreteAdjoint, SpatialPointMassParameters) {
  auto problem = io::read_problem_string(R"yaml(
dimension: 3
gravity: [0, 0, -9.81]
integrator: {end_time: 1.0, step_size: 0.005, spectral_radius: 0.9, newton_tolerance: 1.0e-12}
bodies:
  - {name: bob, type: point_mass, mass: 1.5, position: [0.6, 0, -0.8], velocity: [0, 1.2, 0]}
forces:
  - {name: spring, type: spring_damper, bodies: [ground, bob], points: [[1, 1, 0], [0.6, 0, -0.8]], stiffness: 6,
     damping: 0.2}
joints:
  - {name: rod, type: distance, bodies: [ground, bob], points: [[0, 0, 0], [0.6, 0, -0.8]], length: 1}
)yaml", "spatial_point_mass.yaml");
  ASSERT_EQ(problem.model->body(0).kind, BodyKind::PointMass3D);
  const objectives::Objective objective = terminal_and_tracking({0, 1, 2}, 1);
  const Evaluation e = evaluate(problem, objective, world(), true);
  check_parameters(problem, objective, e,
                   {"bob.mass", "bob.gravity_z", "rod.length", "spring.stiffness", "spring.damping",
                    "spring.point_a_y"},
                   {0.2, 0.5, 0.05, 0.5, 0.05, 0.1}, 1e-1);
  EXPECT_TRUE(matches_central_difference("initial velocity z", e.gradient.initial_velocities[2],
                                         initial_velocity_central_difference(problem, objective, world(), 2, 1e-6),
                                         e.value));
  EXPECT_TRUE(matches_central_difference("initial position y", e.gradient.initial_coordinates[1],
                                         initial_position_central_difference(problem, objective, world(), 0, 1, 1e-6),
                                         e.value));
}

// A piecewise-constant control (value k held on [t_k, t_k+1), 0.1 s grid, on a step of 0.005 s) pushing a cart with
// a pendulum: every value against central differences, one past the end time zero, and a Taylor test.
TEST(DiscreteAdjoint, PiecewiseConstantControlMatchesFiniteDifferencesAndTaylor) {
  auto problem = io::read_problem_string(R"yaml(
dimension: 2
gravity: [0, -9.81]
integrator: {end_time: 1.0, step_size: 0.005, spectral_radius: 0.9, newton_tolerance: 1.0e-12}
controls:
  - {name: F, interpolation: constant, grid: {start: 0, end: 1.2, count: 13},
     values: [0, 2, 5, 3, -1, -4, -2, 1, 3, 2, 0, 1, 1]}
bodies:
  - {name: cart, type: point_mass, mass: 2, position: [0, 0]}
  - {name: pendulum, type: rigid_body, mass: 0.5, inertia: 0.01, position: [0, -0.5]}
forces:
  - {type: load, body: cart, control: {name: F, force_direction: [1, 0]}}
joints:
  - {type: prismatic, bodies: [ground, cart], axis: [1, 0]}
  - {type: revolute, bodies: [cart, pendulum], point: [0, 0]}
)yaml", "piecewise_constant.yaml");
  auto signal = problem.model->controls().at("F");
  ASSERT_EQ(signal->interpolation(), functions::Interpolation::PiecewiseConstant);
  const objectives::Objective objective = terminal_and_tracking({0, 2, 4}, 4);
  const Evaluation e = evaluate(problem, objective, world(), true);
  const auto& gradient = e.gradient.controls.at("F");
  ASSERT_EQ(gradient.size(), 13u);
  // Values 0..9 act on [0, 1), value 10 (t = 1.0 = T) through the equations of the last step at T; values 11
  // and 12 (after T) do not act.
  for (std::size_t k = 0; k <= 10; ++k) {
    const double h = relative_step(signal->values()[k], 1e-4);
    EXPECT_TRUE(matches_central_difference("F[" + std::to_string(k) + "]", gradient[k],
                                           control_central_difference(problem, objective, world(), *signal, k, h),
                                           e.value));
  }
  for (std::size_t k : {11, 12}) {
    EXPECT_EQ(gradient[k], 0.0) << "F[" << k << "]";
    EXPECT_EQ(control_central_difference(problem, objective, world(), *signal, k, 1.0).value, 0.0) << "F[" << k << "]";
  }
  std::vector<double> direction(signal->size()), remainders;
  for (std::size_t k = 0; k < direction.size(); ++k) direction[k] = std::cos(0.9 * double(k));
  expect_second_order(
      control_taylor_orders(problem, objective, world(), *signal, gradient, direction, 1.0, &remainders), remainders);
}

}  // namespace
}  // namespace flexadj::testing
