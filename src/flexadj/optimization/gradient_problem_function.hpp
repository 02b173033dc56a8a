#pragma once
// J and dJ/dx of a GradientProblem as the optimiser's Function, with a cache: a value and a gradient asked for at
// the same x cost one forward run and one adjoint sweep (the trajectory of the forward run is kept for the sweep).
// A design where the forward run fails counts as infinitely bad (the methods shorten the step).
#include <vector>

#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/optimization/optimizer.hpp"

namespace flexadj::optimization {

class GradientProblemFunction : public Function {
 public:
  explicit GradientProblemFunction(GradientProblem& problem) : problem_(problem) {}

  // +infinity where the forward run fails (SolverError).
  double value(const std::vector<double>& x) override;
  // SolverError if the forward run fails at x.
  double value_and_gradient(const std::vector<double>& x, std::vector<double>& gradient) override;
  long forward_runs() const override { return forward_runs_; }
  long adjoint_runs() const override { return adjoint_runs_; }
  // H(x) v by the second-order adjoint (GradientProblem::hessian_vector) on the forward run at x.
  void hessian_vector(const std::vector<double>& x, const std::vector<double>& v,
                      std::vector<double>& product) override;
  // J_r^T J_r v of a least-squares J (GradientProblem::gauss_newton_vector) on the forward run at x.
  void gauss_newton_vector(const std::vector<double>& x, const std::vector<double>& v,
                           std::vector<double>& product) override;
  long hessian_products() const override { return hessian_products_; }
  // Forgets the cached J and gradient: the objective changed (GradientProblem::set_final_square).
  void objective_changed() { forward_valid_ = gradient_valid_ = false; }
  // The model's constraints: values from the forward run at x (+infinity where it fails), J_c^T lambda by one
  // adjoint sweep of sum_i lambda_i c_i over the forward run at x (GradientProblem::constraint_adjoint).
  std::size_t constraint_count() const override;
  void constraint_values(const std::vector<double>& x, std::vector<double>& c) override;
  void constraint_adjoint(const std::vector<double>& x, const std::vector<double>& lambda,
                          std::vector<double>& product) override;
  // The sweeps of constraint_adjoint (adjoint_runs() counts them too).
  long constraint_sweeps() const { return constraint_sweeps_; }

 private:
  GradientProblem& problem_;
  std::vector<double> forward_c_;
  std::vector<double> adjoint_x_, adjoint_lambda_, adjoint_product_;  // the last J_c^T lambda
  long constraint_sweeps_ = 0;
  std::vector<double> forward_x_, gradient_x_, gradient_;
  double forward_J_ = 0.0, gradient_J_ = 0.0;
  bool forward_valid_ = false, gradient_valid_ = false;
  long forward_runs_ = 0, adjoint_runs_ = 0, hessian_products_ = 0;
};

}  // namespace flexadj::optimization
