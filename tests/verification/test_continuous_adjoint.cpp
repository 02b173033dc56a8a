// The continuous adjoint of Nachbagauer et al. 2015 (BDF-k backwards on the forward grid, terminal conditions
// eqs. (37)-(39) made consistent with the hidden constraint): it approximates the gradient of the continuous
// objective to the integration error. The tests state that error and its order under refinement, against
// closed forms and against the discrete adjoint (exact for the discrete objective, itself second order in h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "flexadj/core/error.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "gradient_support.hpp"
#include "models.hpp"

namespace flexadj::testing {
namespace {

using objectives::ObjectiveTerm;

objectives::Objective final_value(long long coordinate) {
  objectives::Objective objective;
  ObjectiveTerm term;
  term.kind = ObjectiveTerm::Kind::FinalValue;
  term.coordinate = coordinate;
  objective.add(term);
  return objective;
}

// Observed orders log2(e_k / e_{k+1}) of errors under step halving.
std::vector<double> orders(const std::vector<double>& errors) {
  std::vector<double> result;
  for (std::size_t k = 1; k < errors.size(); ++k) result.push_back(std::log2(errors[k - 1] / errors[k]));
  return result;
}

void expect_order(const std::vector<double>& errors, double minimum, const std::string& what) {
  const auto observed = orders(errors);
  std::printf("%-50s errors", what.c_str());
  for (double e : errors) std::printf(" %.2e", e);
  std::printf("  orders");
  for (double o : observed) std::printf(" %.2f", o);
  std::printf("\n");
  for (std::size_t k = 0; k < observed.size(); ++k)
    EXPECT_GT(observed[k], minimum) << what << ": errors " << errors[k] << " -> " << errors[k + 1];
}

double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

// Bestle and Eberhard 1992: psi = y(pi/2) at (c, z0) = (1, 0.5), gradient (-0.25, 1). BDF-1 converges at
// first order, BDF-2 at second (the forward scheme and the trapezoidal rule are second order; BDF-3 cannot
// do better). Both approach the discrete adjoint's gradient, which converges at second order too.
TEST(ContinuousAdjoint, OscillatorGradientConvergesAtTheOrderOfTheBdf) {
  for (int k : {1, 2}) {
    std::vector<double> errors, gaps;
    for (long long steps : {100, 200, 400, 800}) {
      auto problem = oscillator(1.0, 1.0, 0.0, 0.5, M_PI / 2, steps);
      const int stiffness = model::ParameterSpace(*problem.model).find("spring.stiffness");
      const Evaluation c = evaluate(problem, final_value(0), world(), true, nullptr, k);
      const Evaluation d = evaluate(problem, final_value(0), world(), true);
      EXPECT_EQ(c.value, d.value);  // the same J of the same forward run
      errors.push_back(std::hypot(c.gradient.parameters[stiffness] + 0.25, c.gradient.initial_velocities[0] - 1.0));
      gaps.push_back(std::hypot(c.gradient.parameters[stiffness] - d.gradient.parameters[stiffness],
                                c.gradient.initial_velocities[0] - d.gradient.initial_velocities[0]));
    }
    // Measured: BDF-1 1.2e-2 .. 1.6e-3, BDF-2 2.1e-4 .. 3.2e-6 (100 .. 800 steps).
    EXPECT_LT(errors.back(), k == 1 ? 3e-3 : 5e-6) << "BDF-" << k;
    expect_order(errors, k == 1 ? 0.95 : 1.9, "BDF-" + std::to_string(k) + " vs closed form");
    expect_order(gaps, k == 1 ? 0.95 : 1.9, "BDF-" + std::to_string(k) + " vs discrete adjoint");
  }
}

// Held and Seifried: psi = z2(t1) of the torsional spring pendulum; the rod length l enters the constraint,
// the spring's geometry and the initial condition. dpsi/dl, dpsi/dc_r, dpsi/dm against the closed form.
// The constraint parameter needs the terminal jump of p (the hidden constraint) and the multipliers past
// BDF's start-up layer; without either, dpsi/dl converges at first order only.
TEST(ContinuousAdjoint, TorsionalPendulumAgainstTheClosedFormAtSecondOrder) {
  const double m = 1.0, l = 1.2, c_r = 2.0, alpha0 = 0.4, t1 = 10.0;
  const double omega = std::sqrt(c_r / m) / l, phase = alpha0 * std::cos(omega * t1);
  const double dpsi_domega = l * std::cos(phase) * alpha0 * (-std::sin(omega * t1)) * t1;
  const std::map<std::string, double> exact{
      {"rod.length", std::sin(phase) + alpha0 * t1 * omega * std::cos(phase) * std::sin(omega * t1)},
      {"torsion.stiffness", dpsi_domega * omega / (2.0 * c_r)},
      {"mass.mass", -dpsi_domega * omega / (2.0 * m)}};
  std::map<std::string, std::vector<double>> errors;
  for (long long steps : {500, 1000, 2000, 4000}) {
    auto problem = torsional_pendulum(m, l, c_r, alpha0, t1, steps);
    problem.integrator.newton_tolerance = 1e-12;
    const model::ParameterSpace space(*problem.model);
    const Evaluation c = evaluate(problem, final_value(1), world(), true, nullptr, 2);
    for (const auto& [name, value] : exact) errors[name].push_back(std::abs(c.gradient.parameters[space.find(name)] - value));
  }
  for (const auto& [name, e] : errors) {
    expect_order(e, 1.9, name);
    EXPECT_LT(e.back(), 1e-4 * std::abs(exact.at(name))) << name;  // measured 3e-5 relative or better
  }
}

// The 3D spinning body on a spherical joint (rotational terms, inertia entries in the mass matrix, a joint
// attachment point in the constraint) with every kind of objective term: terminal positions, a terminal
// velocity (S_v != 0: w(T) != 0, eq. (38)), velocity tracking. The continuous adjoint approaches the discrete
// one at second order for every parameter and for the initial velocity.
TEST(ContinuousAdjoint, SpinningBodyConvergesWithTheDiscreteAdjoint) {
  const std::vector<std::string> names{"box.mass", "box.inertia_xx", "box.inertia_zz", "box.inertia_xy",
                                       "box.inertia_yz", "box.gravity_z", "pivot.point_b_z"};
  std::map<std::string, std::vector<double>> gaps;
  for (long long steps : {150, 300, 600, 1200}) {
    auto problem = spinning_top_pendulum(0.3, steps, 0.9);
    problem.integrator.newton_tolerance = 1e-12;
    const model::ParameterSpace space(*problem.model);
    space.set_value(*problem.model, space.find("box.inertia_xy"), 0.01);
    space.set_value(*problem.model, space.find("box.inertia_yz"), -0.02);
    const objectives::Objective objective = spinning_body_objective(true);
    const Evaluation c = evaluate(problem, objective, world(), true, nullptr, 2);
    const Evaluation d = evaluate(problem, objective, world(), true);
    for (const auto& name : names) {
      const int i = space.find(name);
      ASSERT_GE(i, 0) << name;
      gaps[name].push_back(std::abs(c.gradient.parameters[i] - d.gradient.parameters[i]));
    }
    gaps["initial velocity"].push_back(max_abs_difference(c.gradient.initial_velocities, d.gradient.initial_velocities));
  }
  for (const auto& [name, e] : gaps) {
    expect_order(e, 1.85, name);
    EXPECT_LT(e.back(), 1e-5) << name;  // gradients are O(1e-2 .. 1); measured gaps at 1200 steps 1e-9 .. 1.1e-6
  }
}

// Control values (Nachbagauer et al.'s crane in motion: tracking of the load, a terminal term, the winch
// constraint): dJ/du_k = int (h_u + w . dR/du) phi_k dt approaches the discrete adjoint's at second order.
TEST(ContinuousAdjoint, CraneControlGradientConvergesWithTheDiscreteAdjoint) {
  std::vector<double> gaps;
  double scale = 0.0;
  for (double step : {4e-3, 2e-3, 1e-3, 5e-4}) {
    auto problem = moving_crane({"integrator.step_size=" + std::to_string(step)});
    const objectives::Objective objective = crane_load_objective();
    const Evaluation c = evaluate(problem, objective, world(), true, nullptr, 2);
    const Evaluation d = evaluate(problem, objective, world(), true);
    double gap = 0.0;
    for (const std::string name : {"F", "M"}) {
      gap = std::max(gap, max_abs_difference(c.gradient.controls.at(name), d.gradient.controls.at(name)));
      for (double g : d.gradient.controls.at(name)) scale = std::max(scale, std::abs(g));
    }
    const model::ParameterSpace space(*problem.model);
    for (const char* name : {"cable.radius", "load.mass", "trolley.inertia_zz"}) {
      const int i = space.find(name);
      ASSERT_GE(i, 0) << name;
      gap = std::max(gap, std::abs(c.gradient.parameters[i] - d.gradient.parameters[i]) /
                              std::max(1.0, std::abs(d.gradient.parameters[i])));
    }
    gaps.push_back(gap);
  }
  EXPECT_GT(scale, 1e-4);
  expect_order(gaps, 1.8, "crane controls, drum radius, load mass, drum inertia");
}

// Maciag et al. 2022, double pendulum on a cart with gamma = 1: terminal terms on joint angles and their rates
// (relative coordinates, S_v != 0 on a constrained system).
TEST(ContinuousAdjoint, DoublePendulumTerminalRatesConvergeWithTheDiscreteAdjoint) {
  std::vector<double> gaps;
  for (double step : {4e-3, 2e-3, 1e-3}) {
    auto problem = io::read_problem_file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/double_pendulum_cart.yaml",
                                         {"integrator.end_time=0.5", "integrator.newton_tolerance=1e-12",
                                          "integrator.step_size=" + std::to_string(step)});
    std::vector<ObjectiveTerm> terms = problem.objective_terms;
    for (const ObjectiveTerm& angle : problem.objective_terms) {
      ObjectiveTerm rate = angle;
      rate.quantity = ObjectiveTerm::Quantity::Velocity;
      rate.target = 0.0;
      terms.push_back(rate);
    }
    // Move the system so that the rates matter: a push on the cart.
    auto F = problem.model->controls().at("F");
    std::vector<double> push(F->size());
    for (std::size_t k = 0; k < push.size(); ++k) push[k] = 5.0 * std::sin(0.1 * double(k));
    F->set_values(push);
    const objectives::Objective objective(terms);
    const Evaluation c = evaluate(problem, objective, world(), true, nullptr, 2);
    const Evaluation d = evaluate(problem, objective, world(), true);
    gaps.push_back(max_abs_difference(c.gradient.controls.at("F"), d.gradient.controls.at("F")));
  }
  expect_order(gaps, 1.8, "double pendulum F");
}

// BDF-3 and BDF-4 (never run before): they converge at second order like BDF-2, not at their own order. The forward
// trajectory (generalized-alpha), the trapezoidal quadrature of eq. (52) and the differences of the terminal hidden
// constraint are second order, and so is the backward integration itself: it starts at T with BDF-1, BDF-2, ...
// (measured: BDF-3 and BDF-4 on the same trajectory differ by O(h^2), 1.6e-7 and 3.9e-8 in dJ/dk at 800 and 1600
// steps of the damped oscillator with oscillator_objective()). They do not reliably beat BDF-2 at the same step.
// Measured errors at the finest step (BDF-2 / BDF-3 / BDF-4):
//  - oscillator, against the closed form, 800 steps: 3.2e-6 / 2.7e-6 / 2.8e-6;
//  - torsional pendulum (the rod length a constraint parameter, through the start-up layer of k + 1 steps), largest
//    relative error of dpsi/d(l, c_r, m) against the closed form, 2000 steps: 1.2e-4 / 3.9e-5 / 7.6e-5;
//  - spinning body (quaternions, spherical joint, S_v != 0), largest gap to the discrete adjoint's parameter
//    gradient, 600 steps: 4.2e-6 / 2.2e-5 / 5.8e-6.
// Asserted: order 1.9 or more (1.85 on the spinning body, as for BDF-2 above) and the finest error below 1.5 x the
// measured one.
TEST(ContinuousAdjoint, BdfThreeAndFourConvergeAtSecondOrder) {
  // The measured finest errors above, [model][k - 2].
  const double measured[3][3] = {{3.2e-6, 2.7e-6, 2.8e-6}, {1.2e-4, 3.9e-5, 7.6e-5}, {4.2e-6, 2.2e-5, 5.8e-6}};
  for (int k : {2, 3, 4}) {
    const std::string bdf = "BDF-" + std::to_string(k);
    std::vector<double> closed_form, gaps;
    for (long long steps : {100, 200, 400, 800}) {
      auto problem = oscillator(1.0, 1.0, 0.0, 0.5, M_PI / 2, steps);
      const int stiffness = model::ParameterSpace(*problem.model).find("spring.stiffness");
      const Evaluation c = evaluate(problem, final_value(0), world(), true, nullptr, k);
      const Evaluation d = evaluate(problem, final_value(0), world(), true);
      closed_form.push_back(std::hypot(c.gradient.parameters[stiffness] + 0.25, c.gradient.initial_velocities[0] - 1.0));
      gaps.push_back(std::hypot(c.gradient.parameters[stiffness] - d.gradient.parameters[stiffness],
                                c.gradient.initial_velocities[0] - d.gradient.initial_velocities[0]));
    }
    expect_order(closed_form, 1.9, bdf + " oscillator vs closed form");
    expect_order(gaps, 1.9, bdf + " oscillator vs discrete adjoint");
    EXPECT_LT(closed_form.back(), 1.5 * measured[0][k - 2]) << bdf;

    const double m = 1.0, l = 1.2, c_r = 2.0, alpha0 = 0.4, t1 = 10.0;
    const double omega = std::sqrt(c_r / m) / l, phase = alpha0 * std::cos(omega * t1);
    const double dpsi_domega = l * std::cos(phase) * alpha0 * (-std::sin(omega * t1)) * t1;
    const std::map<std::string, double> exact{
        {"rod.length", std::sin(phase) + alpha0 * t1 * omega * std::cos(phase) * std::sin(omega * t1)},
        {"torsion.stiffness", dpsi_domega * omega / (2.0 * c_r)},
        {"mass.mass", -dpsi_domega * omega / (2.0 * m)}};
    std::vector<double> pendulum;
    for (long long steps : {500, 1000, 2000}) {
      auto problem = torsional_pendulum(m, l, c_r, alpha0, t1, steps);
      problem.integrator.newton_tolerance = 1e-12;
      const model::ParameterSpace space(*problem.model);
      const Evaluation c = evaluate(problem, final_value(1), world(), true, nullptr, k);
      double worst = 0.0;
      for (const auto& [name, value] : exact)
        worst = std::max(worst, std::abs(c.gradient.parameters[space.find(name)] - value) / std::abs(value));
      pendulum.push_back(worst);
    }
    expect_order(pendulum, 1.9, bdf + " torsional pendulum vs closed form");
    EXPECT_LT(pendulum.back(), 1.5 * measured[1][k - 2]) << bdf;

    std::vector<double> spinning;
    for (long long steps : {150, 300, 600}) {
      auto problem = spinning_top_pendulum(0.3, steps, 0.9);
      problem.integrator.newton_tolerance = 1e-12;
      const model::ParameterSpace space(*problem.model);
      space.set_value(*problem.model, space.find("box.inertia_xy"), 0.01);
      space.set_value(*problem.model, space.find("box.inertia_yz"), -0.02);
      const objectives::Objective objective = spinning_body_objective(true);
      const Evaluation c = evaluate(problem, objective, world(), true, nullptr, k);
      const Evaluation d = evaluate(problem, objective, world(), true);
      spinning.push_back(max_abs_difference(c.gradient.parameters, d.gradient.parameters));
    }
    expect_order(spinning, 1.85, bdf + " spinning body vs discrete adjoint");
    EXPECT_LT(spinning.back(), 1.5 * measured[2][k - 2]) << bdf;
  }
}

// The adjoint DAE takes any forward trajectory (registry: ContinuousAdjoint::Dae for HHT and the absolute
// Hamiltonian equations): BDF-2 on HHT's and on the Hamiltonian integrator's runs converges at second order to the
// closed forms of the oscillator and the torsional pendulum (a constraint parameter), and to the discrete adjoint
// (checked by differences in test_discrete_adjoint and test_hamiltonian_adjoint).
TEST(ContinuousAdjoint, HhtAndAbsoluteHamiltonianRunsConvergeToTheClosedForms) {
  for (const std::string scheme : {"hht", "hamiltonian"}) {
    std::vector<double> errors, gaps;
    for (long long steps : {100, 200, 400, 800}) {
      auto problem = oscillator(1.0, 1.0, 0.0, 0.5, M_PI / 2, steps);
      problem.integrator.scheme = scheme;
      const int stiffness = model::ParameterSpace(*problem.model).find("spring.stiffness");
      const Evaluation c = evaluate(problem, final_value(0), world(), true, nullptr, 2);
      const Evaluation d = evaluate(problem, final_value(0), world(), true);
      EXPECT_EQ(c.value, d.value);
      errors.push_back(std::hypot(c.gradient.parameters[stiffness] + 0.25, c.gradient.initial_velocities[0] - 1.0));
      gaps.push_back(std::hypot(c.gradient.parameters[stiffness] - d.gradient.parameters[stiffness],
                                c.gradient.initial_velocities[0] - d.gradient.initial_velocities[0]));
    }
    expect_order(errors, 1.9, scheme + " oscillator vs closed form");
    expect_order(gaps, 1.9, scheme + " oscillator vs discrete adjoint");
    EXPECT_LT(errors.back(), 1e-5) << scheme;

    const double m = 1.0, l = 1.2, c_r = 2.0, alpha0 = 0.4, t1 = 10.0;
    const double omega = std::sqrt(c_r / m) / l, phase = alpha0 * std::cos(omega * t1);
    const double dpsi_domega = l * std::cos(phase) * alpha0 * (-std::sin(omega * t1)) * t1;
    const std::map<std::string, double> exact{
        {"rod.length", std::sin(phase) + alpha0 * t1 * omega * std::cos(phase) * std::sin(omega * t1)},
        {"torsion.stiffness", dpsi_domega * omega / (2.0 * c_r)},
        {"mass.mass", -dpsi_domega * omega / (2.0 * m)}};
    std::vector<double> pendulum;
    for (long long steps : {500, 1000, 2000}) {
      auto problem = torsional_pendulum(m, l, c_r, alpha0, t1, steps);
      problem.integrator.scheme = scheme;
      problem.integrator.newton_tolerance = 1e-12;
      const model::ParameterSpace space(*problem.model);
      const Evaluation c = evaluate(problem, final_value(1), world(), true, nullptr, 2);
      double worst = 0.0;
      for (const auto& [name, value] : exact)
        worst = std::max(worst, std::abs(c.gradient.parameters[space.find(name)] - value) / std::abs(value));
      pendulum.push_back(worst);
    }
    expect_order(pendulum, 1.9, scheme + " torsional pendulum vs closed form");
    EXPECT_LT(pendulum.back(), 1e-3) << scheme;
  }
}

TEST(ContinuousAdjoint, RejectsABdfOrderOutsideOneToFour) {
  auto problem = oscillator(1.0, 1.0, 0.0, 0.5, 1.0, 10);
  EXPECT_THROW(evaluate(problem, final_value(0), world(), true, nullptr, 5), flexadj::InputError);
}

}  // namespace
}  // namespace flexadj::testing
