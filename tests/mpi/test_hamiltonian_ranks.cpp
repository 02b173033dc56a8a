// The constrained Hamiltonian integrator (integrators/hamiltonian.hpp) and its discrete adjoint on all ranks against
// one rank: a chain of spatial rigid links (links 1 and 6 on different ranks at np 2; Euler parameters, spherical
// joints), J and the gradient (integrator_cases.hpp); and the double pendulum on a cart of [MMF22] (at np 2 one
// of its 8 components couples the two ranks) with its sampled control. The polarization of D' sigma scales by norms
// over all ranks, so it is the same on any partition.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "integrator_cases.hpp"

namespace flexadj::testing {
namespace {

TEST(HamiltonianRanks, ChainGradientMatchesTheSingleRankGradient) {
  expect_chain_gradient_independent_of_ranks("hamiltonian");
}

// meshes/double_pendulum_cart_hamiltonian.yaml at F = 2 N (the pendulum swings), 0.5 s: dJ/dF on all ranks against
// one rank.
TEST(HamiltonianRanks, CartControlGradientMatchesTheSingleRankGradient) {
  const auto problem =
      io::read_problem_file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/double_pendulum_cart_hamiltonian.yaml",
                            {"controls[0].value=2", "integrator.end_time=0.5"});
  const objectives::Objective objective(problem.objective_terms);
  const Evaluation distributed = evaluate(problem, objective, world(), true);
  const Evaluation serial = evaluate(problem, objective, self(), true);
  const auto& g = serial.gradient.controls.at("F");
  const double difference = max_relative_difference(distributed.gradient.controls.at("F"), g);
  double largest = 0.0;
  for (double value : g) largest = std::max(largest, std::abs(value));
  if (world()->getRank() == 0)
    std::printf("np %d vs np 1: J %.15e vs %.15e; dJ/dF %.2e (max |dJ/dF| %.3e)\n", world()->getSize(),
                distributed.value, serial.value, difference, largest);
  EXPECT_NEAR(distributed.value, serial.value, 1e-12 * std::abs(serial.value));
  EXPECT_LT(difference, 1e-10);
  EXPECT_GT(std::abs(g[10]), 1e-6);  // a real gradient
}

}  // namespace
}  // namespace flexadj::testing
