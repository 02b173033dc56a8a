// Discrete adjoint of the state-space integrator (integrators/state_space.hpp: Heun's method on the accelerations of
// the saddle-point system, coordinate projection): the gradient against central differences of the discrete
// objective and Taylor tests for parameters of force elements, bodies and constraints, the initial state and
// control values; and Held and Seifried's torsional pendulum against the closed form of dpsi/dl.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "flexadj/elements/elements.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "adjoint_checks.hpp"
#include "gradient_support.hpp"
#include "integrator_cases.hpp"
#include "models.hpp"

namespace flexadj::testing {
namespace {

using objectives::ObjectiveTerm;

// The accuracy of J for the noise floor of the differences (fd_check.hpp): that of the variational integrator,
// 1e-12 (the projections converge to round-off like its Newton; not measured separately, the larger of the two).
constexpr double kStateSpaceAccuracy = kVariationalAccuracy;

problem::Problem state_space(problem::Problem problem) {
  problem.integrator.scheme = "state_space";
  return problem;
}

// The oscillator on its slider with a damper (integrator_cases.hpp): stiffness, damping, mass, free length, the
// given initial velocity.
TEST(StateSpaceAdjoint, OscillatorMatchesFiniteDifferencesAndTaylor) {
  check_oscillator_gradient("state_space", kStateSpaceAccuracy);
}

// The damped pendulum on a rod (integrator_cases.hpp): rod length, mass, gravity, the torsion spring, the
// given initial velocity and position off the constraints.
TEST(StateSpaceAdjoint, ConstrainedPendulumMatchesFiniteDifferencesAndTaylor) {
  check_damped_rod_pendulum_gradient("state_space", kStateSpaceAccuracy);
}

// Spatial rigid body with Euler parameters on a spherical joint (the unit-quaternion constraint is projected too):
// inertia entries with products, mass, gravity.
TEST(StateSpaceAdjoint, SpinningRigidBodyMatchesFiniteDifferencesAndTaylor) {
  auto problem = state_space(spinning_top_pendulum(0.3, 150, 0.9));
  const model::ParameterSpace space(*problem.model);
  space.set_value(*problem.model, space.find("box.inertia_xy"), 0.01);
  space.set_value(*problem.model, space.find("box.inertia_yz"), -0.02);
  const objectives::Objective objective = spinning_body_objective(true);
  const Evaluation e = evaluate(problem, objective, world(), true);
  check_parameters(problem, objective, e,
                   {"box.mass", "box.inertia_xx", "box.inertia_yy", "box.inertia_zz", "box.inertia_xy",
                    "box.inertia_xz", "box.inertia_yz", "box.gravity_z"},
                   {0.3, 0.05, -0.04, 0.02, 0.01, -0.03, 0.02, 0.5}, 1e-2, kStateSpaceAccuracy);
}

// Control values of the moving overhead crane (force and torque signals, the winch's drum radius a constraint
// parameter): central differences for some values of each signal and a Taylor test along both.
TEST(StateSpaceAdjoint, CraneControlValuesAndDrumRadiusMatchFiniteDifferencesAndTaylor) {
  auto problem = state_space(moving_crane());
  const objectives::Objective objective = crane_load_objective();
  const Evaluation e = evaluate(problem, objective, world(), true);
  check_parameters(problem, objective, e, {"cable.radius", "load.mass"}, {0.01, 2.0}, 1e-1, kStateSpaceAccuracy);
  auto F = problem.model->controls().at("F");
  auto M = problem.model->controls().at("M");
  for (auto* signal : {F.get(), M.get()}) {
    const std::string name = signal == F.get() ? "F" : "M";
    const auto& gradient = e.gradient.controls.at(name);
    for (int k : {0, 37, 78, 79}) {
      const double h = relative_step(signal->values()[k], 2e-4);
      EXPECT_TRUE(matches_central_difference(name + "[" + std::to_string(k) + "]", gradient[k],
                                             control_central_difference(problem, objective, world(), *signal, k, h),
                                             e.value, kStateSpaceAccuracy));
    }
    // Value 80 (t = 0.8 = T) acts only in the last step's second stage, whose acceleration enters v_N and not q_N;
    // this J reads positions only: zero, and J does not change (generalized-alpha's a_N acts on q_N).
    EXPECT_EQ(gradient[80], 0.0) << name;
    EXPECT_EQ(control_central_difference(problem, objective, world(), *signal, 80, 1.0).value, 0.0) << name;
  }
  std::vector<double> direction(F->size());
  for (std::size_t k = 0; k < direction.size(); ++k) direction[k] = 50.0 * std::sin(0.05 * double(k));
  std::vector<double> remainders;
  const auto orders =
      control_taylor_orders(problem, objective, world(), *F, e.gradient.controls.at("F"), direction, 0.2, &remainders);
  expect_second_order(orders, remainders);
}

// Held and Seifried's torsional pendulum, psi = z2(t1): the discrete gradient converges to the closed form
// dpsi/dl = sin(alpha0 cos w t1) + (alpha0 t1 / l) sqrt(c_r/m) cos(alpha0 cos w t1) sin(w t1) (and dpsi/dc_r,
// dpsi/dm) at second order in h; it is exact for the discrete psi (central difference).
TEST(StateSpaceAdjoint, TorsionalPendulumGradientConvergesToTheClosedForm) {
  const double m = 1.0, l = 1.2, c_r = 2.0, alpha0 = 0.4, t1 = 10.0;
  const double omega = std::sqrt(c_r / m) / l, phase = alpha0 * std::cos(omega * t1);
  const double dpsi_domega = l * std::cos(phase) * alpha0 * (-std::sin(omega * t1)) * t1;
  const double exact[3] = {std::sin(phase) + alpha0 * t1 * omega * std::cos(phase) * std::sin(omega * t1),
                           dpsi_domega * omega / (2.0 * c_r), -dpsi_domega * omega / (2.0 * m)};
  const char* names[3] = {"rod.length", "torsion.stiffness", "mass.mass"};
  objectives::Objective objective;
  ObjectiveTerm z2;
  z2.kind = ObjectiveTerm::Kind::FinalValue;
  z2.coordinate = 1;
  objective.add(z2);
  double previous[3] = {0, 0, 0};
  for (long long steps : {1000, 2000}) {
    auto problem = state_space(torsional_pendulum(m, l, c_r, alpha0, t1, steps));
    const model::ParameterSpace space(*problem.model);
    const Evaluation e = evaluate(problem, objective, world(), true);
    for (int k = 0; k < 3; ++k) {
      const double error = std::abs(e.gradient.parameters[space.find(names[k])] - exact[k]);
      std::printf("%lld steps: d psi/d %s = %.12f, closed form %.12f, relative error %.3e\n", steps, names[k],
                  e.gradient.parameters[space.find(names[k])], exact[k], error / std::abs(exact[k]));
      EXPECT_LT(error, (steps == 1000 ? 4e-4 : 1e-4) * std::abs(exact[k])) << names[k];
      if (steps == 2000) {
        const double order = std::log2(previous[k] / error);
        std::printf("  order %.3f\n", order);
        EXPECT_GT(order, 1.8) << names[k];
      }
      previous[k] = error;
    }
    if (steps == 1000) {
      const int length = space.find("rod.length");
      EXPECT_TRUE(matches_central_difference("rod.length", e.gradient.parameters[length],
                                             central_difference(problem, objective, world(), length), e.value,
                                             kStateSpaceAccuracy));
    }
  }
}

// Held and Seifried's Table 1 (docs/results.md): meshes/torsional_pendulum_state_space.yaml (m = 2, l = 1.5,
// c_r = 5, alpha0 = pi/2, t1 = 10 s; RECON, |dpsi/dl| = 12.11 as the paper's 12.1). The discrete gradient at
// h = 2e-3, 1e-3, 5e-4 s has the error expansion c2 h^2 + c3 h^3 + O(h^4) of Heun's method (the exact
// derivative of the discrete psi, which has it); Richardson extrapolation removes the h^2 and h^3 terms. The paper
// reports |error| 5.1e-9, relative 4.2e-10 for its QR adjoint (ODE45 at RelTol 1e-10).
TEST(StateSpaceAdjoint, HeldSeifriedTable1GradientErrorBelow1e10) {
  const Table1 table = held_seifried_table1([](const problem::Problem& problem, const objectives::Objective& objective) {
    return evaluate(problem, objective, world(), true);
  });
  EXPECT_NEAR(std::abs(table.exact), 12.11, 0.01);
  // Second order at the finest pair, and the extrapolation within the 1e-10 (relative).
  EXPECT_GT(table.order(1), 1.8);
  EXPECT_LT(table.relative_error(), 1e-10);
}

}  // namespace
}  // namespace flexadj::testing
