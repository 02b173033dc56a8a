// Static beam benchmarks for the geometrically exact beam (flexadj static: Newton with load steps).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "beam_support.hpp"

namespace flexadj::testing {
namespace {

// Cantilever of length L = 1 along x, clamped at x = 0, EI = 100 about z, tip moment M about z in `steps`
// load steps up to M_max.
problem::Problem tip_moment_cantilever(int elements, double moment, int steps) {
  std::ostringstream yaml;
  yaml.precision(17);
  yaml << "dimension: 3\n"
          "integrator: {end_time: 1, step_size: 0.1}\n"
          "static: {load_steps: " << steps << "}\n"
          "beams:\n"
          "  - name: beam\n"
          "    section: {E: 1.0e4, G: 5.0e3, rho: 1, A: 1, I2: 0.01, I3: 0.01, J: 0.02}\n"
          "    elements: " << elements << "\n"
          "    line: {start: [0, 0, 0], end: [1, 0, 0]}\n"
          "joints:\n"
          "  - {type: fixed, bodies: [ground, beam.start], point: [0, 0, 0]}\n"
          "forces:\n"
          "  - {type: load, body: beam.end, moment: [0, 0, " << moment << "]}\n";
  return io::read_problem_string(yaml.str(), "tip_moment.yaml");
}

// Closed form of the inextensible Euler-Bernoulli cantilever under a tip moment (pure bending: curvature
// M/EI): x = (EI/M) sin(ML/EI), y = (EI/M)(1 - cos(ML/EI)). The element is shear-deformable and extensible,
// but a pure moment causes neither axial force nor shear force, so the closed form holds exactly.
std::array<double, 2> tip_closed_form(double moment, double EI = 100.0, double L = 1.0) {
  const double k = moment / EI;
  return {std::sin(k * L) / k, (1.0 - std::cos(k * L)) / k};
}

double tip_error(const model::Model& model, const std::vector<double>& q, double moment) {
  const auto tip = position_of(model, q, "beam.end");
  const auto exact = tip_closed_form(moment);
  return std::hypot(tip[0] - exact[0], tip[1] - exact[1], tip[2]);
}

TEST(BeamStatics, TipMomentFollowsTheClosedFormAndClosesIntoACircle) {
  // 20 elements, M up to 2 pi EI / L in 10 load steps.
  const double full = 2.0 * M_PI * 100.0;
  const auto problem = tip_moment_cantilever(20, full, 10);
  const auto steps = solve_static(problem, world());
  ASSERT_EQ(steps.size(), 11u);
  for (int k = 1; k <= 10; ++k) {
    const double error = tip_error(*problem.model, steps[k], full * k / 10.0);
    EXPECT_LT(error, 1e-3) << "load step " << k;  // O(h^2) at 20 elements: measured at most 7.5e-4
  }
  // M = 2 pi EI / L: a full circle, the tip back at the root.
  const auto tip = position_of(*problem.model, steps.back(), "beam.end");
  EXPECT_LT(std::hypot(tip[0], tip[1], tip[2]), 1e-10);
  // Equilibrium: in every element the bending moment M3 is the applied moment, all other resultants vanish.
  const std::vector<double> zero(14, 0.0);
  for (const auto& element : problem.model->force_elements()) {
    if (std::string(element->type()) != "beam") continue;
    std::vector<double> q;
    for (int body : element->bodies())
      for (int i = 0; i < 7; ++i) q.push_back(steps.back()[problem.model->body_offset(body) + i]);
    std::array<double, 6> resultants;
    ASSERT_EQ(element->resultant_count(), 6);
    element->resultants(q.data(), zero.data(), resultants.data());
    for (int k = 0; k < 5; ++k) EXPECT_NEAR(resultants[k], 0.0, 1e-8 * full) << element->name() << " " << k;
    EXPECT_NEAR(resultants[5], full, 1e-8 * full) << element->name();
  }
}

TEST(BeamStatics, TipMomentConvergesAtSecondOrder) {
  // Error of the tip at M = pi EI / L (a half circle) on 4, 8, 16, 32 elements; measured 1.67e-2, 4.11e-3,
  // 1.02e-3, 2.56e-4 (orders 2.02, 2.00, 2.00).
  const double moment = M_PI * 100.0;
  std::vector<double> errors;
  for (int elements : {4, 8, 16, 32}) {
    const auto problem = tip_moment_cantilever(elements, moment, 5);
    errors.push_back(tip_error(*problem.model, solve_static(problem, world()).back(), moment));
  }
  for (std::size_t k = 1; k < errors.size(); ++k) {
    const double order = std::log2(errors[k - 1] / errors[k]);
    EXPECT_GT(order, 1.9) << "errors " << errors[k - 1] << " -> " << errors[k];
    EXPECT_LT(order, 2.1) << "errors " << errors[k - 1] << " -> " << errors[k];
  }
}

// Bathe and Bolourchi (1979) 45-degree bend: radius 100, 1 x 1 section, E = 1e7, nu = 0 (EA = 1e7,
// EI = GJ = 8.333e5 with J = 1/6, kGA = 4.16667e6 with k = 5/6), out-of-plane tip force 600.
// meshes/bend_45_degrees.yaml, 16 elements, 6 load steps: the arc starts at the origin with tangent x and bends
// towards +y (centre (0, 100, 0)); the force is along z. Reference tip displacement (Bathe and Bolourchi 1979):
// (-13.4, 53.4, -23.5) in the benchmark's axes, whose order differs from ours: out of plane 53.4 (our z, along the
// force), in plane -23.5 and -13.4 (our x and y, by the geometry of the arc), i.e. (dx, dy, dz) = (-23.5, -13.4,
// 53.4).
problem::Problem bend_model() {
  return io::read_problem_file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/bend_45_degrees.yaml");
}

TEST(BeamStatics, BatheBolourchiBendTipDisplacement) {
  const auto problem = bend_model();
  const auto steps = solve_static(problem, world());
  const auto start = position_of(*problem.model, steps.front(), "bend.end");
  const auto end = position_of(*problem.model, steps.back(), "bend.end");
  const std::array<double, 3> reference{-23.5, -13.4, 53.4};
  // 16 elements, 6 load steps. Measured (-23.535, -13.591, 53.455); converged under refinement (64 elements)
  // (-23.559, -13.604, 53.474), next to the peer codes' (-23.7, -13.5, 53.4). Criterion: the displacement
  // vector within 1 % of the reference's length (measured 0.34 %), each component within 2 % (measured: dy is
  // -13.59 against -13.4, 1.4 %; the peer codes give -13.5).
  std::array<double, 3> u;
  double error = 0.0, size = 0.0;
  for (int i = 0; i < 3; ++i) {
    u[i] = end[i] - start[i];
    error += (u[i] - reference[i]) * (u[i] - reference[i]);
    size += reference[i] * reference[i];
    EXPECT_NEAR(u[i], reference[i], 0.02 * std::abs(reference[i])) << "component " << i;
  }
  EXPECT_LT(std::sqrt(error), 0.01 * std::sqrt(size))
      << "tip displacement (" << u[0] << ", " << u[1] << ", " << u[2] << ")";
}

// np 1 and np 2: the same load steps (run under mpirun at both rank counts).
TEST(BeamStatics, BendIsIndependentOfTheRankCount) {
  const auto problem = bend_model();
  const auto distributed = solve_static(problem, world());
  const auto serial = solve_static(problem, self());
  ASSERT_EQ(distributed.size(), serial.size());
  double difference = 0.0;
  for (std::size_t k = 0; k < serial.size(); ++k)
    for (std::size_t i = 0; i < serial[k].size(); ++i)
      difference = std::max(difference, std::abs(distributed[k][i] - serial[k][i]));
  EXPECT_LT(difference, 1e-10);
}

}  // namespace
}  // namespace flexadj::testing
