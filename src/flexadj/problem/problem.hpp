#pragma once
// What a model file asks for: the mechanical system (model::Model) and what to do with it: the run settings
// of simulate and static, the output, and for gradients and optimisation the objective, the design variables
// and the optimiser's settings. io::read_problem_file reads one; the programs and tests take one.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "flexadj/integrators/integrator_settings.hpp"
#include "flexadj/model/model.hpp"
#include "flexadj/objectives/constraint_term.hpp"
#include "flexadj/objectives/objective_term.hpp"
#include "flexadj/problem/optimization_settings.hpp"

namespace flexadj::problem {

// The `output` section: where and how often `flexadj simulate` writes its results.
struct OutputSettings {
  std::string path;  // empty: <model file stem>.h5 in the working directory
  int every = 1;     // write every n-th step (the last step is always written)
  bool xdmf = true;
};

// The `trajectory` section: where the forward states of a gradient wait for the backward sweep
// (storage::TrajectoryOptions; `flexadj gradient` and `optimize` options override it).
struct TrajectorySettings {
  std::string storage = "memory";  // memory | hdf5 | checkpoints
  std::string file;                // hdf5: the file (empty: MODEL.trajectory.h5)
  std::size_t checkpoints = 0;     // checkpoints: states kept (0: from memory_limit, else the default)
  double memory_limit = 0.0;       // checkpoints: bytes per rank (0: none)
  std::size_t disk_checkpoints = 0;  // checkpoints: at most this many on disk (0: none, or m = slots with a folder)
  std::string folder;                // checkpoints: the folder of the disk checkpoints (empty: MODEL.checkpoints)
};

// Copies share the model (bodies, elements, joints, controls): a copy with other settings or another objective
// runs the same system, and a change of its parameters shows in both.
struct Problem {
  std::shared_ptr<model::Model> model = std::make_shared<model::Model>();
  integrators::IntegratorSettings integrator;
  integrators::StaticSettings statics;
  OutputSettings output;
  TrajectorySettings trajectory;
  // Gradient problems: the objective's terms and the names of the design variables (see DesignSpace);
  // both empty for plain simulations.
  std::vector<objectives::ObjectiveTerm> objective_terms;
  std::vector<std::string> design_variables;
  // flexadj optimize: the `constraints` section (empty: the objective and the bounds only).
  std::vector<objectives::ConstraintTerm> constraints;
  OptimizationSettings optimization;  // flexadj optimize
  // The model file as read, the --set overrides applied: each top-level section (key, YAML text), sorted by key.
  // What a run's identity is computed from (GradientProblem::run_identity).
  std::vector<std::pair<std::string, std::string>> model_sections;
};

}  // namespace flexadj::problem
