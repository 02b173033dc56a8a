// The rules of the component parameters (parameter_rules.hpp).
#include "flexadj/io/parameter_rules.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace flexadj::io::reader {
namespace {

enum class Rule { AnyNumber, Positive, NonNegative };

// By the parameter names the components give (elements/, constraints/); names not listed take any number.
Rule rule_of(const std::string& parameter) {
  static const std::unordered_map<std::string, Rule> rules = {
      {"mass", Rule::Positive},           {"free_length", Rule::Positive},    {"youngs_modulus", Rule::Positive},
      {"shear_modulus", Rule::Positive},  {"area", Rule::Positive},           {"I", Rule::Positive},
      {"I2", Rule::Positive},             {"I3", Rule::Positive},             {"J", Rule::Positive},
      {"shear_factor_2", Rule::Positive}, {"shear_factor_3", Rule::Positive}, {"length", Rule::Positive},
      {"radius", Rule::Positive},         {"stiffness", Rule::NonNegative},   {"damping", Rule::NonNegative},
      {"density", Rule::NonNegative},     {"shear_viscosity", Rule::NonNegative},
      {"bulk_viscosity", Rule::NonNegative}, {"rotary_1", Rule::NonNegative}, {"rotary_2", Rule::NonNegative},
      {"rotary_3", Rule::NonNegative},    {"damping_time", Rule::NonNegative}};
  const auto found = rules.find(parameter);
  return found == rules.end() ? Rule::AnyNumber : found->second;
}

}  // namespace

double parameter_value(const Value& v, const std::string& parameter) {
  switch (rule_of(parameter)) {
    case Rule::Positive: return v.positive();
    case Rule::NonNegative: return v.non_negative();
    case Rule::AnyNumber: break;
  }
  return v.number();
}

double parameter_value_or(const Value& v, const std::string& parameter, double fallback) {
  return v.given() ? parameter_value(v, parameter) : fallback;
}

std::string inertia_error(BodyKind kind, const std::array<double, 6>& I) {
  if (!model::has_orientation(kind)) return "";
  if (kind == BodyKind::PlanarRigid) return I[2] > 0.0 ? "" : "expected a positive number, got " + format_number(I[2]);
  // Cholesky factorisation of the symmetric tensor; a pivot not clearly positive means singular or indefinite.
  const double a[3][3] = {{I[0], I[3], I[4]}, {I[3], I[1], I[5]}, {I[4], I[5], I[2]}};
  const double scale = std::max({std::abs(I[0]), std::abs(I[1]), std::abs(I[2])});
  double L[3][3] = {};
  for (int j = 0; j < 3; ++j) {
    double pivot = a[j][j];
    for (int k = 0; k < j; ++k) pivot -= L[j][k] * L[j][k];
    if (!(pivot > 1e-12 * scale)) return "inertia tensor is not positive definite (singular or indefinite)";
    L[j][j] = std::sqrt(pivot);
    for (int i = j + 1; i < 3; ++i) {
      double sum = a[i][j];
      for (int k = 0; k < j; ++k) sum -= L[i][k] * L[j][k];
      L[i][j] = sum / L[j][j];
    }
  }
  return "";
}

}  // namespace flexadj::io::reader
