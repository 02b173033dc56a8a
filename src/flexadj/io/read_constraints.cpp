// The `constraints` section of a model file (flexadj optimize): each entry a quantity of the objective's kinds
// with exactly one of `equal`, `upper`, `lower`, or `lower` and `upper` for a range.
#include "flexadj/io/reader.hpp"

namespace flexadj::io::reader {

void Reader::read_constraints(const Value& list) {
  const std::size_t n =
      list.list_size("a list of constraints such as {type: final_value, coordinate: mass.x, equal: 1}");
  for (std::size_t i = 0; i < n; ++i) {
    problem_.constraints.push_back(read_constraint(list.item(i)));
    problem_.constraints.back().key = list.item(i).path();
  }
}

objectives::ConstraintTerm Reader::read_constraint(const Value& v) const {
  using Term = objectives::ObjectiveTerm;
  const Keys bounds = {"equal", "lower", "upper"};
  auto with_bounds = [&](Keys keys) {
    keys.insert(keys.end(), bounds.begin(), bounds.end());
    return keys;
  };
  const std::string type = typed_entry(
      v, {{"final_value", with_bounds({"type", "coordinate", "sensor", "relative_to", "quantity"})},
          {"path", with_bounds({"type", "coordinate", "sensor", "relative_to", "quantity", "control"})},
          {"control_effort", with_bounds({"type", "control"})},
          {"final_time", with_bounds({"type"})}});
  objectives::ConstraintTerm c;
  Term& term = c.measured;
  if (type == "final_time") {
    term.kind = Term::Kind::FinalTime;
  } else if (type == "control_effort") {
    term.kind = Term::Kind::ControlEffort;
    const Value control = v.at("control");
    term.control = control.text();
    if (!model_.find_control(term.control)) control.fail("unknown control '" + term.control + "'");
  } else {
    if (v.has("control"))
      v.at("control").fail("a control signal is piecewise linear between its values: bound those values instead "
                           "(optimization.bounds with variable: {control: NAME})");
    term.kind = type == "path" ? Term::Kind::StepSum : Term::Kind::FinalValue;
    read_measured_quantity(v, term);
    // A path constraint has one value per step: their number must not change from one design to the next.
    if (type == "path" && (problem_.integrator.end_condition || problem_.integrator.step_control.enabled()))
      v.at("type").fail(std::string("a path constraint has one value per step and needs a fixed step count; "
                                    "this model's steps vary with the design (integrator.") +
                        (problem_.integrator.end_condition ? "end_condition" : "step_control") + ")");
  }
  if (v.has("equal")) {
    for (const char* key : {"lower", "upper"})
      if (v.has(key))
        v.at(key).fail("give either 'equal' or 'lower'/'upper', not both");
    c.lower = c.upper = v.at("equal").number();
  } else {
    if (!v.has("lower") && !v.has("upper"))
      v.fail("expected one of 'equal', 'upper' or 'lower' (or 'lower' and 'upper' for a range)");
    if (v.has("lower")) c.lower = v.at("lower").number();
    if (v.has("upper")) c.upper = v.at("upper").number();
    if (!(c.lower < c.upper))
      v.at("upper").fail("expected upper > lower (" + format_number(c.lower) + "); for a value use 'equal'");
  }
  return c;
}

}  // namespace flexadj::io::reader
