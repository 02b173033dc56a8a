#include "gradient_problem.hpp"

#include <chrono>
#include <sstream>

#include "commands.hpp"

#include "flexadj/adjoint/continuous_adjoint.hpp"
#include "flexadj/adjoint/discrete_adjoint.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/integrators/simulation.hpp"
#include "flexadj/io/trajectory_output.hpp"
#include "flexadj/storage/trajectory.hpp"
#include "flexadj/model/coordinate_names.hpp"

namespace flexadj::app {
namespace {

// The model, once it is known to define a gradient problem the adjoint can solve.
problem::Problem checked(problem::Problem problem, const std::string& command) {
  if (problem.objective_terms.empty())
    throw InputError(problem.model->source_file, "objective",
                     "missing; 'flexadj " + command +
                         "' needs an objective: a list of terms such as {type: final_value, coordinate: mass.x} "
                         "(docs/model-format.md, section objective)");
  return problem;
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

GradientProblem::GradientProblem(problem::Problem problem, RCP<const Comm> comm, const std::string& command)
    : problem_(checked(std::move(problem), command)),
      comm_(std::move(comm)),
      design_(problem::DesignSpace::of(problem_)) {}

void GradientProblem::set_adjoint(const AdjointSettings& settings) {
  if (settings.mode != "discrete" && settings.mode != "continuous")
    throw InputError("", "--adjoint", "expected discrete or continuous, got '" + settings.mode + "'");
  if (settings.bdf_order < 1 || settings.bdf_order > 4)
    throw InputError("", "--bdf-order", "expected an integer from 1 to 4, got " + std::to_string(settings.bdf_order));
  if (settings.storage != "memory" && settings.storage != "hdf5")
    throw InputError("", "--trajectory", "expected memory or hdf5, got '" + settings.storage + "'");
  if (settings.mode == "continuous" && problem_.integrator.scheme == "variational")
    throw InputError(problem_.model->source_file, "integrator.type",
                     "the continuous adjoint (--adjoint continuous) is not available with the variational "
                     "integrator; use the discrete adjoint (the default)");
  adjoint_ = settings;
  trajectory_.reset();  // made anew, of the chosen kind, by the next forward()
  recorded_ = false;
  if (adjoint_.storage == "hdf5" && adjoint_.trajectory_path.empty()) {
    const std::string stem = file_stem(problem_.model->source_file);
    adjoint_.trajectory_path = (stem.empty() ? std::string("flexadj") : stem) + ".trajectory.h5";
  }
}

Evaluation GradientProblem::forward() {
  Evaluation e;
  comm_->barrier();
  const auto start = std::chrono::steady_clock::now();
  if (!assembler_) {
    assembler_ = std::make_unique<assembly::Assembler>(*problem_.model, comm_);
    linalg::LinearSolverOptions options;
    options.kind = problem_.integrator.linear_solver;
    integrator_ = integrators::make_time_integrator(*assembler_, problem_.integrator, options);
  }
  // The forward states for the backward sweep, where the option puts them (storage/trajectory.hpp).
  if (!trajectory_)
    trajectory_ =
        storage::make_trajectory(adjoint_.storage, adjoint_.trajectory_path, *assembler_, problem_.integrator);
  assembly::State state = assembler_->make_state();
  assembler_->scatter_global(problem_.model->initial_coordinates(), problem_.model->initial_velocities(), state);
  recorded_ = false;
  integrators::record_forward_run(*assembler_, *integrator_, state, *trajectory_);
  recorded_ = true;
  const objectives::Objective objective(problem_.objective_terms);
  e.objective = objective.value(*assembler_, *trajectory_);
  comm_->barrier();
  e.forward_seconds = seconds_since(start);
  return e;
}

Evaluation GradientProblem::adjoint() {
  if (!recorded_) throw std::logic_error("GradientProblem::adjoint() without a complete forward run");
  Evaluation e;
  const auto start = std::chrono::steady_clock::now();
  const objectives::Objective objective(problem_.objective_terms);
  const adjoint::Gradient gradient =
      adjoint_.mode == "continuous"
          ? adjoint::continuous_adjoint_gradient(*assembler_, *integrator_, *trajectory_, objective,
                                                 design_.parameters(), {adjoint_.bdf_order})
          : adjoint::discrete_adjoint_gradient(*assembler_, *integrator_, *trajectory_, objective, design_.parameters());
  e.objective = gradient.objective;
  e.gradient = design_.gradient(gradient);
  comm_->barrier();
  e.adjoint_seconds = seconds_since(start);
  return e;
}

void GradientProblem::write_trajectory(const std::string& path, bool xdmf) {
  if (!recorded_) throw std::logic_error("GradientProblem::write_trajectory() without a complete forward run");
  io::TrajectoryOutput output(*assembler_, problem_.integrator, path, 1, xdmf);
  const std::vector<double>& times = trajectory_->step_times();
  for (std::size_t n = 0; n < times.size(); ++n) output.observe(static_cast<long long>(n), times[n], trajectory_->step(n));
  output.finish();
}

Evaluation GradientProblem::evaluate(bool with_gradient) {
  Evaluation e = forward();
  if (!with_gradient) return e;
  const Evaluation backward = adjoint();
  e.gradient = backward.gradient;
  e.adjoint_seconds = backward.adjoint_seconds;
  return e;
}

std::string GradientProblem::describe_objective() const {
  using Term = objectives::ObjectiveTerm;
  std::string text;
  for (const Term& term : problem_.objective_terms) {
    if (term.kind == Term::Kind::ControlEffort) {
      if (!text.empty()) text += " + ";
      text += (term.weight == 1.0 ? std::string("1/2 ") : format(term.weight) + "/2 ") + "int " + term.control + "(t)^2 dt";
      continue;
    }
    std::string x;
    if (term.sensor_body >= 0) {
      const char* axis[] = {"x", "y", "z"};
      const char* quantity[] = {"position", "velocity", "angular_velocity", "direction"};
      x = problem_.model->body(term.sensor_body).name + "." + quantity[static_cast<int>(term.quantity)] + "_" +
          axis[term.sensor_component];
    } else {
      std::string name = model::coordinate_name(*problem_.model, term.coordinate);
      if (term.relative_to >= 0)
        name = "(" + name + " - " + model::coordinate_name(*problem_.model, term.relative_to) + ")";
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
