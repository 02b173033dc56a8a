// libFuzzer harness (scripts/fuzz.sh): the model-file reader with all its validation (io::read_problem_string:
// YAML, keys, values, references, generated items, Gmsh meshes and control files it names), without simulating.
// The model stands for a file in meshes/ (FLEXADJ_FUZZ_MODEL_DIR), so the meshes and CSV files the seeds name are
// found. A rejection must be an InputError naming the file and either the key path or the line, with a message;
// anything else escaping, a sanitizer report or a hang is a crash. An accepted model must be consistent.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "flexadj/core/error.hpp"
#include "flexadj/io/problem_reader.hpp"

namespace {

std::string model_name() {
  const char* folder = std::getenv("FLEXADJ_FUZZ_MODEL_DIR");
  return std::string(folder && *folder ? folder : "meshes") + "/fuzz.yaml";
}

bool names_a_place(const flexadj::InputError& e) {
  const std::string what = e.what();
  if (!e.key().empty()) return true;
  // Errors about the whole file: YAML syntax (with its line) or the top level of the model.
  return what.find("line ") != std::string::npos || what.find("the model") != std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string name = model_name();
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const flexadj::problem::Problem problem = flexadj::io::read_problem_string(text, name);
    const auto& model = *problem.model;
    if (model.dimension != 2 && model.dimension != 3) std::abort();
    if (model.initial_coordinates().size() != static_cast<std::size_t>(model.coordinate_count())) std::abort();
    if (!(problem.integrator.step_size > 0.0) || problem.integrator.step_count() < 1) std::abort();
  } catch (const flexadj::InputError& e) {
    const std::string what = e.what();
    // "<file>: <key>: <message>" or "<file>: <message>", the message not empty
    const std::string prefix = name + ": " + (e.key().empty() ? std::string() : e.key() + ": ");
    const bool named = e.file() == name && what.rfind(prefix, 0) == 0 && what.size() > prefix.size() + 3;
    if (!named || !names_a_place(e)) {
      std::fprintf(stderr, "rejection that names no place: %s\n", what.c_str());
      std::abort();
    }
  }
  return 0;
}
