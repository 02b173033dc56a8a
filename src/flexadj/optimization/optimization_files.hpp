#pragma once
// The files of `flexadj optimize` with output prefix P (docs/user-guide.md): P_history.csv (one row per iterate,
// written as the run goes), P_design.yaml (the design values of the last iterate, then of the one returned),
// P_restart.txt (restart_file.hpp) and, at the end, P_history.h5 (the history, the design with its bounds, each
// control over its times). History and design are written under temporary names and renamed at the end: a run that
// fails leaves the files of an earlier run as they were. With optimization.momentum_target_iteration the history has a
// column target_iteration and there is no restart file.
#include <fstream>
#include <string>
#include <vector>

#include "flexadj/core/renamed_output.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/optimization/optimizer.hpp"
#include "flexadj/optimization/restart_file.hpp"

namespace flexadj::optimization {

class OptimizationFiles {
 public:
  // `run`: the problem's run identity; `replayed`: the iterates of a restart file read (written again first).
  // Collective. InputError naming a file that cannot be written.
  OptimizationFiles(const std::string& prefix, const GradientProblem& problem, const Settings& settings,
                    const std::string& run, const std::vector<Iteration>& replayed, const std::string& comment);
  std::string history_csv() const { return prefix_ + "_history.csv"; }
  std::string history_h5() const { return prefix_ + "_history.h5"; }
  std::string design_yaml() const { return prefix_ + "_design.yaml"; }
  std::string restart_file() const { return prefix_ + "_restart.txt"; }

  // After an accepted iterate x (rank 0 writes; call on every rank).
  void observe(const Iteration& iteration, const std::vector<double>& x, const RestartState& state);
  // The returned design, P_history.h5, and the renames (collective).
  void finish(const Result& result);

 private:
  void write_design(const std::vector<double>& x, const std::string& note);
  void write_history_hdf5(const Result& result);
  std::string prefix_;
  const GradientProblem& problem_;
  const Settings& settings_;
  std::string comment_;
  bool root_;
  RestartWriter restart_;
  RenamedOutput csv_file_, design_file_;
  std::ofstream csv_;
  // optimization.momentum_target_iteration: a column target_iteration, no restart file (--restart is refused).
  bool target_iteration_;
};

}  // namespace flexadj::optimization
