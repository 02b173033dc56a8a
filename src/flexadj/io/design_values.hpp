#pragma once
// Design-values files: the values of named design variables, written by `flexadj optimize` and read back.
#include <string>
#include <vector>

#include "flexadj/integrators/integrator_settings.hpp"
#include "flexadj/model/model.hpp"

namespace flexadj::io {

// Design values, as written by `flexadj optimize` and read back by `optimization.start_from`: a YAML map
//   design_values: {spring.stiffness: 1.5, "control:F": [0, 0.1, ...]}
// with design-variable names as keys (a control with one value per grid time). Sets them in the model, and
// integrator.end_time (a free final time) in `integrator`; InputError(path, "design_values.<name>", ...) for an
// unknown name, a wrong number of values, or an end time not after the start time.
void apply_design_values(model::Model& model, const std::string& path,
                         integrators::IntegratorSettings* integrator = nullptr);
void write_design_values(const std::string& path, const std::vector<std::string>& names,
                         const std::vector<std::vector<double>>& values, const std::string& comment);

}  // namespace flexadj::io
