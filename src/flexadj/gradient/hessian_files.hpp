#pragma once
// The Hessian of `flexadj hessian` (docs/user-guide.md): H v for one direction, or the whole H by one product per
// design scalar (column j = H e_j), and its CSV file: rows row,column,value, or name,value,product for one direction.
#include <string>
#include <vector>

#include "flexadj/gradient/gradient_problem.hpp"

namespace flexadj {

struct HessianProducts {
  bool one_direction = false;
  std::vector<std::vector<double>> columns;  // H v, or H e_0, H e_1, ...
  double forward_seconds = 0.0, product_seconds = 0.0;  // the forward run; all products
  double objective = 0.0;
};

// At the current design values: one forward run, then H v (`direction` given) or every column of H. Collective.
HessianProducts hessian_products(GradientProblem& problem, const std::vector<double>* direction);

// Rank 0 writes `path` (temporary name, renamed when complete; collective). OutputError if it cannot.
void write_hessian_csv(const std::string& path, const GradientProblem& problem, const HessianProducts& products);

}  // namespace flexadj
