#pragma once
// A constraint of an optimisation (the model file's `constraints` section): a quantity of the discrete trajectory
// held at a value or within bounds. The quantity is one of the objective's terms with weight 1:
//   FinalValue     x(t_N) of a coordinate, a joint coordinate (relative_to) or a sensor;
//   StepSum        x(t_n) at every step n = 0 .. N (a path constraint: N + 1 values);
//   ControlEffort  (1/2) int u^2 dt of a control signal (trapezoidal rule);
//   FinalTime      t_N.
#include <limits>
#include <string>

#include "flexadj/objectives/objective_term.hpp"

namespace flexadj::objectives {

struct ConstraintTerm {
  ObjectiveTerm measured;  // its kind says which of the quantities above; weight 1
  double lower = -std::numeric_limits<double>::infinity();
  double upper = std::numeric_limits<double>::infinity();  // equal: lower == upper
  std::string key;         // "constraints[2]", for messages and reports
  bool path() const { return measured.kind == ObjectiveTerm::Kind::StepSum; }
  bool equality() const { return lower == upper; }
};

}  // namespace flexadj::objectives
