#pragma once
// The restart file of `flexadj optimize` (PREFIX_restart.txt): the optimiser's state after the last accepted
// iterate in exact text (hexadecimal floating point), so that `--restart` continues bit for bit. ROL's methods
// restart by replaying every evaluation so far (RestartState::evaluations); those go to an append-only
// side file (PREFIX_restart.txt.evaluations), written once each, so an iteration costs O(1) file work instead of
// rewriting all evaluations (quadratic in the iteration count: 46-54 % of an 800-iteration crane run went into it).
// The main file is replaced atomically (temporary name, then rename) and names how many evaluations belong to it;
// evaluations appended after it by a run killed before its next rename are ignored.
#include <fstream>
#include <string>

#include "flexadj/optimization/optimizer.hpp"

namespace flexadj::optimization {

class RestartWriter {
 public:
  // `run`: GradientProblem::run_identity() of the run (model file, all values, time grid, ranks).
  RestartWriter(std::string path, std::string method, std::string run);
  // The state after an iterate. The first call replaces the side file (temporary, then rename) by all of
  // s.evaluations (after a --restart it may hold evaluations of the killed run past the last complete state); later
  // calls append the new ones. InputError (the file) if a file cannot be written.
  void write(const RestartState& s);

 private:
  std::string path_, method_, run_;
  std::ofstream evaluations_;
  std::size_t written_ = 0;  // evaluations in the side file
  bool started_ = false;
};

// Reads PREFIX_restart.txt (versions 1 and 2: evaluations inline; 3: in the side file). InputError naming --restart
// for a missing, damaged or foreign file (another run or method, another number of design values).
RestartState read_restart(const std::string& path, const std::string& method, const std::string& run,
                                        int size);

}  // namespace flexadj::optimization
