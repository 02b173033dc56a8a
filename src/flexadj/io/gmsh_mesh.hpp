#pragma once
// Gmsh mesh files (format 4.1 ASCII) of 1D meshes: their nodes and 2-node line elements.
#include <array>
#include <string>
#include <vector>

namespace flexadj::io {

struct GmshLineMesh {
  std::vector<std::array<double, 3>> points;  // node positions in file order
  std::vector<long long> tags;                // their Gmsh node tags
  std::vector<std::array<int, 2>> lines;      // 2-node line elements (type 1) as indices into points
};

// Reads the $MeshFormat, $Nodes and $Elements sections of `text` (other sections are skipped); point elements
// (type 15) are ignored, other element types are errors. Anything the format does not allow throws
// std::invalid_argument "line N of '<name>': expected ..., got ...": counts that disagree with the lines that
// follow or exceed what the rest of the file can hold, duplicate tags, unknown nodes, lines left over.
GmshLineMesh parse_gmsh_line_mesh(const std::string& text, const std::string& name);

// The same for a file (a regular file, read whole).
GmshLineMesh read_gmsh_line_mesh(const std::string& path);

}  // namespace flexadj::io
