// The state-space integrator (integrators/state_space.hpp) and its discrete adjoint on all ranks against one rank:
// a chain of spatial rigid links (links 1 and 6 on different ranks at np 2), the trajectory and the gradient.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "adjoint_checks.hpp"
#include "gradient_support.hpp"
#include "models.hpp"

namespace flexadj::testing {
namespace {

TEST(StateSpaceRanks, ChainGradientMatchesTheSingleRankGradient) {
  auto problem = rigid_chain(6, 0.2, 100);
  problem.integrator.scheme = "state_space";
  const objectives::Objective objective = rigid_chain_objective();
  const Evaluation distributed = evaluate(problem, objective, world(), true);
  const Evaluation serial = evaluate(problem, objective, self(), true);
  const double parameters = max_relative_difference(distributed.gradient.parameters, serial.gradient.parameters);
  const double velocities =
      max_relative_difference(distributed.gradient.initial_velocities, serial.gradient.initial_velocities);
  const double coordinates =
      max_relative_difference(distributed.gradient.initial_coordinates, serial.gradient.initial_coordinates);
  if (world()->getRank() == 0)
    std::printf("np %d vs np 1: J %.3e vs %.3e; parameters %.2e, initial velocities %.2e, initial coordinates %.2e\n",
                world()->getSize(), distributed.value, serial.value, parameters, velocities, coordinates);
  EXPECT_NEAR(distributed.value, serial.value, 1e-12 * std::abs(serial.value));
  EXPECT_LT(parameters, 1e-10);
  EXPECT_LT(velocities, 1e-10);
  EXPECT_LT(coordinates, 1e-9);
  // A real gradient: the links' masses matter.
  const model::ParameterSpace space(*problem.model);
  EXPECT_GT(std::abs(serial.gradient.parameters[space.find("link3.mass")]), 1e-6);
}

}  // namespace
}  // namespace flexadj::testing
