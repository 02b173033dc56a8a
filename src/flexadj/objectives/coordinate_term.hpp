#pragma once
// A term of an objective on one coordinate (or its rate) of the discrete trajectory.
#include "flexadj/functions/expression.hpp"

namespace flexadj::objectives {

struct CoordinateTerm {
  enum class Kind {
    FinalValue,   // weight * x(t_N)
    FinalSquare,  // weight/2 * (x(t_N) - target)^2
    Tracking      // weight/2 * integral of (x(t) - reference(t))^2 dt
  };
  enum class Quantity { Position, Velocity };
  Kind kind = Kind::FinalValue;
  Quantity quantity = Quantity::Position;
  long long coordinate = 0;  // global coordinate id
  double weight = 1.0;
  double target = 0.0;
  functions::Expression reference;
};

}  // namespace flexadj::objectives
