// The gradient problem of a model file: objective terms and sensors, design variables, optimisation settings.
#include "flexadj/io/design_values.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "flexadj/io/reader.hpp"
#include "flexadj/integrators/registry.hpp"
#include "flexadj/objectives/term_kernels.hpp"

namespace flexadj::io::reader {

// ---- gradient problems
void Reader::read_objective(const Value& list) {
  const std::size_t n = list.list_size("a list of objective terms");
  if (n == 0 && list.is_list()) list.fail("expected a non-empty list of objective terms, got an empty list");
  for (std::size_t i = 0; i < n; ++i) problem_.objective_terms.push_back(read_objective_term(list.item(i)));
}

objectives::ObjectiveTerm Reader::read_objective_term(const Value& v) const {
  using Term = objectives::ObjectiveTerm;
  const std::string type =
      typed_entry(v, {{"final_value", {"type", "coordinate", "sensor", "relative_to", "quantity", "weight"}},
                      {"final_square", {"type", "coordinate", "sensor", "relative_to", "quantity", "weight", "target"}},
                      {"tracking", {"type", "coordinate", "sensor", "relative_to", "quantity", "weight", "reference",
                                    "reference_control"}},
                      {"penalty",
                       {"type", "coordinate", "sensor", "relative_to", "quantity", "weight", "lower", "upper"}},
                      {"control_effort", {"type", "control", "weight"}},
                      {"final_time", {"type", "weight"}}});
  Term term;
  term.kind = type == "final_value"      ? Term::Kind::FinalValue
              : type == "final_square"   ? Term::Kind::FinalSquare
              : type == "tracking"       ? Term::Kind::Tracking
              : type == "penalty"        ? Term::Kind::Penalty
              : type == "final_time"     ? Term::Kind::FinalTime
                                         : Term::Kind::ControlEffort;
  if (term.kind == Term::Kind::FinalTime) {
    term.weight = v.at("weight").number_or(1.0);
    return term;
  }
  if (term.kind == Term::Kind::ControlEffort) {
    const Value control = v.at("control");
    term.control = control.text();
    if (!model_.find_control(term.control)) control.fail("unknown control '" + term.control + "'");
    term.weight = v.at("weight").number_or(1.0);
    return term;
  }
  if (term.kind == Term::Kind::Penalty) {
    if (!v.has("lower") && !v.has("upper")) v.fail("a penalty needs 'lower', 'upper' or both");
    if (v.has("lower")) term.lower = v.at("lower").number();
    if (v.has("upper")) term.upper = v.at("upper").number();
    if (!(term.lower < term.upper)) v.at("upper").fail("expected upper > lower");
  }
  read_measured_quantity(v, term);
  term.weight = v.at("weight").number_or(1.0);
  term.target = v.at("target").number_or(0.0);
  term.reference = v.has("reference") ? v.at("reference").expression() : Expression::constant(0.0);
  if (v.has("reference_control")) {
    // Measured data: the reference is a control signal (e.g. read from a CSV file).
    if (v.has("reference")) v.at("reference_control").fail("give either 'reference' or 'reference_control', not both");
    const Value control = v.at("reference_control");
    term.reference_signal = model_.find_control(control.text());
    if (!term.reference_signal) control.fail("unknown control '" + control.text() + "'");
  }
  return term;
}

// The quantity x of a term (or of the end condition): coordinate (with relative_to, quantity position | velocity |
// acceleration) or sensor (with quantity).
void Reader::read_measured_quantity(const Value& v, objectives::ObjectiveTerm& term) const {
  using Term = objectives::ObjectiveTerm;
  if (v.has("sensor")) {
    if (v.has("coordinate")) v.at("sensor").fail("give either 'coordinate' or 'sensor', not both");
    if (v.has("relative_to")) v.at("relative_to").fail("'relative_to' applies to coordinates, not to a sensor");
    read_sensor(v.at("sensor"), v.at("quantity"), term);
  } else {
    if (!v.has("coordinate")) v.fail("expected 'coordinate' (e.g. mass.x) or 'sensor' (a body point, see docs/model-format.md)");
    term.coordinate = coordinate_ref(v.at("coordinate"));
    if (v.has("relative_to")) term.relative_to = coordinate_ref(v.at("relative_to"));
    const std::string quantity =
        v.has("quantity") ? v.at("quantity").choice({"position", "velocity", "acceleration"}) : "position";
    if (quantity == "velocity") term.quantity = Term::Quantity::Velocity;
    if (quantity == "acceleration") term.quantity = Term::Quantity::Acceleration;
  }
}

// sensor: {body, point (global at t = 0; default the centre of mass), component: x | y | z} with quantity
// position | velocity | acceleration | angular_velocity | direction | momentum | angular_momentum; for direction,
// `direction`
// (global at t = 0) instead of `point`; the momenta are of the whole body (no point).
void Reader::read_sensor(const Value& v, const Value& quantity, objectives::ObjectiveTerm& term) const {
  using Term = objectives::ObjectiveTerm;
  v.expect_map({"body", "point", "direction", "component"});
  term.sensor_body = body_ref(v.at("body"), false);
  const std::string q = quantity.given() ? quantity.choice({"position", "velocity", "acceleration", "angular_velocity",
                                                            "direction", "momentum", "angular_momentum"})
                                         : "position";
  term.quantity = q == "velocity"           ? Term::Quantity::Velocity
                  : q == "acceleration"     ? Term::Quantity::Acceleration
                  : q == "angular_velocity" ? Term::Quantity::AngularVelocity
                  : q == "direction"        ? Term::Quantity::Direction
                  : q == "momentum"         ? Term::Quantity::Momentum
                  : q == "angular_momentum" ? Term::Quantity::AngularMomentum
                                            : Term::Quantity::Position;
  if (term.on_momentum()) {
    read_momentum_sensor(v, quantity, term);
  } else if (term.quantity == Term::Quantity::Direction) {
    if (v.has("point")) v.at("point").fail("a direction sensor takes 'direction', not 'point'");
    if (!v.has("direction")) v.fail("a direction sensor needs 'direction': a body-fixed direction, global at t = 0");
    term.sensor_point = model_.to_body_vector(term.sensor_body, unit_vector(v.at("direction"), dimension_));
  } else {
    if (v.has("direction")) v.at("direction").fail("'direction' belongs to quantity: direction");
    if (term.quantity != Term::Quantity::AngularVelocity)
      term.sensor_point = model_.to_body_point(term.sensor_body, point_or_centre(v.at("point"), term.sensor_body));
  }
  const Value component = v.at("component");
  const bool rotational =
      term.quantity == Term::Quantity::AngularVelocity || term.quantity == Term::Quantity::AngularMomentum;
  const std::string axis = dimension_ == 2 && rotational
                               ? component.choice({"z"})
                               : dimension_ == 2 ? component.choice({"x", "y"})
                                                 : component.choice({"x", "y", "z"});
  term.sensor_component = axis == "x" ? 0 : axis == "y" ? 1 : 2;
}

// A momentum sensor reads the body's mass and inertia from its inertia element (elements::BodyInertia), so the body
// must have one: rigid bodies and point masses, not the nodes of beams (their inertia is the elements').
void Reader::read_momentum_sensor(const Value& v, const Value& quantity, objectives::ObjectiveTerm& term) const {
  for (const char* key : {"point", "direction"})
    if (v.has(key)) v.at(key).fail("a momentum sensor is of the whole body (about its centre of mass): no '" +
                                   std::string(key) + "'");
  const model::Body& body = model_.body(term.sensor_body);
  const auto& elements = model_.force_elements();
  term.inertia_element = model_.inertia_element(term.sensor_body);
  if (term.inertia_element < 0)
    v.at("body").fail("'" + body.name + "' (" + model::to_string(body.kind) +
                      ") has no mass of its own (a beam node: its inertia is the elements'); momentum sensors take "
                      "rigid bodies and point masses");
  if (term.quantity == objectives::ObjectiveTerm::Quantity::AngularMomentum && !model::has_orientation(body.kind))
    quantity.fail("a point mass has no angular momentum about its centre; use quantity: momentum");
  const auto& names = elements[term.inertia_element]->parameter_names();
  for (int k = 0; k < objectives::kernels::kInertiaInputs; ++k)
    if (static_cast<int>(names.size()) <= k || names[k] != objectives::kernels::kInertiaParameterNames[k])
      throw std::logic_error("read_momentum_sensor: the body element's parameters are not in the expected order");
}

// "<body>.<coordinate>" -> global coordinate id.
long long Reader::coordinate_ref(const Value& v) const {
  const std::string name = v.name();
  try {
    return model::find_coordinate(model_, name);
  } catch (const InputError& e) {
    v.fail(e.what());
  }
}

// Stored as names that problem::DesignSpace resolves: "spring.stiffness", "initial_velocity:mass.x", ...
void Reader::read_design_variables(const Value& list) {
  const std::size_t n = list.list_size("a list of design variables");
  if (n == 0 && list.is_list())
    list.fail("expected a non-empty list of design variables (leave the section out for all component "
              "parameters), got an empty list");
  const model::ParameterSpace parameters(model_);
  std::set<std::string> seen;
  for (std::size_t i = 0; i < n; ++i) {
    const auto [at, name] = design_variable(list.item(i));
    try {
      problem::DesignSpace::resolve(model_, parameters, name);
    } catch (const InputError& e) {
      at.fail(e.what());
    }
    if (!seen.insert(name).second) at.fail("duplicate design variable '" + name + "'");
    if (name == "integrator.end_time") {
      // A free final time: the step count stays that of the model file's end_time and step_size.
      if (problem_.integrator.end_condition)
        at.fail("integrator.end_time is a design variable only without integrator.end_condition (the end "
                "condition fixes the final time; its sensitivity enters every gradient by itself)");
      if (problem_.integrator.step_control.enabled())
        at.fail("integrator.end_time is a design variable only with fixed steps (a free final time scales a fixed "
                "number of steps), not with integrator.step_control");
      problem_.integrator.fixed_steps = problem_.integrator.step_count();
    }
    for (const auto& term : problem_.objective_terms)
      if (term.reference_signal && name == "control:" + term.reference_signal->name())
        at.fail("control '" + term.reference_signal->name() +
                "' is the reference_control of an objective term (measured data), not a design variable");
    problem_.design_variables.push_back(name);
  }
}

// ---- optimization (flexadj optimize); after design_variables, whose names the bounds refer to
void Reader::read_optimization(const Value& v) {
  if (!v.given()) return;
  v.expect_map({"method", "max_iterations", "gradient_tolerance", "relative_gradient_tolerance",
                "objective_tolerance", "objective_target", "step_fraction", "line_search", "lbfgs_memory",
                "nonmonotone_memory", "bounds", "start_from", "constraint_tolerance", "trust_radius", "krylov_tolerance",
                "momentum_target_iteration"});
  auto& s = problem_.optimization;
  if (v.has("method")) s.method = v.at("method").choice({"lbfgs", "trust_region", "newton_krylov", "gauss_newton", "gradient", "barzilai_borwein"});
  if (v.has("max_iterations")) s.max_iterations = v.at("max_iterations").integer(0);
  if (v.has("gradient_tolerance")) s.gradient_tolerance = v.at("gradient_tolerance").non_negative();
  if (v.has("relative_gradient_tolerance"))
    s.relative_gradient_tolerance = v.at("relative_gradient_tolerance").non_negative();
  if (v.has("objective_tolerance")) s.objective_tolerance = v.at("objective_tolerance").non_negative();
  if (v.has("objective_target")) s.objective_target = v.at("objective_target").number();
  if (v.has("step_fraction")) s.step_fraction = v.at("step_fraction").positive();
  if (v.has("line_search")) s.line_search = v.at("line_search").choice({"armijo", "none"});
  if (v.has("lbfgs_memory")) s.lbfgs_memory = v.at("lbfgs_memory").integer(1);
  if (v.has("trust_radius")) s.trust_radius = v.at("trust_radius").positive();
  if (v.has("krylov_tolerance")) {
    s.krylov_tolerance = v.at("krylov_tolerance").positive();
    s.krylov_tolerance_given = true;
    if (s.krylov_tolerance >= 1.0)
      v.at("krylov_tolerance").fail("expected a number below 1 (the residual relative to the gradient), got " +
                                    v.at("krylov_tolerance").describe());
  }
  if (v.has("nonmonotone_memory")) s.nonmonotone_memory = v.at("nonmonotone_memory").integer(1);
  if (v.has("constraint_tolerance")) s.constraint_tolerance = v.at("constraint_tolerance").positive();
  if (v.has("momentum_target_iteration")) read_momentum_target_iteration(v.at("momentum_target_iteration"));
  const problem::DesignSpace design = problem::DesignSpace::of(problem_);
  std::vector<std::string> known;
  for (const auto& e : design.entries()) known.push_back(e.name);
  const Value bounds = v.at("bounds");
  const std::size_t n = bounds.list_size("a list of bounds such as {variable: spring.stiffness, lower: 0}");
  std::set<std::string> bounded;
  for (std::size_t i = 0; i < n; ++i) {
    const Value b = bounds.item(i);
    if (!b.is_map()) b.fail("expected a map {variable: <design variable>, lower: <number>, upper: <number>}, got " + b.describe());
    b.expect_map({"variable", "lower", "upper"});
    problem::DesignBound bound;
    const Value variable = b.at("variable");
    bound.variable = variable.name();
    if (std::find(known.begin(), known.end(), bound.variable) == known.end())
      variable.fail("'" + bound.variable + "' is not a design variable (the design variables are: " + join(known) +
                    ")");
    if (!bounded.insert(bound.variable).second) variable.fail("duplicate bounds for '" + bound.variable + "'");
    if (!b.has("lower") && !b.has("upper")) b.fail("a bound needs 'lower', 'upper' or both");
    if (b.has("lower")) bound.lower = b.at("lower").number();
    if (b.has("upper")) bound.upper = b.at("upper").number();
    if (!(bound.lower <= bound.upper))
      b.at("upper").fail("expected upper >= lower (" + format_number(bound.lower) + "), got " + b.at("upper").describe());
    s.bounds.push_back(bound);
  }
  if (v.has("start_from")) {
    const Value from = v.at("start_from");
    s.start_from = resolve(from, from.name()).string();
    try {
      apply_design_values(model_, s.start_from, &problem_.integrator);
    } catch (const InputError& e) {
      from.fail(e.what());
    }
  }
}

// Schubert et al. 2024, Remark 1: {iterations: K, tolerance: tol}, on the objective's end-momentum terms (final_square
// on a momentum sensor); after read_objective.
void Reader::read_momentum_target_iteration(const Value& v) {
  if (!v.is_map()) v.fail("expected a map {iterations: <integer >= 1>, tolerance: <number > 0>}, got " + v.describe());
  v.expect_map({"iterations", "tolerance"});
  auto& iteration = problem_.optimization.momentum_target_iteration;
  iteration.iterations = v.at("iterations").integer(1);
  iteration.tolerance = v.at("tolerance").positive();
  bool weighted = false;
  for (std::size_t i = 0; i < problem_.objective_terms.size(); ++i) {
    const auto& term = problem_.objective_terms[i];
    if (term.kind != objectives::ObjectiveTerm::Kind::FinalSquare || !term.on_momentum()) continue;
    if (term.weight < 0.0)
      v.fail("objective[" + std::to_string(i) + "]: the end-momentum weight S_p must be >= 0 (it is " +
             format_number(term.weight) + ")");
    weighted = weighted || term.weight > 0.0;
  }
  if (!weighted)
    v.fail("the objective has no end-momentum term to iterate: it needs a final_square term with quantity momentum "
           "or angular_momentum and a weight > 0 (Schubert et al. 2024, eq. (10e))");
}

// A parameter name, {initial_position: <coordinate>}, {initial_velocity: <coordinate>} or {control: <name>}:
// the value that names it (for messages) and the design-variable name.
std::pair<Value, std::string> Reader::design_variable(const Value& v) {
  if (v.is_list() || !v.given())
    v.fail("expected a parameter name such as spring.stiffness, or a map {initial_position: <body>.<coordinate>}, "
           "{initial_velocity: <body>.<coordinate>} or {control: <name>}; got " + v.describe());
  if (!v.is_map()) return {v, v.name()};
  const Keys kinds = {"initial_position", "initial_velocity", "control"};
  v.expect_map(kinds);
  const std::string kind = exactly_one_of(v, kinds);
  const Value named = v.at(kind);
  return {named, kind + ":" + named.name()};
}

}  // namespace flexadj::io::reader
