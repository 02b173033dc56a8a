// A free final time together with the values of a control on normalized time tau = (t - t0)/(t1 - t0) (Bestle and
// Eberhard 1992, sec. 4.3; docs/adjoint.md, "Free final time"): u(t) = u^(tau) is the same at every step's tau for
// any t1, so the discrete equations hold t1 through h only and the gradient in t1 and in the control values is
// exact. Both against central differences of the discrete J (through the design space, as `flexadj check`) and a
// Taylor test, with generalized-alpha and the variational integrator; the refusals of other time dependence.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "flexadj/core/error.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "fd_check.hpp"
#include "models.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {
namespace {

// A unit mass pushed by F(t) = u^(tau); J = t1 + 50 (x(t1) - 1)^2 + 0.05 int F^2 dt.
std::string model_text(const std::string& integrator_type, const std::string& control_time = "normalized") {
  return "dimension: 2\n"
         "integrator: {type: " + integrator_type + ", end_time: 2.0, step_size: 0.01, newton_tolerance: 1e-12}\n"
         "controls:\n"
         "  - {name: F, time: " + control_time + ", times: [0, 0.3, 0.5, 1], values: [1, 0.4, 0, -1]}\n"
         "bodies:\n"
         "  - {name: mass, type: point_mass, mass: 1, position: [0, 0], velocity: [0, 0]}\n"
         "forces:\n"
         "  - {name: push, type: load, body: mass, control: {name: F, force_direction: [1, 0]}}\n"
         "objective:\n"
         "  - {type: final_time}\n"
         "  - {type: final_square, coordinate: mass.x, target: 1, weight: 100}\n"
         "  - {type: control_effort, control: F, weight: 0.1}\n"
         "design_variables: [integrator.end_time, {control: F}]\n";
}

GradientProblem make(const std::string& integrator_type) {
  auto problem = io::read_problem_string(model_text(integrator_type), "model.yaml");
  GradientProblem gradient_problem(std::move(problem), world(), "test");
  AdjointSettings settings;
  settings.storage = "memory";
  gradient_problem.set_adjoint(settings);
  return gradient_problem;
}

double value_at(GradientProblem& problem, const std::vector<double>& x) {
  problem.set_values(x);
  return problem.evaluate(false).objective;
}

void check_gradient(const std::string& integrator_type) {
  GradientProblem problem = make(integrator_type);
  const std::vector<double> x0 = problem.values();
  ASSERT_EQ(x0.size(), 5u);  // t1 and four control values
  EXPECT_EQ(x0[0], 2.0);
  problem.set_values(x0);
  const GradientEvaluation e = problem.evaluate(true);
  const double accuracy = integrator_type == "variational" ? kVariationalAccuracy : kSimulationAccuracy;
  for (std::size_t i = 0; i < x0.size(); ++i) {
    const double step = 1e-6;
    std::vector<double> plus = x0, minus = x0;
    plus[i] += step;
    minus[i] -= step;
    const double difference = (value_at(problem, plus) - value_at(problem, minus)) / (2.0 * step);
    const std::string name = integrator_type + (i == 0 ? " end_time" : " F[" + std::to_string(i - 1) + "]");
    EXPECT_TRUE(matches_central_difference(name, e.gradient[i], difference, step, e.objective, accuracy, 1e-6));
  }
  // Taylor remainders |J(x + s d) - J - s g.d| along d = (1, 0.5, -0.3, 0.2, 0.7): order 2.
  const std::vector<double> d{1.0, 0.5, -0.3, 0.2, 0.7};
  double slope = 0.0;
  for (std::size_t i = 0; i < d.size(); ++i) slope += e.gradient[i] * d[i];
  std::vector<double> remainders;
  for (double s = 0.02; remainders.size() < 4; s *= 0.5) {
    std::vector<double> x = x0;
    for (std::size_t i = 0; i < d.size(); ++i) x[i] += s * d[i];
    remainders.push_back(std::abs(value_at(problem, x) - e.objective - s * slope));
  }
  for (std::size_t k = 1; k < remainders.size(); ++k) {
    const double order = std::log2(remainders[k - 1] / remainders[k]);
    std::printf("%s normalized control + end_time: Taylor remainder %.3e -> %.3e: order %.3f\n",
                integrator_type.c_str(), remainders[k - 1], remainders[k], order);
    EXPECT_NEAR(order, 2.0, 0.1);
  }
}

TEST(TimeOptimalControl, FinalTimeAndNormalizedControlGradientGeneralizedAlpha) {
  check_gradient("generalized_alpha");
}

TEST(TimeOptimalControl, FinalTimeAndNormalizedControlGradientVariational) { check_gradient("variational"); }

// With a fixed end time the normalized control is u(t) = u^((t - t0)/(t1 - t0)): the same run as the control on
// absolute times t = t0 + tau (t1 - t0), here t1 = 2 (times doubled).
TEST(TimeOptimalControl, NormalizedControlWithAFixedEndTimeIsTheScaledControl) {
  auto fixed = [](const std::string& controls) {
    std::string text = model_text("generalized_alpha");
    text.replace(text.find("design_variables"), std::string::npos, "design_variables: [{control: F}]\n");
    text.replace(text.find("  - {name: F"), text.find("bodies:") - text.find("  - {name: F"), controls);
    return io::read_problem_string(text, "model.yaml");
  };
  GradientProblem normalized(fixed("  - {name: F, time: normalized, times: [0, 0.3, 0.5, 1], values: [1, 0.4, 0, -1]}\n"),
                             world(), "test");
  GradientProblem absolute(fixed("  - {name: F, times: [0, 0.6, 1.0, 2], values: [1, 0.4, 0, -1]}\n"), world(),
                           "test");
  const GradientEvaluation a = normalized.evaluate(true), b = absolute.evaluate(true);
  std::printf("fixed end time: J normalized %.15e, absolute %.15e\n", a.objective, b.objective);
  EXPECT_NEAR(a.objective, b.objective, 1e-12 * std::abs(b.objective));
  // dJ/du_k is the same too (the weights of u_k at each t are the same).
  ASSERT_EQ(a.gradient.size(), b.gradient.size());
  for (std::size_t k = 0; k < a.gradient.size(); ++k)
    EXPECT_NEAR(a.gradient[k], b.gradient[k], 1e-10 * (1.0 + std::abs(b.gradient[k])));
}

std::string message_of(const std::string& text) {
  try {
    io::read_problem_string(text, "model.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TimeOptimalControl, RefusalsAndInputErrors) {
  EXPECT_EQ(message_of(model_text("generalized_alpha")), "(no error)");
  // A control on absolute time with a free final time: refused, naming the fix.
  const std::string absolute = message_of(model_text("generalized_alpha", "absolute"));
  EXPECT_NE(absolute.find("model.yaml: design_variables"), std::string::npos) << absolute;
  EXPECT_NE(absolute.find("load 'push'"), std::string::npos) << absolute;
  EXPECT_NE(absolute.find("give control 'F' time: normalized"), std::string::npos) << absolute;
  // A normalized control's times outside [0, 1], or decreasing.
  std::string text = model_text("generalized_alpha");
  std::string outside = text;
  outside.replace(outside.find("[0, 0.3, 0.5, 1]"), 16, "[0, 0.3, 0.5, 2]");
  const std::string outside_message = message_of(outside);
  EXPECT_NE(outside_message.find("model.yaml: controls[0].times[3]: time: normalized needs times"), std::string::npos)
      << outside_message;
  std::string decreasing = text;
  decreasing.replace(decreasing.find("[0, 0.3, 0.5, 1]"), 16, "[0, 0.5, 0.3, 1]");
  EXPECT_NE(message_of(decreasing).find("controls[0].times[2]: expected times that increase strictly"),
            std::string::npos)
      << message_of(decreasing);
  std::string bad_choice = text;
  bad_choice.replace(bad_choice.find("time: normalized"), 16, "time: relative");
  EXPECT_NE(message_of(bad_choice).find("controls[0].time"), std::string::npos) << message_of(bad_choice);
  std::string grid = text;
  const std::string given = "times: [0, 0.3, 0.5, 1], values: [1, 0.4, 0, -1]";
  grid.replace(grid.find(given), given.size(), "grid: {start: 0, end: 1.5, count: 4}, value: 0");
  EXPECT_NE(message_of(grid).find("controls[0].grid.end: time: normalized needs"), std::string::npos)
      << message_of(grid);
  // An implicit final time: the event has no fixed tau per step, so a normalized control is refused there.
  std::string event = text;
  event.replace(event.find("newton_tolerance: 1e-12}"), 24,
                "newton_tolerance: 1e-12, end_condition: {coordinate: mass.x, value: 0.5}}");
  event.replace(event.find("design_variables"), std::string::npos, "design_variables: [{control: F}]\n");
  const std::string implicit = message_of(event);
  EXPECT_NE(implicit.find("model.yaml: integrator.end_condition: an implicit final time"), std::string::npos)
      << implicit;
  EXPECT_NE(implicit.find("load 'push' does"), std::string::npos) << implicit;
  // A load of time besides the control stays refused, pointing at normalized controls as what is accepted.
  std::string with_time = text;
  with_time.replace(with_time.find("objective:"), 0,
                    "  - {name: wind, type: load, body: mass, force: [\"0.1*sin(t)\", 0]}\n");
  const std::string wind = message_of(with_time);
  EXPECT_NE(wind.find("load 'wind' does"), std::string::npos) << wind;
  EXPECT_NE(wind.find("controls with time: normalized are accepted"), std::string::npos) << wind;
}

}  // namespace
}  // namespace flexadj::testing
