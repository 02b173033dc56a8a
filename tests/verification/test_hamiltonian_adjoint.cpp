// Discrete adjoint of the constrained Hamiltonian integrator (integrators/hamiltonian.hpp; Maciag, Malczyk and
// Fraczek 2022, eqs. (6a)/(6b), Heun on (q, p*) with projection): the gradient against central differences of the
// discrete objective and Taylor tests for parameters of force elements, bodies and constraints, the initial state
// and control values; the spinning spatial body (Euler parameters: T_q, the q-dependent mass matrix, D' sigma of the
// unit-quaternion and spherical-joint constraints); the double pendulum on a cart of [MMF22] sec. 5.1 at u = 0,
// where J(0) = pi^2/2 exactly.
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
// 1e-12 (the projection converges to round-off like its Newton, the velocities come from a second solve).
constexpr double kHamiltonianAccuracy = kVariationalAccuracy;

problem::Problem hamiltonian(problem::Problem problem) {
  problem.integrator.scheme = "hamiltonian";
  return problem;
}

// The oscillator on its slider with a damper (integrator_cases.hpp): stiffness, damping, mass, free length, the
// given initial velocity.
TEST(HamiltonianAdjoint, OscillatorMatchesFiniteDifferencesAndTaylor) {
  check_oscillator_gradient("hamiltonian", kHamiltonianAccuracy);
}

// The damped pendulum on a rod (D' sigma != 0) (integrator_cases.hpp): rod length, mass, gravity, the torsion spring, the
// given initial velocity and position off the constraints.
TEST(HamiltonianAdjoint, ConstrainedPendulumMatchesFiniteDifferencesAndTaylor) {
  check_damped_rod_pendulum_gradient("hamiltonian", kHamiltonianAccuracy);
}

// The spherical pendulum with off-axis spin ([MMF22]'s planar examples cannot see the rotational terms): a box on a
// spherical joint, Euler parameters, tilted, spinning about a non-principal axis. Inertia entries with products,
// mass, gravity, the joint's point on the body, the given initial velocity of e1.
TEST(HamiltonianAdjoint, SpinningSphericalPendulumMatchesFiniteDifferencesAndTaylor) {
  auto problem = hamiltonian(spinning_top_pendulum(0.3, 150, 0.9));
  const model::ParameterSpace space(*problem.model);
  space.set_value(*problem.model, space.find("box.inertia_xy"), 0.01);
  space.set_value(*problem.model, space.find("box.inertia_yz"), -0.02);
  const objectives::Objective objective = spinning_body_objective(true);
  const Evaluation e = evaluate(problem, objective, world(), true);
  check_parameters(problem, objective, e,
                   {"box.mass", "box.inertia_xx", "box.inertia_yy", "box.inertia_zz", "box.inertia_xy",
                    "box.inertia_xz", "box.inertia_yz", "box.gravity_z", "pivot.point_b_z"},
                   {0.3, 0.05, -0.04, 0.02, 0.01, -0.03, 0.02, 0.5, 0.05}, 1e-2, kHamiltonianAccuracy);
  EXPECT_TRUE(matches_central_difference("initial velocity e1", e.gradient.initial_velocities[4],
                                         initial_velocity_central_difference(problem, objective, world(), 4, 1e-6),
                                         e.value, kHamiltonianAccuracy));
}

// Control values of the moving overhead crane (force and torque signals, the winch's drum radius a constraint
// parameter): central differences for some values of each signal and a Taylor test along F.
TEST(HamiltonianAdjoint, CraneControlValuesAndDrumRadiusMatchFiniteDifferencesAndTaylor) {
  auto problem = hamiltonian(moving_crane());
  const objectives::Objective objective = crane_load_objective();
  const Evaluation e = evaluate(problem, objective, world(), true);
  check_parameters(problem, objective, e, {"cable.radius", "load.mass"}, {0.01, 2.0}, 1e-1, kHamiltonianAccuracy);
  auto F = problem.model->controls().at("F");
  auto M = problem.model->controls().at("M");
  for (auto* signal : {F.get(), M.get()}) {
    const std::string name = signal == F.get() ? "F" : "M";
    const auto& gradient = e.gradient.controls.at(name);
    for (int k : {0, 37, 78, 79}) {
      const double h = relative_step(signal->values()[k], 2e-4);
      EXPECT_TRUE(matches_central_difference(name + "[" + std::to_string(k) + "]", gradient[k],
                                             control_central_difference(problem, objective, world(), *signal, k, h),
                                             e.value, kHamiltonianAccuracy));
    }
  }
  std::vector<double> direction(F->size());
  for (std::size_t k = 0; k < direction.size(); ++k) direction[k] = 50.0 * std::sin(0.05 * double(k));
  std::vector<double> remainders;
  const auto orders =
      control_taylor_orders(problem, objective, world(), *F, e.gradient.controls.at("F"), direction, 0.2, &remainders);
  expect_second_order(orders, remainders);
}

// [MMF22] sec. 5.1, meshes/double_pendulum_cart_hamiltonian.yaml: at u = 0 the pendulum hangs at rest, so
// J(0) = pi^2/2 (benchmarks.md, "001"); the gradient over the sampled force against central differences of the
// discrete J at early, middle and late samples, and a Taylor test along a smooth direction.
TEST(HamiltonianAdjoint, DoublePendulumOnACartAtRestGivesPiSquaredOverTwoAndItsGradient) {
  auto problem =
      io::read_problem_file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/double_pendulum_cart_hamiltonian.yaml", {});
  ASSERT_EQ(problem.integrator.scheme, "hamiltonian");
  const objectives::Objective objective(problem.objective_terms);
  const Evaluation e = evaluate(problem, objective, world(), true);
  std::printf("J(0) = %.15f, pi^2/2 = %.15f\n", e.value, M_PI * M_PI / 2);
  EXPECT_NEAR(e.value, M_PI * M_PI / 2, 1e-13);
  auto F = problem.model->controls().at("F");
  const auto& gradient = e.gradient.controls.at("F");
  ASSERT_EQ(gradient.size(), 401u);
  for (int k : {0, 100, 250, 399, 400}) {  // 400: the last value, at t = 2
    EXPECT_TRUE(matches_central_difference("F[" + std::to_string(k) + "]", gradient[k],
                                           control_central_difference(problem, objective, world(), *F, k, 1e-2),
                                           e.value, kHamiltonianAccuracy));
  }
  std::vector<double> direction(F->size());
  for (std::size_t k = 0; k < direction.size(); ++k) direction[k] = std::sin(0.03 * double(k));
  std::vector<double> remainders;
  const auto orders =
      control_taylor_orders(problem, objective, world(), *F, gradient, direction, 0.5, &remainders);
  expect_second_order(orders, remainders);
}

}  // namespace
}  // namespace flexadj::testing
