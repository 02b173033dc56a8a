// Hessian-vector products by the second-order adjoint (GradientProblem::hessian_vector; docs/adjoint.md,
// "Second-order adjoint"): the oscillator's closed-form Hessian, central differences of the exact gradients for
// parameters, initial values and control values (generalized-alpha, HHT and the variational integrator), symmetry,
// a Taylor test of order 3, and the inputs refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

#include "fd_check.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/io/direction_file.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "second_order_models.hpp"
#include "simulation_support.hpp"

namespace flexadj {
namespace {

using testing::world;

// x'' + c x = 0 along the spring's axis (the mass starts on it at rest length: the spring is linear there),
// x(0) = 0, x'(0) = z0, psi = x(T) = z0 sin(w T)/w, w = sqrt(c) (Bestle and Eberhard 1992's oscillator; with
// `rail` on its prismatic joint as meshes/oscillator.yaml, the initial velocity then projected onto the rail).
std::string oscillator(long long steps, bool rail = false) {
  char text[1024];
  std::snprintf(text, sizeof text, R"(dimension: 2
integrator: {end_time: 1.5707963267948966, step_size: %.17g}
bodies:
  - {name: mass, type: point_mass, mass: 1, position: [0, 0], velocity: [0.5, 0]}
forces:
  - {name: spring, type: spring_damper, bodies: [ground, mass], points: [[-1, 0], [0, 0]], stiffness: 1, free_length: 1}
%sobjective:
  - {type: final_value, coordinate: mass.x}
design_variables: [spring.stiffness, {initial_velocity: mass.x}]
)", M_PI / 2 / double(steps),
                rail ? "joints:\n  - {name: rail, type: prismatic, bodies: [ground, mass], axis: [1, 0]}\n" : "");
  return text;
}

// Two masses in the plane under gravity, on nonlinear springs with damping, one pushed by a control force;
// tracking, terminal and control-effort terms. 14 design scalars of every kind.
const char* kTwoMasses = R"YAML(dimension: 2
gravity: [0, -9.81]
integrator: {end_time: 1.0, step_size: 0.005, spectral_radius: 0.8}
controls:
  - {name: F, times: [0, 0.25, 0.5, 0.75, 1.0], values: [1, -2, 0.5, 3, -1]}
bodies:
  - {name: mass, type: point_mass, mass: 1.3, position: [0.2, -0.9], velocity: [0.4, 0.3]}
  - {name: mass2, type: point_mass, mass: 0.7, position: [0.9, -1.2], velocity: [0, -0.5]}
forces:
  - {name: spring, type: spring_damper, bodies: [ground, mass], points: [[0, 0], [0.05, 0]], stiffness: 40, damping: 0.7, free_length: 0.8}
  - {name: link, type: spring_damper, bodies: [mass, mass2], points: [[0.2, -0.9], [0.9, -1.2]], stiffness: 25, damping: 0.2, free_length: 0.6}
  - {name: push, type: load, body: mass2, control: {name: F, force_direction: [1, 0.5]}}
objective:
  - {type: tracking, coordinate: mass.y, reference: "-1+0.2*sin(4*t)", weight: 3}
  - {type: final_square, coordinate: mass2.x, target: 0.3}
  - {type: final_square, quantity: velocity, coordinate: mass.y, target: 0.1, weight: 0.5}
  - {type: control_effort, control: F, weight: 0.01}
design_variables:
  - mass.mass
  - mass.gravity_y
  - spring.stiffness
  - spring.damping
  - spring.free_length
  - spring.point_a_x
  - link.stiffness
  - initial_position: mass.x
  - initial_velocity: mass2.y
  - control: F
)YAML";

using second_order_models::kCartPendulum;

// The model with the variational integrator (RATTLE) in place of generalized-alpha and its spectral radius.
std::string variational(std::string yaml) {
  yaml.replace(yaml.find("spectral_radius: 0.8"), 20, "type: variational");
  return yaml;
}

std::unique_ptr<GradientProblem> make(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return second_order_models::make_problem(yaml, "hessian", overrides);
}

std::vector<double> product(GradientProblem& problem, const std::vector<double>& x, const std::vector<double>& v) {
  problem.set_values(x);
  problem.forward();
  return problem.hessian_vector(v).product;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

std::vector<double> random_direction(std::size_t n, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = uniform(generator);
  return v;
}

// To 1e-6 relative: the steps' O(h^2) error is 3e-8 at 10^4 steps (generalized-alpha and variational alike).
void expect_oscillator_closed_form(long long steps, const std::vector<std::string>& overrides, bool rail = false) {
  auto problem = make(oscillator(steps, rail), overrides);
  const std::vector<double> x = problem->values();  // c = 1, z0 = 0.5
  const double T = M_PI / 2, z0 = 0.5, w = 1.0;
  // f(w) = sin(wT)/w; d/dc = f'/(2w), d2/dc2 = f''/(4w^2) - f'/(4w^3).
  const double f1 = T * std::cos(w * T) / w - std::sin(w * T) / (w * w);
  const double f2 = -T * T * std::sin(w * T) / w - 2 * T * std::cos(w * T) / (w * w) + 2 * std::sin(w * T) / (w * w * w);
  const double h_cc = z0 * (f2 / (4 * w * w) - f1 / (4 * w * w * w)), h_cz = f1 / (2 * w);
  const std::vector<double> column_c = product(*problem, x, {1.0, 0.0}), column_z = product(*problem, x, {0.0, 1.0});
  std::printf("H_cc %.12g (closed form %.12g), H_cz %.12g %.12g (%.12g), H_zz %.3g\n", column_c[0], h_cc, column_c[1],
              column_z[0], h_cz, column_z[1]);
  EXPECT_NEAR(column_c[0], h_cc, 1e-6 * std::abs(h_cc));
  EXPECT_NEAR(column_c[1], h_cz, 1e-6 * std::abs(h_cz));
  EXPECT_NEAR(column_z[0], h_cz, 1e-6 * std::abs(h_cz));
  EXPECT_NEAR(column_z[1], 0.0, 1e-12);  // psi is linear in z0
}

TEST(HessianVector, OscillatorMatchesTheClosedForm) { expect_oscillator_closed_form(10000, {}); }

// 3000 steps (3e-7), for the test's time.
TEST(HessianVector, VariationalOscillatorMatchesTheClosedForm) {
  expect_oscillator_closed_form(3000, {"integrator.type=variational"});
}

// On its rail (a joint: z0's direction passes the projections of the initial state).
TEST(HessianVector, OscillatorOnItsRailMatchesTheClosedForm) { expect_oscillator_closed_form(10000, {}, true); }
TEST(HessianVector, VariationalOscillatorOnItsRailMatchesTheClosedForm) {
  expect_oscillator_closed_form(3000, {"integrator.type=variational"}, true);
}

// Column j of H against the central difference of the exact gradient in design scalar j, per component.
void expect_columns_match_differences(const std::string& yaml, const std::vector<std::string>& overrides) {
  auto problem = make(yaml, overrides);
  const std::vector<double> x = problem->values();
  const std::size_t n = x.size();
  double largest_gradient = 0.0;
  for (double g : problem->evaluate(true).gradient) largest_gradient = std::max(largest_gradient, std::abs(g));
  for (std::size_t j = 0; j < n; ++j) {
    std::vector<double> e(n, 0.0);
    e[j] = 1.0;
    const std::vector<double> column = product(*problem, x, e);
    const double step = testing::relative_step(x[j], 1e-4);
    std::vector<double> plus = x, minus = x;
    plus[j] += step;
    minus[j] -= step;
    problem->set_values(plus);
    const std::vector<double> g_plus = problem->evaluate(true).gradient;
    problem->set_values(minus);
    const std::vector<double> g_minus = problem->evaluate(true).gradient;
    double largest = 0.0;
    for (double h : column) largest = std::max(largest, std::abs(h));
    for (std::size_t i = 0; i < n; ++i) {
      const double difference = (g_plus[i] - g_minus[i]) / (2 * step);
      const std::string name = problem->design().names()[i] + " / " + problem->design().names()[j];
      // Entries far below the column's largest (zero by structure, e.g. a control value against itself through a
      // linear load) are compared absolutely.
      if (std::abs(difference) < 1e-7 * largest && std::abs(column[i]) < 1e-7 * largest)
        EXPECT_NEAR(column[i], difference, 1e-9 * largest) << name;
      else
        EXPECT_TRUE(testing::matches_central_difference(name, column[i], difference, step, largest_gradient));
    }
  }
  problem->set_values(x);
}

TEST(HessianVector, ColumnsMatchCentralDifferencesOfGradients) { expect_columns_match_differences(kTwoMasses, {}); }

TEST(HessianVector, HhtColumnsMatchCentralDifferencesOfGradients) {
  expect_columns_match_differences(kTwoMasses, {"integrator.type=hht", "integrator.spectral_radius=0.7"});
}

TEST(HessianVector, WithJointsColumnsMatchCentralDifferencesOfGradients) {
  expect_columns_match_differences(kCartPendulum, {});
}

// The variational integrator (RATTLE): initial values on the two masses, the joints on the cart pendulum.
TEST(HessianVector, VariationalColumnsMatchCentralDifferencesOfGradients) {
  expect_columns_match_differences(variational(kTwoMasses), {});
}

TEST(HessianVector, VariationalWithJointsColumnsMatchCentralDifferencesOfGradients) {
  expect_columns_match_differences(variational(kCartPendulum), {});
}

void expect_symmetric(const std::string& yaml, const std::vector<std::string>& overrides, unsigned seed) {
  auto problem = make(yaml, overrides);
  const std::vector<double> x = problem->values();
  const std::vector<double> u = random_direction(x.size(), seed), v = random_direction(x.size(), seed + 1);
  const double uhv = dot(u, product(*problem, x, v)), vhu = dot(v, product(*problem, x, u));
  std::printf("u.Hv %.17g  v.Hu %.17g  relative difference %.2e\n", uhv, vhu, std::abs(uhv - vhu) / std::abs(uhv));
  EXPECT_LE(std::abs(uhv - vhu), 1e-10 * std::abs(uhv));
}

TEST(HessianVector, VariationalIsSymmetric) {
  expect_symmetric(variational(kTwoMasses), {}, 3);
  expect_symmetric(variational(kCartPendulum), {}, 5);
}

TEST(HessianVector, WithJointsIsSymmetric) {
  auto problem = make(kCartPendulum);
  const std::vector<double> x = problem->values();
  const std::vector<double> u = random_direction(x.size(), 5), v = random_direction(x.size(), 6);
  const double uhv = dot(u, product(*problem, x, v)), vhu = dot(v, product(*problem, x, u));
  std::printf("joints: u.Hv %.17g  v.Hu %.17g  relative difference %.2e\n", uhv, vhu, std::abs(uhv - vhu) / std::abs(uhv));
  EXPECT_LE(std::abs(uhv - vhu), 1e-10 * std::abs(uhv));
}

TEST(HessianVector, IsSymmetric) {
  auto problem = make(kTwoMasses);
  const std::vector<double> x = problem->values();
  const std::vector<double> u = random_direction(x.size(), 3), v = random_direction(x.size(), 4);
  const std::vector<double> hu = product(*problem, x, u), hv = product(*problem, x, v);
  const double uhv = dot(u, hv), vhu = dot(v, hu);
  std::printf("u.Hv %.17g  v.Hu %.17g  relative difference %.2e\n", uhv, vhu, std::abs(uhv - vhu) / std::abs(uhv));
  EXPECT_LE(std::abs(uhv - vhu), 1e-10 * std::abs(uhv));
}

// The tangents kept like the states (in a second HDF5 file; recomputed from checkpoints holding both, in memory and
// on disk): J, the gradient and H v of the memory trajectory bit for bit, on both models.
void expect_every_storage_gives_the_memory_product(bool with_variational_integrator) {
  for (const char* model : {kTwoMasses, kCartPendulum}) {
    const std::string yaml = with_variational_integrator ? variational(model) : std::string(model);
    std::vector<HessianVectorEvaluation> products;
    for (const std::string storage : {"memory", "hdf5", "checkpoints", "disk"}) {
      auto problem = make(yaml);
      AdjointSettings settings;
      settings.storage = storage == "disk" ? "checkpoints" : storage;
      settings.trajectory_path = "hessian_storage.trajectory.h5";
      if (storage != "memory" && storage != "hdf5") settings.checkpoints = 4;
      if (storage == "disk") {
        settings.disk_checkpoints = 5;
        settings.folder = "hessian_storage.checkpoints";
      }
      problem->set_adjoint(settings);
      problem->forward();
      products.push_back(problem->hessian_vector(random_direction(problem->values().size(), 7)));
      const HessianVectorEvaluation& first = products.front();
      const HessianVectorEvaluation& now = products.back();
      EXPECT_EQ(now.objective, first.objective) << storage;
      EXPECT_EQ(now.gradient, first.gradient) << storage;
      EXPECT_EQ(now.product, first.product) << storage;
      std::printf("%s: H v[0] = %.17g (memory %.17g)\n", storage.c_str(), now.product[0], first.product[0]);
    }
  }
  std::filesystem::remove("hessian_storage.trajectory.h5");
  std::filesystem::remove_all("hessian_storage.checkpoints");
}

TEST(HessianVector, EveryTrajectoryStorageGivesTheMemoryProduct) { expect_every_storage_gives_the_memory_product(false); }

TEST(HessianVector, VariationalEveryTrajectoryStorageGivesTheMemoryProduct) {
  expect_every_storage_gives_the_memory_product(true);
}

// |J(x + eps v) - J - eps g.v - eps^2/2 v.Hv| = O(eps^3).
void expect_taylor_remainder_of_order_three(const std::string& yaml) {
  auto problem = make(yaml);
  const std::vector<double> x = problem->values();
  std::vector<double> v = random_direction(x.size(), 7);
  for (std::size_t i = 0; i < x.size(); ++i) v[i] *= 0.05 * std::max(std::abs(x[i]), 1.0);
  problem->set_values(x);
  problem->forward();
  const HessianVectorEvaluation at_x = problem->hessian_vector(v);
  const double slope = dot(at_x.gradient, v), curvature = dot(v, at_x.product);
  std::vector<double> remainders;
  for (double eps = 0.4; eps > 0.02; eps /= 2) {
    std::vector<double> moved = x;
    for (std::size_t i = 0; i < x.size(); ++i) moved[i] += eps * v[i];
    problem->set_values(moved);
    remainders.push_back(
        std::abs(problem->evaluate(false).objective - at_x.objective - eps * slope - 0.5 * eps * eps * curvature));
  }
  problem->set_values(x);
  for (std::size_t k = 1; k < remainders.size(); ++k) {
    const double order = std::log2(remainders[k - 1] / remainders[k]);
    std::printf("Taylor remainder %.3e -> %.3e: order %.3f\n", remainders[k - 1], remainders[k], order);
    EXPECT_GT(order, 2.85);
    EXPECT_LT(order, 3.15);
  }
}

TEST(HessianVector, TaylorRemainderIsOfOrderThree) { expect_taylor_remainder_of_order_three(kTwoMasses); }

TEST(HessianVector, VariationalTaylorRemainderIsOfOrderThree) {
  expect_taylor_remainder_of_order_three(variational(kTwoMasses));
}

TEST(HessianVector, RefusesWhatItCannotDifferentiate) {
  const auto refused = [](const std::string& yaml, const std::vector<std::string>& overrides, const std::string& text,
                          const std::string& storage = "memory") {
    auto problem = std::make_unique<GradientProblem>(io::read_problem_string(yaml, "bad.yaml", overrides), world(),
                                                     "hessian");
    AdjointSettings settings;
    settings.storage = storage;
    problem->set_adjoint(settings);
    try {
      problem->check_second_order();
      ADD_FAILURE() << "not refused: " << text;
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find(text), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("flexadj hessian"), std::string::npos) << error.what();
    }
  };
  std::string state_space = kTwoMasses;
  state_space.replace(state_space.find("spectral_radius: 0.8"), 20, "type: state_space");
  refused(state_space, {}, "state-space form, Heun with projection");
  auto problem = make(kTwoMasses);
  problem->forward();
  EXPECT_THROW(problem->hessian_vector({1.0, 2.0}), std::invalid_argument);
}

TEST(HessianVector, DirectionFilesNameEveryDesignScalarOnce) {
  const std::vector<std::string> names = {"spring.stiffness", "control:F[0]", "control:F[1]"};
  const auto read = [&](const std::string& text) {
    std::ofstream("direction.csv") << text;
    return io::read_direction("direction.csv", names);
  };
  EXPECT_EQ(read("name,value\ncontrol:F[1],3\nspring.stiffness,1.5\ncontrol:F[0],-2\n"),
            (std::vector<double>{1.5, -2.0, 3.0}));
  const auto refused = [&](const std::string& text, const std::string& entry) {
    try {
      read(text);
      ADD_FAILURE() << "not refused: " << text;
    } catch (const InputError& error) {
      EXPECT_EQ(error.file(), "direction.csv");
      EXPECT_EQ(error.key(), entry) << error.what();
    }
  };
  refused("name,value\nspring.stiffnes,1\ncontrol:F[0],1\ncontrol:F[1],1\n", "spring.stiffnes");
  refused("name,value\nspring.stiffness,1\ncontrol:F[0],1\n", "control:F[1]");
  refused("spring.stiffness,1\nspring.stiffness,2\ncontrol:F[0],1\ncontrol:F[1],1\n", "spring.stiffness");
  refused("spring.stiffness,x\ncontrol:F[0],1\ncontrol:F[1],1\n", "spring.stiffness");
}

}  // namespace
}  // namespace flexadj
