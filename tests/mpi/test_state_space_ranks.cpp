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
  const Evaluation serial = expect_gradient_independent_of_ranks(problem, objective);
  // A real gradient: the links' masses matter.
  const model::ParameterSpace space(*problem.model);
  EXPECT_GT(std::abs(serial.gradient.parameters[space.find("link3.mass")]), 1e-6);
}

}  // namespace
}  // namespace flexadj::testing
