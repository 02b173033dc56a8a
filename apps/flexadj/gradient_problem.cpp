#include "gradient_problem.hpp"

#include <chrono>
#include <sstream>

#include "commands.hpp"

#include "flexadj/adjoint/continuous_adjoint.hpp"
#include "flexadj/adjoint/discrete_adjoint.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/integrators/simulation.hpp"
#include "flexadj/io/trajectory_output.hpp"
#include "flexadj/model/coordinate_names.hpp"

namespace flexadj::app {
namespace {

// The model, once it is known to define a gradient problem the adjoint can solve.
std::unique_ptr<model::Model> checked(std::unique_ptr<model::Model> model, const std::string& command) {
  if (model->objective_terms.empty())
    throw InputError(model->source_file, "objective",
                     "missing; 'flexadj " + command +
                         "' needs an objective: a list of terms such as {type: final_value, coordinate: mass.x} "
                         "(docs/model-format.md, section objective)");
  return model;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string format(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

}  // namespace

GradientProblem::GradientProblem(std::unique_ptr<model::Model> model, RCP<const Comm> comm, const std::string& command)
    : model_(checked(std::move(model), command)), comm_(std::move(comm)), design_(adjoint::DesignSpace::of(*model_)) {}

void GradientProblem::set_adjoint(const AdjointSettings& settings) {
  if (settings.mode != "discrete" && settings.mode != "continuous")
    throw InputError("", "--adjoint", "expected discrete or continuous, got '" + settings.mode + "'");
  if (settings.bdf_order < 1 || settings.bdf_order > 4)
    throw InputError("", "--bdf-order", "expected an integer from 1 to 4, got " + std::to_string(settings.bdf_order));
  if (settings.storage != "memory" && settings.storage != "hdf5")
    throw InputError("", "--trajectory", "expected memory or hdf5, got '" + settings.storage + "'");
  adjoint_ = settings;
  if (adjoint_.storage == "hdf5" && adjoint_.trajectory_path.empty()) {
    const std::string stem = file_stem(model_->source_file);
    adjoint_.trajectory_path = (stem.empty() ? std::string("flexadj") : stem) + ".trajectory.h5";
  }
}

Evaluation GradientProblem::evaluate(bool with_gradient) {
  Evaluation e;
  comm_->barrier();
  const auto start = std::chrono::steady_clock::now();
  assembly::Assembler assembler(*model_, comm_);
  linalg::LinearSolverOptions options;
  options.kind = model_->integrator.linear_solver;
  integrators::GeneralizedAlpha integrator(assembler, model_->integrator, options);
  assembly::State state = assembler.make_state();
  assembler.scatter_global(model_->initial_coordinates(), model_->initial_velocities(), state);
  // The forward states for the backward sweep: in memory, or every step in an HDF5 file read back.
  std::unique_ptr<storage::Trajectory> trajectory;
  if (adjoint_.storage == "hdf5") {
    {
      io::TrajectoryOutput output(assembler, adjoint_.trajectory_path, 1, false);
      integrators::SimulationOptions simulation;
      simulation.progress = false;
      simulation.track_energy = false;
      integrators::simulate(assembler, integrator, state, simulation,
                            {[&](long long n, double t, const assembly::State& s) { output.observe(n, t, s); }});
      output.finish();
    }
    trajectory = std::make_unique<storage::Hdf5Trajectory>(adjoint_.trajectory_path, assembler);
  } else {
    trajectory = std::make_unique<adjoint::StoredTrajectory>(adjoint::simulate_and_store(assembler, integrator, state));
  }
  const objectives::Objective objective(model_->objective_terms);
  comm_->barrier();
  e.forward_seconds = seconds_since(start);
  if (!with_gradient) {
    e.objective = objective.value(assembler, *trajectory);
    return e;
  }
  const auto backward = std::chrono::steady_clock::now();
  const adjoint::Gradient gradient =
      adjoint_.mode == "continuous"
          ? adjoint::continuous_adjoint_gradient(assembler, integrator, *trajectory, objective, design_.parameters(),
                                                 {adjoint_.bdf_order})
          : adjoint::discrete_adjoint_gradient(assembler, integrator, *trajectory, objective, design_.parameters());
  e.objective = gradient.objective;
  e.gradient = design_.gradient(gradient);
  comm_->barrier();
  e.adjoint_seconds = seconds_since(backward);
  return e;
}

std::string GradientProblem::describe_objective() const {
  using Term = objectives::ObjectiveTerm;
  std::string text;
  for (const Term& term : model_->objective_terms) {
    if (term.kind == Term::Kind::ControlEffort) {
      if (!text.empty()) text += " + ";
      text += (term.weight == 1.0 ? std::string("1/2 ") : format(term.weight) + "/2 ") + "int " + term.control + "(t)^2 dt";
      continue;
    }
    std::string x;
    if (term.sensor_body >= 0) {
      const char* axis[] = {"x", "y", "z"};
      const char* quantity[] = {"position", "velocity", "angular_velocity", "direction"};
      x = model_->body(term.sensor_body).name + "." + quantity[static_cast<int>(term.quantity)] + "_" +
          axis[term.sensor_component];
    } else {
      std::string name = model::coordinate_name(*model_, term.coordinate);
      if (term.relative_to >= 0) name = "(" + name + " - " + model::coordinate_name(*model_, term.relative_to) + ")";
      x = term.quantity == Term::Quantity::Velocity ? "v(" + name + ")" : name;
    }
    const std::string w = term.weight == 1.0 ? "" : format(term.weight) + " ";
    const std::string half = term.weight == 1.0 ? "1/2 " : format(term.weight) + "/2 ";
    if (!text.empty()) text += " + ";
    switch (term.kind) {
      case Term::Kind::FinalValue: text += w + x + "(t_end)"; break;
      case Term::Kind::FinalSquare: text += half + "(" + x + "(t_end) - " + format(term.target) + ")^2"; break;
      case Term::Kind::Tracking: text += half + "int (" + x + " - r(t))^2 dt"; break;
      case Term::Kind::Penalty: text += half + "int excess(" + x + ")^2 dt"; break;
      case Term::Kind::ControlEffort: text += half + "int " + term.control + "(t)^2 dt"; break;
    }
  }
  return text;
}

}  // namespace flexadj::app
