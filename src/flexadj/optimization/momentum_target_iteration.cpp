#include "flexadj/optimization/momentum_target_iteration.hpp"

#include <cmath>
#include <stdexcept>

#include "flexadj/objectives/objective.hpp"

namespace flexadj::optimization {
namespace {

using objectives::ObjectiveTerm;

double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k) sum += (a[k] - b[k]) * (a[k] - b[k]);
  return std::sqrt(sum);
}

// sum_k w_k/2 (p_k - target_k)^2: the end-momentum terms' part of J.
double momentum_part(const std::vector<double>& weights, const std::vector<double>& momentum,
                     const std::vector<double>& target) {
  double sum = 0.0;
  for (std::size_t k = 0; k < weights.size(); ++k)
    sum += 0.5 * weights[k] * (momentum[k] - target[k]) * (momentum[k] - target[k]);
  return sum;
}

}  // namespace

std::vector<std::size_t> end_momentum_terms(const std::vector<ObjectiveTerm>& terms) {
  std::vector<std::size_t> found;
  for (std::size_t i = 0; i < terms.size(); ++i)
    if (terms[i].kind == ObjectiveTerm::Kind::FinalSquare && terms[i].on_momentum()) found.push_back(i);
  return found;
}

void update_momentum_target(const std::vector<double>& desired, const std::vector<double>& reached,
                            std::vector<double>& target) {
  for (std::size_t k = 0; k < target.size(); ++k) target[k] += desired[k] - reached[k];
}

std::vector<double> end_momentum(GradientProblem& problem, const std::vector<std::size_t>& terms) {
  // Each term as weight * x(t_N) with weight 1: its measured value.
  std::vector<objectives::Objective> probes(terms.size());
  for (std::size_t k = 0; k < terms.size(); ++k) {
    ObjectiveTerm probe = problem.problem().objective_terms.at(terms[k]);
    probe.kind = ObjectiveTerm::Kind::FinalValue;
    probe.weight = 1.0;
    probes[k].add(probe);
  }
  std::vector<double> momentum(terms.size(), 0.0);
  const long long last = static_cast<long long>(problem.step_times().size()) - 1;
  problem.replay_trajectory([&](long long n, double, const assembly::State& state) {
    if (n != last) return;
    for (std::size_t k = 0; k < terms.size(); ++k) momentum[k] = probes[k].terminal_value(problem.assembler(), state);
  });
  return momentum;
}

MomentumTargetResult iterate_momentum_target(GradientProblem& problem, GradientProblemFunction& function,
                                             const std::vector<double>& x0, const Settings& settings,
                                             const problem::MomentumTargetIteration& iteration,
                                             const Observer& observer, const MomentumTargetReport& report) {
  const std::vector<std::size_t> terms = end_momentum_terms(problem.problem().objective_terms);
  if (terms.empty())
    throw std::invalid_argument("momentum_target_iteration: the objective has no final_square term on a momentum");
  if (iteration.iterations < 1 || !(iteration.tolerance > 0.0))
    throw std::invalid_argument("momentum_target_iteration: needs iterations >= 1 and tolerance > 0");
  MomentumTargetResult out;
  std::vector<double> weights;
  for (std::size_t i : terms) {
    weights.push_back(problem.problem().objective_terms[i].weight);
    out.desired.push_back(problem.problem().objective_terms[i].target);
  }
  std::vector<double> target = out.desired, x = x0;
  std::vector<Iteration> history;
  double seconds = 0.0;  // of the optimisations before
  bool final = false;
  for (int i = 1;; ++i) {
    MomentumTargetStep step;
    step.optimisation = i;
    step.final = final;
    step.momentum_weighted = i > 1 || final;
    step.target = final ? out.desired : target;
    std::vector<double> run_weights(weights.size(), 0.0);
    if (step.momentum_weighted) run_weights = weights;
    for (std::size_t k = 0; k < terms.size(); ++k) problem.set_final_square(terms[k], run_weights[k], step.target[k]);
    function.objective_changed();
    if (report.starting) report.starting(step);
    const Observer numbered = [&](const Iteration& it, const std::vector<double>& xi, const RestartState& state) {
      Iteration record = it;
      record.target_iteration = i;
      record.seconds += seconds;
      history.push_back(record);
      if (observer) observer(record, xi, state);
    };
    Result result;
    try {
      result = minimize(function, x, settings, numbered);
    } catch (...) {  // the model's objective again
      for (std::size_t k = 0; k < terms.size(); ++k) problem.set_final_square(terms[k], weights[k], out.desired[k]);
      function.objective_changed();
      throw;
    }
    function.value(result.x);  // the forward run at the result (from the cache if it was the last)
    step.design = result.x;
    step.momentum = end_momentum(problem, terms);
    step.distance = distance(step.momentum, out.desired);
    step.objective = result.objective;
    step.model_objective = result.objective - momentum_part(run_weights, step.momentum, step.target) +
                           momentum_part(weights, step.momentum, out.desired);
    step.iterations = result.iterations;
    step.stop_reason = result.stop_reason;
    if (report.finished) report.finished(step);
    out.steps.push_back(step);
    x = result.x;
    if (!history.empty()) seconds = history.back().seconds;
    if (final) {
      out.result = std::move(result);
      out.result.history = std::move(history);
      return out;
    }
    if (step.distance <= iteration.tolerance) {
      out.reached = true;
      final = true;
    } else if (i >= iteration.iterations) {
      final = true;
    } else if (step.momentum_weighted) {  // the first (S_p = 0) did not aim at a target: no correction from it
      update_momentum_target(out.desired, step.momentum, target);
    }
  }
}

}  // namespace flexadj::optimization
