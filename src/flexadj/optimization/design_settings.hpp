#pragma once
// The optimiser's settings for a gradient problem: the model file's `optimization` section (method, stopping
// rules, bounds per design variable) on the scalars of its DesignSpace, with the metric of the gradient method.
#include <vector>

#include "flexadj/optimization/optimizer.hpp"
#include "flexadj/problem/design_space.hpp"
#include "flexadj/problem/problem.hpp"

namespace flexadj::optimization {

// One quadrature weight per design scalar: the trapezoidal weight of a control value on its grid, 1 for a
// parameter or initial value (the metric of Nachbagauer et al. 2015, eq. (57) versus eq. (56)).
std::vector<double> design_metric(const problem::DesignSpace& design, const model::Model& model);

// A free final time (design variable integrator.end_time) is bounded below by t0 + this fraction of t1 - t0.
inline constexpr double kFinalTimeMargin = 1e-3;

// The settings of problem.optimization for the scalars of `design`; bounds of a control apply to all its values;
// a free final time gets the lower bound t0 + kFinalTimeMargin (t1 - t0) (or the model's, if higher).
Settings design_settings(const problem::Problem& problem, const problem::DesignSpace& design);

}  // namespace flexadj::optimization
