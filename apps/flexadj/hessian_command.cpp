// flexadj hessian: Hessian-vector products of a model file's objective by the second-order adjoint
// (GradientProblem::hessian_vector): the whole Hessian by one product per design scalar, or one product.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "adjoint_options.hpp"
#include "commands.hpp"
#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/gradient/hessian_files.hpp"
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

}  // namespace

std::string hessian_help() {
  return "usage: flexadj hessian MODEL.yaml [options]\n"
         "\n"
         "Hessian-vector products H v of the discrete objective J of MODEL.yaml in its design variables, exact\n"
         "(the second-order adjoint: a tangent-linear sweep along v, then the adjoint sweep differentiated along\n"
         "it; docs/adjoint.md). Without --direction the whole Hessian, one product per design scalar; with it,\n"
         "the one product. The tangent states wait for the backward sweep where the forward states do: in\n"
         "memory, in a second HDF5 file beside the trajectory file (MODEL.trajectory.tangents.h5, removed at\n"
         "the end), or recomputed with the forward states from checkpoints that hold both (twice the memory\n"
         "per checkpoint, so half as many under --memory-limit; disk checkpoints in FOLDER/tangents).\n"
         "So far: integrator generalized_alpha, hht or variational (absolute coordinates), fixed steps; with\n"
         "joints the force elements' parameters and control values only (others: exit 2).\n"
         "\n"
         "options:\n"
         "  -o, --output FILE.csv  the Hessian as rows row,column,value (design scalars named as by\n"
         "                         'flexadj gradient -o'), or with --direction the product as name,value,product\n"
         "                         (value: the design value)\n"
         "  --direction FILE.csv   v: a CSV name,value with one line per design scalar\n"
         "  --set KEY=VALUE        override a model-file value (repeatable)\n"
         "  -q, --quiet            print nothing (files only)\n"
         + trajectory_options_help() +
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
  const HessianProducts h = hessian_products(problem, one ? &direction : nullptr);
  const std::vector<std::vector<double>>& products = h.columns;
  if (!options.csv_path.empty()) write_hessian_csv(options.csv_path, problem, h);
  if (root && !options.quiet) {
    std::printf("flexadj hessian %s: J = %.15g, %zu design scalar(s), %zu product(s)\n", options.model_path.c_str(),
                h.objective, n, products.size());
    double asymmetry = 0.0, largest = 0.0;
    for (std::size_t i = 0; !one && i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        asymmetry = std::max(asymmetry, std::abs(products[j][i] - products[i][j]));
        largest = std::max(largest, std::abs(products[j][i]));
      }
    if (!one) std::printf("symmetry  max |H_ij - H_ji| = %.3g (max |H_ij| = %.6g)\n", asymmetry, largest);
    for (std::size_t i = 0; one && i < n && i < 20; ++i)
      std::printf("  %-24s  %.15g\n", names[i].c_str(), products[0][i]);
    const double per_product = h.product_seconds / double(products.size());
    std::printf("timing  forward %.3f s, %.3f s per product (%.2f forward runs)\n", h.forward_seconds, per_product,
                h.forward_seconds > 0.0 ? per_product / h.forward_seconds : 0.0);
    if (!options.csv_path.empty()) std::printf("output  %s\n", options.csv_path.c_str());
  }
  return kSuccess;
}

}  // namespace flexadj::app
