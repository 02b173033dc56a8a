// The state-space integrator (integrators/state_space.hpp) and its discrete adjoint on all ranks against one rank:
// a chain of spatial rigid links (links 1 and 6 on different ranks at np 2), J and the gradient
// (integrator_cases.hpp).
#include <gtest/gtest.h>

#include "integrator_cases.hpp"

namespace flexadj::testing {
namespace {

TEST(StateSpaceRanks, ChainGradientMatchesTheSingleRankGradient) {
  expect_chain_gradient_independent_of_ranks("state_space");
}

}  // namespace
}  // namespace flexadj::testing
