#include "flexadj/optimization/design_settings.hpp"

#include <algorithm>
#include <limits>

#include "flexadj/objectives/constraint_set.hpp"

namespace flexadj::optimization {

std::vector<double> design_metric(const problem::DesignSpace& design, const model::Model& model) {
  std::vector<double> w(design.size(), 1.0);
  for (const auto& e : design.entries()) {
    if (e.kind != problem::DesignSpace::Kind::Control) continue;
    const auto& t = model.find_control(e.control)->times();
    if (t.size() < 2) continue;
    for (std::size_t k = 0; k < t.size(); ++k)
      w[e.offset + k] = 0.5 * ((k + 1 < t.size() ? t[k + 1] : t[k]) - (k > 0 ? t[k - 1] : t[k]));
  }
  return w;
}

Settings design_settings(const problem::Problem& problem, const problem::DesignSpace& design) {
  const problem::OptimizationSettings& m = problem.optimization;
  Settings s;
  s.method = m.method;
  s.max_iterations = m.max_iterations;
  s.gradient_tolerance = m.gradient_tolerance;
  s.relative_gradient_tolerance = m.relative_gradient_tolerance;
  s.objective_tolerance = m.objective_tolerance;
  s.objective_target = m.objective_target;
  s.step_fraction = m.step_fraction;
  s.armijo = m.line_search == "armijo";
  s.lbfgs_memory = m.lbfgs_memory;
  s.trust_radius = m.trust_radius;
  s.krylov_tolerance = m.krylov_tolerance;
  s.nonmonotone_memory = m.nonmonotone_memory;
  s.metric = design_metric(design, *problem.model);
  s.constraint_tolerance = m.constraint_tolerance;
  if (!problem.constraints.empty()) {
    const objectives::ConstraintSet constraints(problem.constraints, problem.integrator.step_count());
    s.constraint_lower = constraints.lower();
    s.constraint_upper = constraints.upper();
  }
  if (!m.bounds.empty() || design.has_final_time()) {
    const int n = design.size();
    s.lower.assign(n, -std::numeric_limits<double>::infinity());
    s.upper.assign(n, std::numeric_limits<double>::infinity());
    for (const auto& bound : m.bounds)
      for (const auto& e : design.entries())
        if (e.name == bound.variable)
          for (int k = e.offset; k < e.offset + e.size; ++k) {
            s.lower[k] = bound.lower;
            s.upper[k] = bound.upper;
          }
    // A free final time stays after the start: an implicit lower bound t0 + kFinalTimeMargin (t1 - t0) of the
    // problem as given (the forward run would otherwise integrate backwards).
    const auto& run = problem.integrator;
    for (const auto& e : design.entries())
      if (e.kind == problem::DesignSpace::Kind::FinalTime)
        s.lower[e.offset] = std::max(s.lower[e.offset],
                                     run.start_time + kFinalTimeMargin * (run.end_time - run.start_time));
  }
  return s;
}

}  // namespace flexadj::optimization
