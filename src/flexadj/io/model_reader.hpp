#pragma once
// Reads a model file (YAML; the format is described in docs/model-format.md) into a model::Model.
//
// Overrides are "key.path=value" strings from the command line, e.g. "integrator.step_size=1e-4",
// "chain.count=1000" or "bodies[2].mass=3". The value is read as YAML (so "[0, -9.81]" is a list). They are
// applied to the YAML tree, in order, before it is interpreted; missing map keys along the path are created.
// Every problem with the file or an override throws flexadj::InputError(file, key path, message); a message
// caused by an override names it.
#include <memory>
#include <string>
#include <vector>

#include "flexadj/model/model.hpp"

namespace flexadj::io {

std::unique_ptr<model::Model> read_model_file(const std::string& path, const std::vector<std::string>& overrides = {});

// name_for_messages stands for the file name in error messages and Model::source_file; relative paths in the
// model (control files) resolve against its folder.
std::unique_ptr<model::Model> read_model_string(const std::string& yaml_text, const std::string& name_for_messages,
                                                const std::vector<std::string>& overrides = {});

// Design values, as written by `flexadj optimize` and read back by `optimization.start_from`: a YAML map
//   design_values: {spring.stiffness: 1.5, "control:F": [0, 0.1, ...]}
// with design-variable names as keys (a control with one value per grid time). Sets them in the model;
// InputError(path, "design_values.<name>", ...) for an unknown name or a wrong number of values.
void apply_design_values(model::Model& model, const std::string& path);
void write_design_values(const std::string& path, const std::vector<std::string>& names,
                         const std::vector<std::vector<double>>& values, const std::string& comment);

}  // namespace flexadj::io
