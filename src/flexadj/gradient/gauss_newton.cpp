// GradientProblem::gauss_newton_vector (gradient_problem.hpp): the Gauss-Newton product J_r^T J_r v of a
// least-squares objective (adjoint/gauss_newton.hpp), the design scalars mapped as for hessian_vector.
#include <stdexcept>

#include "flexadj/adjoint/gauss_newton.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/gradient/gradient_problem.hpp"

namespace flexadj {

void GradientProblem::check_gauss_newton() const {
  // The tangent-linear sweep is the second-order adjoint's: the same integrators, storage and design.
  check_second_order();
  const std::string refusal = objectives::Objective(problem_.objective_terms).least_squares_refusal();
  if (!refusal.empty())
    throw InputError(problem_.model->source_file, "objective",
                     "'flexadj " + command_ + "' with Gauss-Newton products needs a least-squares objective, a sum "
                     "of weighted squares w/2 r^2 with w >= 0; " + refusal);
}

std::vector<double> GradientProblem::gauss_newton_vector(const std::vector<double>& v) {
  check_gauss_newton();
  if (!recorded_) throw std::logic_error("GradientProblem::gauss_newton_vector() without a complete forward run");
  if (v.size() != static_cast<std::size_t>(design_.size()))
    throw std::invalid_argument("GradientProblem::gauss_newton_vector: " + std::to_string(v.size()) +
                                " values for " + std::to_string(design_.size()) + " design scalars");
  const objectives::Objective objective(problem_.objective_terms);
  return design_.gradient(adjoint::gauss_newton_product(*assembler_, *integrator_, *trajectory_, objective,
                                                        design_.parameters(), direction_of(v),
                                                        tangent_checkpoints()));
}

}  // namespace flexadj
