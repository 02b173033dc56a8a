#pragma once
// Reads a model file (YAML; the format is described in docs/model-format.md) into a problem::Problem: the
// mechanical system (Problem::model) and the run settings, objective, design variables and optimisation.
//
// Overrides are "key.path=value" strings from the command line, e.g. "integrator.step_size=1e-4",
// "chain.count=1000" or "bodies[2].mass=3". The value is read as YAML (so "[0, -9.81]" is a list). They are
// applied to the YAML tree, in order, before it is interpreted; missing map keys along the path are created.
// Every problem with the file or an override throws flexadj::InputError(file, key path, message); a message
// caused by an override names it.
#include <memory>
#include <string>
#include <vector>

#include "flexadj/problem/problem.hpp"

namespace flexadj::io {

problem::Problem read_problem_file(const std::string& path, const std::vector<std::string>& overrides = {});

// name_for_messages stands for the file name in error messages and Model::source_file; relative paths in the
// model (control files) resolve against its folder.
problem::Problem read_problem_string(const std::string& yaml_text, const std::string& name_for_messages,
                                     const std::vector<std::string>& overrides = {});

}  // namespace flexadj::io
