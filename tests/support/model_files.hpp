#pragma once
// Model files for parameterized tests: a shipped model by name (meshes/NAME), or a test model by its path in the
// source tree; and the test name gtest shows for each (the file's name without its folder and extension).
#include <gtest/gtest.h>

#include <string>

#include "flexadj/io/problem_reader.hpp"
#include "flexadj/problem/problem.hpp"

namespace flexadj::testing {

inline problem::Problem read_model_file(const std::string& name) {
  const std::string file =
      std::string(FLEXADJ_SOURCE_DIR) + (name.find('/') == std::string::npos ? "/meshes/" : "/") + name;
  return io::read_problem_file(file, {});
}

inline std::string model_file_test_name(const ::testing::TestParamInfo<const char*>& info) {
  std::string name = info.param;
  name = name.substr(name.rfind('/') + 1);
  return name.substr(0, name.find('.'));
}

}  // namespace flexadj::testing
