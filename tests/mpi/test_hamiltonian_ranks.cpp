// The constrained Hamiltonian integrator (integrators/hamiltonian.hpp) and its discrete adjoint on all ranks against
// one rank: a chain of spatial rigid links (links 1 and 6 on different ranks at np 2; Euler parameters, spherical
// joints), J and the gradient (parameters, given initial velocities and coordinates). The polarization of D' sigma
// scales by norms over all ranks, so it is the same on any partition.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "gradient_support.hpp"
#include "models.hpp"

namespace flexadj::testing {
namespace {

double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double scale = 0.0, worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    scale = std::max(scale, std::abs(b[i]));
    worst = std::max(worst, std::abs(a[i] - b[i]));
  }
  return worst / std::max(scale, 1e-300);
}

TEST(HamiltonianRanks, ChainGradientMatchesTheSingleRankGradient) {
  auto problem = rigid_chain(6, 0.2, 100);
  problem.integrator.scheme = "hamiltonian";
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
