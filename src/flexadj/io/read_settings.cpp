// The run settings of a model file: integrator, output, trajectory and static sections.
#include "flexadj/io/reader.hpp"

#include <cmath>
#include <memory>

#include "flexadj/core/byte_size.hpp"
#include "flexadj/integrators/end_condition.hpp"
#include "flexadj/integrators/registry.hpp"
#include "flexadj/model/coordinate_names.hpp"

namespace flexadj::io::reader {

// The most steps a run may take (time steps, or static load steps).
constexpr int kMaxSteps = 1'000'000'000;
// Newton converges quadratically near a solution: an iteration that has not converged in 1000 steps will not, and a
// larger limit only hides a stalled run (2e9 iterations ran for hours without a word).
constexpr int kMaxNewtonIterations = 1000;
constexpr const char* kNewtonLimitReason = " (more iterations do not rescue a Newton iteration that stalls: reduce the step)";

// ---- run settings
void Reader::read_static(const Value& v) {
  problem_.statics.time = problem_.integrator.start_time;
  if (!v.given()) return;
  v.expect_map({"load_steps", "max_newton_iterations", "newton_tolerance", "time"});
  auto& s = problem_.statics;
  // Each load step is a Newton solve, as each time step is: the same limit (2e9 once ran for ever).
  if (v.has("load_steps"))
    s.load_steps = v.at("load_steps").integer(1, kMaxSteps, " (the step limit of a run, as for time steps)");
  if (v.has("max_newton_iterations"))
    s.max_newton_iterations = v.at("max_newton_iterations").integer(1, kMaxNewtonIterations, kNewtonLimitReason);
  if (v.has("newton_tolerance")) s.newton_tolerance = v.at("newton_tolerance").positive();
  s.time = v.at("time").number_or(problem_.integrator.start_time);
}

void Reader::read_integrator(const Value& v) {
  v.expect_map({"type", "coordinates", "start_time", "end_time", "step_size", "spectral_radius",
                "max_newton_iterations", "newton_tolerance", "linear_solver", "preconditioner", "schwarz_overlap", "partition", "end_condition",
                "step_control"});
  auto& s = problem_.integrator;
  // type and coordinates name a kind of integrators/registry.hpp (coordinates: absolute, the default; joint; or
  // joint_midpoint).
  if (v.has("type")) s.scheme = v.at("type").choice(integrators::integrator_types());
  integrators::set_coordinates(s, "absolute");
  if (v.has("coordinates")) {
    const Value coordinates = v.at("coordinates");
    if (!integrators::takes_joint_coordinates(s.scheme))
      coordinates.fail("only types " +
                       integrators::types_with([](const integrators::IntegratorKind& k) {
                         return k.joint_coordinates();
                       }, "and") +
                       " take coordinates (absolute or joint); remove it from the integrator section or choose one "
                       "of these types");
    const std::string choice = coordinates.choice(integrators::integrator_coordinates());
    if (!integrators::find_integrator_kind(s.scheme, choice))
      coordinates.fail(choice + " (the midpoint rule in the joint coordinates) is a discrete Lagrangian of type " +
                       integrators::types_with([&](const integrators::IntegratorKind& k) {
                         return k.coordinates == choice;
                       }, "or") +
                       "; for type " + s.scheme + " choose absolute or joint");
    integrators::set_coordinates(s, choice);
  }
  s.start_time = v.at("start_time").number_or(0.0);
  const Value end = v.at("end_time");
  s.end_time = end.number();
  if (!(s.end_time > s.start_time))
    end.fail("expected a number greater than start_time (" + format_number(s.start_time) + "), got " +
             end.describe());
  const Value step = v.at("step_size");
  s.step_size = step.positive();
  // The number of steps must be a count a run can take: a step size of 1e-300, or an end time of 1e308, made it
  // overflow (a negative count, nothing integrated, J = 0 reported as a result).
  const double steps = std::ceil((s.end_time - s.start_time) / s.step_size - 1e-9);
  if (!(steps >= 1.0 && steps <= kMaxSteps))
    step.fail("gives " + format_number(steps) + " steps from start_time " + format_number(s.start_time) +
              " to end_time " + format_number(s.end_time) + "; expected between 1 and " + format_number(kMaxSteps) +
              " steps (check step_size and end_time)");
  const integrators::IntegratorKind& kind = integrators::integrator_kind(s);
  if (v.has("spectral_radius")) {
    if (!kind.can.spectral_radius)
      v.at("spectral_radius")
          .fail("not used by type " + s.scheme + " (" + kind.can.no_spectral_radius_reason +
                "); remove it from the integrator section, or choose type " +
                integrators::types_with([](const integrators::IntegratorKind& k) { return k.can.spectral_radius; },
                                        "or"));
    s.spectral_radius = v.at("spectral_radius").in_range(kind.can.min_spectral_radius, 1.0);
  }
  if (v.has("max_newton_iterations"))
    s.max_newton_iterations = v.at("max_newton_iterations").integer(1, kMaxNewtonIterations, kNewtonLimitReason);
  if (v.has("newton_tolerance")) s.newton_tolerance = v.at("newton_tolerance").positive();
  if (v.has("linear_solver")) s.linear_solver = v.at("linear_solver").choice({"auto", "direct", "klu_gathered", "iterative"});
  if (v.has("preconditioner")) s.preconditioner = v.at("preconditioner").choice({"interface_schur", "schwarz"});
  if (v.has("schwarz_overlap")) s.schwarz_overlap = v.at("schwarz_overlap").integer(0, 8, "at most 8 levels");
  if (v.has("partition")) s.partition = v.at("partition").choice({"blocks", "graph"});
  read_step_control(v.at("step_control"));
}

// step_control: {tolerance, absolute_tolerance, min_step, max_step} (integrator_settings.hpp).
void Reader::read_step_control(const Value& v) {
  if (!v.given()) return;
  if (!v.is_map()) v.fail("expected a map such as {tolerance: 1e-6}, got " + v.describe());
  v.expect_map({"tolerance", "absolute_tolerance", "min_step", "max_step"});
  auto& s = problem_.integrator;
  if (!integrators::integrator_kind(s).can.error_controlled_steps)
    v.fail("error-controlled steps need type " +
           integrators::types_with([](const integrators::IntegratorKind& k) { return k.can.error_controlled_steps; },
                                   "or") +
           " (the local error estimate of the position update); type " + s.scheme +
           " takes fixed steps: remove step_control or change the type");
  auto& c = s.step_control;
  const Value tolerance = v.at("tolerance");
  c.tolerance = tolerance.positive();
  if (!(c.tolerance < 1.0)) tolerance.fail("expected a relative tolerance below 1 (e.g. 1e-6), got " + tolerance.describe());
  if (v.has("absolute_tolerance")) c.absolute_tolerance = v.at("absolute_tolerance").positive();
  const double span = s.end_time - s.start_time;
  if (v.has("max_step")) {
    const Value max = v.at("max_step");
    c.max_step = max.positive();
    if (c.max_step > span) max.fail("expected at most end_time - start_time (" + format_number(span) + "), got " + max.describe());
  }
  if (v.has("min_step")) {
    const Value min = v.at("min_step");
    c.min_step = min.positive();
    const double largest = c.max_step > 0.0 ? c.max_step : span;
    if (!(c.min_step < largest) || !(c.min_step <= s.step_size))
      min.fail("expected less than max_step (" + format_number(largest) + ") and at most step_size (" +
               format_number(s.step_size) + "), got " + min.describe());
    // The most steps a run may take, as for fixed steps.
    if (span / c.min_step > kMaxSteps)
      min.fail("allows " + format_number(span / c.min_step) + " steps; at most " + format_number(kMaxSteps) + " are");
  }
}

// end_condition: {coordinate | sensor (as an objective term names its quantity x), value (default 0), direction:
// falling | rising | any (default any)}: the run ends where H = x - value crosses zero; end_time bounds it.
void Reader::read_end_condition(const Value& v) {
  if (!v.given()) return;
  if (problem_.integrator.step_control.enabled())
    v.fail("not together with integrator.step_control yet (the event is located within fixed steps): remove one");
  if (!v.is_map())
    v.fail("expected a map such as {coordinate: mass.x, quantity: velocity, value: 0, direction: falling}, got " +
           v.describe());
  v.expect_map({"coordinate", "sensor", "relative_to", "quantity", "value", "direction"});
  objectives::ObjectiveTerm quantity;
  read_measured_quantity(v, quantity);
  // Its located time would depend on the mass parameters, which the final-time sensitivity does not differentiate.
  if (quantity.on_momentum())
    v.at("quantity").fail("an end condition is on a position or velocity, not on a momentum (use quantity: velocity)");
  if (quantity.on_acceleration())
    v.at("quantity").fail("an end condition is on a position or velocity, not on an acceleration");
  const double value = v.at("value").number_or(0.0);
  const std::string direction = v.has("direction") ? v.at("direction").choice({"falling", "rising", "any"}) : "any";
  using Direction = integrators::EndCondition::Direction;
  // For messages: "v(mass.x) = 0 (falling)".
  std::string x;
  if (quantity.sensor_body >= 0) {
    x = "sensor of " + model_.body(quantity.sensor_body).name;
  } else {
    x = model::coordinate_name(model_, quantity.coordinate);
    if (quantity.relative_to >= 0) x += " - " + model::coordinate_name(model_, quantity.relative_to);
    if (quantity.quantity == objectives::ObjectiveTerm::Quantity::Velocity) x = "v(" + x + ")";
  }
  problem_.integrator.end_condition = std::make_shared<integrators::EndCondition>(
      quantity, value,
      direction == "falling"  ? Direction::Falling
      : direction == "rising" ? Direction::Rising
                              : Direction::Any,
      "'" + x + " = " + format_number(value) + " (" + direction + ")' (" + v.path() + ")");
}

void Reader::check_final_time_model(const Value& root) const {
  const auto& s = problem_.integrator;
  if (!s.end_condition && s.fixed_steps == 0) return;
  if (s.end_condition) {
    // The event's time is not a fixed tau of each step: a normalized control depends on t there as any other.
    const Value at = root.at("integrator").at("end_condition");
    const std::string dependence = model_.explicit_time_dependence();
    if (!dependence.empty())
      at.fail("an implicit final time needs a model whose equations do not depend on t explicitly, and " +
              dependence + " does: the sensitivity of the final time does not include dE/dt yet");
    for (const auto& term : problem_.objective_terms)
      if (term.reference_signal && term.reference_signal->normalized())
        at.fail("an implicit final time needs a reference_control on absolute time, and control '" +
                term.reference_signal->name() + "' has time: normalized");
    return;
  }
  // A free final time with fixed steps: t_n = t0 + (n/N)(t1 - t0), so a normalized control u^(tau) has the same value
  // at every step (and inner time) whatever t1 is, and the equations hold t1 through h = (t1 - t0)/N only.
  const std::string dependence = model_.explicit_time_dependence(true);
  if (dependence.empty()) return;
  const Value at = root.at("design_variables");
  std::string fix = "";
  for (const auto& element : model_.force_elements())
    if (std::string(element->type()) + " '" + element->name() + "'" == dependence && element->control() &&
        !element->control()->normalized() && !element->time_dependent_besides_control())
      fix = ": give control '" + element->control()->name() +
            "' time: normalized (its times then tau = (t - t0)/(t1 - t0) in [0, 1]), which a free final time stretches";
  if (fix.empty())
    fix = ": the sensitivity of the final time does not include dE/dt yet (controls with time: normalized are "
          "accepted)";
  at.fail("a free final time needs a model whose equations do not depend on t explicitly but through controls with "
          "time: normalized, and " + dependence + " does" + fix);
}

void Reader::read_trajectory(const Value& v) {
  if (!v.given()) return;
  v.expect_map({"storage", "file", "checkpoints", "ram_checkpoints", "memory_limit", "disk_checkpoints", "folder"});
  // ram_checkpoints: the name docs/model-format.md gives the memory tier beside disk_checkpoints.
  if (v.has("checkpoints") && v.has("ram_checkpoints"))
    v.at("ram_checkpoints").fail("give either checkpoints or ram_checkpoints (the same setting), not both");
  auto& s = problem_.trajectory;
  if (v.has("storage")) s.storage = v.at("storage").choice({"memory", "hdf5", "checkpoints"});
  if (v.has("file")) s.file = v.at("file").text();
  if (v.has("checkpoints")) s.checkpoints = static_cast<std::size_t>(v.at("checkpoints").integer(1));
  if (v.has("ram_checkpoints")) s.checkpoints = static_cast<std::size_t>(v.at("ram_checkpoints").integer(1));
  if (v.has("memory_limit")) {
    const Value limit = v.at("memory_limit");
    const double bytes = parse_byte_size(limit.text());
    if (!(bytes > 0.0))
      limit.fail(std::string("expected ") + byte_size_forms() + ", got " + limit.describe());
    s.memory_limit = bytes;
  }
  if (v.has("disk_checkpoints"))
    s.disk_checkpoints = static_cast<std::size_t>(v.at("disk_checkpoints").integer(1));
  if (v.has("folder")) {
    s.folder = v.at("folder").text();
    if (s.folder.empty()) v.at("folder").fail("expected a folder name, got an empty text");
  }
  if ((v.has("checkpoints") || v.has("ram_checkpoints") || v.has("memory_limit") || v.has("disk_checkpoints") ||
       v.has("folder")) &&
      s.storage != "checkpoints")
    v.at("storage").fail("checkpoints, memory_limit, disk_checkpoints and folder need storage: checkpoints");
  if (v.has("file") && s.storage != "hdf5") v.at("storage").fail("file needs storage: hdf5");
}

void Reader::read_output(const Value& v) {
  if (!v.given()) return;
  v.expect_map({"path", "every", "xdmf"});
  if (v.has("path")) problem_.output.path = v.at("path").text();
  if (v.has("every")) problem_.output.every = v.at("every").integer(1);
  if (v.has("xdmf")) problem_.output.xdmf = v.at("xdmf").boolean();
}

}  // namespace flexadj::io::reader
