#pragma once
// An objective written as a formula for reports, e.g. "mass.x(t_end) + 2/2 (v(load.x)(t_end) - 5)^2".
#include <string>
#include <vector>

#include "flexadj/model/model.hpp"
#include "flexadj/objectives/objective_term.hpp"

namespace flexadj::objectives {

std::string objective_formula(const std::vector<ObjectiveTerm>& terms, const model::Model& system);

}  // namespace flexadj::objectives
