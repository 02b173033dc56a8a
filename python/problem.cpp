#include "problem.hpp"

#include <limits>
#include <stdexcept>

#include "flexadj/adjoint/slab_states.hpp"  // gather_global
#include "flexadj/core/error.hpp"
#include "flexadj/core/mpi_comm.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "flexadj/model/coordinate_names.hpp"
#include "flexadj/optimization/design_settings.hpp"

namespace flexadj::python {

Problem::Problem(const std::string& path, const std::vector<std::string>& overrides) : model_file_(path) {
  const RCP<const Comm> comm = world();
  problem_ = std::make_unique<GradientProblem>(io::read_problem_file(path, overrides), comm, "python");
  problem_->set_progress(false);
  names_ = problem_->design().names();
  file_values_ = current_ = problem_->values();
}

GradientProblem& Problem::problem() {
  if (!problem_) throw std::runtime_error("flexadj: this Problem was released at interpreter exit");
  return *problem_;
}

std::pair<std::vector<double>, std::vector<double>> Problem::bounds() {
  const optimization::Settings settings = optimization::design_settings(problem().problem(), problem().design());
  const double infinity = std::numeric_limits<double>::infinity();
  std::vector<double> lower = settings.lower, upper = settings.upper;
  if (lower.empty()) lower.assign(names_.size(), -infinity);
  if (upper.empty()) upper.assign(names_.size(), infinity);
  return {lower, upper};
}

std::vector<double> Problem::control_times(const std::string& name) {
  const auto signal = problem().model().find_control(name);
  if (!signal) throw InputError(model_file_, "controls", "no control signal named '" + name + "'");
  return signal->times();
}

const std::vector<double>& Problem::use(const std::optional<std::vector<double>>& x) {
  const std::vector<double>& wanted = x ? *x : file_values_;
  if (wanted.size() != names_.size())
    throw InputError(model_file_, "x", "expected " + std::to_string(names_.size()) + " design values (design_names), got " +
                                           std::to_string(wanted.size()));
  if (wanted != current_) {
    problem().set_values(wanted);
    current_ = wanted;
  }
  return current_;
}

GradientEvaluation Problem::forward() {
  last_run_.reset();
  GradientEvaluation e = problem().forward();
  last_run_ = current_;
  return e;
}

std::vector<double> Problem::hessian_vector(const std::optional<std::vector<double>>& x,
                                            const std::vector<double>& v) {
  use(x);
  problem().check_second_order();
  if (v.size() != current_.size())
    throw InputError("", "v", "expected " + std::to_string(current_.size()) + " values (one per design scalar), got " +
                                  std::to_string(v.size()));
  forward();
  return problem().hessian_vector(v).product;
}

double Problem::objective(const std::optional<std::vector<double>>& x) {
  use(x);
  return forward().objective;
}

std::pair<double, std::vector<double>> Problem::gradient(const std::optional<std::vector<double>>& x) {
  use(x);
  last_run_.reset();
  const GradientEvaluation e = problem().evaluate(true);
  last_run_ = current_;
  return {e.objective, e.gradient};
}

SimulatedRun Problem::simulate(const std::optional<std::vector<double>>& x) {
  use(x);
  forward();
  GradientProblem& p = problem();
  const assembly::Assembler& assembler = p.assembler();
  const model::Model& model = p.model();
  SimulatedRun run;
  run.coordinates = model.coordinate_count();
  for (long long i = 0; i < run.coordinates; ++i) run.coordinate_names.push_back(model::coordinate_name(model, i));
  const MPI_Comm comm = raw_mpi_comm(*assembler.comm());
  const std::vector<long long>& ids = assembler.dofs().owned_coordinates();
  std::vector<double> global;
  p.replay_trajectory([&](long long, double t, const assembly::State& s) {
    adjoint::gather_global({&s.q, &s.v}, ids, run.coordinates, comm, global);
    run.time.push_back(t);
    run.q.insert(run.q.end(), global.begin(), global.begin() + run.coordinates);
    run.v.insert(run.v.end(), global.begin() + run.coordinates, global.end());
  });
  return run;
}

void Problem::write_trajectory(const std::vector<double>& x, const std::string& path, bool xdmf) {
  use(x);
  if (last_run_ != current_) forward();
  problem().write_trajectory(path, xdmf);
}

}  // namespace flexadj::python
