// Gauss-Newton products J_r^T J_r v (GradientProblem::gauss_newton_vector; docs/adjoint.md, "Gauss-Newton
// products"): equal to the exact Hessian-vector product where the residuals are linear in the design, equal to
// J_r^T J_r v with J_r from central differences of the residual vector on nonlinear models (generalized-alpha and
// HHT, and the variational integrator with terms on accelerations; with joints), symmetric and positive semidefinite, and the objectives refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

#include "fd_check.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "second_order_models.hpp"
#include "simulation_support.hpp"

namespace flexadj {
namespace {

using testing::world;

// A mass on the axis of a spring and a damper, pushed along it by a control force, without gravity: the motion stays
// on the axis, where spring and damper are linear, so x(t_n) is affine in the initial state and the control values
// and every residual (tracking, final_square, control effort) is linear in the design: G = H.
const char* kLinear = R"YAML(dimension: 2
integrator: {end_time: 1.0, step_size: 0.005, spectral_radius: 0.8}
controls:
  - {name: F, times: [0, 0.25, 0.5, 0.75, 1.0], values: [1, -2, 0.5, 3, -1]}
bodies:
  - {name: mass, type: point_mass, mass: 1.3, position: [0.1, 0], velocity: [0.4, 0]}
forces:
  - {name: spring, type: spring_damper, bodies: [ground, mass], points: [[-1, 0], [0, 0]], stiffness: 40, damping: 0.7, free_length: 1}
  - {name: push, type: load, body: mass, control: {name: F, force_direction: [1, 0]}}
objective:
  - {type: tracking, coordinate: mass.x, reference: "0.2*sin(4*t)", weight: 3}
  - {type: final_square, coordinate: mass.x, target: 0.3}
  - {type: final_square, quantity: velocity, coordinate: mass.x, target: 0.1, weight: 0.5}
  - {type: control_effort, control: F, weight: 0.01}
design_variables:
  - initial_position: mass.x
  - initial_velocity: mass.x
  - control: F
)YAML";

// Two masses in the plane under gravity on nonlinear springs with damping, one pushed by a control force; tracking
// (a position and a velocity), terminal squares, an active penalty and control effort; 14 design scalars of every
// kind. The residuals are nonlinear in the design: G != H.
const char* kTwoMasses = R"YAML(dimension: 2
gravity: [0, -9.81]
integrator: {end_time: 1.0, step_size: 0.005, spectral_radius: 0.8}
controls:
  - {name: F, times: [0, 0.25, 0.5, 0.75, 1.0], values: [1, -2, 0.5, 3, -1]}
bodies:
  - {name: mass, type: point_mass, mass: 1.3, position: [0.2, -0.9], velocity: [0.4, 0.3]}
  - {name: mass2, type: point_mass, mass: 0.7, position: [0.9, -1.2], velocity: [0, -0.5]}
forces:
  - {name: spring, type: spring_damper, bodies: [ground, mass], points: [[0, 0], [0.05, 0]], stiffness: 40, damping: 0.7, free_length: 0.8}
  - {name: link, type: spring_damper, bodies: [mass, mass2], points: [[0.2, -0.9], [0.9, -1.2]], stiffness: 25, damping: 0.2, free_length: 0.6}
  - {name: push, type: load, body: mass2, control: {name: F, force_direction: [1, 0.5]}}
objective:
  - {type: tracking, coordinate: mass.y, reference: "-1+0.2*sin(4*t)", weight: 3}
  - {type: tracking, quantity: velocity, coordinate: mass2.x, reference: "0.5*cos(2*t)", weight: 0.2}
  - {type: final_square, coordinate: mass2.x, target: 0.3}
  - {type: final_square, quantity: velocity, coordinate: mass.y, target: 0.1, weight: 0.5}
  - {type: penalty, coordinate: mass2.y, lower: -1.1, weight: 5}
  - {type: control_effort, control: F, weight: 0.01}
design_variables:
  - mass.mass
  - mass.gravity_y
  - spring.stiffness
  - spring.damping
  - spring.free_length
  - spring.point_a_x
  - link.stiffness
  - initial_position: mass.x
  - initial_velocity: mass2.y
  - control: F
)YAML";

using second_order_models::kCartPendulum;

std::unique_ptr<GradientProblem> make(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return second_order_models::make_problem(yaml, "optimize", overrides);
}

std::vector<double> unit(std::size_t n, std::size_t j) {
  std::vector<double> e(n, 0.0);
  e[j] = 1.0;
  return e;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

double norm(const std::vector<double>& a) { return std::sqrt(dot(a, a)); }

std::vector<double> random_direction(std::size_t n, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = uniform(generator);
  return v;
}

// The weighted residuals rt at x, J = 1/2 |rt|^2 (Objective::add_weighted_residuals), one rank; and J of the run.
std::vector<double> residuals(GradientProblem& problem, const std::vector<double>& x, double* J = nullptr) {
  problem.set_values(x);
  const double value = problem.forward().objective;
  if (J) *J = value;
  const objectives::Objective objective(problem.problem().objective_terms);
  const std::vector<double>& times = problem.step_times();
  std::vector<double> r;
  problem.replay_trajectory([&](long long n, double, const assembly::State& state) {
    objective.add_weighted_residuals(problem.assembler(), times, static_cast<std::size_t>(n), state, r);
  });
  objective.add_weighted_control_residuals(problem.model(), times, r);
  return r;
}

TEST(GaussNewton, EqualsTheHessianWhereTheResidualsAreLinear) {
  auto problem = make(kLinear);
  const std::vector<double> x = problem->values();
  const std::size_t n = x.size();
  double worst = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    problem->set_values(x);
    problem->forward();
    const std::vector<double> h = problem->hessian_vector(unit(n, j)).product;
    const std::vector<double> g = problem->gauss_newton_vector(unit(n, j));
    double largest = 0.0;
    for (double value : h) largest = std::max(largest, std::abs(value));
    for (std::size_t i = 0; i < n; ++i) {
      worst = std::max(worst, std::abs(g[i] - h[i]) / largest);
      EXPECT_NEAR(g[i], h[i], 1e-10 * largest) << problem->design().names()[i] << " / " << problem->design().names()[j];
    }
  }
  std::printf("linear residuals: largest |G - H| %.2e of the column's largest |H|\n", worst);
}

// Column j of G against (J_r^T J_r) e_j with J_r from central differences of the residual vector, extrapolated
// (Richardson, steps h and 2h: truncation O(h^4)), per component.
// The forward runs converge far below the default Newton tolerance: the differences divide the runs' noise by steps
// of 1e-4 of the values, 1e-6 for an inertia of 0.01 (at the default 1e-10 one entry's reference moved by 1e-5 of
// itself between two builds that differ by round-off, while the product moved by 4e-11).
void expect_columns_match_residual_differences(const std::string& yaml, std::vector<std::string> overrides) {
  overrides.push_back("integrator.newton_tolerance=1e-13");
  auto problem = make(yaml, overrides);
  const std::vector<double> x = problem->values();
  const std::size_t n = x.size();
  double J = 0.0;
  const std::vector<double> r0 = residuals(*problem, x, &J);
  // The residual vector is the objective's: J = 1/2 |rt|^2.
  EXPECT_NEAR(0.5 * dot(r0, r0), J, 1e-13 * J);
  std::vector<std::vector<double>> jacobian(n);  // columns of J_r
  for (std::size_t j = 0; j < n; ++j) {
    const double step = testing::relative_step(x[j], 1e-4);
    const auto difference = [&](double h) {
      std::vector<double> plus = x, minus = x;
      plus[j] += h;
      minus[j] -= h;
      const std::vector<double> r_plus = residuals(*problem, plus), r_minus = residuals(*problem, minus);
      EXPECT_EQ(r_plus.size(), r0.size());
      std::vector<double> d(r0.size());
      for (std::size_t k = 0; k < r0.size(); ++k) d[k] = (r_plus[k] - r_minus[k]) / (2 * h);
      return d;
    };
    const std::vector<double> d_h = difference(step), d_2h = difference(2 * step);
    jacobian[j].resize(r0.size());
    for (std::size_t k = 0; k < r0.size(); ++k) jacobian[j][k] = (4 * d_h[k] - d_2h[k]) / 3;
  }
  double worst = 0.0;
  int compared = 0;
  for (std::size_t j = 0; j < n; ++j) {
    problem->set_values(x);
    problem->forward();
    const std::vector<double> column = problem->gauss_newton_vector(unit(n, j));
    double largest = 0.0;
    for (std::size_t i = 0; i < n; ++i) largest = std::max(largest, std::abs(dot(jacobian[i], jacobian[j])));
    for (std::size_t i = 0; i < n; ++i) {
      const double expected = dot(jacobian[i], jacobian[j]);
      const std::string name = problem->design().names()[i] + " / " + problem->design().names()[j];
      // Entries far below the column's largest (zero by structure) are compared absolutely.
      if (std::abs(expected) < 1e-6 * largest) {
        EXPECT_NEAR(column[i], expected, 1e-9 * largest) << name;
        continue;
      }
      ++compared;
      worst = std::max(worst, std::abs(column[i] - expected) / std::abs(expected));
      // The differenced J_r carries the forward solves' noise: an entry small by cancellation between the columns
      // (|J_r,i . J_r,j| far below |J_r,i| |J_r,j|) has it amplified, hence the second term.
      EXPECT_NEAR(column[i], expected, 1e-6 * std::abs(expected) + 1e-8 * norm(jacobian[i]) * norm(jacobian[j]))
          << name;
    }
  }
  std::printf("G against J_r^T J_r of differenced residuals: largest relative deviation %.2e (%d comparisons)\n",
              worst, compared);
  problem->set_values(x);
}

TEST(GaussNewton, ColumnsMatchDifferencesOfTheResiduals) { expect_columns_match_residual_differences(kTwoMasses, {}); }

TEST(GaussNewton, HhtColumnsMatchDifferencesOfTheResiduals) {
  expect_columns_match_residual_differences(kTwoMasses, {"integrator.type=hht", "integrator.spectral_radius=0.7"});
}

// A tracking and a terminal term on accelerations: their residuals' a-parts pass to the adjoint steps' g_a.
TEST(GaussNewton, AccelerationTermsColumnsMatchDifferencesOfTheResiduals) {
  const std::vector<std::string> accelerations = {"objective[1].quantity=acceleration",
                                                  "objective[3].quantity=acceleration"};
  expect_columns_match_residual_differences(kTwoMasses, accelerations);
  std::vector<std::string> hht = accelerations;
  hht.insert(hht.end(), {"integrator.type=hht", "integrator.spectral_radius=0.7"});
  expect_columns_match_residual_differences(kTwoMasses, hht);
  // The variational integrator's a_n: the consistent accelerations of each step's state, their tangents formed.
  std::string variational = kTwoMasses;
  variational.replace(variational.find("spectral_radius: 0.8"), 20, "type: variational");
  expect_columns_match_residual_differences(variational, accelerations);
}

TEST(GaussNewton, WithJointsColumnsMatchDifferencesOfTheResiduals) {
  expect_columns_match_residual_differences(kCartPendulum, {});
}

// Momentum sensors, whose residuals read the body's mass and inertia (design variables here) besides the states.
TEST(GaussNewton, MomentumSensorColumnsMatchDifferencesOfTheResiduals) {
  expect_columns_match_residual_differences(
      kCartPendulum,
      {"objective=[{type: tracking, sensor: {body: pendulum, component: x}, quantity: momentum, reference: '0.1', "
       "weight: 2}, {type: final_square, sensor: {body: pendulum, component: z}, quantity: angular_momentum, "
       "weight: 5, target: 0.01}, {type: final_square, sensor: {body: pendulum, component: y}, quantity: momentum, "
       "weight: 3}, {type: control_effort, control: F, weight: 0.01}]"});
}

TEST(GaussNewton, IsSymmetricPositiveSemidefiniteAndNotTheHessian) {
  auto problem = make(kTwoMasses);
  problem->forward();
  const std::size_t n = problem->values().size();
  const std::vector<double> u = random_direction(n, 3), v = random_direction(n, 4);
  const std::vector<double> gu = problem->gauss_newton_vector(u), gv = problem->gauss_newton_vector(v);
  const double ugv = dot(u, gv), vgu = dot(v, gu);
  std::printf("u.Gv %.17g  v.Gu %.17g  v.Gv %.6g  v.Hv %.6g\n", ugv, vgu, dot(v, gv),
              dot(v, problem->hessian_vector(v).product));
  EXPECT_LE(std::abs(ugv - vgu), 1e-10 * std::abs(ugv));
  EXPECT_GT(dot(v, gv), 0.0);
  EXPECT_GT(dot(u, gu), 0.0);
  // The residuals here are nonlinear: G v is not H v (else the comparison above would not test the dropped terms).
  const std::vector<double> hv = problem->hessian_vector(v).product;
  double difference = 0.0, size = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    difference = std::max(difference, std::abs(hv[i] - gv[i]));
    size = std::max(size, std::abs(hv[i]));
  }
  EXPECT_GT(difference, 1e-3 * size);
}

TEST(GaussNewton, RefusesObjectivesThatAreNotLeastSquares) {
  const auto refused = [](const std::string& yaml, const std::string& text) {
    auto problem = make(yaml);
    try {
      problem->check_gauss_newton();
      ADD_FAILURE() << "not refused: " << text;
    } catch (const InputError& error) {
      EXPECT_EQ(error.key(), "objective") << error.what();
      EXPECT_NE(std::string(error.what()).find(text), std::string::npos) << error.what();
    }
  };
  std::string final_value = kTwoMasses;
  const std::string square = "{type: final_square, coordinate: mass2.x, target: 0.3}";
  final_value.replace(final_value.find(square), square.size(), "{type: final_value, coordinate: mass2.x}");
  refused(final_value, "objective[2] (type final_value) is not a weighted square");
  std::string negative = kTwoMasses;
  negative.replace(negative.find("weight: 0.01"), 12, "weight: -0.01");
  refused(negative, "objective[5] (type control_effort) has a negative weight");
  auto problem = make(kTwoMasses);
  EXPECT_NO_THROW(problem->check_gauss_newton());
  problem->forward();
  EXPECT_THROW(problem->gauss_newton_vector({1.0, 2.0}), std::invalid_argument);
}

}  // namespace
}  // namespace flexadj
