// The midpoint variational integrator (integrators/variational.hpp; Marsden and West 2001, sec. 3.2 and 3.5):
// second-order convergence against closed forms, exact conservation of linear and angular momentum (discrete
// Noether) and bounded energy error without drift on a free asymmetric rigid body, a spinning top on a spherical
// joint and the flying spaghetti of Simo and Vu-Quoc (1986), against generalized-alpha at rho_inf = 1.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "beam_support.hpp"
#include "models.hpp"

namespace flexadj::testing {
namespace {

double norm(const std::array<double, 3>& x) { return std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]); }

double max_difference(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  return std::max({std::abs(a[0] - b[0]), std::abs(a[1] - b[1]), std::abs(a[2] - b[2])});
}

// ---- convergence against closed forms -----------------------------------------------------------------------

// Bestle and Eberhard 1992 oscillator on a rail (prismatic joint), m = c = 1, x0 = 0, v0 = 0.5: x(1) = 0.5 sin(1).
// (Not at t = pi/2: the scheme keeps the amplitude of a linear oscillator, and at the extremum x(pi/2) the O(h^2)
// phase error enters squared; the observed order there is 4.)
double oscillator_error(long long steps) {
  auto problem = oscillator(1.0, 1.0, 0.0, 0.5, 1.0, steps);
  problem.integrator.scheme = "variational";
  const Trajectory trajectory = run(problem, world());
  return std::abs(trajectory.q.back()[0] - 0.5 * std::sin(1.0));
}

// Held and Seifried's torsional spring pendulum (a mass on a rod, distance constraint): alpha(t) = alpha0 cos(w t),
// exact for any amplitude (the spring acts on the angle); z2(t1) = l sin(alpha(t1)).
double torsional_pendulum_error(long long steps, double* max_constraint) {
  const double m = 1.0, l = 1.2, c_r = 2.0, alpha0 = 0.4, t1 = 2.0;
  auto problem = torsional_pendulum(m, l, c_r, alpha0, t1, steps);
  problem.integrator.scheme = "variational";
  const Trajectory trajectory = run(problem, world());
  *max_constraint = std::max(*max_constraint, trajectory.summary.max_constraint_residual);
  return std::abs(trajectory.q.back()[1] - l * std::sin(alpha0 * std::cos(std::sqrt(c_r / (m * l * l)) * t1)));
}

// Observed orders log2(e(N/2)/e(N)) over successive doublings of the step count, each within [1.9, 2.1].
double expect_second_order(const char* what, const std::function<double(long long)>& error,
                           const std::vector<long long>& steps) {
  double previous = error(steps.front());
  for (std::size_t k = 1; k < steps.size(); ++k) {
    const double current = error(steps[k]);
    const double order = std::log2(previous / current);
    std::printf("%s: %lld steps, error %.3e, order %.3f\n", what, steps[k], current, order);
    EXPECT_GT(order, 1.9);
    EXPECT_LT(order, 2.1);
    previous = current;
  }
  return previous;
}

TEST(VariationalIntegrator, OscillatorConvergesAtSecondOrder) {
  EXPECT_LT(expect_second_order("oscillator", oscillator_error, {50, 100, 200, 400}), 1e-5);
}

TEST(VariationalIntegrator, TorsionalSpringPendulumConvergesAtSecondOrder) {
  double max_constraint = 0.0;
  expect_second_order("torsional pendulum",
                      [&](long long steps) { return torsional_pendulum_error(steps, &max_constraint); },
                      {100, 200, 400, 800});
  EXPECT_LE(max_constraint, 1e-10);
}

// The multiplier written with each step (the one consistent with q_n, v_n) converges at second order too: planar
// pendulum (m = l = 1, released at 1 rad) to t = 1, max over the steps against generalized-alpha at 10^4 steps.
TEST(VariationalIntegrator, MultipliersConvergeAtSecondOrder) {
  const long long reference_steps = 10000;
  auto reference_model = planar_pendulum(1.0, 1.0, 1.0, 1.0, reference_steps, 0.9);
  const Trajectory reference = run(reference_model, world());
  auto multiplier_error = [&](long long steps) {
    auto problem = planar_pendulum(1.0, 1.0, 1.0, 1.0, steps, 0.9);
    problem.integrator.scheme = "variational";
    const Trajectory trajectory = run(problem, world());
    double worst = 0.0;
    for (std::size_t n = 0; n < trajectory.times.size(); ++n)
      worst = std::max(worst, std::abs(trajectory.lambda[n][0] - reference.lambda[n * (reference_steps / steps)][0]));
    return worst;
  };
  EXPECT_LT(expect_second_order("pendulum multiplier", multiplier_error, {50, 100, 200, 400}),
            1e-4 * std::abs(reference.lambda[0][0]));
}

// ---- free asymmetric rigid body -------------------------------------------------------------------------------

// Spatial rigid body, m = 2, J = diag(1, 2, 3), no gravity, translating and spinning at w' = (0.05, 2, 0.05) (body
// frame), near the intermediate (unstable) axis: it flips over periodically (the tennis-racket effect).
problem::Problem free_rigid_body(double end_time, double step_size, const std::string& scheme) {
  problem::Problem problem;
  model::Model* m = problem.model.get();
  m->dimension = 3;
  problem.integrator.scheme = scheme;
  problem.integrator.end_time = end_time;
  problem.integrator.step_size = step_size;
  problem.integrator.spectral_radius = 1.0;
  problem.integrator.newton_tolerance = 1e-12;
  model::Body body;
  body.name = "racket";
  body.kind = BodyKind::SpatialRigid;
  body.mass = 2.0;
  body.inertia = {1.0, 2.0, 3.0, 0.0, 0.0, 0.0};
  std::array<double, 4> e{0.9, 0.1, -0.3, 0.2};
  const double length = std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3]);
  for (double& x : e) x /= length;
  // e_dot = 1/2 G(e)^T w' (Nikravesh 1988, eq. (6.104)), G the matrix of model::body_angular_velocity.
  const double G[3][4] = {{-e[1], e[0], e[3], -e[2]}, {-e[2], -e[3], e[0], e[1]}, {-e[3], e[2], -e[1], e[0]}};
  const std::array<double, 3> w{0.05, 2.0, 0.05};
  std::array<double, 4> e_dot{};
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 3; ++k) e_dot[i] += 0.5 * G[k][i] * w[k];
  body.initial_coordinates = {0.3, -0.2, 0.5, e[0], e[1], e[2], e[3]};
  body.initial_velocities = {0.1, 0.2, -0.3, e_dot[0], e_dot[1], e_dot[2], e_dot[3]};
  m->add_body(body);
  return problem;
}

struct Conservation {
  double angular_drift = 0.0, linear_drift = 0.0;  // max |L - L0|, |p - p0| (components)
  double vertical_drift = 0.0;                      // max |L_z - L_z0|
  double angular = 0.0, vertical = 0.0;             // |L0|, L_z0
  double energy = 0.0;                              // E0
  double energy_first_half = 0.0, energy_second_half = 0.0;  // max |E - E0| over each half of the run
  double flips = 0.0;                               // sign changes of the body y axis' projection on L
};

// Momenta about the origin and energy along a trajectory of models whose bodies are spatial rigid bodies with
// diagonal inertia.
Conservation conservation(const model::Model& model, const Trajectory& trajectory) {
  std::vector<double> masses;
  std::vector<std::array<double, 3>> inertias;
  for (const auto& body : model.bodies()) {
    masses.push_back(body.mass);
    inertias.push_back({body.inertia[0], body.inertia[1], body.inertia[2]});
  }
  const Momenta m0 = momenta(model, trajectory.q[0], trajectory.v[0], masses, inertias);
  Conservation c;
  c.angular = norm(m0.angular);
  c.vertical = m0.angular[2];
  c.energy = energy(model, trajectory.q[0], trajectory.v[0]);
  const std::size_t steps = trajectory.q.size();
  double previous_projection = 0.0;
  for (std::size_t n = 0; n < steps; ++n) {
    const Momenta m = momenta(model, trajectory.q[n], trajectory.v[n], masses, inertias);
    c.angular_drift = std::max(c.angular_drift, max_difference(m.angular, m0.angular));
    c.vertical_drift = std::max(c.vertical_drift, std::abs(m.angular[2] - m0.angular[2]));
    c.linear_drift = std::max(c.linear_drift, max_difference(m.linear, m0.linear));
    const double deviation = std::abs(energy(model, trajectory.q[n], trajectory.v[n]) - c.energy);
    double& half = 2 * n < steps ? c.energy_first_half : c.energy_second_half;
    half = std::max(half, deviation);
    // Body y axis (second column of R) against the initial angular momentum.
    const auto R = model::rotation_from_euler_parameters(trajectory.q[n].data() + 3);
    const double projection = R[1] * m0.angular[0] + R[4] * m0.angular[1] + R[7] * m0.angular[2];
    if (n > 0 && projection * previous_projection < 0.0) c.flips += 1.0;
    previous_projection = projection;
  }
  return c;
}

Conservation free_rigid_body_run(double end_time, double step_size, const std::string& scheme) {
  const auto problem = free_rigid_body(end_time, step_size, scheme);
  const Trajectory trajectory = run(problem, world());
  const Conservation c = conservation(*problem.model, trajectory);
  std::printf("free rigid body, %s, h = %g, %lld steps: |L0| = %.6g, max |L - L0| = %.3e (relative %.3e), "
              "max |p - p0| = %.3e; E0 = %.6g, max |E - E0| %.3e (first half) %.3e (second half); %g flips\n",
              scheme.c_str(), step_size, trajectory.summary.steps, c.angular, c.angular_drift,
              c.angular_drift / c.angular, c.linear_drift, c.energy, c.energy_first_half, c.energy_second_half, c.flips);
  return c;
}

// Angular momentum: conserved to round-off (measured 2.7e-13 relative over 2000 steps). Energy: measured constant to
// round-off as well (7e-13 of 4.145), more than the bounded O(h^2) error of a variational integrator in general:
// for a free rigid body the midpoint L_d is a function of the relative rotation conj(e_n) e_{n+1} only (w'_m =
// (2/h) G(e_n) e_{n+1}), the discrete rigid body of Moser and Veselov (1991). The O(h^2) energy error is tested on
// the spinning top and the flying spaghetti below. Generalized-alpha at rho_inf = 1 on the same model: angular
// momentum off by 5e-4 (relative) and energy growing within 10 s; at t = 16.3 its Newton iteration fails (the
// parasitic mode of index-3 constraints at rho_inf = 1, test_closed_form.cpp).
TEST(VariationalIntegrator, FreeRigidBodyConservesAngularMomentumAndEnergy) {
  const Conservation variational = free_rigid_body_run(40.0, 0.02, "variational");
  const Conservation coarse = free_rigid_body_run(40.0, 0.1, "variational");
  const Conservation alpha = free_rigid_body_run(10.0, 0.02, "generalized_alpha");
  EXPECT_GE(variational.flips, 4.0);  // it tumbles: a real test of the rotational dynamics
  for (const Conservation& c : {variational, coarse}) {
    EXPECT_LT(c.angular_drift, 1e-10 * c.angular);
    EXPECT_LT(c.linear_drift, 1e-12);
    EXPECT_LT(std::max(c.energy_first_half, c.energy_second_half), 1e-10 * c.energy);
  }
  EXPECT_GT(alpha.angular_drift, 1e-5 * alpha.angular);
  EXPECT_GT(alpha.angular_drift, 1e6 * variational.angular_drift);
  EXPECT_GT(alpha.energy_second_half, 2.0 * alpha.energy_first_half);  // generalized-alpha drifts
}

// ---- constrained: spinning top on a spherical joint under gravity --------------------------------------------

// The box of models.hpp (2 kg, 0.2 x 0.3 x 1.0, tilted, spinning off its principal axes) on a spherical joint at the
// origin under gravity, t up to 20: the constraints hold to the Newton tolerance, the energy error is bounded (the
// second half of the run no worse than the first) and O(h^2), and the vertical angular momentum about the pivot
// (a symmetry of gravity and joint) is conserved to round-off.
Conservation spinning_top(long long steps) {
  auto problem = spinning_top_pendulum(20.0, steps, 1.0);
  problem.integrator.scheme = "variational";
  problem.integrator.newton_tolerance = 1e-12;
  const Trajectory trajectory = run(problem, world());
  const Conservation c = conservation(*problem.model, trajectory);
  double worst_norm = 0.0;
  for (const auto& q : trajectory.q)
    worst_norm = std::max(worst_norm, std::abs(std::sqrt(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]) - 1.0));
  std::printf("spinning top, %lld steps: max |C| = %.3e, max ||e| - 1| = %.3e, |L0| = %.6g, L_z = %.6g, max |L_z - "
              "L_z0| = %.3e; E0 = %.6g, max |E - E0| %.3e (first half) %.3e (second half)\n",
              trajectory.summary.steps, trajectory.summary.max_constraint_residual, worst_norm, c.angular, c.vertical,
              c.vertical_drift, c.energy, c.energy_first_half, c.energy_second_half);
  EXPECT_LE(trajectory.summary.max_constraint_residual, 1e-10);
  EXPECT_LT(worst_norm, 1e-10);
  EXPECT_LT(c.vertical_drift, 1e-10 * c.angular);
  EXPECT_LT(c.energy_second_half, 1.5 * c.energy_first_half);
  EXPECT_GT(std::abs(trajectory.q.back()[0] - trajectory.q.front()[0]), 1e-2);  // it moves
  return c;
}

TEST(VariationalIntegrator, SpinningTopKeepsConstraintsEnergyAndVerticalAngularMomentum) {
  // One body: on a second rank there is nothing to distribute, only 15 000 steps of messages (the flying spaghetti
  // below runs distributed).
  if (world()->getSize() > 1) GTEST_SKIP() << "one body: np 1 only";
  const Conservation coarse = spinning_top(5000), fine = spinning_top(10000);
  const double scale = 2.0 * 9.81 * 0.5;  // m g l
  EXPECT_LT(coarse.energy_first_half, 1e-4 * scale);
  const double ratio = coarse.energy_first_half / fine.energy_first_half;
  std::printf("spinning top: energy error ratio h/(h/2) = %.3f\n", ratio);
  EXPECT_GT(ratio, 3.8);
  EXPECT_LT(ratio, 4.2);
}

// ---- flying spaghetti ------------------------------------------------------------------------------------------

// meshes/flying_spaghetti.yaml (type: variational) to t = 30: after the load ends (t = 2.5) linear and angular
// momentum stay at their values to round-off, and the energy error is bounded, O(h^2) and does not drift.
// Measured max |E - E(2.5)| for h = 0.05, 0.025, 0.0125, 0.00625, 0.003125: 0.198, 0.0932, 0.0260, 6.65e-3,
// 1.67e-3 (E = 206): ratios 2.1, 3.6, 3.9, 4.0; the axial modes (omega h of about 10 at h = 0.05) are resolved only
// at the smaller steps. Momentum drift grows with the number of steps by round-off: at h = 0.003125 (8600 steps)
// 7e-12 (linear) and 3e-12 (angular) relative.
TEST(VariationalIntegrator, FlyingSpaghettiConservesMomentaExactlyAndEnergyWithoutDrift) {
  const FreeFlight coarse = flying_spaghetti(0.025, {"integrator.end_time=30"});
  const FreeFlight fine = flying_spaghetti(0.0125, {"integrator.end_time=30"});
  for (const FreeFlight& d : {coarse, fine}) {
    EXPECT_NEAR(d.impulse, 10.0, 1e-9);  // the impulse of the load: 8 * 1.25 along x
    EXPECT_LT(d.linear_drift, 1e-10 * std::abs(d.impulse));
    EXPECT_LT(d.angular_drift, 1e-10 * std::abs(d.angular));
    EXPECT_LT(d.energy_drift_second_half, 1.5 * d.energy_drift_first_half);
    EXPECT_GT(d.travelled, 10.0);  // the beam flew and tumbled
  }
  EXPECT_LT(fine.energy_drift, 2e-4 * fine.energy);
  const double ratio = coarse.energy_drift / fine.energy_drift;
  std::printf("flying spaghetti: energy error ratio h/(h/2) = %.3f\n", ratio);
  EXPECT_GT(ratio, 3.3);
  EXPECT_LT(ratio, 4.5);
}

}  // namespace
}  // namespace flexadj::testing
