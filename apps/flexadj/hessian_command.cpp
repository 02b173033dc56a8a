// flexadj hessian: Hessian-vector products of a model file's objective by the second-order adjoint
// (GradientProblem::hessian_vector): the whole Hessian by one product per design scalar, or one product.
#include <Teuchos_CommHelpers.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "adjoint_options.hpp"
#include "commands.hpp"
#include "flexadj/core/mpi_comm.hpp"
#include "flexadj/core/renamed_output.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/io/direction_file.hpp"
#include "flexadj/io/problem_reader.hpp"

namespace flexadj::app {
namespace {

struct HessianOptions {
  std::string model_path, csv_path, direction_path;
  std::vector<std::string> overrides;
  AdjointSettings adjoint;
  bool quiet = false;
};

HessianOptions parse(const std::vector<std::string>& arguments) {
  HessianOptions options;
  auto value_of = [&](std::size_t& i) -> const std::string& {
    if (i + 1 >= arguments.size()) throw InputError("", arguments[i], "option needs a value; see 'flexadj hessian --help'");
    return arguments[++i];
  };
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    if (a == "-o" || a == "--output") options.csv_path = value_of(i);
    else if (a == "--direction") options.direction_path = value_of(i);
    else if (a == "--set") options.overrides.push_back(value_of(i));
    else if (read_trajectory_option(arguments, i, options.adjoint)) continue;
    else if (a == "-q" || a == "--quiet") options.quiet = true;
    else if (!a.empty() && a[0] == '-') throw InputError("", a, "unknown option; see 'flexadj hessian --help'");
    else if (options.model_path.empty()) options.model_path = a;
    else throw InputError("", a, "unexpected argument (one model file only)");
  }
  if (options.model_path.empty()) throw InputError("", "", "missing MODEL.yaml; see 'flexadj hessian --help'");
  return options;
}

std::string quoted(const std::string& text) {
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string hessian_help() {
  return "usage: flexadj hessian MODEL.yaml [options]\n"
         "\n"
         "Hessian-vector products H v of the discrete objective J of MODEL.yaml in its design variables, exact\n"
         "(the second-order adjoint: a tangent-linear sweep along v, then the adjoint sweep differentiated along\n"
         "it; docs/adjoint.md). Without --direction the whole Hessian, one product per design scalar; with it,\n"
         "the one product. So far: integrator generalized_alpha or hht, fixed steps, the trajectory in memory;\n"
         "with joints the force elements' parameters and control values only (others: exit 2).\n"
         "\n"
         "options:\n"
         "  -o, --output FILE.csv  the Hessian as rows row,column,value (design scalars named as by\n"
         "                         'flexadj gradient -o'), or with --direction the product as name,value,product\n"
         "                         (value: the design value)\n"
         "  --direction FILE.csv   v: a CSV name,value with one line per design scalar\n"
         "  --set KEY=VALUE        override a model-file value (repeatable)\n"
         + trajectory_options_help() +
         "  -q, --quiet            print nothing (files only)\n"
         "  -h, --help             this text\n"
         "\n"
         "Exit codes: 0 success, 2 bad input (also: no second-order adjoint for the model), 3 the solver failed.\n";
}

int hessian_command(const std::vector<std::string>& arguments, RCP<const Comm> comm) {
  const bool root = comm->getRank() == 0;
  if (wants_help(arguments, hessian_help(), root)) return kSuccess;
  const HessianOptions options = parse(arguments);
  GradientProblem problem(io::read_problem_file(options.model_path, options.overrides), comm, "hessian");
  problem.set_adjoint(options.adjoint);
  problem.check_second_order();
  refuse_overwriting_input(options.csv_path, options.model_path, "-o");
  const std::vector<std::string> names = problem.design().names();
  const std::size_t n = names.size();
  const bool one = !options.direction_path.empty();
  const std::vector<double> direction = one ? io::read_direction(options.direction_path, names) : std::vector<double>();
  RenamedOutput csv(options.csv_path, raw_mpi_comm(*comm));
  const GradientEvaluation forward = problem.forward();
  // Column j of H (the whole Hessian) or the one product.
  std::vector<std::vector<double>> products;
  double seconds = 0.0;
  for (std::size_t j = 0; j < (one ? 1 : n); ++j) {
    std::vector<double> v = one ? direction : std::vector<double>(n, 0.0);
    if (!one) v[j] = 1.0;
    const HessianVectorEvaluation e = problem.hessian_vector(v);
    products.push_back(e.product);
    seconds += e.seconds;
  }
  const std::vector<double> values = problem.values();
  if (!options.csv_path.empty()) {  // rank 0 writes; every rank learns whether it could, then the rename
    int written = 0;
    if (root) {
      std::ofstream out(csv.temporary());
      out.precision(17);
      out << (one ? "name,value,product\n" : "row,column,value\n");
      for (std::size_t i = 0; i < n; ++i) {
        if (one) out << quoted(names[i]) << ',' << values[i] << ',' << products[0][i] << '\n';
        else
          for (std::size_t j = 0; j < n; ++j) out << quoted(names[i]) << ',' << quoted(names[j]) << ',' << products[j][i] << '\n';
      }
      out.close();
      written = static_cast<bool>(out);
    }
    Teuchos::broadcast(*comm, 0, &written);
    if (!written) throw OutputError(csv.path() + ": writing the CSV file failed (does its folder exist?)");
  }
  if (!options.csv_path.empty()) csv.commit();
  if (root && !options.quiet) {
    std::printf("flexadj hessian %s: J = %.15g, %zu design scalar(s), %zu product(s)\n", options.model_path.c_str(),
                forward.objective, n, products.size());
    double asymmetry = 0.0, largest = 0.0;
    for (std::size_t i = 0; !one && i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        asymmetry = std::max(asymmetry, std::abs(products[j][i] - products[i][j]));
        largest = std::max(largest, std::abs(products[j][i]));
      }
    if (!one) std::printf("symmetry  max |H_ij - H_ji| = %.3g (max |H_ij| = %.6g)\n", asymmetry, largest);
    for (std::size_t i = 0; one && i < n && i < 20; ++i)
      std::printf("  %-24s  %.15g\n", names[i].c_str(), products[0][i]);
    std::printf("timing  forward %.3f s, %.3f s per product (%.2f forward runs)\n", forward.forward_seconds,
                seconds / double(products.size()),
                forward.forward_seconds > 0.0 ? seconds / double(products.size()) / forward.forward_seconds : 0.0);
    if (!options.csv_path.empty()) std::printf("output  %s\n", options.csv_path.c_str());
  }
  return kSuccess;
}

}  // namespace flexadj::app
