#pragma once
// The values a component parameter may take: one rule per parameter name, applied where the model file gives
// the parameter and where a design-values file sets it, so that both refuse the same values with the same message.
#include <array>
#include <string>

#include "flexadj/io/reader_value.hpp"

namespace flexadj::io::reader {

// `v` as the value of the component parameter `parameter` ("mass", "stiffness", "youngs_modulus", ...):
// a positive number, a number >= 0 or any finite number, by the parameter's rule.
double parameter_value(const Value& v, const std::string& parameter);
double parameter_value_or(const Value& v, const std::string& parameter, double fallback);

// Why the inertia [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] of a body of `kind` is not valid (planar: Izz > 0; spatial:
// symmetric positive definite; point masses have none), or "" if it is.
std::string inertia_error(BodyKind kind, const std::array<double, 6>& inertia);

}  // namespace flexadj::io::reader
