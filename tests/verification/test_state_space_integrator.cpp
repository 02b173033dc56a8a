// The state-space integrator (integrators/state_space.hpp; Held and Seifried's state-space form, Heun's method
// with coordinate projection): its accelerations equal the paper's QR null-space form (dense LAPACK here),
// second-order convergence of q and v against closed forms, constraints (positions and velocities) at round-off
// at every step, and the energy error of conservative models at O(h^2).
#include <gtest/gtest.h>

#include <Teuchos_LAPACK.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "flexadj/assembly/system_vector.hpp"
#include "integrator_cases.hpp"
#include "models.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {
namespace {

problem::Problem state_space(problem::Problem problem) {
  problem.integrator.scheme = "state_space";
  return problem;
}

// Observed orders log2(e(N/2)/e(N)) over successive doublings of the step count, each within [1.9, 2.1]; returns
// the error at the finest step.
double expect_second_order(const char* what, const std::function<double(long long)>& error,
                           const std::vector<long long>& steps) {
  double previous = error(steps.front());
  for (std::size_t k = 1; k < steps.size(); ++k) {
    const double current = error(steps[k]);
    const double order = std::log2(previous / current);
    std::printf("%s: %lld steps, error %.3e, order %.3f\n", what, steps[k], current, order);
    EXPECT_GT(order, 1.9) << what;
    EXPECT_LT(order, 2.1) << what;
    previous = current;
  }
  return previous;
}

// Held and Seifried, eqs. (4), (10b), (14): with the full QR decomposition C_q^T = [Q1 Q2] [R1; 0] (LAPACK geqrf,
// orgqr) the accelerations are Q2 a_f - Q1 R1^-T gamma with (Q2^T M Q2) a_f = Q2^T M Q1 R1^-T gamma + Q2^T Q,
// gamma = C_acc at a = 0. Evaluated densely from the assembled M, C_q, Q and gamma at a state after `steps` steps.
// Returns max |a_QR - a| / max |a| with a the integrator's (the saddle-point system's) accelerations there.
double qr_acceleration_difference(const problem::Problem& problem, int steps) {
  const model::Model& model = *problem.model;
  assembly::Assembler assembler(model, self());
  linalg::LinearSolverOptions options;
  options.kind = "direct";
  const auto integrator = integrators::make_time_integrator(assembler, problem.integrator, options);
  assembly::State state = assembler.make_state();
  assembler.scatter_global(model.initial_coordinates(), model.initial_velocities(), state);
  double t = problem.integrator.start_time;
  integrator->initialize(state, t);
  for (int k = 0; k < steps; ++k, t += problem.integrator.step_size)
    integrator->step(state, t, problem.integrator.step_size, k + 1);
  // [M C_q^T; C_q 0] and the residual [-Q; gamma] at a = 0, lambda = 0.
  assembly::State zero = state;
  std::fill(zero.a.begin(), zero.a.end(), 0.0);
  std::fill(zero.lambda.begin(), zero.lambda.end(), 0.0);
  const model::JacobianCoefficients mass_only{0.0, 0.0, 1.0};
  assembler.assemble(zero, t, assembly::ConstraintLevel::Acceleration, 1.0, &mass_only);
  const int n = static_cast<int>(state.q.size()), m = static_cast<int>(state.lambda.size()), f = n - m;
  const auto& matrix = *assembler.matrix();
  std::vector<double> A((n + m) * (n + m), 0.0);  // row-major dense system matrix
  for (int r = 0; r < n + m; ++r) {
    CrsMatrix::local_inds_host_view_type columns;
    CrsMatrix::values_host_view_type values;
    matrix.getLocalRowView(r, columns, values);
    for (std::size_t k = 0; k < columns.extent(0); ++k) {
      const auto global = matrix.getColMap()->getGlobalElement(columns(k));
      A[r * (n + m) + matrix.getRowMap()->getLocalElement(global)] += values(k);
    }
  }
  std::vector<double> forces, gamma;
  assembly::ConstSystemVectorView(assembler.residual(), n).extract(&forces, &gamma);
  for (double& value : forces) value = -value;
  auto M = [&](int i, int j) { return A[i * (n + m) + j]; };
  // Q (n x n, column-major) from C_q^T in its first m columns.
  std::vector<double> Q(n * n, 0.0), tau(m), work(64 * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) Q[j * n + i] = A[(n + j) * (n + m) + i];
  Teuchos::LAPACK<int, double> lapack;
  int info = 0;
  lapack.GEQRF(n, m, Q.data(), n, tau.data(), work.data(), static_cast<int>(work.size()), &info);
  EXPECT_EQ(info, 0);
  std::vector<double> R1(m * m, 0.0);  // column-major upper triangle
  for (int j = 0; j < m; ++j)
    for (int i = 0; i <= j; ++i) R1[j * m + i] = Q[j * n + i];
  lapack.ORGQR(n, n, m, Q.data(), n, tau.data(), work.data(), static_cast<int>(work.size()), &info);
  EXPECT_EQ(info, 0);
  auto Q1 = [&](int i, int j) { return Q[j * n + i]; };
  auto Q2 = [&](int i, int j) { return Q[(m + j) * n + i]; };
  // y = R1^-T gamma (forward substitution: R1^T is lower triangular).
  std::vector<double> y(m);
  for (int i = 0; i < m; ++i) {
    double sum = gamma[i];
    for (int k = 0; k < i; ++k) sum -= R1[i * m + k] * y[k];
    y[i] = sum / R1[i * m + i];
  }
  std::vector<double> Q1y(n, 0.0), rhs_full(n, 0.0), rhs(f, 0.0), reduced(f * f, 0.0), MQ2(n * f, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) Q1y[i] += Q1(i, j) * y[j];
  for (int i = 0; i < n; ++i) {
    rhs_full[i] = forces[i];
    for (int k = 0; k < n; ++k) rhs_full[i] += M(i, k) * Q1y[k];
  }
  for (int a = 0; a < f; ++a)
    for (int i = 0; i < n; ++i) rhs[a] += Q2(i, a) * rhs_full[i];
  for (int i = 0; i < n; ++i)
    for (int b = 0; b < f; ++b)
      for (int k = 0; k < n; ++k) MQ2[b * n + i] += M(i, k) * Q2(k, b);
  for (int a = 0; a < f; ++a)
    for (int b = 0; b < f; ++b)
      for (int i = 0; i < n; ++i) reduced[b * f + a] += Q2(i, a) * MQ2[b * n + i];
  std::vector<int> pivots(f);
  lapack.GESV(f, 1, reduced.data(), f, pivots.data(), rhs.data(), f, &info);
  EXPECT_EQ(info, 0);
  double difference = 0.0, scale = 0.0;
  for (int i = 0; i < n; ++i) {
    double a = -Q1y[i];
    for (int b = 0; b < f; ++b) a += Q2(i, b) * rhs[b];
    difference = std::max(difference, std::abs(a - state.a[i]));
    scale = std::max(scale, std::abs(state.a[i]));
  }
  std::printf("%d coordinates, %d constraints: max |a_QR - a| = %.2e, max |a| = %.2e\n", n, m, difference, scale);
  return difference / scale;
}

// The key observation (benchmarks.md, "003"): the paper's QR state-space accelerations are those of the saddle-point
// system the integrator solves, on the torsional pendulum (2 coordinates, 1 constraint), the spinning top (Euler
// parameters: 7 coordinates, 4 constraints) and a chain of 4 spatial links (28, 16), in motion.
TEST(StateSpaceIntegrator, AccelerationsEqualTheQrStateSpaceForm) {
  EXPECT_LT(qr_acceleration_difference(state_space(torsional_pendulum(1.0, 1.2, 2.0, 0.4, 1.0, 100)), 37), 1e-13);
  EXPECT_LT(qr_acceleration_difference(state_space(spinning_top_pendulum(0.3, 150, 0.9)), 41), 1e-12);
  EXPECT_LT(qr_acceleration_difference(state_space(rigid_chain(4, 0.2, 100)), 23), 1e-12);
}

// Held and Seifried's torsional spring pendulum (integrator_cases.hpp): z2 and dz2/dt against the closed form.
PendulumErrors torsional_pendulum_errors(long long steps) {
  return testing::torsional_pendulum_errors("state_space", steps);
}

TEST(StateSpaceIntegrator, TorsionalPendulumPositionsAndVelocitiesConvergeAtSecondOrder) {
  const std::vector<long long> steps{100, 200, 400, 800};
  EXPECT_LT(expect_second_order("torsional pendulum z2",
                                [](long long n) { return torsional_pendulum_errors(n).position; }, steps),
            1e-5);
  EXPECT_LT(expect_second_order("torsional pendulum dz2/dt",
                                [](long long n) { return torsional_pendulum_errors(n).velocity; }, steps),
            1e-5);
}

// Bestle and Eberhard's oscillator on a rail (prismatic joint: the projection keeps y = 0 and the rotation
// fixed), m = c = 1, x0 = 0, v0 = 0.5: x(1) = 0.5 sin 1, v(1) = 0.5 cos 1.
TEST(StateSpaceIntegrator, OscillatorOnARailConvergesAtSecondOrder) {
  auto error = [](long long steps, bool velocity) {
    const Trajectory trajectory = run(state_space(oscillator(1.0, 1.0, 0.0, 0.5, 1.0, steps)), world());
    return velocity ? std::abs(trajectory.v.back()[0] - 0.5 * std::cos(1.0))
                    : std::abs(trajectory.q.back()[0] - 0.5 * std::sin(1.0));
  };
  const std::vector<long long> steps{50, 100, 200, 400};
  EXPECT_LT(expect_second_order("oscillator x", [&](long long n) { return error(n, false); }, steps), 1e-5);
  EXPECT_LT(expect_second_order("oscillator v", [&](long long n) { return error(n, true); }, steps), 1e-5);
}

// Drift: the projections hold C = 0 and C_q v = 0 to round-off at every step, at a coarse step and over about 16
// periods of the planar pendulum (integrator_cases.hpp).
TEST(StateSpaceIntegrator, ConstraintsHoldToRoundOffAtEveryStep) { expect_constraints_at_round_off("state_space"); }

// Energy of conservative models: the largest deviation from E0 along the run falls at O(h^2) (Heun's method is not
// symplectic: the error is that of the solution, without the bounded behaviour of the variational integrator).
// Torsional pendulum: E = 1/2 m |v|^2 + 1/2 c_r alpha^2; planar pendulum: E = 1/2 m |v|^2 + m g y.
TEST(StateSpaceIntegrator, EnergyErrorOfConservativeModelsIsSecondOrder) {
  auto torsional = [](long long steps) {
    const double m = 1.0, l = 1.2, c_r = 2.0, alpha0 = 0.4;
    const Trajectory trajectory = run(state_space(torsional_pendulum(m, l, c_r, alpha0, 5.0, steps)), world());
    auto energy = [&](std::size_t n) {
      const auto& q = trajectory.q[n];
      const auto& v = trajectory.v[n];
      const double alpha = std::atan2(q[1], q[0]);
      return 0.5 * m * (v[0] * v[0] + v[1] * v[1]) + 0.5 * c_r * alpha * alpha;
    };
    double worst = 0.0;
    for (std::size_t n = 0; n < trajectory.q.size(); ++n) worst = std::max(worst, std::abs(energy(n) - energy(0)));
    return worst / energy(0);
  };
  auto gravity = [](long long steps) {
    const Trajectory trajectory = run(state_space(planar_pendulum(1.0, 1.0, 1.0, 5.0, steps, 0.9)), world());
    auto energy = [&](std::size_t n) {
      const auto& q = trajectory.q[n];
      const auto& v = trajectory.v[n];
      return 0.5 * (v[0] * v[0] + v[1] * v[1]) + 9.81 * q[1];
    };
    double worst = 0.0;
    for (std::size_t n = 0; n < trajectory.q.size(); ++n) worst = std::max(worst, std::abs(energy(n) - energy(0)));
    return worst / std::abs(energy(0));
  };
  // The largest deviation over a run is the maximum of an oscillating error, so its ratio over one halving of h
  // scatters (measured 2.24 then 1.89); over two halvings it is the order to within a few percent.
  auto expect_order_over_two_halvings = [](const char* what, const std::function<double(long long)>& error,
                                           long long steps) {
    const double coarse = error(steps), fine = error(4 * steps);
    const double order = 0.5 * std::log2(coarse / fine);
    std::printf("%s: %lld -> %lld steps, relative error %.3e -> %.3e, order %.3f\n", what, steps, 4 * steps, coarse,
                fine, order);
    EXPECT_GT(order, 1.9) << what;
    EXPECT_LT(order, 2.2) << what;
    return fine;
  };
  EXPECT_LT(expect_order_over_two_halvings("torsional pendulum energy", torsional, 200), 5e-6);
  EXPECT_LT(expect_order_over_two_halvings("planar pendulum energy", gravity, 400), 5e-5);
}

}  // namespace
}  // namespace flexadj::testing
