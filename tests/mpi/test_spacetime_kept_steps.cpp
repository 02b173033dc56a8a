// The spacetime adjoint's kept steps (integrators/kept_adjoint_steps.hpp): with the factorizations and element
// Jacobians kept between GMRES products, every step is assembled and factorized once and taken from the kept ones
// at every later product; the gradient equals the one that assembles every product afresh and the sequential
// sweep; a memory budget for a few steps keeps that many and recomputes the rest, with the same gradient; an
// integrator that cannot keep its steps says why and still gives the gradient.
#include <gtest/gtest.h>

#include <string>

#include "flexadj/adjoint/spacetime_adjoint.hpp"
#include "flexadj/adjoint/spacetime_system.hpp"
#include "gradient_support.hpp"
#include "models.hpp"
#include "spacetime_models.hpp"

namespace flexadj::testing {
namespace {

struct SpacetimeRun {
  adjoint::Gradient gradient;
  adjoint::SpacetimeStatistics statistics;
};

struct Runs {
  adjoint::Gradient sequential;
  std::vector<SpacetimeRun> spacetime;
};

// One forward run of the cart pendulum, its sequential sweep, then the spacetime adjoint with each memory budget
// (P slabs in one group per rank).
Runs run(const std::string& scheme, std::size_t slabs, const std::vector<double>& budgets) {
  const auto problem = cart_pendulum(scheme, 0.2);  // 40 steps
  const model::Model& model = *problem.model;
  assembly::Assembler assembler(model, world());
  linalg::LinearSolverOptions solver_options;
  solver_options.kind = "klu_gathered";
  const auto integrator = integrators::make_time_integrator(assembler, problem.integrator, solver_options);
  assembly::State state = assembler.make_state();
  assembler.scatter_global(model.initial_coordinates(), model.initial_velocities(), state);
  storage::MemoryTrajectory trajectory;
  integrators::record_forward_run(assembler, *integrator, state, trajectory);
  const model::ParameterSpace space(model);
  const objectives::Objective objective = cart_objective();
  Runs result;
  result.sequential = adjoint::discrete_adjoint_gradient(assembler, *integrator, trajectory, objective, space);
  for (double budget : budgets) {
    adjoint::SpacetimeOptions options;
    options.slabs = slabs;
    options.kept_step_memory = budget;
    SpacetimeRun r;
    r.gradient = adjoint::spacetime_adjoint_gradient(assembler, *integrator, trajectory, objective, space, options,
                                                     &r.statistics);
    result.spacetime.push_back(std::move(r));
  }
  return result;
}

void expect_equal(const adjoint::Gradient& a, const adjoint::Gradient& b, const std::string& what) {
  EXPECT_LT(relative_difference(a.parameters, b.parameters), 1e-10) << what;
  EXPECT_LT(relative_difference(a.initial_coordinates, b.initial_coordinates), 1e-10) << what;
  EXPECT_LT(relative_difference(a.initial_velocities, b.initial_velocities), 1e-10) << what;
  for (const auto& [name, values] : b.controls)
    EXPECT_LT(relative_difference(a.controls.at(name), values), 1e-10) << what << ", control " << name;
}

// The steps of rank 0's time group: slabs of 40 steps over as many groups as ranks (P divisible by them).
std::size_t group_steps(std::size_t slabs) {
  const std::size_t groups = adjoint::default_time_groups(world()->getSize(), slabs);
  return 40 / groups;
}

TEST(SpacetimeKeptSteps, EveryStepFactorizedOnceAndTheSameGradient) {
  const std::size_t slabs = 4;
  const Runs runs = run("generalized_alpha", slabs, {0.0, 1e9});
  const SpacetimeRun &afresh = runs.spacetime[0], &kept = runs.spacetime[1];
  EXPECT_EQ(afresh.statistics.kept_steps, 0u);
  EXPECT_FALSE(afresh.statistics.kept_refusal.empty());
  // Rank 0's group keeps each of its steps n >= 1 once; no step is assembled twice.
  EXPECT_EQ(kept.statistics.kept_steps, group_steps(slabs));
  EXPECT_EQ(kept.statistics.steps_taken_again, 0u);
  EXPECT_TRUE(kept.statistics.kept_refusal.empty()) << kept.statistics.kept_refusal;
  EXPECT_GT(kept.statistics.kept_bytes, 0.0);
  // GMRES takes the same path: the same iterations, the same adjoint steps.
  EXPECT_EQ(kept.statistics.iterations, afresh.statistics.iterations);
  EXPECT_EQ(kept.statistics.adjoint_steps, afresh.statistics.adjoint_steps);
  EXPECT_GT(kept.statistics.adjoint_steps, 3 * group_steps(slabs));
  expect_equal(kept.gradient, afresh.gradient, "kept against afresh");
  expect_equal(kept.gradient, runs.sequential, "kept against the sequential sweep");
}

TEST(SpacetimeKeptSteps, AMemoryBudgetKeepsWhatFitsAndRecomputesTheRest) {
  const std::size_t slabs = 2;
  const Runs all = run("generalized_alpha", slabs, {1e9});
  const double per_step = all.spacetime[0].statistics.kept_bytes / double(all.spacetime[0].statistics.kept_steps);
  // Room for 5 steps on the rank with the most.
  const Runs few = run("generalized_alpha", slabs, {5.5 * per_step});
  const adjoint::SpacetimeStatistics& s = few.spacetime[0].statistics;
  EXPECT_GE(s.kept_steps, 3u);
  EXPECT_LE(s.kept_steps, 6u);
  EXPECT_LE(s.kept_bytes, 5.5 * per_step);
  EXPECT_GT(s.steps_taken_again, 0u);
  EXPECT_EQ(s.iterations, all.spacetime[0].statistics.iterations);
  expect_equal(few.spacetime[0].gradient, all.spacetime[0].gradient, "budget for 5 against all kept");
  expect_equal(few.spacetime[0].gradient, few.sequential, "budget for 5 against the sequential sweep");
}

TEST(SpacetimeKeptSteps, AnIntegratorThatKeepsNoStepsSaysWhy) {
  const Runs runs = run("variational", 2, {1e9});
  const adjoint::SpacetimeStatistics& s = runs.spacetime[0].statistics;
  EXPECT_EQ(s.kept_steps, 0u);
  EXPECT_NE(s.kept_refusal.find("variational"), std::string::npos) << s.kept_refusal;
  expect_equal(runs.spacetime[0].gradient, runs.sequential, "variational");
}

}  // namespace
}  // namespace flexadj::testing
