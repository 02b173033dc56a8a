#pragma once
// The checks every adjoint test makes: central differences of J along named parameters against the adjoint
// (fd_check.hpp), a Taylor test along all of them (remainder order 2), and gradients of np ranks against one rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gradient_support.hpp"

namespace flexadj::testing {

// Every observed Taylor order at least 1.9; each printed.
inline void expect_second_order(const std::vector<double>& orders, const std::vector<double>& remainders) {
  for (std::size_t k = 0; k < orders.size(); ++k) {
    std::printf("Taylor remainder %.3e -> %.3e: order %.3f\n", remainders[k], remainders[k + 1], orders[k]);
    EXPECT_GT(orders[k], 1.9) << "remainders " << remainders[k] << " -> " << remainders[k + 1];
  }
}

// Central differences (steps `relative_step` times the parameter) of J along each named parameter against the
// adjoint gradient in `e`, judged with the integrator's `accuracy` of J; then a Taylor test along all of them in
// `direction` (per parameter) from step h0.
inline void check_parameters(problem::Problem& problem, const objectives::Objective& objective, const Evaluation& e,
                             const std::vector<std::string>& names, const std::vector<double>& direction, double h0,
                             double accuracy = kSimulationAccuracy, double relative_step = 1e-6) {
  const model::ParameterSpace space(*problem.model);
  std::vector<int> indices;
  for (const auto& name : names) {
    const int index = space.find(name);
    ASSERT_GE(index, 0) << name;
    indices.push_back(index);
    EXPECT_TRUE(matches_central_difference(name, e.gradient.parameters[index],
                                           central_difference(problem, objective, world(), index, relative_step),
                                           e.value, accuracy));
  }
  std::vector<double> remainders;
  const auto orders = taylor_orders(problem, objective, world(), indices, direction, h0, &remainders);
  expect_second_order(orders, remainders);
}

// Tests that compare np > 1 with one rank skip at np 1 (they run in the np 2 variant).
#define FLEXADJ_SKIP_UNLESS_DISTRIBUTED()                                                             \
  if (world()->getSize() < 2) GTEST_SKIP() << "compares np > 1 with one rank: runs at np 2"

// max_i |a_i - b_i| / max_i |b_i|: a gradient on np ranks against the single-rank one.
inline double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double scale = 0.0, worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    scale = std::max(scale, std::abs(b[i]));
    worst = std::max(worst, std::abs(a[i] - b[i]));
  }
  return worst / std::max(scale, 1e-300);
}

// J and the gradient of `problem` on all ranks of world() equal those on one rank: J to 1e-12, dJ/dp and dJ/dv(0) to
// 1e-10, dJ/dq(0) to 1e-9 relative (along directions that violate the constraints its terms nearly cancel, and the
// rank count's round-off shows at about 1e-10). Returns the single-rank evaluation.
// At one rank the comparison is of a run with itself: a failure (callers skip at np 1, see skip_unless_distributed).
inline Evaluation expect_gradient_independent_of_ranks(problem::Problem& problem, const objectives::Objective& objective) {
  EXPECT_GT(world()->getSize(), 1) << "np 1 compared with one rank: vacuous; run this check at np 2";
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
  return serial;
}

}  // namespace flexadj::testing
