// The gradient and Barzilai-Borwein methods when every trial step fails (J = +infinity, as for a failed forward
// run): they stop at the last accepted iterate with the reason, instead of asking for a gradient there.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace flexadj::optimization
