// Design-values files (design_values.hpp): written by `flexadj optimize`, read by `optimization.start_from`.
#include "flexadj/io/design_values.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>

#include "flexadj/core/error.hpp"
#include "flexadj/model/parameter_space.hpp"
#include "flexadj/problem/design_space.hpp"

namespace flexadj::io {

void apply_design_values(model::Model& model, const std::string& path) {
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
  const model::ParameterSpace parameters(model);
  for (const auto& entry : values) {
    const std::string name = entry.first.as<std::string>(), key = "design_values." + name;
    try {
      problem::DesignSpace::resolve(model, parameters, name);
    } catch (const InputError& e) {
      throw InputError(path, key, e.what());
    }
    const problem::DesignSpace one(model, {name});
    std::vector<double> x;
    try {
      if (entry.second.IsSequence())
        x = entry.second.as<std::vector<double>>();
      else
        x.push_back(entry.second.as<double>());
    } catch (const YAML::Exception&) {
      throw InputError(path, key, "expected a number or a list of numbers");
    }
    if (static_cast<int>(x.size()) != one.size())
      throw InputError(path, key,
                       "expected " + std::to_string(one.size()) + " value(s), got " + std::to_string(x.size()));
    for (double xi : x)
      if (!std::isfinite(xi)) throw InputError(path, key, "expected finite numbers");
    one.set_values(model, x);
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
