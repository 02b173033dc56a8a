// The gradient and Barzilai-Borwein methods when every trial step fails (J = +infinity, as for a failed forward
// run): they stop at the last accepted iterate with the reason, instead of asking for a gradient there. The
// Barzilai-Borwein method's best iterate. newton_krylov and gauss_newton on Rosenbrock's function as least squares:
// each asks for its own products only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "flexadj/optimization/optimizer.hpp"

namespace flexadj::optimization {
namespace {

// J = (x - 3)^2 where the "forward run" succeeds (x <= feasible_limit), +infinity beyond.
class CliffFunction : public Function {
 public:
  explicit CliffFunction(double feasible_limit) : limit_(feasible_limit) {}
  double value(const std::vector<double>& x) override {
    ++forward_runs_;
    return x[0] <= limit_ ? (x[0] - 3.0) * (x[0] - 3.0) : std::numeric_limits<double>::infinity();
  }
  double value_and_gradient(const std::vector<double>& x, std::vector<double>& gradient) override {
    if (x[0] > limit_) throw std::runtime_error("gradient asked for where the forward run failed");
    ++adjoint_runs_;
    gradient = {2.0 * (x[0] - 3.0)};
    return value(x);
  }
  long forward_runs() const override { return forward_runs_; }
  long adjoint_runs() const override { return adjoint_runs_; }

 private:
  double limit_;
  long forward_runs_ = 0, adjoint_runs_ = 0;
};

TEST(Optimizer, LineSearchFailureStopsAtTheLastAcceptedIterate) {
  for (const char* method : {"gradient", "barzilai_borwein"}) {
    SCOPED_TRACE(method);
    CliffFunction f(0.0);  // every step from x = 0 towards the minimum at 3 fails
    Settings settings;
    settings.method = method;
    settings.max_iterations = 10;
    Result result;
    ASSERT_NO_THROW(result = minimize(f, {0.0}, settings, nullptr));
    EXPECT_EQ(result.x, std::vector<double>{0.0});
    EXPECT_DOUBLE_EQ(result.objective, 9.0);
    EXPECT_FALSE(result.converged);
    EXPECT_NE(result.stop_reason.find("line search failed"), std::string::npos) << result.stop_reason;
  }
}

TEST(Optimizer, FailedTrialStepsAreShortened) {
  // The feasible region ends at 2.5: the methods shorten steps that leave it and approach its edge.
  for (const char* method : {"gradient", "barzilai_borwein"}) {
    SCOPED_TRACE(method);
    CliffFunction f(2.5);
    Settings settings;
    settings.method = method;
    settings.max_iterations = 30;
    Result result;
    ASSERT_NO_THROW(result = minimize(f, {0.0}, settings, nullptr));
    EXPECT_LE(result.x[0], 2.5);
    EXPECT_GT(result.x[0], 2.0);
    EXPECT_LT(result.objective, 1.0);
  }
}

// J = sin(2x) + x^2/10: local minima near -3.74 (J = 0.468), -0.72 (J = -0.941), 2.36 (J = -0.44).
class WavyFunction : public Function {
 public:
  double value(const std::vector<double>& x) override {
    ++forward_runs_;
    return std::sin(2.0 * x[0]) + 0.1 * x[0] * x[0];
  }
  double value_and_gradient(const std::vector<double>& x, std::vector<double>& gradient) override {
    ++adjoint_runs_;
    gradient = {2.0 * std::cos(2.0 * x[0]) + 0.2 * x[0]};
    return value(x);
  }
  long forward_runs() const override { return forward_runs_; }
  long adjoint_runs() const override { return adjoint_runs_; }

 private:
  long forward_runs_ = 0, adjoint_runs_ = 0;
};

TEST(Optimizer, BarzilaiBorweinReturnsItsBestIterate) {
  // From 0.37 with a first step of half of J, the non-monotone search (memory 10) passes J = -0.25 and then
  // jumps into the well at -3.74 (J = 0.468, below the remembered J0 = 0.69): the result is the best iterate.
  WavyFunction f;
  Settings settings;
  settings.method = "barzilai_borwein";
  settings.step_fraction = 0.5;
  settings.max_iterations = 60;
  const Result nonmonotone = minimize(f, {0.37}, settings, nullptr);
  double lowest = std::numeric_limits<double>::infinity();
  for (const auto& h : nonmonotone.history) lowest = std::min(lowest, h.objective);
  ASSERT_GT(nonmonotone.last_objective, lowest + 0.5) << "the run was expected to leave its best iterate";
  EXPECT_EQ(nonmonotone.objective, lowest);
  EXPECT_LT(nonmonotone.best_iteration, nonmonotone.iterations);
  EXPECT_EQ(nonmonotone.history[nonmonotone.best_iteration].objective, lowest);
  EXPECT_DOUBLE_EQ(f.value(nonmonotone.x), lowest);
  EXPECT_FALSE(nonmonotone.converged);
  EXPECT_NE(nonmonotone.stop_reason.find("returned iteration"), std::string::npos) << nonmonotone.stop_reason;

  // Memory 1: a monotone Armijo search, which ends at a stationary point that is its best iterate.
  settings.nonmonotone_memory = 1;
  const Result monotone = minimize(f, {0.37}, settings, nullptr);
  for (std::size_t k = 1; k < monotone.history.size(); ++k)
    EXPECT_LE(monotone.history[k].objective, monotone.history[k - 1].objective) << "iteration " << k;
  EXPECT_TRUE(monotone.converged) << monotone.stop_reason;
  EXPECT_EQ(monotone.best_iteration, monotone.iterations);
  EXPECT_EQ(monotone.objective, monotone.last_objective);
  EXPECT_LT(std::abs(2.0 * std::cos(2.0 * monotone.x[0]) + 0.2 * monotone.x[0]), 1e-6);

  settings.nonmonotone_memory = 0;
  EXPECT_THROW(minimize(f, {0.37}, settings, nullptr), std::invalid_argument);
}

// Rosenbrock's function as least squares, J = 1/2 (r1^2 + r2^2), r1 = 10 (x2 - x1^2), r2 = 1 - x1 (zero residual at
// the minimum (1, 1)): the exact Hessian-vector product and the Gauss-Newton product J_r^T J_r v, each counted.
class RosenbrockResiduals : public Function {
 public:
  double value(const std::vector<double>& x) override {
    ++forward_runs_;
    const double r1 = 10.0 * (x[1] - x[0] * x[0]), r2 = 1.0 - x[0];
    return 0.5 * (r1 * r1 + r2 * r2);
  }
  double value_and_gradient(const std::vector<double>& x, std::vector<double>& gradient) override {
    ++adjoint_runs_;
    const double r1 = 10.0 * (x[1] - x[0] * x[0]), r2 = 1.0 - x[0];
    gradient = {-20.0 * x[0] * r1 - r2, 10.0 * r1};  // J_r^T r
    return value(x);
  }
  // J_r = [[-20 x1, 10], [-1, 0]]; H = J_r^T J_r + r1 d2r1, d2r1 = [[-20, 0], [0, 0]].
  void gauss_newton_vector(const std::vector<double>& x, const std::vector<double>& v,
                           std::vector<double>& product) override {
    ++gauss_newton_products;
    const double jv1 = -20.0 * x[0] * v[0] + 10.0 * v[1], jv2 = -v[0];
    product = {-20.0 * x[0] * jv1 - jv2, 10.0 * jv1};
  }
  void hessian_vector(const std::vector<double>& x, const std::vector<double>& v,
                      std::vector<double>& product) override {
    ++hessian_products_;
    const long gauss_newton_before = gauss_newton_products;
    gauss_newton_vector(x, v, product);
    gauss_newton_products = gauss_newton_before;
    product[0] += 10.0 * (x[1] - x[0] * x[0]) * -20.0 * v[0];
  }
  long forward_runs() const override { return forward_runs_; }
  long adjoint_runs() const override { return adjoint_runs_; }
  long hessian_products() const override { return hessian_products_; }
  long gauss_newton_products = 0;

 private:
  long forward_runs_ = 0, adjoint_runs_ = 0, hessian_products_ = 0;
};

TEST(Optimizer, NewtonKrylovAndGaussNewtonAskForTheirOwnProducts) {
  for (const char* method : {"newton_krylov", "gauss_newton"}) {
    SCOPED_TRACE(method);
    RosenbrockResiduals f;
    Settings settings;
    settings.method = method;
    settings.max_iterations = 100;
    settings.relative_gradient_tolerance = 1e-10;
    const Result result = minimize(f, {-1.2, 1.0}, settings, nullptr);
    std::printf("%s: %d iterations, x - (1, 1) = (%.2e, %.2e), %ld Hessian and %ld Gauss-Newton products\n", method,
                result.iterations, result.x[0] - 1.0, result.x[1] - 1.0, f.hessian_products(), f.gauss_newton_products);
    EXPECT_TRUE(result.converged) << result.stop_reason;
    EXPECT_NEAR(result.x[0], 1.0, 1e-8);
    EXPECT_NEAR(result.x[1], 1.0, 1e-8);
    const bool gauss_newton = std::string(method) == "gauss_newton";
    EXPECT_GT(gauss_newton ? f.gauss_newton_products : f.hessian_products(), 0);
    EXPECT_EQ(gauss_newton ? f.hessian_products() : f.gauss_newton_products, 0);
  }
}

}  // namespace
}  // namespace flexadj::optimization
