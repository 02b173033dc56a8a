// Objective and constraint terms on accelerations (quantity: acceleration) with generalized-alpha and HHT, whose
// discrete state holds a_n: the discrete adjoint's gradient against central differences of the discrete J and a
// Taylor test (remainder of order 2) for a tracking and a final term, the same for a path constraint's J_c^T lambda,
// np 2 against one rank, and a closed form: on a linear spring-mass oscillator a = -(k/m)(x - L0), so the tracking
// of a equals (k/m)^2 times the tracking of x - L0, value and gradient.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "fd_check.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {
namespace {

// Two masses on parallel rails coupled by a spring across the rails (nonlinear in x_b - x_a); a control force
// drives a. TYPE: the integrator; OBJECTIVE: the terms on b's acceleration (blocks partition: b on rank 1 at np 2).
const char* const kModel = R"(
dimension: 2
gravity: [0, 0]
integrator: {type: TYPE, end_time: 1, step_size: 0.02, partition: blocks, newton_tolerance: 1e-13}
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
  - OBJECTIVE
design_variables:
  - control: F
  - coupling.stiffness
  - initial_velocity: a.x
constraints:
  - {type: final_value, coordinate: b.x, quantity: acceleration, equal: 0.1}
  - {type: path, coordinate: b.x, quantity: acceleration, upper: 1}
)";

const char* const kTracking =
    "{type: tracking, coordinate: b.x, quantity: acceleration, reference: \"0.2*sin(3*t)\", weight: 3}";
const char* const kFinalSquare = "{type: final_square, coordinate: b.x, quantity: acceleration, target: 0.1, weight: 5}";
const char* const kRelative = "{type: final_value, coordinate: b.x, relative_to: a.x, quantity: acceleration, weight: 2}";

std::string replaced(std::string text, const std::string& key, const std::string& value) {
  for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
    text.replace(at, key.size(), value);
  return text;
}

std::string model(const std::string& type, const std::string& objective) {
  return replaced(replaced(kModel, "TYPE", type), "OBJECTIVE", objective);
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// A random direction scaled by the design values' magnitudes.
std::vector<double> direction(const std::vector<double>& p, unsigned seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> d(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) d[i] = uniform(random) * std::max(1.0, std::abs(p[i]));
  return d;
}

std::vector<double> moved(const std::vector<double>& p, const std::vector<double>& d, double e) {
  std::vector<double> x(p);
  for (std::size_t i = 0; i < p.size(); ++i) x[i] += e * d[i];
  return x;
}

// f and its derivative g at p: central differences along two random directions (step 1e-4), then the Taylor test:
// |f(p + e d) - f(p) - e g.d| falls as e^2 (e = 1e-2 .. 1.25e-3), while |f(p + e d) - f(p)| falls as e.
void check_derivative(const std::function<double(const std::vector<double>&)>& f, const std::vector<double>& p,
                      const std::vector<double>& g, double magnitude, const std::string& name) {
  const double f0 = f(p);
  for (unsigned seed = 1; seed <= 2; ++seed) {
    const std::vector<double> d = direction(p, seed);
    const double h = 1e-4;
    const double difference = (f(moved(p, d, h)) - f(moved(p, d, -h))) / (2.0 * h);
    EXPECT_TRUE(matches_central_difference(name + " direction " + std::to_string(seed), dot(g, d), difference, h,
                                           magnitude));
  }
  const std::vector<double> d = direction(p, 5);
  const double slope = dot(g, d);
  std::vector<double> first, second;
  for (double e = 1e-2; e > 1e-3; e /= 2.0) {
    const double change = f(moved(p, d, e)) - f0;
    first.push_back(std::abs(change));
    second.push_back(std::abs(change - e * slope));
  }
  for (std::size_t k = 1; k < second.size(); ++k) {
    const double order = std::log2(second[k - 1] / second[k]);
    const double order_without = std::log2(first[k - 1] / first[k]);
    if (on_rank_zero())
      std::printf("Taylor %-32s remainder %.3e order %.3f (without the gradient: order %.3f)\n", name.c_str(),
                  second[k], order, order_without);
    EXPECT_NEAR(order, 2.0, 0.1) << name << ": the Taylor remainder's order at step " << k;
    EXPECT_NEAR(order_without, 1.0, 0.1) << name;
  }
}

void check_objective_gradient(const std::string& type, const std::string& term, const std::string& name) {
  GradientProblem problem(io::read_problem_string(model(type, term), "acceleration.yaml"), world(), "test");
  const std::vector<double> p = problem.values();
  problem.set_values(p);
  const GradientEvaluation e = problem.evaluate(true);
  ASSERT_EQ(e.gradient.size(), p.size());
  auto J = [&](const std::vector<double>& x) {
    problem.set_values(x);
    return problem.forward().objective;
  };
  check_derivative(J, p, e.gradient, e.objective, type + " " + name);
}

TEST(AccelerationTerms, TrackingAgainstDifferencesAndTaylor) {
  for (const char* type : {"generalized_alpha", "hht"}) check_objective_gradient(type, kTracking, "tracking a(b.x)");
}

TEST(AccelerationTerms, FinalSquareAgainstDifferencesAndTaylor) {
  for (const char* type : {"generalized_alpha", "hht"})
    check_objective_gradient(type, kFinalSquare, "final_square a(b.x)");
}

TEST(AccelerationTerms, RelativeFinalValueAgainstDifferences) {
  check_objective_gradient("generalized_alpha", kRelative, "final_value a(b.x - a.x)");
}

// J_c^T lambda of the final-value and the path constraint on accelerations, random lambda over all their values.
TEST(AccelerationTerms, ConstraintsAgainstDifferencesAndTaylor) {
  GradientProblem problem(io::read_problem_string(model("generalized_alpha", kTracking), "acceleration.yaml"),
                          world(), "test");
  ASSERT_NE(problem.constraints(), nullptr);
  ASSERT_EQ(problem.constraints()->size(), 1u + 51u);
  std::mt19937_64 random(3);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> lambda(problem.constraints()->size());
  for (double& l : lambda) l = uniform(random);
  const std::vector<double> p = problem.values();
  problem.set_values(p);
  problem.forward();
  const GradientEvaluation product = problem.constraint_adjoint(lambda);
  double magnitude = 0.0;
  auto weighted = [&](const std::vector<double>& x) {
    problem.set_values(x);
    const std::vector<double> c = problem.forward().constraints;
    magnitude = 0.0;
    for (std::size_t i = 0; i < c.size(); ++i) magnitude += std::abs(lambda[i] * c[i]);
    return dot(lambda, c);
  };
  const double at_p = weighted(p);
  EXPECT_NEAR(product.objective, at_p, 1e-13 * magnitude) << "the sweep's lambda.c";
  check_derivative(weighted, p, product.gradient, magnitude, "constraints on a(b.x)");
}

TEST(AccelerationTerms, TwoRanksAgreeWithOne) {
  if (world()->getSize() < 2) GTEST_SKIP() << "compares np > 1 with one rank: runs at np 2";
  const std::string text = replaced(model("generalized_alpha", kTracking), "\n  - " + std::string(kTracking),
                                    "\n  - " + std::string(kTracking) + "\n  - " + kFinalSquare);
  std::vector<std::vector<double>> gradients, products;
  std::vector<double> objectives;
  for (const auto& comm : {world(), self()}) {
    GradientProblem problem(io::read_problem_string(text, "acceleration.yaml"), comm, "test");
    const GradientEvaluation e = problem.evaluate(true);
    objectives.push_back(e.objective);
    gradients.push_back(e.gradient);
    std::vector<double> lambda(problem.constraints()->size());
    for (std::size_t i = 0; i < lambda.size(); ++i) lambda[i] = std::cos(1.0 + double(i));
    problem.forward();
    products.push_back(problem.constraint_adjoint(lambda).gradient);
  }
  EXPECT_NEAR(objectives[0], objectives[1], 1e-12 * std::abs(objectives[1]));
  for (const auto* pair : {&gradients, &products}) {
    ASSERT_EQ((*pair)[0].size(), (*pair)[1].size());
    double scale = 0.0;
    for (double v : (*pair)[1]) scale = std::max(scale, std::abs(v));
    for (std::size_t i = 0; i < (*pair)[0].size(); ++i)
      EXPECT_NEAR((*pair)[0][i], (*pair)[1][i], 1e-10 * scale) << "design scalar " << i;
  }
}

// A mass on a linear spring to the ground (no joints; it moves along x > 0 only): m a = -k (x - L0) at every step
// of generalized-alpha and HHT (the step's equations at t_n), so the trapezoidal int a^2 dt equals
// (k/m)^2 int (x - L0)^2 dt on the same steps.
const char* const kOscillator = R"(
dimension: 2
gravity: [0, 0]
integrator: {type: TYPE, end_time: 2, step_size: 0.01, newton_tolerance: 1e-13}
bodies:
  - {name: mass, type: point_mass, mass: 2, position: [2.5, 0], velocity: [0.3, 0]}
forces:
  - {name: spring, type: spring_damper, bodies: [ground, mass], points: [[0, 0], [2.5, 0]], stiffness: 5,
     free_length: 2}
objective:
  - OBJECTIVE
design_variables:
  - spring.stiffness
  - initial_velocity: mass.x
  - initial_position: mass.x
)";

TEST(AccelerationTerms, OscillatorTrackingEqualsScaledPositionTracking) {
  const double k = 5.0, m = 2.0, r = k / m;
  for (const char* type : {"generalized_alpha", "hht"}) {
    const std::string base = replaced(kOscillator, "TYPE", type);
    GradientProblem on_x(
        io::read_problem_string(
            replaced(base, "OBJECTIVE", "{type: tracking, coordinate: mass.x, reference: 2}"), "x.yaml"),
        world(), "test");
    GradientProblem on_a(
        io::read_problem_string(
            replaced(base, "OBJECTIVE", "{type: tracking, coordinate: mass.x, quantity: acceleration}"), "a.yaml"),
        world(), "test");
    const GradientEvaluation x = on_x.evaluate(true), a = on_a.evaluate(true);
    ASSERT_GT(x.objective, 1e-3);
    EXPECT_NEAR(a.objective, r * r * x.objective, 1e-12 * a.objective) << type;
    // d/dk of (k/m)^2 J_x = (k/m)^2 dJ_x/dk + 2 k/m^2 J_x; the initial values enter through J_x alone.
    ASSERT_EQ(a.gradient.size(), 3u);
    const double expected[3] = {r * r * x.gradient[0] + 2.0 * k / (m * m) * x.objective, r * r * x.gradient[1],
                                r * r * x.gradient[2]};
    for (int i = 0; i < 3; ++i) {
      if (on_rank_zero())
        std::printf("oscillator %s: dJ_a/dp[%d] %.12e, closed form %.12e\n", type, i, a.gradient[i], expected[i]);
      EXPECT_NEAR(a.gradient[i], expected[i], 1e-9 * std::abs(expected[i])) << type << " design scalar " << i;
    }
  }
}

}  // namespace
}  // namespace flexadj::testing
