// An implicit final time on two ranks: the located t1, J and the gradient at np 2 equal the single-rank run's, with
// the end condition's coordinate on the other rank than the objective's terminal coordinate; for the discrete
// adjoints and the continuous adjoint, which also runs on its own grid over error-controlled steps.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "flexadj/integrators/end_condition.hpp"
#include "adjoint_checks.hpp"
#include "gradient_support.hpp"
#include "models.hpp"

namespace flexadj::testing {
namespace {

using objectives::ObjectiveTerm;

// Two masses on parallel rails (y = 0 and y = 1), each on a spring to ground, coupled by a spring between them (its
// length sqrt((x_b - x_a)^2 + 1): nonlinear); the run stops where the velocity of b falls to 0. At np 2 the two
// bodies live on different ranks (blocks partition).
problem::Problem coupled_oscillators(const std::string& scheme) {
  problem::Problem problem;
  model::Model* m = problem.model.get();
  m->dimension = 2;
  problem.integrator.scheme = scheme;
  problem.integrator.end_time = 3.0;
  problem.integrator.step_size = 0.01;
  problem.integrator.newton_tolerance = 1e-14;
  const int a = m->add_body(point_mass_2d("a", 1.0, 0.0, 0.0, 0.5, 0.0));
  const int b = m->add_body(point_mass_2d("b", 1.3, 0.1, 1.0, 0.3, 0.0));
  const std::array<BodyKind, 2> to_ground{BodyKind::Ground, BodyKind::PointMass2D};
  elements::SpringDamperData spring;
  spring.stiffness = 1.0;
  spring.free_length = 1.0;
  spring.point_a = {-1.0, 0.0, 0.0};
  m->add_force_element(elements::make_spring_damper("spring_a", {kGround, a}, to_ground, spring));
  spring.stiffness = 1.5;
  spring.point_a = {-1.0, 1.0, 0.0};
  m->add_force_element(elements::make_spring_damper("spring_b", {kGround, b}, to_ground, spring));
  spring.stiffness = 0.5;
  spring.damping = 0.05;
  spring.point_a = {0.0, 0.0, 0.0};
  m->add_force_element(elements::make_spring_damper(
      "coupling", {a, b}, {BodyKind::PointMass2D, BodyKind::PointMass2D}, spring));
  for (const auto& [body, y] : {std::pair{a, 0.0}, std::pair{b, 1.0}})
    m->add_constraint(constraints::make_joint("rail_" + m->body(body).name, constraints::JointKind::Prismatic,
                                              {kGround, body}, to_ground,
                                              m->joint_geometry(constraints::JointKind::Prismatic, kGround, body,
                                                                {0.0, y, 0.0}, {1.0, 0.0, 0.0})));
  ObjectiveTerm vb;
  vb.coordinate = 2;  // b.x
  vb.quantity = ObjectiveTerm::Quantity::Velocity;
  problem.integrator.end_condition = std::make_shared<integrators::EndCondition>(
      vb, 0.0, integrators::EndCondition::Direction::Falling, "'v(b.x) = 0 (falling)'");
  return problem;
}

// J = x_a(t1) + t1 + 1/2 int x_b^2 dt.
objectives::Objective objective() {
  objectives::Objective objective;
  ObjectiveTerm xa;
  xa.kind = ObjectiveTerm::Kind::FinalValue;
  xa.coordinate = 0;
  objective.add(xa);
  ObjectiveTerm t1;
  t1.kind = ObjectiveTerm::Kind::FinalTime;
  objective.add(t1);
  ObjectiveTerm xb;
  xb.kind = ObjectiveTerm::Kind::Tracking;
  xb.coordinate = 2;
  objective.add(xb);
  return objective;
}

// bdf_order > 0: the continuous adjoint (on adjoint_steps steps of its own if > 0).
void check(const problem::Problem& problem, int bdf_order = 0, long long adjoint_steps = 0) {
  const Evaluation distributed = evaluate(problem, objective(), world(), true, nullptr, bdf_order, adjoint_steps);
  const Evaluation serial = evaluate(problem, objective(), self(), true, nullptr, bdf_order, adjoint_steps);
  if (on_rank_zero())
    std::printf("%s%s: J = %.15g (np %d), %.15g (np 1); gradients %.2e, %.2e apart\n",
                problem.integrator.scheme.c_str(), bdf_order > 0 ? ", continuous adjoint" : "", distributed.value,
                world()->getSize(), serial.value,
                max_relative_difference(distributed.gradient.parameters, serial.gradient.parameters),
                max_relative_difference(distributed.gradient.initial_velocities, serial.gradient.initial_velocities));
  EXPECT_NEAR(distributed.value, serial.value, 1e-12 * std::abs(serial.value));
  EXPECT_LT(max_relative_difference(distributed.gradient.parameters, serial.gradient.parameters), 1e-10);
  EXPECT_LT(max_relative_difference(distributed.gradient.initial_velocities, serial.gradient.initial_velocities),
            1e-10);
}

TEST(FinalTimeRanks, GeneralizedAlphaGradientMatchesTheSingleRankGradient) {
  check(coupled_oscillators("generalized_alpha"));
}
TEST(FinalTimeRanks, VariationalGradientMatchesTheSingleRankGradient) { check(coupled_oscillators("variational")); }

// The continuous adjoint with the implicit final time (Bestle and Eberhard's terminal terms, its own grid).
TEST(FinalTimeRanks, ContinuousAdjointGradientMatchesTheSingleRankGradient) {
  check(coupled_oscillators("generalized_alpha"), 2);
}

// The continuous adjoint on 150 steps of its own over error-controlled forward steps (no end condition: t1 = 3).
TEST(FinalTimeRanks, ContinuousAdjointOverControlledStepsMatchesTheSingleRankGradient) {
  auto problem = coupled_oscillators("generalized_alpha");
  problem.integrator.end_condition.reset();
  problem.integrator.step_control.tolerance = 1e-7;
  check(problem, 2, 150);
}

}  // namespace
}  // namespace flexadj::testing
