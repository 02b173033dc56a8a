#pragma once
// The model, objective and comparison of the spacetime adjoint's tests (test_spacetime_adjoint, test_spacetime_recomputation).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "flexadj/io/problem_reader.hpp"
#include "flexadj/objectives/objective.hpp"

namespace flexadj::testing {

// A cart pushed by a piecewise-linear control with a pendulum on it (prismatic and revolute joints), 80 steps
// (end time 0.4 s).
inline problem::Problem cart_pendulum(const std::string& scheme, double end_time = 0.4) {
  auto problem = io::read_problem_string(R"yaml(
dimension: 2
gravity: [0, -9.81]
integrator: {end_time: 0.4, step_size: 0.005, spectral_radius: 0.8, newton_tolerance: 1.0e-13}
controls:
  - {name: F, grid: {start: 0, end: 0.4, count: 9}, values: [0, 2, 5, 3, -1, -4, -2, 1, 3]}
bodies:
  - {name: cart, type: point_mass, mass: 2, position: [0, 0], velocity: [0.3, 0]}
  - {name: pendulum, type: rigid_body, mass: 0.5, inertia: 0.01, position: [0.2, -0.45], velocity: [0.3, 0]}
forces:
  - {name: spring, type: spring_damper, bodies: [ground, cart], points: [[-1, 0], [0, 0]], stiffness: 40,
     damping: 0.5, free_length: 1}
  - {type: load, body: cart, control: {name: F, force_direction: [1, 0]}}
joints:
  - {type: prismatic, bodies: [ground, cart], axis: [1, 0]}
  - {type: revolute, bodies: [cart, pendulum], point: [0, 0]}
)yaml", "cart_pendulum.yaml");
  problem.integrator.scheme = scheme;
  problem.integrator.end_time = end_time;
  return problem;
}

inline objectives::Objective cart_objective() {
  objectives::Objective objective;
  for (long long coordinate : {0, 2, 3}) {
    objectives::ObjectiveTerm term;
    term.kind = objectives::ObjectiveTerm::Kind::FinalSquare;
    term.coordinate = coordinate;
    term.target = 0.1;
    objective.add(term);
  }
  objectives::ObjectiveTerm tracking;
  tracking.kind = objectives::ObjectiveTerm::Kind::Tracking;
  tracking.quantity = objectives::ObjectiveTerm::Quantity::Velocity;
  tracking.coordinate = 4;
  objective.add(tracking);
  return objective;
}

// max |a - b| / max |b|.
inline double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double scale = 0.0, worst = 0.0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    scale = std::max(scale, std::abs(b[i]));
    worst = std::max(worst, std::abs(a[i] - b[i]));
  }
  return worst / std::max(scale, 1e-300);
}

}  // namespace flexadj::testing
