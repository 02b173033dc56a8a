#pragma once
// flexadj.Problem: the gradient problem of a model file (flexadj::GradientProblem) seen from Python. Every method
// takes the design values x (default: the model file's, after the overrides) and is collective: under MPI every
// rank calls it with the same x and gets the same, replicated result.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flexadj/gradient/gradient_problem.hpp"
#include "runtime.hpp"

namespace flexadj::python {

// The forward run of one simulate(): step times and the global q, v of every step, row-major (steps x n).
struct SimulatedRun {
  std::vector<double> time, q, v;
  long long coordinates = 0;
  std::vector<std::string> coordinate_names;
};

class Problem final : public Releasable {
 public:
  // overrides: "key.path=value" strings, as the command line's --set.
  Problem(const std::string& path, const std::vector<std::string>& overrides);

  const std::vector<std::string>& design_names() const { return names_; }
  const std::vector<double>& design_values() const { return file_values_; }
  // Lower and upper bound of every design scalar (the model's optimization.bounds; +-infinity where none).
  std::pair<std::vector<double>, std::vector<double>> bounds();
  const std::string& model_file() const { return model_file_; }
  // The times of the values of control signal `name` (InputError if there is none).
  std::vector<double> control_times(const std::string& name);

  double objective(const std::optional<std::vector<double>>& x);
  std::pair<double, std::vector<double>> gradient(const std::optional<std::vector<double>>& x);
  SimulatedRun simulate(const std::optional<std::vector<double>>& x);
  // H v at x by the second-order adjoint (GradientProblem::hessian_vector; InputError where the model has none).
  std::vector<double> hessian_vector(const std::optional<std::vector<double>>& x, const std::vector<double>& v);
  // Writes the forward run at x as HDF5 + XDMF, like `flexadj simulate -o` (runs it unless it is the last run).
  void write_trajectory(const std::vector<double>& x, const std::string& path, bool xdmf);

  void release() override { problem_.reset(); }

 private:
  GradientProblem& problem();
  // Sets x (if it differs from the values set) and returns it; ValueError-worthy sizes throw InputError.
  const std::vector<double>& use(const std::optional<std::vector<double>>& x);
  // forward() at the values set, remembered as the last run.
  GradientEvaluation forward();

  std::unique_ptr<GradientProblem> problem_;
  std::string model_file_;
  std::vector<std::string> names_;
  std::vector<double> file_values_, current_;
  std::optional<std::vector<double>> last_run_;  // the values of the last forward run, if its trajectory is kept
};

}  // namespace flexadj::python
