#pragma once
// The files of `flexadj gradient` (docs/user-guide.md): a CSV table name,value,gradient of the design scalars and an
// HDF5 file with J, the design and each control's values and gradient over its times. Both are written under
// temporary names and renamed when complete, so a failed run leaves earlier files as they were.
#include <memory>
#include <string>
#include <vector>

#include "flexadj/core/renamed_output.hpp"
#include "flexadj/core/tpetra_types.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/results/hdf5_results_file.hpp"

namespace flexadj {

// A text field of a CSV file: quoted (with doubled quotes) if it holds a comma or a quote.
std::string csv_field(const std::string& text);

class GradientFiles {
 public:
  // Either path may be empty (no such file). Collective; before the computation, so that a file that cannot be
  // written fails early: InputError naming the file and its option (-o, --h5).
  GradientFiles(const std::string& csv_path, const std::string& h5_path, const Comm& comm);
  ~GradientFiles();
  // Writes J, the design values and the gradient of the last evaluation, and renames the files (collective).
  void write(const GradientProblem& problem, double objective, const std::vector<double>& gradient);

 private:
  void write_csv(const GradientProblem& problem, const std::vector<double>& gradient);
  void write_hdf5(const GradientProblem& problem, double objective, const std::vector<double>& gradient);
  const Comm& comm_;
  RenamedOutput csv_, h5_;
  std::unique_ptr<results::ResultsFile> h5_file_;
};

}  // namespace flexadj
