#include "flexadj/problem/design_space.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "flexadj/adjoint/gradient.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/model/coordinate_names.hpp"

namespace flexadj::problem {
namespace {

const std::string kInitialPosition = "initial_position:", kInitialVelocity = "initial_velocity:",
                  kControl = "control:", kFinalTime = "integrator.end_time";

bool starts_with(const std::string& text, const std::string& prefix) { return text.compare(0, prefix.size(), prefix) == 0; }

std::string join(const std::vector<std::string>& items, std::size_t limit = 20) {
  std::string text;
  for (std::size_t i = 0; i < items.size() && i < limit; ++i) text += (i ? ", " : "") + items[i];
  if (items.size() > limit) text += ", ... (" + std::to_string(items.size()) + " in all)";
  return text;
}

[[noreturn]] void unresolved(const std::string& message) { throw InputError("", "", message); }

// Levenshtein distance, for suggestions.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// "; did you mean 'spring.stiffness'?" for the closest name within a few edits, else "".
std::string suggestion(const std::string& name, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  std::size_t best_distance = std::max<std::size_t>(2, name.size() / 4) + 1;
  for (const auto& candidate : candidates) {
    const std::size_t d = edit_distance(name, candidate);
    if (d < best_distance) best_distance = d, best = &candidate;
  }
  return best ? "; did you mean '" + *best + "'?" : "";
}

// Components that have parameters, in model order, each once (a spatial body's inertia element and its
// unit-quaternion constraint share the body's name).
std::vector<std::string> components_with_parameters(const model::Model& model) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  auto add = [&](const model::Component& c) {
    if (!c.parameters().empty() && seen.insert(c.name()).second) names.push_back(c.name());
  };
  for (const auto& f : model.force_elements()) add(*f);
  for (const auto& c : model.constraints()) add(*c);
  return names;
}

int resolve_parameter(const model::Model& model, const ParameterSpace& parameters, const std::string& name) {
  const int index = parameters.find(name);
  if (index >= 0) return index;
  const std::string hint = suggestion(name, parameters.names());
  const std::size_t dot = name.rfind('.');
  if (dot == std::string::npos)
    unresolved("unknown design variable '" + name + "' (expected '<component>.<parameter>' such as 'spring.stiffness', "
               "'initial_position: <body>.<coordinate>', 'initial_velocity: <body>.<coordinate>', 'control: <name>' or "
               "'integrator.end_time')" +
               hint);
  const std::string component = name.substr(0, dot);
  std::vector<std::string> own;  // the parameters of that component
  for (const auto& candidate : parameters.names())
    if (candidate.size() > component.size() && starts_with(candidate, component + "."))
      own.push_back(candidate.substr(component.size() + 1));
  if (!own.empty())
    unresolved("unknown parameter '" + name + "': component '" + component + "' has the parameters " +
               join(own, 40) + hint);
  const std::vector<std::string> components = components_with_parameters(model);
  unresolved("unknown parameter '" + name + "': no component '" + component + "' (components are: " +
             join(components) + ")" + hint);
}

std::string resolve_control(const model::Model& model, const std::string& name) {
  if (model.find_control(name)) return name;
  std::vector<std::string> names;
  for (const auto& entry : model.controls()) names.push_back(entry.first);
  unresolved("unknown control '" + name + "' (" +
             (names.empty() ? "the model has no controls" : "controls are: " + join(names)) + ")");
}

// The body holding global coordinate `coordinate` and the coordinate's index in it.
std::pair<int, int> body_of(const model::Model& model, long long coordinate) {
  if (coordinate < 0 || coordinate >= model.coordinate_count())
    throw std::out_of_range("coordinate " + std::to_string(coordinate) + " is not in the model");
  const int b = model.body_of_coordinate(coordinate);
  return {b, static_cast<int>(coordinate - model.body_offset(b))};
}

}  // namespace

void set_initial_value(model::Model& model, long long coordinate, bool velocity, double value) {
  const auto [b, i] = body_of(model, coordinate);
  model.set_initial_value(b, i, velocity, value);
}

DesignSpace::Entry DesignSpace::resolve(const model::Model& model, const ParameterSpace& parameters,
                                        const std::string& name) {
  Entry entry;
  entry.name = name;
  if (starts_with(name, kInitialPosition) || starts_with(name, kInitialVelocity)) {
    const bool velocity = starts_with(name, kInitialVelocity);
    entry.kind = velocity ? Kind::InitialVelocity : Kind::InitialPosition;
    entry.coordinate = model::find_coordinate(model, name.substr((velocity ? kInitialVelocity : kInitialPosition).size()));
  } else if (name == kFinalTime) {
    entry.kind = Kind::FinalTime;
  } else if (starts_with(name, kControl)) {
    entry.kind = Kind::Control;
    entry.control = resolve_control(model, name.substr(kControl.size()));
    entry.size = static_cast<int>(model.find_control(entry.control)->size());
  } else {
    entry.kind = Kind::Parameter;
    entry.parameter = resolve_parameter(model, parameters, name);
  }
  return entry;
}

DesignSpace::DesignSpace(const model::Model& model, const std::vector<std::string>& names) : parameters_(model) {
  std::set<std::string> seen;
  for (const std::string& name : names) {
    if (!seen.insert(name).second)
      throw InputError(model.source_file, "design_variables", "duplicate design variable '" + name + "'");
    try {
      entries_.push_back(resolve(model, parameters_, name));
    } catch (const InputError& e) {
      throw InputError(model.source_file, "design_variables", e.what());
    }
    entries_.back().offset = size_;
    size_ += entries_.back().size;
  }
  std::vector<int> wanted;
  for (const Entry& e : entries_)
    if (e.kind == Kind::Parameter) wanted.push_back(e.parameter);
  parameters_.want_gradients_of(wanted);
}

DesignSpace DesignSpace::of(const Problem& problem) {
  const model::Model& model = *problem.model;
  return DesignSpace(model,
                     problem.design_variables.empty() ? ParameterSpace(model).names() : problem.design_variables);
}

std::vector<std::string> DesignSpace::names() const {
  std::vector<std::string> names;
  for (const Entry& e : entries_) {
    if (e.kind != Kind::Control) names.push_back(e.name);
    else
      for (int k = 0; k < e.size; ++k) names.push_back(e.name + "[" + std::to_string(k) + "]");
  }
  return names;
}

std::vector<double> DesignSpace::values(const model::Model& model) const {
  std::vector<double> values(size_);
  model_values(model, values, false);
  return values;
}

void DesignSpace::model_values(const model::Model& model, std::vector<double>& values, bool skip_final_time) const {
  for (const Entry& e : entries_) {
    switch (e.kind) {
      case Kind::Parameter: values[e.offset] = parameters_.value(model, e.parameter); break;
      case Kind::InitialPosition:
      case Kind::InitialVelocity: {
        const auto [b, i] = body_of(model, e.coordinate);
        const model::Body& body = model.body(b);
        values[e.offset] = (e.kind == Kind::InitialVelocity ? body.initial_velocities : body.initial_coordinates).at(i);
        break;
      }
      case Kind::Control: {
        const auto& u = model.find_control(e.control)->values();
        std::copy(u.begin(), u.end(), values.begin() + e.offset);
        break;
      }
      case Kind::FinalTime:
        if (skip_final_time) break;
        throw std::logic_error("DesignSpace::values: integrator.end_time is a setting of the problem, not the model");
    }
  }
}

bool DesignSpace::has_final_time() const {
  for (const Entry& e : entries_)
    if (e.kind == Kind::FinalTime) return true;
  return false;
}

std::vector<double> DesignSpace::values(const Problem& problem) const {
  // The model's scalars with the final time's slot filled from the problem.
  std::vector<double> values(size_);
  model_values(*problem.model, values, true);
  for (const Entry& e : entries_)
    if (e.kind == Kind::FinalTime) values[e.offset] = problem.integrator.end_time;
  return values;
}

void DesignSpace::set_values(Problem& problem, const std::vector<double>& values) const {
  check_size(values);
  for (const Entry& e : entries_)
    if (e.kind == Kind::FinalTime) problem.integrator.end_time = values[e.offset];
  problem.model->set_time_window(problem.integrator.start_time, problem.integrator.end_time);
  set_model_values(*problem.model, values, true);
}

void DesignSpace::set_values(model::Model& model, const std::vector<double>& values) const {
  check_size(values);
  set_model_values(model, values, false);
}

void DesignSpace::check_size(const std::vector<double>& values) const {
  if (values.size() != static_cast<std::size_t>(size_))
    throw std::invalid_argument("DesignSpace::set_values: " + std::to_string(values.size()) + " values for " +
                                std::to_string(size_) + " design scalars");
}

void DesignSpace::set_model_values(model::Model& model, const std::vector<double>& values,
                                   bool skip_final_time) const {
  for (const Entry& e : entries_) {
    if (e.kind == Kind::FinalTime && skip_final_time) continue;
    set_entry(model, parameters_, e, values.data() + e.offset);
  }
}

void DesignSpace::set_entry(model::Model& model, const ParameterSpace& parameters, const Entry& e,
                            const double* values) {
  switch (e.kind) {
    case Kind::Parameter: parameters.set_value(model, e.parameter, values[0]); break;
    case Kind::InitialPosition:
    case Kind::InitialVelocity: set_initial_value(model, e.coordinate, e.kind == Kind::InitialVelocity, values[0]); break;
    case Kind::Control: model.controls().at(e.control)->set_values(std::vector<double>(values, values + e.size)); break;
    case Kind::FinalTime:
      throw std::logic_error("DesignSpace::set_values: integrator.end_time is a setting of the problem, not the model");
  }
}

std::vector<double> DesignSpace::gradient(const adjoint::Gradient& g) const {
  std::vector<double> out(size_);
  auto at = [](const std::vector<double>& v, long long i, const char* what) {
    if (i < 0 || static_cast<std::size_t>(i) >= v.size())
      throw std::logic_error(std::string("the gradient has no entry ") + std::to_string(i) + " of " + what);
    return v[i];
  };
  for (const Entry& e : entries_) {
    switch (e.kind) {
      case Kind::Parameter: out[e.offset] = at(g.parameters, e.parameter, "the parameters"); break;
      case Kind::InitialPosition:
        out[e.offset] = at(g.initial_coordinates, e.coordinate, "the initial coordinates");
        break;
      case Kind::InitialVelocity:
        out[e.offset] = at(g.initial_velocities, e.coordinate, "the initial velocities");
        break;
      case Kind::Control: {
        const auto found = g.controls.find(e.control);
        if (found == g.controls.end() || found->second.size() != static_cast<std::size_t>(e.size))
          throw std::logic_error("the gradient has no derivatives for the " + std::to_string(e.size) +
                                 " values of control '" + e.control + "'");
        std::copy(found->second.begin(), found->second.end(), out.begin() + e.offset);
        break;
      }
      case Kind::FinalTime: out[e.offset] = g.final_time; break;
    }
  }
  return out;
}

}  // namespace flexadj::problem
