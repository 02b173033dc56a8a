// libFuzzer harness (scripts/fuzz.sh): the Gmsh mesh reader. A rejection must be a std::invalid_argument naming
// the line and the file; anything else escaping, a sanitizer report or a hang is a crash. What it accepts must
// be consistent: one tag per node, element ends that are nodes.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "flexadj/io/gmsh_mesh.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto mesh = flexadj::io::parse_gmsh_line_mesh(text, "fuzz.msh");
    if (mesh.tags.size() != mesh.points.size()) std::abort();
    for (const auto& line : mesh.lines)
      for (int node : line)
        if (node < 0 || static_cast<std::size_t>(node) >= mesh.points.size()) std::abort();
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    if (what.rfind("line ", 0) != 0 || what.find(" of 'fuzz.msh': ") == std::string::npos) std::abort();
  }
  return 0;
}
