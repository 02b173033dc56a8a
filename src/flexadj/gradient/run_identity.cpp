// GradientProblem::run_identity(): what fixes a run's result, written into its restart files and checked on reading.
#include <yaml-cpp/yaml.h>

#include <cstdio>

#include "flexadj/core/checksum.hpp"
#include "flexadj/core/file_names.hpp"
#include "flexadj/core/run_identity.hpp"
#include "flexadj/core/version.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/integrators/simulation.hpp"
#include "flexadj/linalg/linear_solver.hpp"

namespace flexadj {
namespace {

// Model-file sections that do not change a run's result: the title, where results go and where the forward
// states wait for the sweep (the disk interval, which does matter, is an item of its own).
bool changes_result(const std::string& section) {
  return section != "title" && section != "output" && section != "trajectory";
}

// The optimization section without its stopping rules (a restarted optimisation may run longer) and start_from
// (the values it gives are an item of their own).
std::string optimization_without_stopping_rules(const std::string& yaml) {
  YAML::Node section = YAML::Load(yaml);
  if (!section.IsMap()) return yaml;
  for (const char* key : {"max_iterations", "gradient_tolerance", "relative_gradient_tolerance", "objective_tolerance",
                          "objective_target", "start_from"})
    section.remove(key);
  YAML::Emitter text;
  text << section;
  return text.c_str();
}

std::string crc_text(std::uint32_t crc) {
  char text[16];
  std::snprintf(text, sizeof text, "crc %08x", static_cast<unsigned>(crc));
  return text;
}

}  // namespace

std::string GradientProblem::run_identity() {
  const std::string& source = problem_.model->source_file;
  RunIdentityItems items{{"program", std::string("flexadj ") + program_build()},
                         {"model", source.empty() ? std::string("(model in memory)") : file_stem(source)}};
  // The model file as read, --set overrides applied, section by section (objective, integrator, design variables,
  // bodies, ...): what changes is named.
  for (const auto& [section, yaml] : problem_.model_sections) {
    if (!changes_result(section)) continue;
    const std::string text = section == "optimization" ? optimization_without_stopping_rules(yaml) : yaml;
    items.emplace_back(section, crc_text(checksum(0, text.data(), text.size())));
  }
  // What the model file alone does not fix (design values, files it refers to): every component parameter, the
  // initial state and the control values.
  const model::Model& m = *problem_.model;
  std::uint32_t values_crc = checksum(0, m.initial_coordinates());
  values_crc = checksum(values_crc, m.initial_velocities());
  for (const auto& element : m.force_elements()) values_crc = checksum(values_crc, element->parameters());
  for (const auto& constraint : m.constraints()) values_crc = checksum(values_crc, constraint->parameters());
  for (const auto& [name, signal] : m.controls()) values_crc = checksum(values_crc, signal->values());
  items.emplace_back("values", crc_text(values_crc));
  const std::vector<double> times = integrators::step_times(problem_.integrator);
  items.emplace_back("time grid", crc_text(checksum(0, times)) + ", " + std::to_string(times.size() - 1) + " steps");
  items.emplace_back("ranks", std::to_string(comm_->getSize()));
  items.emplace_back("disk checkpoint interval", std::to_string(disk_interval()) + " steps");
  // The solver changes the states at round-off: a restart with another one would mix two runs' checkpoints.
  prepare();
  std::string solver = linalg::chosen_linear_solver(problem_.integrator.linear_solver,
                                                    static_cast<long long>(assembler_->matrix()->getGlobalNumRows()),
                                                    comm_->getSize());
  if (problem_.integrator.linear_solver == "iterative")
    solver += problem_.integrator.preconditioner == "schwarz"
                  ? " (schwarz, overlap " + std::to_string(problem_.integrator.schwarz_overlap) + ")"
                  : " (" + problem_.integrator.preconditioner + ")";
  items.emplace_back("linear solver", solver);
  // The sweep's restart files hold the adjoint of one kind.
  std::string adjoint = adjoint_.mode;
  if (adjoint_.mode == "continuous")
    adjoint += " (BDF-" + std::to_string(adjoint_.bdf_order) + ", " + std::to_string(adjoint_.adjoint_steps) +
               " steps" + (adjoint_.continuous_form.empty() ? std::string() : ", " + adjoint_.continuous_form) + ")";
  items.emplace_back("adjoint", adjoint);
  return run_identity_text(items);
}

}  // namespace flexadj
