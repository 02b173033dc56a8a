#pragma once
// Helpers for beam tests: static solves of model files given as text, node positions by name.
#include <string>
#include <vector>

#include "flexadj/integrators/static_solver.hpp"
#include "flexadj/io/model_reader.hpp"
#include "simulation_support.hpp"

namespace flexadj::testing {

// Global q after each load step (entry 0: the initial state).
inline std::vector<std::vector<double>> solve_static(const model::Model& model, RCP<const Comm> comm) {
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
  integrators::solve_static(assembler, state, model.statics, options, false, {observer});
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

}  // namespace flexadj::testing
