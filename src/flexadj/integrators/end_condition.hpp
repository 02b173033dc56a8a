#pragma once
// An implicit final time (Bestle and Eberhard 1992, sec. 3: t1 defined by H(t1, y, z, p) = 0): the run ends at the
// first time where H = x - value crosses zero in the given direction, x a quantity named as an objective term names
// it (a coordinate, its rate, the difference of two coordinates, or a sensor of a body). The model file's
// `integrator.end_condition` (docs/model-format.md); simulate() locates the crossing to round-off, the discrete
// adjoint differentiates the located step (docs/adjoint.md, "Implicit final time").
#include <string>
#include <vector>

#include "flexadj/assembly/assembler.hpp"
#include "flexadj/objectives/objective.hpp"

namespace flexadj::integrators {

class EndCondition {
 public:
  enum class Direction { Falling, Rising, Any };
  // quantity: a FinalValue term of weight 1 (its measured quantity x); description for messages, e.g.
  // "v(mass.x) = 0 (falling)".
  EndCondition(const objectives::ObjectiveTerm& quantity, double value, Direction direction, std::string description);

  // H = x - value at a state (collective).
  double residual(const assembly::Assembler& assembler, const assembly::State& state) const;
  // dq += dH/dq, dv += dH/dv on the owned coordinates.
  void add_partials(const assembly::Assembler& assembler, const assembly::State& state, std::vector<double>& dq,
                    std::vector<double>& dv) const;
  // True if H passes from `previous` (at t_{n-1}) to `current` (at t_n) in the condition's direction: a sign change
  // with current == 0 included, previous == 0 excluded (a run that starts on the condition does not stop there).
  bool crossed(double previous, double current) const;

  const objectives::ObjectiveTerm& quantity() const { return objective_.terms().front(); }
  double value() const { return value_; }
  Direction direction() const { return direction_; }
  const std::string& description() const { return description_; }

 private:
  objectives::Objective objective_;  // the one term x
  double value_;
  Direction direction_;
  std::string description_;
};

}  // namespace flexadj::integrators
