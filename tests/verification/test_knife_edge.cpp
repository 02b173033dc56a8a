// The non-holonomic knife edge (constraints/knife_edge.cpp) under generalized-alpha (rho_inf = 1): the Chaplygin
// sleigh against its closed form (tests/support/knife_edge_models.hpp; Neimark and Fufaev 1972; Bloch 2003):
// second-order convergence of the forward speed and angular velocity, the energy conserved to O(h^2), the
// velocity constraint at round-off at every step; the centred knife edge on its circle with its constant
// multiplier. At np 1 and np 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "flexadj/io/problem_reader.hpp"
#include "knife_edge_models.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {
namespace {

constexpr double kEndTime = 1.5;

double forward_speed(const std::vector<double>& q, const std::vector<double>& v) {
  return std::cos(q[2]) * v[0] + std::sin(q[2]) * v[1];
}

TEST(KnifeEdge, SleighConvergesAtSecondOrderToItsClosedFormWithEnergyAndConstraint) {
  const Sleigh sleigh;
  const double E0 = sleigh.energy();
  std::printf("closed form: u(T) = %.15f, w(T) = %.15f\n", sleigh.forward_speed(kEndTime),
              sleigh.angular_velocity(kEndTime));
  double worst_constraint = 0.0;
  auto state_error = [&](long long steps) {
    const Trajectory run_ = run(sleigh.problem(kEndTime, kEndTime / double(steps)), world());
    const auto &q = run_.q.back(), &v = run_.v.back();
    for (std::size_t n = 0; n < run_.q.size(); ++n)
      worst_constraint = std::max(worst_constraint, std::abs(sleigh.constraint(run_.q[n], run_.v[n])));
    return std::abs(forward_speed(q, v) - sleigh.forward_speed(kEndTime)) +
           std::abs(v[2] - sleigh.angular_velocity(kEndTime));
  };
  auto energy_error = [&](long long steps) {
    const Trajectory run_ = run(sleigh.problem(kEndTime, kEndTime / double(steps)), world());
    double worst = 0.0;
    for (std::size_t n = 0; n < run_.q.size(); ++n) {
      const auto &q = run_.q[n], &v = run_.v[n];
      const double E = 0.5 * sleigh.mass * (v[0] * v[0] + v[1] * v[1]) + 0.5 * sleigh.inertia * v[2] * v[2];
      worst = std::max(worst, std::abs(E - E0));
      (void)q;
    }
    return worst / E0;
  };
  const double error = expect_observed_second_order("sleigh |u - u(T)| + |w - w(T)|", state_error, {50, 100, 200, 400});
  EXPECT_LT(error, 1e-4);
  const double drift = expect_observed_second_order("sleigh max |E - E0| / E0", energy_error, {50, 100, 200, 400});
  EXPECT_LT(drift, 1e-4);
  std::printf("largest |g| over all steps and runs: %.3e\n", worst_constraint);
  EXPECT_LT(worst_constraint, 1e-12);
}

// The spatial knife edge on a spatial rigid body kept in the plane: the planar closed form, the angle and rate from
// the Euler parameters, theta = 2 atan2(e3, e0), w = 2 (e0 de3/dt - e3 de0/dt).
TEST(KnifeEdge, SpatialSleighConvergesAtSecondOrderToThePlanarClosedForm) {
  const Sleigh sleigh;
  double worst_constraint = 0.0;
  auto error = [&](long long steps) {
    const Trajectory run_ =
        run(io::read_problem_string(sleigh.spatial_yaml(kEndTime, kEndTime / double(steps)), "spatial_sleigh.yaml"),
            world());
    for (std::size_t n = 0; n < run_.q.size(); ++n) {
      const auto &q = run_.q[n], &v = run_.v[n];
      const double theta = 2.0 * std::atan2(q[6], q[3]), w = 2.0 * (q[3] * v[6] - q[6] * v[3]);
      worst_constraint = std::max(worst_constraint, std::abs(sleigh.constraint({q[0], q[1], theta}, {v[0], v[1], w})));
    }
    const auto &q = run_.q.back(), &v = run_.v.back();
    const double theta = 2.0 * std::atan2(q[6], q[3]), w = 2.0 * (q[3] * v[6] - q[6] * v[3]);
    return std::abs(std::cos(theta) * v[0] + std::sin(theta) * v[1] - sleigh.forward_speed(kEndTime)) +
           std::abs(w - sleigh.angular_velocity(kEndTime));
  };
  const double finest = expect_observed_second_order("spatial sleigh", error, {50, 100, 200, 400});
  EXPECT_LT(finest, 1e-4);
  std::printf("spatial sleigh: largest |g| over all steps and runs: %.3e\n", worst_constraint);
  EXPECT_LT(worst_constraint, 1e-12);
}

// HHT and damped generalized-alpha (rho_inf = 0.8) keep second order on the closed form.
TEST(KnifeEdge, HhtAndDampedGeneralizedAlphaConvergeAtSecondOrder) {
  const Sleigh sleigh;
  for (const char* type : {"hht", "generalized_alpha"}) {
    auto error = [&](long long steps) {
      const Trajectory run_ = run(sleigh.problem(kEndTime, kEndTime / double(steps),
                                                 {std::string("integrator.type=") + type, "integrator.spectral_radius=0.8"}),
                                  world());
      const auto &q = run_.q.back(), &v = run_.v.back();
      return std::abs(forward_speed(q, v) - sleigh.forward_speed(kEndTime)) +
             std::abs(v[2] - sleigh.angular_velocity(kEndTime));
    };
    const double finest = expect_observed_second_order(type, error, {50, 100, 200, 400});
    EXPECT_LT(finest, 1e-4) << type;
  }
}

// b = 0: w constant, the centre on a circle of radius u0/w0 about its centre of curvature, the multiplier
// lambda = -m u0 w0 (m dv/dt = -A^T lambda = -lambda n, dv/dt = u0 w0 n).
TEST(KnifeEdge, CentredEdgeRunsOnItsCircleWithConstantMultiplier) {
  Sleigh sleigh;
  sleigh.b = 0.0;
  sleigh.u0 = 0.6;
  sleigh.w0 = 1.5;
  const double radius = sleigh.u0 / sleigh.w0;
  auto position_error = [&](long long steps) {
    const Trajectory run_ = run(sleigh.problem(kEndTime, kEndTime / double(steps)), world());
    const auto& q = run_.q.back();
    const double theta = sleigh.theta0 + sleigh.w0 * kEndTime;
    EXPECT_NEAR(q[2], theta, 1e-12);
    const double x = sleigh.x0 + radius * (std::sin(theta) - std::sin(sleigh.theta0));
    const double y = sleigh.y0 - radius * (std::cos(theta) - std::cos(sleigh.theta0));
    double multiplier = 0.0;
    for (const auto& lambda : run_.lambda)
      multiplier = std::max(multiplier, std::abs(lambda[0] + sleigh.mass * sleigh.u0 * sleigh.w0));
    if (steps == 400) {
      std::printf("largest |lambda + m u0 w0| = %.3e\n", multiplier);
      EXPECT_LT(multiplier, 1e-4 * sleigh.mass * sleigh.u0 * sleigh.w0);
    }
    return std::hypot(q[0] - x, q[1] - y);
  };
  const double error = expect_observed_second_order("centred edge |x - x(T)|", position_error, {50, 100, 200, 400});
  EXPECT_LT(error, 1e-5);
}

}  // namespace
}  // namespace flexadj::testing
