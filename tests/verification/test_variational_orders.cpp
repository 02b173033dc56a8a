// Pendulum studies of Schubert et al. 2024 (secs. 2.3 and 3.3, Figs. 2 and 4): convergence orders of the midpoint
// variational integrator (RATTLE form) and of its discrete adjoint against a fine reference, for the constrained
// Cartesian pendulum (sec. 3.3): positions q, constraint multipliers lambda and the adjoint variables, at fixed
// control u = 1; then the gradient of the same objective w.r.t. u against central differences and a Taylor test.
// The same study on the null-space form with nodal reparametrization (sec. 3.1/3.2, Fig. 4;
// integrators/null_space_variational.hpp): q and the one adjoint variable per step of the minimal-dimension adjoint.
// The pendulum in minimal coordinates of sec. 2.3 (the midpoint rule in the angle, Fig. 2) on `coordinates:
// joint_midpoint` (integrators/joint_midpoint_variational.hpp): its angles, adjoint variables and gradient against
// the paper's scalar eqs. (16) and (18) written out here, then the orders of q, the adjoint and dJ/du.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "adjoint_checks.hpp"
#include "flexadj/integrators/joint_midpoint_variational.hpp"
#include "flexadj/integrators/null_space_variational.hpp"
#include "gradient_support.hpp"
#include "models.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {
namespace {

using objectives::ObjectiveTerm;

// Sec. 2.3: m = l = 1, g = 9.81, T = 2, u = 1 constant (one control value, held over [0, T]).
// RECON: the paper's sign of the potential is ambiguous; here phi is measured from the downward vertical
// (V = -m g l cos phi, flexadj's gravity along -y) and the target phi = pi is upright. RECON start state: at rest
// with the rod horizontal (phi_0 = pi/2). At rest hanging down (phi_0 = 0) the study is degenerate: T = 2 is
// nearly the small-swing period 2.006, so phi_N ~ 1e-4, the adjoint ~ 1e-5 and dJ/du = 2e-5 at J = 2000 (below
// the central difference's noise; docs/results.md). RECON: the paper's u is a torque at the pivot (sec. 3.3,
// B^T = [-y, x]/(2 l^2)); flexadj has no pivot torque on a point mass, so u is a horizontal force on the mass
// (a load along x: torque u l cos phi).
problem::Problem swing_pendulum(long long steps) {
  auto problem = planar_pendulum(1.0, 1.0, M_PI / 2, 2.0, steps, 0.9);
  problem.integrator.scheme = "variational";
  problem.integrator.newton_tolerance = 1e-13;
  auto signal = std::make_shared<functions::ControlSignal>("u", std::vector<double>{0.0}, std::vector<double>{1.0},
                                                           functions::Interpolation::PiecewiseConstant);
  problem.model->add_control(signal);
  elements::LoadData load;
  load.control = signal;
  load.control_force_direction = {1.0, 0.0, 0.0};
  problem.model->add_force_element(
      elements::make_load("drive", problem.model->find_body("bob"), BodyKind::PointMass2D, load));
  return problem;
}

// Sec. 2.2, problem (10): J = S_q/2 |q_N - q^N|^2 + S_p/2 |p_N - p^N|^2 + sum_n R/2 u_n^2 with S_q = 1e3,
// S_p = 1e-2, R = 1e-5 h (so 1e-5/2 int u^2 dt), p^N = 0. RECON: in Cartesian coordinates the angle error
// (phi_N - pi)^2 is the squared distance of the bob to (0, l) (equal to l^2 (phi_N - pi)^2 to leading order), and
// p = m v (|p| = the angular momentum for m = l = 1).
// A final_square term on coordinate c (its velocity if `velocity`), and the control effort of u.
void add_final_square(objectives::Objective& objective, long long c, bool velocity, double target, double weight) {
  ObjectiveTerm term;
  term.kind = ObjectiveTerm::Kind::FinalSquare;
  if (velocity) term.quantity = ObjectiveTerm::Quantity::Velocity;
  term.coordinate = c;
  term.target = target;
  term.weight = weight;
  objective.add(term);
}
void add_effort(objectives::Objective& objective, double weight) {
  ObjectiveTerm effort;
  effort.kind = ObjectiveTerm::Kind::ControlEffort;
  effort.control = "u";
  effort.weight = weight;
  objective.add(effort);
}

objectives::Objective swing_up_objective() {
  objectives::Objective objective;
  for (long long coordinate : {0, 1}) {
    add_final_square(objective, coordinate, false, coordinate == 1 ? 1.0 : 0.0, 1e3);
    add_final_square(objective, coordinate, true, 0.0, 1e-2);
  }
  add_effort(objective, 1e-5);
  return objective;
}

// dJ/du (one control value, u = 1) against a central difference of the discrete J, and the Taylor remainders along
// u (order 2).
void expect_control_gradient_verified(problem::Problem problem, const objectives::Objective& objective) {
  const Evaluation e = evaluate(problem, objective, world(), true);
  auto signal = problem.model->controls().at("u");
  const std::vector<double>& gradient = e.gradient.controls.at("u");
  EXPECT_TRUE(matches_central_difference("u", gradient[0],
                                         control_central_difference(problem, objective, world(), *signal, 0, 1e-4),
                                         e.value, kVariationalAccuracy));
  std::vector<double> remainders;
  const auto orders = control_taylor_orders(problem, objective, world(), *signal, gradient, {1.0}, 0.1, &remainders);
  expect_second_order(orders, remainders);
}

// One run on N steps: q and lambda at t_k (k = 0 .. N), the adjoint variables and dJ/du.
// What is stored per step (Variational::save_adjoint_variables after adjoint_step(k)) is (a1_k, a3_k), the
// multipliers of E1 and E3 of step k (docs/adjoint.md, "The variational integrator"). Both equations are momentum
// balances (units of momentum, no factor h: E1 = p_{k-1} + D1 L_d + f_d^- - C_q^T Lambda), so a1 and a3 are
// momentum costates (dJ/dp up to sign) and have limits as h -> 0 without rescaling (the Newton solve's z = -a1/h
// is O(1/h) and is not compared). a3_k belongs to t_k (E3 defines p_k), a1_k to t_{k-1} (E1 holds p_{k-1}); at
// interior steps a1_{k+1} = -a3_k (both tangential), and a1_1 = dJ/dv_0 (m = 1), the sweep's final result.
struct PendulumRun {
  std::vector<std::vector<double>> q, lambda, a1, a3;  // a1[k] at t_k (k < N), a3[k] at t_k (k >= 1)
  double dJ_du = 0.0;
};

PendulumRun run_pendulum(long long steps) {
  const auto problem = swing_pendulum(steps);
  PendulumRun r;
  const Trajectory forward = run(problem, self());
  r.q = forward.q;
  r.lambda = forward.lambda;
  r.a1.resize(steps + 1);
  r.a3.resize(steps + 1);
  adjoint::SweepOptions sweep;
  sweep.after_step = [&](std::size_t k, const integrators::TimeIntegrator& integrator) {
    if (k == 0) return;  // (b1, b3) are still step 1's
    std::vector<double> x;
    integrator.save_adjoint_variables(x);  // (b1, b3) = (a1_k, a3_k), owned coordinates (one rank: all)
    const std::size_t n = x.size() / 2;
    r.a1[k - 1].assign(x.begin(), x.begin() + long(n));
    r.a3[k].assign(x.begin() + long(n), x.end());
  };
  const Evaluation e = evaluate(problem, swing_up_objective(), self(), true, nullptr, 0, 0, sweep);
  r.dJ_du = e.gradient.controls.at("u").at(0);
  return r;
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

// max over the shared times j = from .. to of the coarsest grid (stride: steps per shared interval).
double max_error(const std::vector<std::vector<double>>& x, long long stride,
                 const std::vector<std::vector<double>>& reference, long long reference_stride, long long from,
                 long long to) {
  double e = 0.0;
  for (long long j = from; j <= to; ++j)
    e = std::max(e, max_difference(x[j * stride], reference[j * reference_stride]));
  return e;
}

// Figs. 2 and 4 of the paper: second order of q and of the adjoint; lambda and dJ/du are flexadj's additions.
// h = T/32 .. T/256 (three refinements), reference T/4096 (16 x finer than the finest); errors in the max norm at
// the 33 times of the coarsest grid (t = 0, T/32, ..., T/2, ..., T), and separately at t = 0 and T/2.
TEST(VariationalOrders, ConstrainedPendulumPositionsMultipliersAndAdjointAreSecondOrder) {
  const long long coarse = 32, reference_steps = 4096;
  const std::vector<long long> steps{32, 64, 128, 256};
  const PendulumRun ref = run_pendulum(reference_steps);
  const long long ref_stride = reference_steps / coarse, half = coarse / 2;
  enum { Q, Lambda, Adjoint, AdjointAt0, AdjointAtHalf, Du, Count };
  const char* names[Count] = {"q", "lambda", "a1,a3", "a1(0)", "a3(T/2)", "dJ/du"};
  std::vector<std::array<double, Count>> errors;
  for (long long n : steps) {
    const PendulumRun r = run_pendulum(n);
    const long long s = n / coarse;
    std::array<double, Count> e{};
    e[Q] = max_error(r.q, s, ref.q, ref_stride, 0, coarse);
    e[Lambda] = max_error(r.lambda, s, ref.lambda, ref_stride, 0, coarse);
    e[Adjoint] = std::max(max_error(r.a1, s, ref.a1, ref_stride, 0, coarse - 1),
                          max_error(r.a3, s, ref.a3, ref_stride, 1, coarse));
    e[AdjointAt0] = max_difference(r.a1[0], ref.a1[0]);
    e[AdjointAtHalf] = max_difference(r.a3[half * s], ref.a3[half * ref_stride]);
    e[Du] = std::abs(r.dJ_du - ref.dJ_du);
    errors.push_back(e);
  }
  std::printf("reference h = T/%lld: a1(0) = (%.6f, %.6f), a3(T/2) = (%.6f, %.6f), lambda(T/2) = %.6f, dJ/du = %.6f\n",
              reference_steps, ref.a1[0][0], ref.a1[0][1], ref.a3[half * ref_stride][0],
              ref.a3[half * ref_stride][1], ref.lambda[half * ref_stride][0], ref.dJ_du);
  std::printf("%-9s", "h");
  for (const char* name : names) std::printf(" %10s %5s", name, "order");
  std::printf("\n");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    std::printf("%-9.6f", 2.0 / double(steps[i]));
    for (int c = 0; c < Count; ++c) {
      if (i == 0)
        std::printf(" %10.3e %5s", errors[i][c], "");
      else
        std::printf(" %10.3e %5.2f", errors[i][c], std::log2(errors[i - 1][c] / errors[i][c]));
    }
    std::printf("\n");
  }
  for (std::size_t i = 1; i < steps.size(); ++i)
    for (int c = 0; c < Count; ++c)
      EXPECT_GE(std::log2(errors[i - 1][c] / errors[i][c]), 1.8) << names[c] << " from h = T/" << steps[i - 1];
}

// Fig. 4 of the paper: the null-space form (one unknown and one adjoint variable per step). q at t_k and the adjoint
// variable lambda_k of step k's equation (the momentum balance at t_{k-1}), errors as above; and dJ/du, which must
// also equal the RATTLE form's (the same configurations), and lambda at t = 0 the projection of RATTLE's a1.
TEST(VariationalOrders, NullSpacePendulumPositionsAndMinimalAdjointAreSecondOrder) {
  const long long coarse = 32, reference_steps = 4096;
  struct Run {
    std::vector<std::vector<double>> q, lambda;  // lambda[k - 1]: step k's adjoint, at t_{k-1}
    double dJ_du = 0.0;
  };
  const auto run_null_space = [](long long steps) {
    auto problem = swing_pendulum(steps);
    problem.integrator.joint_coordinates = true;
    Run r;
    r.q = run(problem, self()).q;
    r.lambda.resize(steps);
    adjoint::SweepOptions sweep;
    sweep.after_step = [&](std::size_t k, const integrators::TimeIntegrator& integrator) {
      if (k == 0) return;
      r.lambda[k - 1] = dynamic_cast<const integrators::NullSpaceVariational&>(integrator).step_adjoint();
    };
    r.dJ_du = evaluate(problem, swing_up_objective(), self(), true, nullptr, 0, 0, sweep).gradient.controls.at("u").at(0);
    return r;
  };
  const Run ref = run_null_space(reference_steps);
  const long long ref_stride = reference_steps / coarse;
  ASSERT_EQ(ref.lambda[0].size(), 1u) << "one adjoint variable per step (n - m = 2 - 1)";
  std::vector<std::array<double, 3>> errors;
  for (long long n : {32, 64, 128, 256}) {
    const Run r = run_null_space(n);
    const long long s = n / coarse;
    errors.push_back({max_error(r.q, s, ref.q, ref_stride, 0, coarse),
                      max_error(r.lambda, s, ref.lambda, ref_stride, 0, coarse - 1), std::abs(r.dJ_du - ref.dJ_du)});
    std::printf("null-space h = T/%lld: |q error| %.3e  |lambda error| %.3e  |dJ/du error| %.3e\n", n, errors.back()[0],
                errors.back()[1], errors.back()[2]);
  }
  std::printf("null-space reference h = T/%lld: lambda(0) = %.6f, dJ/du = %.6f\n", reference_steps, ref.lambda[0][0],
              ref.dJ_du);
  for (std::size_t i = 1; i < errors.size(); ++i)
    for (int c = 0; c < 3; ++c)
      EXPECT_GE(std::log2(errors[i - 1][c] / errors[i][c]), 1.8) << "quantity " << c << " at refinement " << i;
  // The same discrete J as the RATTLE form, and the minimal adjoint its adjoint's null-space projection
  // (Schubert et al. 2024, sec. 3.2): lambda = P(q)^T a1 with P^T = [-y, x] at t = 0.
  const PendulumRun rattle = run_pendulum(reference_steps);
  EXPECT_NEAR(ref.dJ_du, rattle.dJ_du, 1e-9 * std::abs(ref.dJ_du)) << "the RATTLE form's";
  const double projected = -rattle.q[0][1] * rattle.a1[0][0] + rattle.q[0][0] * rattle.a1[0][1];
  std::printf("lambda(0) = %.12f, P(q_0)^T a1(0) of the RATTLE form = %.12f\n", ref.lambda[0][0], projected);
  EXPECT_NEAR(ref.lambda[0][0], projected, 1e-9 * std::abs(projected));
}

// dJ/du of the objective above (control value u = 1) against a central difference of the discrete J, and the
// Taylor remainders along u (order 2).
TEST(VariationalOrders, SwingUpObjectiveGradientMatchesFiniteDifferencesAndTaylor) {
  expect_control_gradient_verified(swing_pendulum(200), swing_up_objective());
}

// ---- sec. 2.3: the pendulum in minimal coordinates --------------------------------------------------------------

// The paper's L = m l^2/2 phi'^2 + m g l cos phi (phi from the downward vertical, RECON as above) depends on
// m l^2 = 1 and m g l = 9.81 only. A point mass takes no torque, so the pendulum is a rigid body with the same two
// numbers: mass 2, centre of mass 0.5 from the pivot, Izz = 0.5 (Izz + m l_c^2 = 1, m l_c = 1;
// meshes/pendulum_swing_up_minimal.yaml); u is the paper's torque on it. Start at rest at phi_0, u held over [0, T].
constexpr double kMinimalT = 2.0, kInertiaAtPivot = 1.0, kGravityMoment = 9.81;

problem::Problem minimal_pendulum(long long steps, double phi0, double u) {
  problem::Problem problem;
  model::Model* m = problem.model.get();
  m->dimension = 2;
  m->gravity = {0.0, -9.81, 0.0};
  problem.integrator.scheme = "variational";
  problem.integrator.joint_coordinates = true;
  problem.integrator.joint_midpoint = true;
  problem.integrator.end_time = kMinimalT;
  problem.integrator.step_size = kMinimalT / double(steps);
  problem.integrator.newton_tolerance = 1e-13;
  model::Body body;
  body.name = "pendulum";
  body.kind = BodyKind::PlanarRigid;
  body.mass = 2.0;
  body.inertia = {0.0, 0.0, 0.5, 0.0, 0.0, 0.0};
  body.initial_coordinates = {0.5 * std::sin(phi0), -0.5 * std::cos(phi0), phi0};
  body.initial_velocities = {0.0, 0.0, 0.0};
  const int b = m->add_body(body);
  m->add_constraint(constraints::make_joint("pivot", constraints::JointKind::Revolute, {kGround, b},
                                            {BodyKind::Ground, BodyKind::PlanarRigid},
                                            m->joint_geometry(constraints::JointKind::Revolute, kGround, b,
                                                              {0.0, 0.0, 0.0}, {0.0, 0.0, 1.0})));
  auto signal = std::make_shared<functions::ControlSignal>("u", std::vector<double>{0.0}, std::vector<double>{u},
                                                           functions::Interpolation::PiecewiseConstant);
  m->add_control(signal);
  elements::LoadData load;
  load.control = signal;
  load.control_moment_direction = {0.0, 0.0, 1.0};
  m->add_force_element(elements::make_load("torque", b, BodyKind::PlanarRigid, load));
  return problem;
}

// J = S_q/2 (phi_N - pi)^2 + S_p/2 p_N^2 + R/2 int u^2 dt (S_q = 1e3, S_p = 1e-2, R = 1e-5): phi = theta
// (coordinate 2) and p_N^2 = |m v_c|^2 = 4 |v_c|^2 (m l_c = 1).
objectives::Objective minimal_objective() {
  objectives::Objective objective;
  add_final_square(objective, 2, false, M_PI, 1e3);
  for (long long coordinate : {0, 1}) add_final_square(objective, coordinate, true, 0.0, 1e-2 * 4.0);
  add_effort(objective, 1e-5);
  return objective;
}

// The paper's scheme for this pendulum, written out (Schubert et al. 2024, sec. 2.3): L_d = h m l^2/2 ((phi_{n+1} -
// phi_n)/h)^2 + h m g l cos(phi_m), f_d^+- = h u/2, position-momentum form of eq. (16), and the adjoint eq. (18)
// backwards: for step n with equations E = p_n + D1 L_d + h u/2 = 0 and p_{n+1} = D2 L_d + h u/2,
//   lambda_n = -(phi_bar_{n+1} + dD2/dphi_{n+1} p_bar_{n+1}) / (dD1/dphi_{n+1}),
//   phi_bar_n = dD2/dphi_n p_bar_{n+1} + dD1/dphi_n lambda_n,  p_bar_n = lambda_n,  dJ/du += h/2 (lambda_n + p_bar_{n+1}).
struct ScalarPendulum {
  std::vector<double> phi, p, lambda;  // lambda[n]: the adjoint of step n + 1's E (at t_n)
  double J = 0.0, dJ_du = 0.0;
};

ScalarPendulum paper_pendulum(long long steps, double phi0, double u) {
  const double h = kMinimalT / double(steps), ml2 = kInertiaAtPivot, mgl = kGravityMoment;
  const auto d1 = [&](double a, double b) { return -ml2 * (b - a) / h - 0.5 * h * mgl * std::sin(0.5 * (a + b)); };
  const auto d2 = [&](double a, double b) { return ml2 * (b - a) / h - 0.5 * h * mgl * std::sin(0.5 * (a + b)); };
  const auto coupling = [&](double a, double b) { return -0.25 * h * mgl * std::cos(0.5 * (a + b)); };
  ScalarPendulum r;
  r.phi.assign(std::size_t(steps) + 1, phi0);
  r.p.assign(std::size_t(steps) + 1, 0.0);
  r.lambda.assign(std::size_t(steps), 0.0);
  for (long long n = 0; n < steps; ++n) {
    const double a = r.phi[n];
    double b = a;
    for (int iteration = 0; iteration < 50; ++iteration) {
      const double e = r.p[n] + d1(a, b) + 0.5 * h * u;
      const double step = e / (-ml2 / h + coupling(a, b));
      b -= step;
      if (std::abs(step) < 1e-15 * (1.0 + std::abs(b))) break;
    }
    r.phi[n + 1] = b;
    r.p[n + 1] = d2(a, b) + 0.5 * h * u;
  }
  const double phi_N = r.phi[steps], p_N = r.p[steps];
  r.J = 0.5e3 * (phi_N - M_PI) * (phi_N - M_PI) + 0.5e-2 * p_N * p_N + 0.5e-5 * kMinimalT * u * u;
  double phi_bar = 1e3 * (phi_N - M_PI), p_bar = 1e-2 * p_N;
  r.dJ_du = 1e-5 * kMinimalT * u;
  for (long long n = steps - 1; n >= 0; --n) {
    const double a = r.phi[n], b = r.phi[n + 1], c = coupling(a, b);
    const double lambda = -(phi_bar + (ml2 / h + c) * p_bar) / (-ml2 / h + c);
    r.dJ_du += 0.5 * h * (lambda + p_bar);
    phi_bar = (-ml2 / h + c) * p_bar + (ml2 / h + c) * lambda;
    p_bar = lambda;
    r.lambda[n] = lambda;
  }
  return r;
}

struct MinimalRun {
  std::vector<std::vector<double>> q, lambda;  // lambda[k - 1]: step k's adjoint, at t_{k-1}
  double J = 0.0, dJ_du = 0.0;
};

MinimalRun run_minimal(long long steps, double phi0, double u) {
  const auto problem = minimal_pendulum(steps, phi0, u);
  MinimalRun r;
  r.q = run(problem, self()).q;
  r.lambda.resize(steps);
  adjoint::SweepOptions sweep;
  sweep.after_step = [&](std::size_t k, const integrators::TimeIntegrator& integrator) {
    if (k == 0) return;
    r.lambda[k - 1] = dynamic_cast<const integrators::JointMidpointVariational&>(integrator).step_adjoint();
  };
  const Evaluation e = evaluate(problem, minimal_objective(), self(), true, nullptr, 0, 0, sweep);
  r.J = e.value;
  r.dJ_du = e.gradient.controls.at("u").at(0);
  return r;
}

// flexadj's joint-midpoint integrator and its discrete adjoint are the paper's eqs. (16) and (18) for this L_d:
// angles, adjoint variables, J and dJ/du to round-off, from the horizontal start (u = 1, the study's) and from a
// swinging one (u = 3, phi_0 = 2.5).
TEST(VariationalOrders, MinimalPendulumIsThePapersDiscreteLagrangianAndAdjoint) {
  for (const auto& [phi0, u] : {std::pair<double, double>{M_PI / 2, 1.0}, {2.5, 3.0}}) {
    const long long steps = 64;
    const ScalarPendulum paper = paper_pendulum(steps, phi0, u);
    const MinimalRun r = run_minimal(steps, phi0, u);
    double angle = 0.0, adjoint = 0.0, adjoint_size = 0.0;
    for (long long n = 0; n <= steps; ++n) angle = std::max(angle, std::abs(r.q[n][2] - paper.phi[n]));
    for (long long n = 0; n < steps; ++n) {
      ASSERT_EQ(r.lambda[n].size(), 1u) << "one adjoint variable per step";
      adjoint = std::max(adjoint, std::abs(r.lambda[n][0] - paper.lambda[n]));
      adjoint_size = std::max(adjoint_size, std::abs(paper.lambda[n]));
    }
    std::printf("phi_0 = %.3f, u = %.1f: |phi - paper| %.2e, |lambda - paper| %.2e (max |lambda| %.3e), J %.12g / "
                "%.12g, dJ/du %.12g / %.12g\n",
                phi0, u, angle, adjoint, adjoint_size, r.J, paper.J, r.dJ_du, paper.dJ_du);
    EXPECT_LE(angle, 1e-11);
    EXPECT_LE(adjoint, 1e-9 * adjoint_size);
    EXPECT_NEAR(r.J, paper.J, 1e-11 * paper.J);
    EXPECT_NEAR(r.dJ_du, paper.dJ_du, 1e-9 * std::abs(paper.dJ_du));
  }
}

// Fig. 2 of the paper: second order of the angle and of the adjoint variable (and of dJ/du), h = T/32 .. T/256
// against T/4096, errors in the max norm at the 33 coarse times; the horizontal start and u = 1 of the study.
TEST(VariationalOrders, MinimalPendulumAnglesAndAdjointAreSecondOrder) {
  const long long coarse = 32, reference_steps = 4096;
  const MinimalRun ref = run_minimal(reference_steps, M_PI / 2, 1.0);
  const long long ref_stride = reference_steps / coarse;
  std::vector<std::array<double, 3>> errors;
  for (long long n : {32, 64, 128, 256}) {
    const MinimalRun r = run_minimal(n, M_PI / 2, 1.0);
    const long long s = n / coarse;
    errors.push_back({max_error(r.q, s, ref.q, ref_stride, 0, coarse),
                      max_error(r.lambda, s, ref.lambda, ref_stride, 0, coarse - 1), std::abs(r.dJ_du - ref.dJ_du)});
    std::printf("minimal h = T/%lld: |q error| %.3e  |lambda error| %.3e  |dJ/du error| %.3e\n", n, errors.back()[0],
                errors.back()[1], errors.back()[2]);
  }
  std::printf("minimal reference h = T/%lld: lambda(0) = %.9f, dJ/du = %.9f, J = %.9f\n", reference_steps,
              ref.lambda[0][0], ref.dJ_du, ref.J);
  for (std::size_t i = 1; i < errors.size(); ++i)
    for (int c = 0; c < 3; ++c)
      EXPECT_GE(std::log2(errors[i - 1][c] / errors[i][c]), 1.8) << "quantity " << c << " at refinement " << i;
}

// dJ/du on the joint-midpoint integrator against a central difference of the discrete J, and the Taylor remainders.
TEST(VariationalOrders, MinimalPendulumGradientMatchesFiniteDifferencesAndTaylor) {
  expect_control_gradient_verified(minimal_pendulum(200, M_PI / 2, 1.0), minimal_objective());
}

}  // namespace
}  // namespace flexadj::testing
