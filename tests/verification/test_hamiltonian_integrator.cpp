// The constrained Hamiltonian integrator (integrators/hamiltonian.hpp; Maciag, Malczyk and Fraczek 2022, eqs.
// (6a)/(6b), Heun on (q, p*) with projection onto C = 0): second-order convergence of q and v against closed forms
// and, for a spatial rigid body (Euler parameters), against a fine run; constraints (positions and velocities) at
// round-off at every step; the energy error of conservative models at O(h^2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "integrator_cases.hpp"
#include "models.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {
namespace {

problem::Problem hamiltonian(problem::Problem problem) {
  problem.integrator.scheme = "hamiltonian";
  return problem;
}

// Held and Seifried's torsional spring pendulum (integrator_cases.hpp): z2 and dz2/dt against the closed form.
PendulumErrors torsional_pendulum_errors(long long steps) {
  return testing::torsional_pendulum_errors("hamiltonian", steps);
}

TEST(HamiltonianIntegrator, TorsionalPendulumPositionsAndVelocitiesConvergeAtSecondOrder) {
  const std::vector<long long> steps{100, 200, 400, 800};
  EXPECT_LT(expect_observed_second_order("torsional pendulum z2",
                                [](long long n) { return torsional_pendulum_errors(n).position; }, steps),
            1e-5);
  EXPECT_LT(expect_observed_second_order("torsional pendulum dz2/dt",
                                [](long long n) { return torsional_pendulum_errors(n).velocity; }, steps),
            1e-5);
}

// Bestle and Eberhard's oscillator on a rail (prismatic joint), m = c = 1, x0 = 0, v0 = 0.5: x(1) = 0.5 sin 1,
// v(1) = 0.5 cos 1.
TEST(HamiltonianIntegrator, OscillatorOnARailConvergesAtSecondOrder) {
  auto error = [](long long steps, bool velocity) {
    const Trajectory trajectory = run(hamiltonian(oscillator(1.0, 1.0, 0.0, 0.5, 1.0, steps)), world());
    return velocity ? std::abs(trajectory.v.back()[0] - 0.5 * std::cos(1.0))
                    : std::abs(trajectory.q.back()[0] - 0.5 * std::sin(1.0));
  };
  const std::vector<long long> steps{50, 100, 200, 400};
  EXPECT_LT(expect_observed_second_order("oscillator x", [&](long long n) { return error(n, false); }, steps), 1e-5);
  EXPECT_LT(expect_observed_second_order("oscillator v", [&](long long n) { return error(n, true); }, steps), 1e-5);
}

// The spinning top on a spherical joint (Euler parameters, q-dependent mass matrix 4 G^T J G, T_q != 0 in (6b),
// an off-axis spin): q(0.3) against a run of 16 times as many steps, observed order over doublings; the
// unit-quaternion and joint constraints at round-off at every step, the velocity constraint e . e_dot = 0 too.
TEST(HamiltonianIntegrator, SpinningTopConvergesAtSecondOrderWithConstraintsAtRoundOff) {
  const double t1 = 0.3;
  const Trajectory reference = run(hamiltonian(spinning_top_pendulum(t1, 3200, 0.9)), world());
  auto error = [&](long long steps) {
    const Trajectory trajectory = run(hamiltonian(spinning_top_pendulum(t1, steps, 0.9)), world());
    double e = 0.0;
    for (std::size_t i = 0; i < 7; ++i) e = std::max(e, std::abs(trajectory.q.back()[i] - reference.q.back()[i]));
    return e;
  };
  expect_observed_second_order("spinning top q", error, {25, 50, 100, 200});
  const Trajectory coarse = run(hamiltonian(spinning_top_pendulum(t1, 50, 0.9)), world());
  double unit = 0.0, rate = 0.0;
  for (std::size_t n = 0; n < coarse.q.size(); ++n) {
    const auto& q = coarse.q[n];
    const auto& v = coarse.v[n];
    unit = std::max(unit, std::abs(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6] - 1.0));
    rate = std::max(rate, std::abs(q[3] * v[3] + q[4] * v[4] + q[5] * v[5] + q[6] * v[6]));
  }
  std::printf("spinning top, 50 steps: |e.e - 1| <= %.2e, |e.e_dot| <= %.2e, reported residual %.2e\n", unit, rate,
              coarse.summary.max_constraint_residual);
  EXPECT_LT(unit, 1e-14);
  EXPECT_LT(rate, 1e-13);
  EXPECT_LT(coarse.summary.max_constraint_residual, 1e-14);
}

// Drift: the projections hold C = 0 and C_q v = 0 to round-off at every step, at a coarse step and over about 16
// periods of the planar pendulum (integrator_cases.hpp).
TEST(HamiltonianIntegrator, ConstraintsHoldToRoundOffAtEveryStep) { expect_constraints_at_round_off("hamiltonian"); }

// Energy of the conservative planar pendulum E = 1/2 m |v|^2 + m g y: the largest deviation from E0 along a run of
// 5 s falls at O(h^2) (Heun is not symplectic), judged over two halvings of h (the maximum of an oscillating error
// scatters over one).
TEST(HamiltonianIntegrator, EnergyErrorOfTheConservativePendulumIsSecondOrder) {
  auto energy_error = [](long long steps) {
    const Trajectory trajectory = run(hamiltonian(planar_pendulum(1.0, 1.0, 1.0, 5.0, steps, 0.9)), world());
    auto energy = [&](std::size_t n) {
      const auto& q = trajectory.q[n];
      const auto& v = trajectory.v[n];
      return 0.5 * (v[0] * v[0] + v[1] * v[1]) + 9.81 * q[1];
    };
    double worst = 0.0;
    for (std::size_t n = 0; n < trajectory.q.size(); ++n) worst = std::max(worst, std::abs(energy(n) - energy(0)));
    return worst / std::abs(energy(0));
  };
  const double coarse = energy_error(400), fine = energy_error(1600);
  const double order = 0.5 * std::log2(coarse / fine);
  std::printf("planar pendulum energy: 400 -> 1600 steps, relative error %.3e -> %.3e, order %.3f\n", coarse, fine,
              order);
  EXPECT_GT(order, 1.9);
  EXPECT_LT(order, 2.2);
  EXPECT_LT(fine, 6e-5);  // measured 4.9e-5
}

}  // namespace
}  // namespace flexadj::testing
