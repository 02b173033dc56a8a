#pragma once
// Helpers for beam tests: static solves of model files given as text, node positions by name, energy and momenta
// of free beams and the free flight of the flying spaghetti.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "flexadj/integrators/static_solver.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "flexadj/model/body.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {

// Global q after each load step (entry 0: the initial state).
inline std::vector<std::vector<double>> solve_static(const problem::Problem& problem, RCP<const Comm> comm) {
  const model::Model& model = *problem.model;
  assembly::Assembler assembler(model, comm);
  linalg::LinearSolverOptions options;
  options.kind = "direct";
  assembly::State state = assembler.make_state();
  assembler.scatter_global(model.initial_coordinates(), model.initial_velocities(), state);
  std::vector<std::vector<double>> steps;
  const auto& dofs = assembler.dofs();
  integrators::LoadStepObserver observer = [&](int, double, const assembly::State& s) {
    steps.push_back(gather_global(s.q, dofs.owned_coordinates(), dofs.coordinate_count(), *comm));
  };
  integrators::solve_static(assembler, state, problem.statics, options, false, {observer});
  return steps;
}

inline std::array<double, 3> position_of(const model::Model& model, const std::vector<double>& q,
                                         const std::string& body) {
  const int b = model.find_body(body);
  const int o = model.body_offset(b);
  return {q[o], q[o + 1], q[o + 2]};
}

// A component's local coordinates (its bodies' coordinates, concatenated; ground has none) from the global q.
inline std::vector<double> local_coordinates(const model::Model& model, const model::Component& component,
                                             const std::vector<double>& q) {
  std::vector<double> local;
  for (std::size_t k = 0; k < component.bodies().size(); ++k) {
    if (component.bodies()[k] == model::kGround) continue;
    const auto first = q.begin() + model.body_offset(component.bodies()[k]);
    local.insert(local.end(), first, first + model::coordinate_count(component.kinds()[k]));
  }
  return local;
}

// Kinetic plus potential energy of all force elements (time-independent potentials).
inline double energy(const model::Model& model, const std::vector<double>& q, const std::vector<double>& v) {
  double e = 0.0;
  for (const auto& element : model.force_elements()) {
    const auto ql = local_coordinates(model, *element, q), vl = local_coordinates(model, *element, v);
    e += element->kinetic_energy(ql.data(), vl.data()) + element->potential_energy(ql.data(), 0.0);
  }
  return e;
}

// Linear and angular momentum (about the origin) of spatial rigid bodies or beam nodes with mass m_k and diagonal
// rotary inertia J_k (body or section frame): p = sum m v, L = sum (x x m v + R J w').
struct Momenta {
  std::array<double, 3> linear{}, angular{};
};
inline Momenta momenta(const model::Model& model, const std::vector<double>& q, const std::vector<double>& v,
                       const std::vector<double>& node_mass, const std::vector<std::array<double, 3>>& node_rotary) {
  Momenta m;
  for (std::size_t b = 0; b < model.bodies().size(); ++b) {
    const int o = model.body_offset(static_cast<int>(b));
    const std::array<double, 3> x{q[o], q[o + 1], q[o + 2]};
    const std::array<double, 3> p{node_mass[b] * v[o], node_mass[b] * v[o + 1], node_mass[b] * v[o + 2]};
    const auto w = model::body_angular_velocity(q.data() + o + 3, v.data() + o + 3);
    const std::array<double, 3> spin{node_rotary[b][0] * w[0], node_rotary[b][1] * w[1], node_rotary[b][2] * w[2]};
    const auto spin_global = model::multiply(model::rotation_from_euler_parameters(q.data() + o + 3), spin);
    const auto moment = model::cross(x, p);
    for (int i = 0; i < 3; ++i) {
      m.linear[i] += p[i];
      m.angular[i] += moment[i] + spin_global[i];
    }
  }
  return m;
}

// Flying spaghetti (meshes/flying_spaghetti.yaml: Simo and Vu-Quoc 1986, load until t = 2.5, then free flight) at
// the given step size and overrides: the momenta and energy at t = 2.5 and their largest deviations from those
// values over the free flight (the energy's also over its first and second half).
struct FreeFlight {
  double impulse = 0.0, angular = 0.0, energy = 0.0;                   // at t = 2.5
  double linear_drift = 0.0, angular_drift = 0.0, energy_drift = 0.0;  // max over the free flight
  double energy_drift_first_half = 0.0, energy_drift_second_half = 0.0;
  double travelled = 0.0;
  double wall_seconds = 0.0;
  long long newton_iterations = 0, steps = 0;
};

inline FreeFlight flying_spaghetti(double step_size, std::vector<std::string> overrides) {
  overrides.push_back("integrator.step_size=" + std::to_string(step_size));
  auto problem = io::read_problem_file(std::string(FLEXADJ_SOURCE_DIR) + "/meshes/flying_spaghetti.yaml", overrides);
  const Trajectory trajectory = run(problem, world());
  const int nodes = 11;  // 10 elements: lumped mass rho A L/2 and rotary inertia rho L/2 (20, 10, 10) per element end
  std::vector<double> node_mass(nodes, 1.0);
  node_mass.front() = node_mass.back() = 0.5;
  std::vector<std::array<double, 3>> node_rotary(nodes, {20.0, 10.0, 10.0});
  node_rotary.front() = node_rotary.back() = {10.0, 5.0, 5.0};

  std::size_t free_start = 0;
  while (trajectory.times[free_start] < 2.5 - 1e-9) ++free_start;
  const Momenta m0 =
      momenta(*problem.model, trajectory.q[free_start], trajectory.v[free_start], node_mass, node_rotary);
  FreeFlight d;
  d.impulse = m0.linear[0];
  d.angular = m0.angular[2];
  d.energy = energy(*problem.model, trajectory.q[free_start], trajectory.v[free_start]);
  const double middle = 0.5 * (2.5 + trajectory.times.back());
  for (std::size_t n = free_start; n < trajectory.times.size(); ++n) {
    const Momenta m = momenta(*problem.model, trajectory.q[n], trajectory.v[n], node_mass, node_rotary);
    for (int i = 0; i < 3; ++i) {
      d.linear_drift = std::max(d.linear_drift, std::abs(m.linear[i] - m0.linear[i]));
      d.angular_drift = std::max(d.angular_drift, std::abs(m.angular[i] - m0.angular[i]));
    }
    const double deviation = std::abs(energy(*problem.model, trajectory.q[n], trajectory.v[n]) - d.energy);
    d.energy_drift = std::max(d.energy_drift, deviation);
    double& half = trajectory.times[n] <= middle ? d.energy_drift_first_half : d.energy_drift_second_half;
    half = std::max(half, deviation);
  }
  d.travelled = trajectory.q.back()[0] - trajectory.q.front()[0];
  d.wall_seconds = trajectory.summary.wall_seconds;
  d.newton_iterations = trajectory.summary.newton_iterations;
  d.steps = trajectory.summary.steps;
  std::printf(
      "%s h = %g: p_x = %.10g, L_z = %.6g, E = %.6g; drifts: p %.3e, L %.3e, E %.3e (halves %.3e, %.3e); "
      "%.2f Newton iterations per step, %.3f s\n",
      problem.integrator.scheme.c_str(), step_size, d.impulse, d.angular, d.energy, d.linear_drift, d.angular_drift,
      d.energy_drift, d.energy_drift_first_half, d.energy_drift_second_half,
      double(d.newton_iterations) / double(d.steps), d.wall_seconds);
  return d;
}

}  // namespace flexadj::testing
