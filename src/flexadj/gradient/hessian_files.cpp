#include "flexadj/gradient/hessian_files.hpp"

#include <Teuchos_CommHelpers.hpp>
#include <fstream>

#include "flexadj/core/error.hpp"
#include "flexadj/core/mpi_comm.hpp"
#include "flexadj/core/renamed_output.hpp"
#include "flexadj/gradient/gradient_files.hpp"

namespace flexadj {

HessianProducts hessian_products(GradientProblem& problem, const std::vector<double>* direction) {
  HessianProducts h;
  h.one_direction = direction != nullptr;
  const GradientEvaluation forward = problem.forward();
  h.objective = forward.objective;
  h.forward_seconds = forward.forward_seconds;
  const std::size_t n = static_cast<std::size_t>(problem.design().size());
  for (std::size_t j = 0; j < (direction ? 1 : n); ++j) {
    std::vector<double> v = direction ? *direction : std::vector<double>(n, 0.0);
    if (!direction) v[j] = 1.0;
    const HessianVectorEvaluation e = problem.hessian_vector(v);
    h.columns.push_back(e.product);
    h.product_seconds += e.seconds;
  }
  return h;
}

void write_hessian_csv(const std::string& path, const GradientProblem& problem, const HessianProducts& h) {
  const Comm& comm = *problem.comm();
  RenamedOutput csv(path, raw_mpi_comm(comm));
  const std::vector<std::string> names = problem.design().names();
  const std::vector<double> values = problem.values();
  int written = 0;
  if (comm.getRank() == 0) {
    std::ofstream out(csv.temporary());
    out.precision(17);
    out << (h.one_direction ? "name,value,product\n" : "row,column,value\n");
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (h.one_direction) {
        out << csv_field(names[i]) << ',' << values[i] << ',' << h.columns[0][i] << '\n';
        continue;
      }
      for (std::size_t j = 0; j < names.size(); ++j)
        out << csv_field(names[i]) << ',' << csv_field(names[j]) << ',' << h.columns[j][i] << '\n';
    }
    out.close();
    written = static_cast<bool>(out);
  }
  Teuchos::broadcast(comm, 0, &written);
  if (!written) throw OutputError(path + ": writing the CSV file failed (does its folder exist?)");
  csv.commit();
}

}  // namespace flexadj
