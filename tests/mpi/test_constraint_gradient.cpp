// The constraints' gradients of flexadj optimize: J_c^T lambda from one discrete adjoint sweep of sum_i lambda_i c_i
// (GradientProblem::constraint_adjoint) against central differences of the constraint values, for a final-value
// constraint (lambda = 1) and a path constraint (one value per step, a random lambda over all steps), at np 1 and
// np 2; at np 2 also against the single-rank product, with the constrained body on the other rank than the control.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "fd_check.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {
namespace {

// Two masses on parallel rails coupled by a spring across the rails (length sqrt((x_b - x_a)^2 + 1): nonlinear);
// a control force drives a, the constraints are on b (blocks partition: b on rank 1 at np 2).
const char* const kModel = R"(
dimension: 2
gravity: [0, 0]
integrator: {end_time: 1, step_size: 0.02, partition: blocks, newton_tolerance: 1e-13}
bodies:
  - {name: a, type: point_mass, mass: 1, position: [0, 0], velocity: [0.3, 0]}
  - {name: b, type: point_mass, mass: 1.3, position: [0.1, 1]}
controls:
  - {name: F, grid: {start: 0, end: 1, count: 11}, value: 0.5}
forces:
  - {name: drive, type: load, body: a, control: {name: F, force_direction: [1, 0]}}
  - {name: coupling, type: spring_damper, bodies: [a, b], stiffness: 2, damping: 0.1, free_length: 0.8}
joints:
  - {name: rail_a, type: prismatic, bodies: [ground, a], axis: [1, 0]}
  - {name: rail_b, type: prismatic, bodies: [ground, b], axis: [1, 0]}
objective:
  - {type: control_effort, control: F}
design_variables:
  - control: F
  - coupling.stiffness
constraints:
  - {type: final_value, coordinate: b.x, equal: 0.5}
  - {type: path, coordinate: b.x, quantity: velocity, upper: 1}
)";

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// lambda.c at design values x, and sum_i |lambda_i c_i| (the size of the terms, for the noise floor).
double weighted_constraints(GradientProblem& problem, const std::vector<double>& x, const std::vector<double>& lambda,
                            double* magnitude = nullptr) {
  problem.set_values(x);
  const std::vector<double> c = problem.forward().constraints;
  if (magnitude) {
    *magnitude = 0.0;
    for (std::size_t i = 0; i < c.size(); ++i) *magnitude += std::abs(lambda[i] * c[i]);
  }
  return dot(lambda, c);
}

// J_c^T lambda at p against central differences of lambda.c along two random directions.
void check_product(GradientProblem& problem, const std::vector<double>& lambda, const std::string& name) {
  const std::vector<double> p = problem.values();
  problem.set_values(p);
  problem.forward();
  const GradientEvaluation product = problem.constraint_adjoint(lambda);
  double magnitude = 0.0;
  const double g = weighted_constraints(problem, p, lambda, &magnitude);
  EXPECT_NEAR(product.objective, g, 1e-13 * magnitude) << name << ": the sweep's lambda.c";
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int d = 0; d < 2; ++d) {
    std::vector<double> dp(p.size()), plus(p), minus(p);
    for (std::size_t i = 0; i < p.size(); ++i) dp[i] = uniform(random) * std::max(1.0, std::abs(p[i]));
    const double h = 1e-4;
    for (std::size_t i = 0; i < p.size(); ++i) {
      plus[i] += h * dp[i];
      minus[i] -= h * dp[i];
    }
    const double difference =
        (weighted_constraints(problem, plus, lambda) - weighted_constraints(problem, minus, lambda)) / (2.0 * h);
    EXPECT_TRUE(matches_central_difference(name + " direction " + std::to_string(d), dot(product.gradient, dp),
                                           difference, h, magnitude));
  }
}

TEST(ConstraintGradient, FinalValueAndPathAgainstCentralDifferences) {
  GradientProblem problem(io::read_problem_string(kModel, "constraints.yaml"), world(), "test");
  ASSERT_NE(problem.constraints(), nullptr);
  const objectives::ConstraintSet& set = *problem.constraints();
  ASSERT_EQ(set.size(), 1u + 51u);  // x_b(T), and v_b at steps 0 .. 50
  // The final value alone.
  std::vector<double> lambda(set.size(), 0.0);
  lambda[0] = 1.0;
  check_product(problem, lambda, "final_value b.x");
  // The path constraint: all 51 step values in one sweep, weighted by a random lambda.
  std::mt19937_64 random(3);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::fill(lambda.begin(), lambda.end(), 0.0);
  for (std::size_t k = set.offset(1); k < set.offset(1) + set.count(1); ++k) lambda[k] = uniform(random);
  check_product(problem, lambda, "path v(b.x)");
}

TEST(ConstraintGradient, TwoRanksAgreeWithOne) {
  if (world()->getSize() < 2) GTEST_SKIP() << "compares np > 1 with one rank: runs at np 2";
  std::vector<std::vector<double>> products;
  for (const auto& comm : {world(), self()}) {
    GradientProblem problem(io::read_problem_string(kModel, "constraints.yaml"), comm, "test");
    std::vector<double> lambda(problem.constraints()->size());
    for (std::size_t i = 0; i < lambda.size(); ++i) lambda[i] = std::cos(1.0 + double(i));
    problem.forward();
    products.push_back(problem.constraint_adjoint(lambda).gradient);
  }
  ASSERT_EQ(products[0].size(), products[1].size());
  double scale = 0.0;
  for (double v : products[1]) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < products[0].size(); ++i)
    EXPECT_NEAR(products[0][i], products[1][i], 1e-10 * scale) << "design scalar " << i;
}

}  // namespace
}  // namespace flexadj::testing
