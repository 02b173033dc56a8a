// Discrete adjoint through the three ANCF elements, of generalized-alpha and of the variational integrator: the gradient
// with respect to E, rho, a section quantity (A and the bending moment of area), the damping time and an initial node
// position, against central differences of the discrete objective and Taylor tests; the same gradient at np 1 and 2.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "flexadj/io/problem_reader.hpp"
#include "flexadj/model/parameter_space.hpp"
#include "gradient_support.hpp"

namespace flexadj::testing {
namespace {

using objectives::ObjectiveTerm;

// A cantilever of length 1 (4 elements) clamped at the origin (position pinned, gradients held), released straight
// under gravity: rho A = 1 kg/m, EI = 30 N m^2 (first bending frequency 3.516 sqrt(EI/(rho A L^4)) = 19 rad/s),
// EA = 1e4 N, Kelvin-Voigt damping time 1 ms; 40 steps of 2.5 ms. Spatial models have an out-of-plane gravity
// component, so the beam bends about both section axes. Generalized-alpha (rho_inf 0.8) or the variational
// integrator; over 0.1 s or end_time.
problem::Problem cantilever(const std::string& type, const std::string& scheme = "generalized_alpha",
                            double end_time = 0.1) {
  const bool planar = type == "planar";
  std::ostringstream yaml;
  yaml << "dimension: " << (planar ? 2 : 3) << "\n"
       << "gravity: " << (planar ? "[0, -9.81]" : "[0, -9.81, -4]") << "\n"
       << "integrator: {type: " << scheme << ", end_time: " << end_time << ", step_size: 0.0025, "
       << (scheme == "variational" ? "" : "spectral_radius: 0.8, ") << "newton_tolerance: 1.0e-12}\n"
       << "ancf:\n"
       << "  - name: beam\n"
       << "    type: " << type << "\n"
       << "    section: {E: 1.0e6, G: 4.0e5, rho: 100, A: 0.01, I: 3.0e-5, J: 6.0e-5}\n"
       << "    damping_time: 1.0e-3\n"
       << "    elements: 4\n"
       << "    line: {start: [0, 0" << (planar ? "" : ", 0") << "], end: [1, 0" << (planar ? "" : ", 0") << "]}\n"
       << "joints:\n"
       << "  - {type: " << (planar ? "revolute" : "spherical") << ", bodies: [ground, beam.start], point: [0, 0"
       << (planar ? "" : ", 0") << "]}\n";
  const std::vector<int> clamped = planar ? std::vector<int>{3}
                                   : type == "cable" ? std::vector<int>{4, 5}
                                                     : std::vector<int>{4, 5, 6, 8, 9, 10};
  for (int c : clamped) yaml << "  - {type: prescribed_coordinate, body: beam.start, coordinate: " << c << ", value: 0}\n";
  return io::read_problem_string(yaml.str(), "ancf_cantilever.yaml");
}

// J = 100/2 (y_tip(T) - y*)^2 + 100/2 int v_y,mid^2 dt.
objectives::Objective tip_objective(const model::Model& model) {
  objectives::Objective objective;
  ObjectiveTerm tip;
  tip.kind = ObjectiveTerm::Kind::FinalSquare;
  tip.coordinate = model.body_offset(model.find_body("beam.end")) + 1;
  tip.target = -0.1;
  tip.weight = 100.0;
  objective.add(tip);
  ObjectiveTerm middle;
  middle.kind = ObjectiveTerm::Kind::Tracking;
  middle.quantity = ObjectiveTerm::Quantity::Velocity;
  middle.coordinate = model.body_offset(model.find_body("beam.node2")) + 1;
  middle.weight = 100.0;
  objective.add(middle);
  return objective;
}

void check_type(const std::string& type, const std::vector<std::string>& names,
                const std::string& scheme = "generalized_alpha", double end_time = 0.1) {
  auto problem = cantilever(type, scheme, end_time);
  // The accuracy of J for the noise floor of the differences (fd_check.hpp).
  const double accuracy = scheme == "variational" ? kVariationalAccuracy : kSimulationAccuracy;
  const auto objective = tip_objective(*problem.model);
  const model::ParameterSpace space(*problem.model);
  const Evaluation e = evaluate(problem, objective, world(), true);
  ASSERT_GT(e.value, 1e-3);
  std::vector<int> indices;
  for (const auto& name : names) {
    const int index = space.find(name);
    ASSERT_GE(index, 0) << name;
    indices.push_back(index);
    EXPECT_TRUE(matches_central_difference(type + " " + name, e.gradient.parameters[index],
                                           central_difference(problem, objective, world(), index, 1e-4), e.value, accuracy));
  }
  std::vector<double> direction;
  for (std::size_t k = 0; k < indices.size(); ++k)
    direction.push_back(space.value(*problem.model, indices[k]) * (k % 2 ? -0.7 : 1.0));
  std::vector<double> remainders;
  const auto orders = taylor_orders(problem, objective, world(), indices, direction, 1e-2, &remainders);
  std::printf("%-6s J = %.10e, Taylor remainders %.3e %.3e %.3e %.3e\n", type.c_str(), e.value, remainders[0],
              remainders[1], remainders[2], remainders[3]);
  for (std::size_t k = 0; k < orders.size(); ++k)
    EXPECT_GT(orders[k], 1.9) << type << ": remainders " << remainders[k] << " -> " << remainders[k + 1];

  // The initial y of node 2 (the elements keep their stress-free reference: a pre-stressed start).
  const int node = problem.model->find_body("beam.node2");
  const long long y = problem.model->body_offset(node) + 1;
  EXPECT_TRUE(matches_central_difference(type + " initial y of beam.node2", e.gradient.initial_coordinates[y],
                                         initial_position_central_difference(problem, objective, world(), node, 1, 1e-6),
                                         e.value, accuracy));

  // The same gradient from a single rank (at np 2; at np 1 it would be the run itself).
  if (world()->getSize() < 2) return;
  const Evaluation serial = evaluate(problem, objective, self(), true);
  double scale = 0.0, difference = 0.0;
  for (std::size_t k = 0; k < serial.gradient.parameters.size(); ++k) {
    scale = std::max(scale, std::abs(serial.gradient.parameters[k]));
    difference = std::max(difference, std::abs(serial.gradient.parameters[k] - e.gradient.parameters[k]));
  }
  EXPECT_NEAR(e.value, serial.value, 1e-12 * std::abs(serial.value)) << type;
  EXPECT_LT(difference, 1e-10 * scale) << type;
}

TEST(AncfAdjoint, PlanarElement) {
  check_type("planar", {"beam.element2.youngs_modulus", "beam.element1.density", "beam.element3.area",
                        "beam.element1.I", "beam.element4.damping_time"});
}

TEST(AncfAdjoint, CableElement) {
  check_type("cable", {"beam.element1.youngs_modulus", "beam.element2.density", "beam.element1.area",
                       "beam.element2.I", "beam.element1.damping_time"});
}

TEST(AncfAdjoint, FullElement) {
  check_type("full", {"beam.element1.youngs_modulus", "beam.element3.density", "beam.element2.I3",
                      "beam.element1.I2", "beam.element1.shear_modulus", "beam.element2.area"});
}

// The discrete adjoint of the variational integrator (Schubert et al. 2024, eqs. (10)-(13)) through the ANCF elements:
// their constant mass matrices enter the discrete Lagrangian, elastic and damping forces the midpoint forces.
TEST(AncfAdjoint, VariationalIntegratorPlanarElement) {
  check_type("planar", {"beam.element2.youngs_modulus", "beam.element1.density", "beam.element3.area",
                        "beam.element1.I", "beam.element4.damping_time"},
             "variational");
}

TEST(AncfAdjoint, VariationalIntegratorCableElement) {
  check_type("cable", {"beam.element1.youngs_modulus", "beam.element2.density", "beam.element1.area",
                       "beam.element2.I", "beam.element1.damping_time"},
             "variational");
}

// Three parameters of the six above over 0.025 s (10 steps): a variational run of 40 steps of the full element takes
// 0.8 s, with its adjoint 2.3 s.
TEST(AncfAdjoint, VariationalIntegratorFullElement) {
  check_type("full", {"beam.element3.density", "beam.element2.I3", "beam.element1.shear_modulus"}, "variational",
             0.025);
}

}  // namespace
}  // namespace flexadj::testing
