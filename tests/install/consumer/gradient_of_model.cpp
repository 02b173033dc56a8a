// A program built against the installed flexadj package: J and the gradient of a model file's objective with
// respect to its design variables, printed as `name value gradient` lines like `flexadj gradient -o FILE.csv`.
// Usage: gradient_of_model MODEL.yaml [KEY=VALUE ...]
#include <Tpetra_Core.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "flexadj/core/error.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/io/problem_reader.hpp"

int main(int argc, char** argv) {
  Tpetra::ScopeGuard scope(&argc, &argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: gradient_of_model MODEL.yaml [KEY=VALUE ...]\n");
    return 2;
  }
  const auto comm = Tpetra::getDefaultComm();
  try {
    const std::vector<std::string> overrides(argv + 2, argv + argc);
    flexadj::GradientProblem problem(flexadj::io::read_problem_file(argv[1], overrides), comm, "gradient_of_model");
    problem.set_progress(false);
    const flexadj::GradientEvaluation e = problem.evaluate(true);
    if (comm->getRank() == 0) {
      std::printf("J %.17g\n", e.objective);
      const std::vector<std::string>& names = problem.design().names();
      const std::vector<double> values = problem.values();
      for (std::size_t i = 0; i < names.size(); ++i)
        std::printf("%s,%.17g,%.17g\n", names[i].c_str(), values[i], e.gradient[i]);
    }
  } catch (const flexadj::InputError& error) {
    if (comm->getRank() == 0) std::fprintf(stderr, "%s\n", error.what());
    return 2;
  }
  return 0;
}
