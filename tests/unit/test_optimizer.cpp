// The gradient and Barzilai-Borwein methods when every trial step fails (J = +infinity, as for a failed forward
// run): they stop at the last accepted iterate with the reason, instead of asking for a gradient there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

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

}  // namespace
}  // namespace flexadj::optimization
