// The continuous adjoint with an implicit final time (Bestle and Eberhard 1992, sec. 3, eqs. (43)-(51); the
// terminal terms in adjoint/continuous_adjoint.cpp, add_final_time_terms) and with a free final time, against
// closed forms: the oscillator stopped at z = 0 (the paper's variant) and the oscillator over a free [0, T].
// The continuous adjoint runs on its own constant steps over [t0, t1] (the last forward step is a part step),
// the forward states interpolated (adjoint/forward_interpolation.hpp).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <memory>

#include "flexadj/integrators/end_condition.hpp"
#include "gradient_support.hpp"
#include "models.hpp"

namespace flexadj::testing {
namespace {

using objectives::ObjectiveTerm;

const double kPi = std::acos(-1.0);

problem::Problem stopped_oscillator(double c, double z0, long long steps) {
  auto problem = oscillator(1.0, c, 0.0, z0, 2.0, steps);
  problem.integrator.newton_tolerance = 1e-13;
  ObjectiveTerm z;
  z.coordinate = 0;
  z.quantity = ObjectiveTerm::Quantity::Velocity;
  problem.integrator.end_condition = std::make_shared<integrators::EndCondition>(
      z, 0.0, integrators::EndCondition::Direction::Falling, "'v(mass.x) = 0 (falling)'");
  return problem;
}

objectives::Objective single(ObjectiveTerm::Kind kind, double weight = 1.0) {
  ObjectiveTerm term;
  term.kind = kind;
  term.coordinate = 0;
  term.weight = weight;
  objectives::Objective objective;
  objective.add(term);
  return objective;
}

std::vector<double> orders(const std::vector<double>& errors) {
  std::vector<double> result;
  for (std::size_t k = 1; k < errors.size(); ++k) result.push_back(std::log2(errors[k - 1] / errors[k]));
  return result;
}

void print_row(const char* what, const std::vector<double>& errors) {
  std::printf("%-34s errors", what);
  for (double e : errors) std::printf(" %.2e", e);
  std::printf("  orders");
  for (double o : orders(errors)) std::printf(" %.2f", o);
  std::printf("\n");
}

// (4 f(h/2) - f(h))/3: the h^2 term of the error removed.
double richardson(double coarse, double fine) { return (4.0 * fine - coarse) / 3.0; }

// psi = y(t1) and t1 itself at (c, z0): dpsi/dc = -z0/(2 c^{3/2}), dpsi/dz0 = 1/sqrt c, dt1/dc = -pi/(4 c^{3/2}),
// dt1/dz0 = 0. The continuous adjoint's gradient converges at second order (BDF-2, the forward scheme and the
// trapezoidal rule), its Richardson extrapolation of the two finest within 1e-8, and its distance to the discrete
// adjoint's gradient (exact for the discrete J, itself second order) shrinks at the same order. The discrete
// dt1/dc has a first-order part that jumps with h (the part step, docs/adjoint.md), so the distance to it falls
// unevenly (observed orders 1.63 .. 2.26): there each halving must gain an order of 1.5 and the whole range 1.8.
void check_stopped_oscillator(double c, double z0) {
  const double root = std::sqrt(c);
  struct Case {
    const char* name;
    objectives::Objective objective;
    std::array<double, 2> exact;  // d/dc, d/dz0
  };
  const std::vector<Case> cases{
      {"psi", single(ObjectiveTerm::Kind::FinalValue), {-z0 / (2.0 * c * root), 1.0 / root}},
      {"t1", single(ObjectiveTerm::Kind::FinalTime), {-kPi / (4.0 * c * root), 0.0}}};
  for (const Case& test : cases) {
    std::array<std::vector<double>, 2> errors, gaps, values;
    for (long long steps : {500LL, 1000LL, 2000LL, 4000LL}) {
      const auto problem = stopped_oscillator(c, z0, steps);
      const int stiffness = model::ParameterSpace(*problem.model).find("spring.stiffness");
      const Evaluation continuous = evaluate(problem, test.objective, world(), true, nullptr, 2);
      const Evaluation discrete = evaluate(problem, test.objective, world(), true);
      const std::array<double, 2> got{continuous.gradient.parameters[stiffness],
                                      continuous.gradient.initial_velocities[0]};
      const std::array<double, 2> reference{discrete.gradient.parameters[stiffness],
                                            discrete.gradient.initial_velocities[0]};
      for (int k = 0; k < 2; ++k) {
        values[k].push_back(got[k]);
        errors[k].push_back(std::abs(got[k] - test.exact[k]));
        gaps[k].push_back(std::abs(got[k] - reference[k]));
      }
    }
    for (int k = 0; k < 2; ++k) {
      const std::string what = std::string(test.name) + (k == 0 ? " d/dc" : " d/dz0") + " c = " + std::to_string(c);
      const double extrapolated = richardson(values[k][2], values[k][3]);
      print_row((what + " exact").c_str(), errors[k]);
      print_row((what + " to discrete").c_str(), gaps[k]);
      std::printf("%-34s exact % .15f extrapolated error %.2e\n", what.c_str(), test.exact[k],
                  std::abs(extrapolated - test.exact[k]));
      EXPECT_NEAR(extrapolated, test.exact[k], 1e-8) << what;
      for (double o : orders(errors[k])) EXPECT_GT(o, 1.8) << what;
      const bool uneven = std::string(test.name) == "t1" && k == 0;
      for (double o : orders(gaps[k])) EXPECT_GT(o, uneven ? 1.5 : 1.8) << what;
      EXPECT_GT(std::log2(gaps[k].front() / gaps[k].back()) / double(gaps[k].size() - 1), 1.8) << what;
    }
  }
}

TEST(ContinuousFinalTime, StoppedOscillatorConvergesToTheClosedForm) { check_stopped_oscillator(1.0, 0.5); }
TEST(ContinuousFinalTime, StoppedOscillatorAtAnotherDesign) { check_stopped_oscillator(1.7, 0.3); }

// A free final time on the fixed-time oscillator, J = y(T) + 2 T: dJ/dT = z0 cos(wT) + 2 (w = sqrt c), with
// y(T) = z0/w sin(wT), and dJ/dc = z0/(2c)(T cos wT - sin(wT)/w) unchanged by the free T.
TEST(ContinuousFinalTime, FreeFinalTimeAgainstTheClosedForm) {
  const double c = 1.3, z0 = 0.4, T = 2.1, w = std::sqrt(c);
  objectives::Objective objective = single(ObjectiveTerm::Kind::FinalValue);
  ObjectiveTerm t1;
  t1.kind = ObjectiveTerm::Kind::FinalTime;
  t1.weight = 2.0;
  objective.add(t1);
  std::vector<double> errors, stiffness_errors;
  for (long long steps : {250LL, 500LL, 1000LL, 2000LL}) {
    auto problem = oscillator(1.0, c, 0.0, z0, T, steps);
    problem.integrator.newton_tolerance = 1e-13;
    problem.integrator.fixed_steps = steps;
    const Evaluation e = evaluate(problem, objective, world(), true, nullptr, 2);
    const int stiffness = model::ParameterSpace(*problem.model).find("spring.stiffness");
    errors.push_back(std::abs(e.gradient.final_time - (z0 * std::cos(w * T) + 2.0)));
    stiffness_errors.push_back(std::abs(e.gradient.parameters[stiffness] -
                                        z0 / (2.0 * c) * (T * std::cos(w * T) - std::sin(w * T) / w)));
  }
  print_row("free T: dJ/dT", errors);
  print_row("free T: dJ/dc", stiffness_errors);
  for (double o : orders(errors)) EXPECT_GT(o, 1.8);
  for (double o : orders(stiffness_errors)) EXPECT_GT(o, 1.8);
  EXPECT_LT(errors.back(), 1e-5);
}

}  // namespace
}  // namespace flexadj::testing
