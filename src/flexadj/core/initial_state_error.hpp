#pragma once
// A given initial state too far from the constraints to be projected (TimeIntegrator::project_initial_state): an
// input error of the model file (exit code 2). An optimiser's trial design that moves initial positions, velocities
// or joint parameters that far is a point where the forward run fails instead
// (optimization/gradient_problem_function.cpp).
#include "flexadj/core/error.hpp"

namespace flexadj {

class InitialStateError : public InputError {
 public:
  using InputError::InputError;
};

}  // namespace flexadj
