#pragma once
// The iteration of the desired end momentum, Schubert et al. 2024, Remark 1 (optimization.momentum_target_iteration).
// The end-momentum term (10e), S_p/2 (p_N - p^N)^2 (the objective's final_square terms on momentum sensors, p^N their
// targets), can make the optimisation unstable. Instead: a sequence of optimisations, each from the design of the one
// before,
//   1          S_p = 0                                         -> p_N^(1)
//   2          S_p, target p~^(2) = p^N                        -> p_N^(2)
//   i = 3..K   S_p, target p~^(i) = p~^(i-1) + (p^N - p_N^(i-1)) -> p_N^(i)
//   final      S_p, the model's target p^N; once |p_N^(i) - p^N| <= tolerance (any i), or after K optimisations.
// RECON: the paper's formula p~^N = p~(p^N, p_N^(i)) is lost in the text. The cumulative correction above keeps a
// target that is reached (p~(p^N, p^N) = p^N) and moves it against the remaining error. The S_p = 0 optimisation aimed
// at no momentum, so it gives no correction: on the swing-up (docs/results.md) the correction from it,
// p~ = 2 p^N - p_N^(1), asked for the reversed momentum and took 1000 iterations.
#include <functional>
#include <string>
#include <vector>

#include "flexadj/gradient/gradient_problem.hpp"
#include "flexadj/optimization/gradient_problem_function.hpp"
#include "flexadj/optimization/optimizer.hpp"
#include "flexadj/problem/optimization_settings.hpp"

namespace flexadj::optimization {

// One optimisation of the iteration. Vectors: one entry per end-momentum term, in the objective's order.
struct MomentumTargetStep {
  int optimisation = 0;           // 1, 2, ...
  bool final = false;             // with the model's target p^N
  bool momentum_weighted = true;  // false for the first: S_p = 0
  std::vector<double> target;     // p~^N (the final one: p^N)
  std::vector<double> design;     // its result (after it)
  std::vector<double> momentum;   // p_N there
  double distance = 0.0;          // |p_N - p^N| (after it)
  double objective = 0.0;         // J of this optimisation at its result
  double model_objective = 0.0;   // J with the model's S_p and p^N at that design
  int iterations = 0;
  std::string stop_reason;
};

struct MomentumTargetResult {
  // The final optimisation's result; its history holds the iterates of all optimisations (Iteration::
  // target_iteration says whose).
  Result result;
  std::vector<MomentumTargetStep> steps;
  std::vector<double> desired;  // p^N
  bool reached = false;         // |p_N - p^N| <= tolerance before the final optimisation
};

// The objective's end-momentum terms: the indices of its final_square terms on momentum sensors.
std::vector<std::size_t> end_momentum_terms(const std::vector<objectives::ObjectiveTerm>& terms);

// p~ += p^N - p_N (the RECON update above).
void update_momentum_target(const std::vector<double>& desired, const std::vector<double>& reached,
                            std::vector<double>& target);

// The values of the given momentum terms at the end of the last forward run of `problem` (collective).
std::vector<double> end_momentum(GradientProblem& problem, const std::vector<std::size_t>& terms);

// Called before an optimisation (momentum, distance, objectives not yet set) and after it.
struct MomentumTargetReport {
  std::function<void(const MomentumTargetStep&)> starting, finished;
};

// Runs the iteration from x0 with `settings` for every optimisation; `observer` sees every accepted iterate. Leaves the
// problem's objective as the model file has it. std::invalid_argument without an end-momentum term or with
// iteration.iterations < 1 or iteration.tolerance <= 0. Collective.
MomentumTargetResult iterate_momentum_target(GradientProblem& problem, GradientProblemFunction& function,
                                             const std::vector<double>& x0, const Settings& settings,
                                             const problem::MomentumTargetIteration& iteration,
                                             const Observer& observer, const MomentumTargetReport& report = {});

}  // namespace flexadj::optimization
