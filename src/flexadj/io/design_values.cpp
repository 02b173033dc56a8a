// Design-values files (design_values.hpp): written by `flexadj optimize`, read by `optimization.start_from`.
#include "flexadj/io/design_values.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <algorithm>
#include <fstream>
#include <map>

#include "flexadj/core/error.hpp"
#include "flexadj/io/parameter_rules.hpp"
#include "flexadj/model/parameter_space.hpp"
#include "flexadj/problem/design_space.hpp"

namespace flexadj::io {

void apply_design_values(model::Model& model, const std::string& path, integrators::IntegratorSettings* integrator) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw InputError(path, "", "the design-values file cannot be opened");
  } catch (const YAML::ParserException& e) {
    throw InputError(path, "", "YAML syntax error at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  const YAML::Node values = root.IsMap() ? root["design_values"] : YAML::Node();
  if (!values.IsDefined() || !values.IsMap())
    throw InputError(path, "design_values", "expected a map of design-variable names to values");
  // Values are read as the model reader reads them (reader::Value), component parameters by its rules.
  reader::Context context;
  context.file = path;
  const model::ParameterSpace parameters(model);
  std::map<std::string, reader::Value> changed_inertia;  // body -> its first inertia entry in the file
  for (const auto& entry : values) {
    const std::string name = entry.first.as<std::string>(), key = "design_values." + name;
    const reader::Value value(context, entry.second, key);
    problem::DesignSpace::Entry variable;
    try {
      variable = problem::DesignSpace::resolve(model, parameters, name);
    } catch (const InputError& e) {
      throw InputError(path, key, e.what());
    }
    if (variable.kind == problem::DesignSpace::Kind::FinalTime) {
      if (!integrator) value.fail("integrator.end_time is a setting of the problem, not of the model");
      const double end_time = value.number();
      if (!(end_time > integrator->start_time))
        value.fail("expected an end time after integrator.start_time (" + reader::format_number(integrator->start_time) +
                   "), got " + value.describe());
      integrator->end_time = end_time;  // a free final time keeps its step count (integrator.fixed_steps)
      model.set_time_window(integrator->start_time, end_time);
      continue;
    }
    std::vector<double> x;
    if (variable.kind == problem::DesignSpace::Kind::Parameter) {
      const std::size_t dot = name.rfind('.');
      const std::string parameter = name.substr(dot + 1);
      x.push_back(reader::parameter_value(value, parameter));
      if (parameter.rfind("inertia_", 0) == 0) changed_inertia.emplace(name.substr(0, dot), value);
    } else if (entry.second.IsSequence()) {
      for (std::size_t k = 0; k < entry.second.size(); ++k) x.push_back(value.item(k).number());
    } else {
      x.push_back(value.number());
    }
    if (static_cast<int>(x.size()) != variable.size)
      value.fail("expected " + std::to_string(variable.size) + " value(s), got " + std::to_string(x.size()));
    problem::DesignSpace::set_entry(model, parameters, variable, x.data());
  }
  // An inertia tensor is valid or not as a whole: checked once all its entries are set.
  for (const auto& [body, first_entry] : changed_inertia) {
    const int e = model.inertia_element(model.find_body(body));
    if (e < 0) continue;
    const auto& element = model.force_elements()[e];
    const auto& names = element->parameter_names();
    const auto xx = std::find(names.begin(), names.end(), "inertia_xx") - names.begin();
    std::array<double, 6> inertia;
    for (int i = 0; i < 6; ++i) inertia[i] = element->parameters()[xx + i];  // xx, yy, zz, xy, xz, yz
    const std::string error = reader::inertia_error(element->kinds()[0], inertia);
    if (!error.empty()) first_entry.fail(error + " (with this file's values)");
  }
}

void write_design_values(const std::string& path, const std::vector<std::string>& names,
                         const std::vector<std::vector<double>>& values, const std::string& comment) {
  std::ofstream out(path);
  if (!out) throw InputError(path, "", "cannot write the design-values file (does its folder exist?)");
  out.precision(17);
  out << "# " << comment << "\n# Read back with 'optimization: {start_from: <this file>}' in the model file.\n";
  out << "design_values:\n";
  for (std::size_t i = 0; i < names.size(); ++i) {
    out << "  \"" << names[i] << "\": ";
    if (names[i].rfind("control:", 0) != 0 && values[i].size() == 1) {
      out << values[i][0] << "\n";
      continue;
    }
    out << "[";
    for (std::size_t k = 0; k < values[i].size(); ++k) out << (k ? ", " : "") << values[i][k];
    out << "]\n";
  }
  if (!out) throw InputError(path, "", "writing the design-values file failed");
}

}  // namespace flexadj::io
