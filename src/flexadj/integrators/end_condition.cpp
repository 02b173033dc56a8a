#include "flexadj/integrators/end_condition.hpp"

namespace flexadj::integrators {

EndCondition::EndCondition(const objectives::ObjectiveTerm& quantity, double value, Direction direction,
                           std::string description)
    : value_(value), direction_(direction), description_(std::move(description)) {
  objectives::ObjectiveTerm term = quantity;
  term.kind = objectives::ObjectiveTerm::Kind::FinalValue;
  term.weight = 1.0;
  objective_.add(term);
}

double EndCondition::residual(const assembly::Assembler& assembler, const assembly::State& state) const {
  return objective_.terminal_value(assembler, state) - value_;
}

void EndCondition::add_partials(const assembly::Assembler& assembler, const assembly::State& state,
                                std::vector<double>& dq, std::vector<double>& dv) const {
  objective_.add_terminal_partials(assembler, state, dq, dv);
}

bool EndCondition::crossed(double previous, double current) const {
  const bool falling = previous > 0.0 && current <= 0.0, rising = previous < 0.0 && current >= 0.0;
  switch (direction_) {
    case Direction::Falling: return falling;
    case Direction::Rising: return rising;
    case Direction::Any: return falling || rising;
  }
  return false;
}

}  // namespace flexadj::integrators
