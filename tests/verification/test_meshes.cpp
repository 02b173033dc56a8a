// The model files in meshes/: each is read with the model reader, run in memory and checked against its
// closed form, its equilibrium or a conservation law (see the comment block at the top of each file).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "flexadj/io/problem_reader.hpp"
#include "flexadj/model/body.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {
namespace {

const std::string kMeshes = FLEXADJ_SOURCE_DIR "/meshes/";

// Reads meshes/<file> with the overrides and runs it; a failure to read or to integrate fails the test.
struct ModelRun {
  problem::Problem problem;
  Trajectory trajectory;
};

ModelRun run_file(const std::string& file, const std::vector<std::string>& overrides = {}) {
  ModelRun result;
  try {
    result.problem = io::read_problem_file(kMeshes + file, overrides);
    result.trajectory = run(result.problem, world());
  } catch (const std::exception& e) {
    ADD_FAILURE() << file << ": " << e.what();
    result.problem.model.reset();  // the tests' ASSERT_TRUE(r.problem.model) stop there
  }
  return result;
}

double max_deviation_from_initial(const Trajectory& trajectory) {
  double worst = 0.0;
  for (const auto& q : trajectory.q)
    for (std::size_t i = 0; i < q.size(); ++i) worst = std::max(worst, std::abs(q[i] - trajectory.q.front()[i]));
  return worst;
}

// Every file in meshes/ must be covered by a test below; every file reads, runs a few steps and keeps its
// constraints.
TEST(Meshes, EveryModelFileReadsAndRuns) {
  const std::set<std::string> covered{"oscillator.yaml",         "torsional_pendulum.yaml",  "overhead_crane.yaml",
                                      "hanging_rigid_body.yaml", "triple_pendulum_cart.yaml", "double_pendulum_cart.yaml",
                                      "spherical_pendulum_spin.yaml", "rigid_chain.yaml",
                                      "hanging_rigid_body_identification.yaml", "double_pendulum_cart_stabilization.yaml",
                                      // beams: their benchmarks are in test_beam_statics.cpp and test_beam_dynamics.cpp
                                      "bend_45_degrees.yaml", "right_angle_cantilever.yaml", "beam_swing_up.yaml",
                                      // the same beam to the paper's end configuration: reproduction_beam_every_node
                                      "beam_swing_up_every_node.yaml",
                                      // the variational integrator's: test_variational_integrator.cpp
                                      "flying_spaghetti.yaml",
                                      // ANCF: the pendulum's checks are in test_ancf_pendulum.cpp
                                      "ancf_pendulum.yaml",
                                      // the state-space integrator's (Held and Seifried's Table 1): below
                                      "torsional_pendulum_state_space.yaml",
                                      // the Hamiltonian integrator's (J(0) = pi^2/2 and the gradient):
                                      // test_hamiltonian_adjoint.cpp
                                      "double_pendulum_cart_hamiltonian.yaml",
                                      // an end condition (test_final_time.cpp, ModelFileOfTheStoppedOscillator):
                                      // the loop below runs it to its event
                                      "oscillator_stopped.yaml",
                                      // the five-axis manipulator (after Bestle and Eberhard 1992): below
                                      "manipulator.yaml",
                                      // two sleighs on knife edges (non-holonomic): their gradient in
                                      // test_knife_edge_adjoint.cpp, the sleigh's closed form in test_knife_edge.cpp
                                      "knife_edge.yaml",
                                      // the constrained pendulum's swing-up on the variational integrator
                                      // (Schubert et al. 2024): reproduction_pendulum_swing_up
                                      "pendulum_swing_up_variational.yaml",
                                      // the same on the null-space variational integrator: its J and gradient
                                      // equal the RATTLE form's (verification_null_space_variational)
                                      "pendulum_swing_up_null_space.yaml",
                                      // the pendulum in minimal coordinates (joint_midpoint): the paper's scalar
                                      // equations in test_variational_orders, its swing-up in
                                      // reproduction_pendulum_swing_up_minimal
                                      "pendulum_swing_up_minimal.yaml",
                                      // the dual-quaternion beam (Schubert et al. 2024, sec. 4):
                                      // test_dual_quaternion_beam_dynamics.cpp (free flight, cantilever) and
                                      // verification_dual_quaternion_beam_adjoint (the swing-up's gradients)
                                      "flying_spaghetti_dual_quaternion.yaml", "dual_quaternion_cantilever.yaml",
                                      "beam_swing_up_dual_quaternion.yaml",
                                      // the rest-to-rest transfer with end constraints (J* = 6 in closed form):
                                      // cli_optimize_constraints
                                      "rest_to_rest_transfer.yaml",
                                      // the minimum-time transfer (free final time, normalized control; T* = 2 in
                                      // closed form): cli_minimum_time
                                      "minimum_time_transfer.yaml"};
  std::set<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(kMeshes))
    if (entry.path().extension() == ".yaml") found.insert(entry.path().filename().string());
  EXPECT_EQ(found, covered) << "a model file in meshes/ has no test here (or a tested one is missing)";
  for (const std::string& file : found) {
    SCOPED_TRACE(file);
    // A run with an end condition stops at its event, which end_time only bounds: the file's own end_time.
    const bool event = file == "oscillator_stopped.yaml";
    const std::vector<std::string> overrides = event ? std::vector<std::string>{}
                                                     : std::vector<std::string>{"integrator.end_time=0.1"};
    const ModelRun r = run_file(file, overrides);
    ASSERT_TRUE(r.problem.model);
    EXPECT_GE(r.trajectory.summary.steps, 1);
    if (!event) EXPECT_NEAR(r.trajectory.times.back(), 0.1, 1e-12);
    EXPECT_LE(r.trajectory.summary.max_constraint_residual, 1e-10);
  }
}

// Bestle and Eberhard 1992: x(pi/2) = z0/w sin(w pi/2) = 0.5 for m = c = 1, z0 = 0.5.
TEST(Meshes, OscillatorMatchesTheClosedForm) {
  const ModelRun r = run_file("oscillator.yaml");
  ASSERT_TRUE(r.problem.model);
  const Trajectory& t = r.trajectory;
  EXPECT_NEAR(t.times.back(), M_PI / 2, 1e-14);
  EXPECT_NEAR(t.q.back()[0], 0.5, 1e-5);
  for (const auto& q : t.q) EXPECT_NEAR(q[1], 0.0, 1e-14);  // on the rail
  EXPECT_LE(t.summary.max_constraint_residual, 1e-10);
}

// Held and Seifried: z2(t) = l sin(alpha0 cos(w t)), w = sqrt(c_r/(m l^2)); m = 1, l = 1.2, c_r = 2,
// alpha0 = 0.4 (the file's RECON values).
TEST(Meshes, TorsionalPendulumMatchesTheClosedForm) {
  const ModelRun r = run_file("torsional_pendulum.yaml", {"integrator.end_time=2"});
  ASSERT_TRUE(r.problem.model);
  const double m = r.problem.model->body(0).mass, l = 1.2, c_r = 2.0, alpha0 = 0.4;
  const auto& q0 = r.problem.model->body(0).initial_coordinates;
  ASSERT_NEAR(std::hypot(q0[0], q0[1]), l, 1e-14);
  ASSERT_NEAR(std::atan2(q0[1], q0[0]), alpha0, 1e-14);
  const double omega = std::sqrt(c_r / (m * l * l)), t1 = r.trajectory.times.back();
  EXPECT_NEAR(t1, 2.0, 1e-12);
  EXPECT_NEAR(r.trajectory.q.back()[1], l * std::sin(alpha0 * std::cos(omega * t1)), 1e-4);
  EXPECT_NEAR(r.trajectory.q.back()[0], l * std::cos(alpha0 * std::cos(omega * t1)), 1e-4);
  EXPECT_LE(r.trajectory.summary.max_constraint_residual, 1e-10);
}

// The same pendulum with the reproduction's data (m = 2, l = 1.5, c_r = 5, alpha0 = pi/2, RECON) and the
// state-space integrator, over 2 s: z = l (cos alpha, sin alpha), alpha = alpha0 cos(w t); the constraint at
// round-off (the projection).
TEST(Meshes, TorsionalPendulumStateSpaceMatchesTheClosedForm) {
  const ModelRun r = run_file("torsional_pendulum_state_space.yaml", {"integrator.end_time=2"});
  ASSERT_TRUE(r.problem.model);
  EXPECT_EQ(r.problem.integrator.scheme, "state_space");
  const double m = 2.0, l = 1.5, c_r = 5.0, alpha0 = M_PI / 2;
  ASSERT_EQ(r.problem.model->body(0).mass, m);
  const double omega = std::sqrt(c_r / (m * l * l)), t1 = r.trajectory.times.back();
  EXPECT_NEAR(t1, 2.0, 1e-12);
  EXPECT_NEAR(r.trajectory.q.back()[1], l * std::sin(alpha0 * std::cos(omega * t1)), 1e-5);
  EXPECT_NEAR(r.trajectory.q.back()[0], l * std::cos(alpha0 * std::cos(omega * t1)), 1e-5);
  EXPECT_LE(r.trajectory.summary.max_constraint_residual, 1e-14);
}

// meshes/torsional_pendulum.yaml runs with the type overridden (it leaves spectral_radius at its default, which
// state_space and variational do not take): the state-space integrator against its closed form.
TEST(Meshes, TorsionalPendulumRunsWithTheStateSpaceIntegratorByOverride) {
  const ModelRun r = run_file("torsional_pendulum.yaml", {"integrator.type=state_space", "integrator.end_time=2"});
  ASSERT_TRUE(r.problem.model);
  EXPECT_EQ(r.problem.integrator.scheme, "state_space");
  const double m = 1.0, l = 1.2, c_r = 2.0, alpha0 = 0.4, omega = std::sqrt(c_r / (m * l * l));
  EXPECT_NEAR(r.trajectory.q.back()[1], l * std::sin(alpha0 * std::cos(omega * 2.0)), 1e-5);
  EXPECT_LE(r.trajectory.summary.max_constraint_residual, 1e-14);
}

// Nachbagauer et al. 2015, sec. 5.1, with the initial-guess controls F = 0, M = 98.1: at rest.
TEST(Meshes, OverheadCraneStaysAtRestWithTheInitialGuess) {
  const ModelRun r = run_file("overhead_crane.yaml");
  ASSERT_TRUE(r.problem.model);
  const Trajectory& t = r.trajectory;
  EXPECT_NEAR(t.times.back(), 3.0, 1e-12);
  EXPECT_LT(max_deviation_from_initial(t), 1e-8);
  // Coordinates: trolley (x, y, theta), load (x, y).
  for (const auto& q : t.q) {
    EXPECT_NEAR(q[3], 0.0, 1e-9);
    EXPECT_NEAR(q[4], -4.0, 1e-9);
  }
  EXPECT_LE(t.summary.max_constraint_residual, 1e-10);
}

// Without the holding torque (M = 0) the load falls: the winch is really loaded by the weight.
TEST(Meshes, OverheadCraneDropsTheLoadWithoutTheHoldingTorque) {
  const ModelRun r = run_file("overhead_crane.yaml", {"controls[1].value=0", "integrator.end_time=0.5"});
  ASSERT_TRUE(r.problem.model);
  // Free fall of the load (the drum's inertia is small against the load): y(0.5) well below -4.
  EXPECT_LT(r.trajectory.q.back()[4], -4.5);
}

// Nachbagauer et al. 2015, sec. 5.2 with the true inertia: S follows the prescribed path; unit Euler
// parameters.
TEST(Meshes, HangingRigidBodyFollowsThePrescribedPath) {
  const ModelRun r = run_file("hanging_rigid_body.yaml");
  ASSERT_TRUE(r.problem.model);
  const Trajectory& t = r.trajectory;
  EXPECT_NEAR(t.times.back(), 3.0, 1e-12);
  const auto s_body = r.problem.model->to_body_point(0, {0.0, 0.0, 0.0});
  EXPECT_NEAR(s_body[2], 0.916, 1e-14);
  const auto s = [](double time) { return 0.05 * (1.0 + std::sin(2.0 * M_PI * (time - 0.25))); };
  double worst_path = 0.0, worst_norm = 0.0, travel = 0.0;
  for (std::size_t n = 0; n < t.times.size(); ++n) {
    const double time = t.times[n];
    const auto& q = t.q[n];
    const model::Vec3<double> x = model::point_position(model::BodyKind::SpatialRigid, q.data(), s_body);
    const double path[3] = {(time < 1) * s(time), (time >= 1) * (time < 2) * s(time), (time >= 2) * s(time)};
    for (int i = 0; i < 3; ++i) worst_path = std::max(worst_path, std::abs(x[i] - path[i]));
    worst_norm = std::max(worst_norm, std::abs(std::sqrt(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]) - 1.0));
    travel = std::max(travel, std::abs(q[0]) + std::abs(q[1]));
  }
  EXPECT_LT(worst_path, 1e-10);
  EXPECT_LT(worst_norm, 1e-10);
  EXPECT_GT(travel, 1e-2);  // the body really swings
  EXPECT_LE(t.summary.max_constraint_residual, 1e-10);
}

// Nachbagauer et al. 2015, sec. 5.3 set-up with F = 0: hangs at rest.
TEST(Meshes, TriplePendulumOnACartStaysAtRestWithoutForce) {
  const ModelRun r = run_file("triple_pendulum_cart.yaml");
  ASSERT_TRUE(r.problem.model);
  EXPECT_NEAR(r.trajectory.times.back(), 3.0, 1e-12);
  EXPECT_LT(max_deviation_from_initial(r.trajectory), 1e-8);
  EXPECT_LE(r.trajectory.summary.max_constraint_residual, 1e-10);
}

// Maciag et al. 2022, sec. 5.1 set-up with u = 0: hangs at rest.
TEST(Meshes, DoublePendulumOnACartStaysAtRestWithoutForce) {
  const ModelRun r = run_file("double_pendulum_cart.yaml");
  ASSERT_TRUE(r.problem.model);
  EXPECT_NEAR(r.trajectory.times.back(), 2.0, 1e-12);
  EXPECT_LT(max_deviation_from_initial(r.trajectory), 1e-8);
  EXPECT_LE(r.trajectory.summary.max_constraint_residual, 1e-10);
}

// The cart damper acts: pushed by F = 1 N for 2 s, the cart moves right (and the pendulum lags behind).
TEST(Meshes, DoublePendulumOnACartMovesWithAForce) {
  const ModelRun r = run_file("double_pendulum_cart.yaml", {"controls[0].value=1"});
  ASSERT_TRUE(r.problem.model);
  EXPECT_GT(r.trajectory.q.back()[0], 0.1);
  EXPECT_LE(r.trajectory.summary.max_constraint_residual, 1e-10);
}

// Maciag et al. 2022, sec. 5.2 start: alpha1 = pi/4, links in line; with u = 0 the falling pendula push the
// cart (what the optimised force has to prevent).
TEST(Meshes, DoublePendulumStabilizationStartFallsAndMovesTheCart) {
  const ModelRun r = run_file("double_pendulum_cart_stabilization.yaml", {"integrator.end_time=0.5"});
  ASSERT_TRUE(r.problem.model);
  // Coordinates: cart (x, y), link1 (x, y, theta), link2 (x, y, theta).
  EXPECT_NEAR(r.trajectory.q.front()[4], M_PI / 4, 1e-14);
  EXPECT_NEAR(r.trajectory.q.front()[7], M_PI / 4, 1e-14);
  EXPECT_LT(r.trajectory.q.back()[4], M_PI / 4 - 0.1);
  EXPECT_GT(std::abs(r.trajectory.q.back()[0]), 1e-3);
  EXPECT_LE(r.trajectory.summary.max_constraint_residual, 1e-10);
}

// Conservative 3D case with off-axis spin: energy kept, unit Euler parameters, the joint point fixed.
TEST(Meshes, SpinningSphericalPendulumKeepsItsEnergy) {
  const ModelRun r = run_file("spherical_pendulum_spin.yaml");
  ASSERT_TRUE(r.problem.model);
  const Trajectory& t = r.trajectory;
  EXPECT_NEAR(t.times.back(), 2.0, 1e-12);
  ASSERT_TRUE(t.summary.energy_tracked);
  EXPECT_LT(t.summary.max_energy_deviation, 1e-4 * std::abs(t.summary.initial_energy));
  const auto joint = r.problem.model->to_body_point(0, {0.0, 0.0, 0.0});
  EXPECT_NEAR(joint[2], 0.5, 1e-14);
  double worst_norm = 0.0, worst_joint = 0.0;
  for (const auto& q : t.q) {
    worst_norm = std::max(worst_norm, std::abs(std::sqrt(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]) - 1.0));
    const auto x = model::point_position(model::BodyKind::SpatialRigid, q.data(), joint);
    for (int i = 0; i < 3; ++i) worst_joint = std::max(worst_joint, std::abs(x[i]));
  }
  EXPECT_LT(worst_norm, 1e-10);
  EXPECT_LT(worst_joint, 1e-10);
  // The initial velocities are consistent with the joint: the joint point is at rest at t = 0.
  const auto& v0 = t.v.front();
  const auto& q0 = t.q.front();
  const auto u = model::point_velocity(model::BodyKind::SpatialRigid, q0.data(), v0.data(), joint);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(u[i], 0.0, 1e-12);
  const auto w = model::angular_velocity(model::BodyKind::SpatialRigid, q0.data(), v0.data());
  EXPECT_NEAR(w[0], 1.0, 1e-12);
  EXPECT_NEAR(w[1], -2.0, 1e-12);
  EXPECT_NEAR(w[2], 5.0, 1e-12);
}

// The five-axis manipulator without its drives and friction falls freely from the stretched pose: a conservative
// spatial tree on five revolute joints, so its energy must be conserved up to generalized-alpha's O(h^2) error
// (rho_inf = 1), which falls by 4 when h halves; the joints hold.
TEST(Meshes, ManipulatorWithoutDrivesConservesEnergyAtSecondOrder) {
  std::vector<double> deviations;
  for (const char* step : {"integrator.step_size=2e-3", "integrator.step_size=1e-3"}) {
    const ModelRun r = run_file("manipulator.yaml", {"forces=[]", "design_variables=[upper_arm.mass]",
                                                     "integrator.spectral_radius=1", step});
    ASSERT_TRUE(r.problem.model);
    ASSERT_TRUE(r.trajectory.summary.energy_tracked);
    EXPECT_NEAR(r.trajectory.times.back(), 0.8, 1e-12);
    EXPECT_LE(r.trajectory.summary.max_constraint_residual, 1e-10);
    deviations.push_back(r.trajectory.summary.max_energy_deviation / std::abs(r.trajectory.summary.initial_energy));
    // It does fall: the tool end drops by more than 0.1 m.
    EXPECT_LT(r.trajectory.q.back()[r.problem.model->body_offset(r.problem.model->find_body("gripper")) + 2], 0.18);
  }
  std::printf("relative energy deviation %.3e (h = 2e-3), %.3e (h = 1e-3)\n", deviations[0], deviations[1]);
  EXPECT_LT(deviations[0], 5e-4);
  EXPECT_GT(deviations[0] / deviations[1], 3.6);
}

TEST(Meshes, RigidChainRunsWithThreeLinks) {
  const ModelRun r = run_file("rigid_chain.yaml", {"chain.count=3"});
  ASSERT_TRUE(r.problem.model);
  EXPECT_EQ(r.problem.model->bodies().size(), 3u);
  EXPECT_EQ(r.problem.model->coordinate_count(), 21);
  EXPECT_NEAR(r.trajectory.times.back(), 0.5, 1e-12);
  EXPECT_LE(r.trajectory.summary.max_constraint_residual, 1e-10);
  ASSERT_TRUE(r.trajectory.summary.energy_tracked);
  EXPECT_LT(r.trajectory.summary.max_energy_deviation, 1e-4 * std::abs(r.trajectory.summary.initial_energy));
  // It swings: the last link's centre moves down.
  EXPECT_LT(r.trajectory.q.back()[16], r.trajectory.q.front()[16] - 1e-2);
}

}  // namespace
}  // namespace flexadj::testing
