#include "flexadj/optimization/gradient_problem_function.hpp"

#include <limits>

#include "flexadj/core/initial_state_error.hpp"

namespace flexadj::optimization {

double GradientProblemFunction::value(const std::vector<double>& x) {
  if (forward_valid_ && x == forward_x_) return forward_J_;
  problem_.set_values(x);
  forward_x_ = x;
  ++forward_runs_;
  try {
    GradientEvaluation e = problem_.forward();
    forward_J_ = e.objective;
    forward_c_ = std::move(e.constraints);
    forward_valid_ = true;
  } catch (const InitialStateError&) {
    // The model's own design is an input error; a trial design whose initial state the projection cannot reach
    // is a failed trial point, as a failed Newton iteration is: the line search or trust region steps back.
    if (forward_runs_ == 1) throw;
    forward_valid_ = false;
  } catch (const SolverError&) {
    forward_valid_ = false;
  }
  if (!forward_valid_) forward_J_ = std::numeric_limits<double>::infinity();
  return forward_J_;
}

double GradientProblemFunction::value_and_gradient(const std::vector<double>& x, std::vector<double>& gradient) {
  if (!(gradient_valid_ && x == gradient_x_)) {
    const double J = value(x);
    if (!forward_valid_) throw SolverError("the forward run failed at an accepted iterate; no gradient there");
    ++adjoint_runs_;
    gradient_ = problem_.adjoint().gradient;
    gradient_x_ = x;
    gradient_J_ = J;
    gradient_valid_ = true;
  }
  gradient = gradient_;
  return gradient_J_;
}

void GradientProblemFunction::hessian_vector(const std::vector<double>& x, const std::vector<double>& v,
                                             std::vector<double>& product) {
  value(x);  // the product is taken on the last forward run, which must be at x
  if (!forward_valid_) throw SolverError("the forward run failed at an accepted iterate; no Hessian product there");
  ++hessian_products_;
  product = problem_.hessian_vector(v).product;
}

void GradientProblemFunction::gauss_newton_vector(const std::vector<double>& x, const std::vector<double>& v,
                                                  std::vector<double>& product) {
  value(x);  // the product is taken on the last forward run, which must be at x
  if (!forward_valid_) throw SolverError("the forward run failed at an accepted iterate; no Gauss-Newton product there");
  ++hessian_products_;
  product = problem_.gauss_newton_vector(v);
}

std::size_t GradientProblemFunction::constraint_count() const {
  return problem_.constraints() ? problem_.constraints()->size() : 0;
}

void GradientProblemFunction::constraint_values(const std::vector<double>& x, std::vector<double>& c) {
  value(x);
  if (forward_valid_) c = forward_c_;
  else c.assign(constraint_count(), std::numeric_limits<double>::infinity());
}

void GradientProblemFunction::constraint_adjoint(const std::vector<double>& x, const std::vector<double>& lambda,
                                                 std::vector<double>& product) {
  if (!(x == adjoint_x_ && lambda == adjoint_lambda_)) {
    value(x);  // the sweep runs over the last forward run, which must be at x
    if (!forward_valid_)
      throw SolverError("the forward run failed at an accepted iterate; no constraint gradient there");
    ++constraint_sweeps_;
    ++adjoint_runs_;
    adjoint_product_ = problem_.constraint_adjoint(lambda).gradient;
    adjoint_x_ = x;
    adjoint_lambda_ = lambda;
  }
  product = adjoint_product_;
}

}  // namespace flexadj::optimization
