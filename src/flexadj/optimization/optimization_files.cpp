#include "flexadj/optimization/optimization_files.hpp"

#include <cstdio>

#include "flexadj/core/error.hpp"
#include "flexadj/core/mpi_comm.hpp"
#include "flexadj/io/design_values.hpp"
#include "flexadj/results/hdf5_results_file.hpp"

namespace flexadj::optimization {
namespace {

// With constraints a column more: the largest constraint violation; with the momentum target iteration the last:
// the optimisation an iterate belongs to.
void write_history_row(std::ostream& out, const Iteration& h, bool constraints, bool target_iteration) {
  char line[256];
  std::snprintf(line, sizeof line, "%d,%.17g,%.17g,%.17g,%ld,%ld,%.6f", h.iteration, h.objective, h.gradient_norm,
                h.step, h.forward_runs, h.adjoint_runs, h.seconds);
  out << line;
  if (constraints) {
    std::snprintf(line, sizeof line, ",%.17g", h.constraint_violation);
    out << line;
  }
  if (target_iteration) out << "," << h.target_iteration;
  out << "\n";
}

}  // namespace

OptimizationFiles::OptimizationFiles(const std::string& prefix, const GradientProblem& problem,
                                     const Settings& settings, const std::string& run,
                                     const std::vector<Iteration>& replayed, const std::string& comment)
    : prefix_(prefix),
      problem_(problem),
      settings_(settings),
      comment_(comment),
      root_(problem.comm()->getRank() == 0),
      restart_(restart_file(), settings.method, run),
      csv_file_(history_csv(), raw_mpi_comm(*problem.comm())),
      design_file_(design_yaml(), raw_mpi_comm(*problem.comm())),
      target_iteration_(problem.problem().optimization.momentum_target_iteration.enabled()) {
  if (!root_) return;
  csv_.open(csv_file_.temporary());
  if (!csv_) throw InputError(history_csv(), "-o", "cannot write the history file (does its folder exist?)");
  csv_ << "iteration,objective,gradient_norm,step,forward_runs,adjoint_runs,seconds"
       << (settings.constraint_lower.empty() ? "" : ",constraint_violation")
       << (target_iteration_ ? ",target_iteration\n" : "\n");
  for (const auto& h : replayed) write_history_row(csv_, h, !settings.constraint_lower.empty(), target_iteration_);
  csv_.flush();
}

void OptimizationFiles::observe(const Iteration& h, const std::vector<double>& x, const RestartState& state) {
  if (!root_) return;
  write_history_row(csv_, h, !settings_.constraint_lower.empty(), target_iteration_);
  csv_.flush();
  write_design(x, (target_iteration_ ? ", momentum target optimisation " + std::to_string(h.target_iteration) : "") +
                      ", iteration " + std::to_string(h.iteration));
  if (!target_iteration_) restart_.write(state);
}

void OptimizationFiles::finish(const Result& result) {
  // The returned iterate (a non-monotone run that left its best returns that one). Written here too: a restart
  // whose replay reaches the end calls no observer.
  if (root_)
    write_design(result.x, ", iteration " + std::to_string(result.best_iteration) +
                               (result.best_iteration != result.iterations ? " (the lowest J)" : ""));
  write_history_hdf5(result);
  if (root_) csv_.close();
  csv_file_.commit();
  design_file_.commit();
  if (root_ && target_iteration_) {  // no restart file: an earlier run's would not fit these files
    std::remove(restart_file().c_str());
    std::remove((restart_file() + ".evaluations").c_str());
  }
}

// One design-values entry per design variable (a control with all its values).
void OptimizationFiles::write_design(const std::vector<double>& x, const std::string& note) {
  std::vector<std::string> names;
  std::vector<std::vector<double>> values;
  for (const auto& e : problem_.design().entries()) {
    names.push_back(e.name);
    values.emplace_back(x.begin() + e.offset, x.begin() + e.offset + e.size);
  }
  io::write_design_values(design_file_.temporary(), names, values, comment_ + note);
}

// /history/<column>, /design/{names,values,lower,upper}, /controls/<name>/{times,values} (collective).
void OptimizationFiles::write_history_hdf5(const Result& result) {
  const MPI_Comm comm = raw_mpi_comm(*problem_.comm());
  RenamedOutput renamed(history_h5(), comm);
  results::ResultsFile file(comm, renamed.temporary());
  const auto rows = static_cast<long long>(result.history.size());
  std::vector<double> columns[8];
  for (const auto& h : result.history) {
    const double row[8] = {double(h.iteration), h.objective, h.gradient_norm, h.step, double(h.forward_runs),
                           double(h.adjoint_runs), h.seconds, double(h.target_iteration)};
    for (int c = 0; c < 8; ++c) columns[c].push_back(row[c]);
  }
  const char* names[8] = {"iteration", "objective", "gradient_norm", "step", "forward_runs", "adjoint_runs", "seconds",
                          "target_iteration"};
  const int written = target_iteration_ ? 8 : 7;
  file.write_attribute("/", "model_file", problem_.model().source_file);
  file.write_attribute("/", "method", settings_.method);
  file.write_attribute("/", "stop_reason", result.stop_reason);
  for (int c = 0; c < written; ++c) file.write_static(std::string("/history/") + names[c], columns[c], {rows});
  const auto n = static_cast<long long>(result.x.size());
  file.write_strings("/design/names", problem_.design().names());
  file.write_static("/design/values", result.x, {n});
  if (!settings_.lower.empty()) {
    file.write_static("/design/lower", settings_.lower, {n});
    file.write_static("/design/upper", settings_.upper, {n});
  }
  for (const auto& e : problem_.design().entries()) {
    if (e.kind != problem::DesignSpace::Kind::Control) continue;
    const auto& times = problem_.model().find_control(e.control)->times();
    file.write_static("/controls/" + e.control + "/times", times, {static_cast<long long>(times.size())});
    file.write_static("/controls/" + e.control + "/values",
                      std::vector<double>(result.x.begin() + e.offset, result.x.begin() + e.offset + e.size), {e.size});
  }
  file.close();
  renamed.commit();
}

}  // namespace flexadj::optimization
