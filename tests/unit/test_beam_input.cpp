// Beams in the model file: generated geometry (line, arc, points), sections, node names, and the input errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "flexadj/core/error.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "flexadj/model/body.hpp"

namespace flexadj::io {
namespace {

const char* const kBeams = R"yaml(
dimension: 3
integrator: {end_time: 1, step_size: 0.01}
sections:
  - {name: steel, E: 2.1e11, nu: 0.3, rho: 7850, A: 1.0e-4, I2: 8.0e-10, I3: 9.0e-10}
beams:
  - {name: straight, section: steel, elements: 4, line: {start: [0, 0, 0], end: [2, 0, 0]}}
  - name: bend
    section: {E: 1.0e7, G: 5.0e6, rho: 1, A: 1, I2: 0.1, I3: 0.1, J: 0.2, shear_factor: [0.8, 0.9],
              shear_viscosity: 0.1, bulk_viscosity: 0.01, rotary_inertia: [3, 2, 1]}
    elements: 6
    arc: {centre: [0, 100, 0], start: [0, 0, 0], angle: 1.5707963267948966, axis: [0, 0, 1]}
  - {name: crooked, section: steel, points: [[0, 0, 1], [1, 0, 1], [1, 1, 1]]}
joints:
  - {type: fixed, bodies: [ground, straight.start], point: [0, 0, 0]}
  - {type: spherical, bodies: [straight.end, bend.node3]}
forces:
  - {type: load, body: crooked.end, force: [0, 0, -1]}
)yaml";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

void expect_error(const std::string& yaml, const std::string& key, const std::string& expected) {
  SCOPED_TRACE(key + ": " + expected);
  try {
    read_problem_string(yaml, "test.yaml");
    ADD_FAILURE() << "no InputError; expected '" << expected << "'";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.key(), key) << what;
    EXPECT_NE(what.find("test.yaml"), std::string::npos) << what;
    EXPECT_NE(what.find(expected), std::string::npos) << what;
  }
}

double parameter(const model::Model& m, const std::string& element, const std::string& name) {
  for (const auto& e : m.force_elements())
    if (e->name() == element)
      for (std::size_t k = 0; k < e->parameter_names().size(); ++k)
        if (e->parameter_names()[k] == name) return e->parameters()[k];
  ADD_FAILURE() << element << "." << name;
  return NAN;
}

TEST(BeamInput, GeneratesNodesElementsAndSections) {
  const auto m = read_problem_string(kBeams, "test.yaml");
  ASSERT_EQ(m.model->bodies().size(), 5u + 7u + 3u);
  EXPECT_EQ(m.model->force_elements().size(), 4u + 6u + 2u + 1u);  // beam elements and the load: nodes have no inertia
  EXPECT_EQ(m.model->find_body("straight.start"), m.model->find_body("straight.node0"));
  EXPECT_EQ(m.model->find_body("bend.end"), m.model->find_body("bend.node6"));
  // Straight: nodes evenly spaced, section frame = global frame (axis 1 along x, axis 3 along z).
  const auto& node2 = m.model->body(m.model->find_body("straight.node2")).initial_coordinates;
  EXPECT_NEAR(node2[0], 1.0, 1e-15);
  EXPECT_NEAR(node2[3], 1.0, 1e-15);
  // Arc: a quarter circle of radius 100 ends at (100, 100, 0) with its tangent along +y.
  const auto& end = m.model->body(m.model->find_body("bend.end")).initial_coordinates;
  EXPECT_NEAR(end[0], 100.0, 1e-12);
  EXPECT_NEAR(end[1], 100.0, 1e-12);
  const auto R = model::rotation_from_euler_parameters(end.data() + 3);
  EXPECT_NEAR(R[3], 1.0, 1e-12);  // axis 1 (first column) along global y
  // Section data: G from nu, J = I2 + I3 by default, rotary inertia defaults and overrides.
  EXPECT_NEAR(parameter(*m.model, "straight.element1", "shear_modulus"), 2.1e11 / 2.6, 1e-3);
  EXPECT_NEAR(parameter(*m.model, "straight.element1", "J"), 1.7e-9, 1e-24);
  EXPECT_NEAR(parameter(*m.model, "straight.element1", "rotary_1"), 1.7e-9, 1e-24);
  EXPECT_NEAR(parameter(*m.model, "straight.element4", "length"), 0.5, 1e-15);
  EXPECT_NEAR(parameter(*m.model, "bend.element2", "shear_factor_3"), 0.9, 0.0);
  EXPECT_NEAR(parameter(*m.model, "bend.element2", "rotary_1"), 3.0, 0.0);
  // Arc elements: chord 2 R sin(phi/2), curvature phi/chord about section axis 3 in the reference.
  const double phi = M_PI / 12, chord = 200.0 * std::sin(phi / 2);
  EXPECT_NEAR(parameter(*m.model, "bend.element2", "length"), chord, 1e-10);
  EXPECT_NEAR(parameter(*m.model, "bend.element2", "curvature0_3"), phi / chord, 1e-12);
  EXPECT_NEAR(parameter(*m.model, "bend.element2", "stretch0_1"), 1.0, 1e-12);
  EXPECT_EQ(m.model->force_elements().size(), 13u);
}

TEST(BeamInput, ReportsBadBeams) {
  expect_error(replaced(kBeams, "section: steel, elements: 4", "section: iron, elements: 4"), "beams[0].section",
               "unknown section 'iron' (the 'sections' list defines: steel)");
  expect_error(replaced(kBeams, "end: [2, 0, 0]", "end: [0, 0, 0]"), "beams[0].line",
               "start and end coincide (zero length)");
  expect_error(replaced(kBeams, "[[0, 0, 1], [1, 0, 1], [1, 1, 1]]", "[[0, 0, 1], [0, 0, 1], [1, 1, 1]]"),
               "beams[2].points", "points 0 and 1 coincide (zero-length element)");
  expect_error(replaced(kBeams, "angle: 1.5707963267948966", "angle: 0"), "beams[1].arc", "the arc angle is zero");
  expect_error(replaced(kBeams, "I2: 8.0e-10", "Iy: 8.0e-10"), "sections[0].Iy", "unknown key 'Iy'");
  expect_error(replaced(kBeams, "nu: 0.3", "nu: 0.3, G: 1"), "sections[0].nu", "'nu' cannot be combined with 'G'");
  expect_error(replaced(kBeams, "elements: 4, ", ""), "beams[0]", "missing required key 'elements'");
  expect_error(replaced(kBeams, "bend.node3", "bend.node9"), "joints[1].bodies[1]",
               "beam 'bend' has no node 'node9' (its nodes are bend.node0 .. bend.node6");
  expect_error(replaced(kBeams, "A: 1.0e-4", "A: -1.0e-4"), "sections[0].A", "positive");
  expect_error(replaced(kBeams, "name: crooked", "name: straight"), "beams[2].name", "duplicate body name");
  expect_error(replaced(kBeams, "dimension: 3", "dimension: 2"), "beams", "beams need a spatial model");
}

// Points from a text file and a Gmsh 4.1 ASCII mesh of line elements, with the file errors.
TEST(BeamInput, ReadsPointsFilesAndGmshMeshes) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::temp_directory_path() / ("flexadj_beam_input_" + std::to_string(::getpid()));
  fs::create_directories(folder);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(folder / name) << text;
    return (folder / name).string();
  };
  const std::string points = write("points.txt", "# x y z\n0 0 0\n1, 0, 0\n\n2 0.5 0  # last\n");
  // Nodes with tags 10, 11, 12 on x; a point element (ignored) and two line elements 10-11, 11-12.
  const std::string mesh_text =
      "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
      "$Nodes\n2 3 10 12\n0 1 0 1\n10\n0 0 0\n1 1 0 2\n11\n12\n1 0 0\n2 0 0\n$EndNodes\n"
      "$Elements\n2 3 1 3\n0 1 15 1\n1 10\n1 1 1 2\n2 10 11\n3 11 12\n$EndElements\n";
  const std::string mesh = write("line.msh", mesh_text);
  write("reversed.msh", replaced(mesh_text, "3 11 12", "3 12 11"));
  write("triangle.msh", replaced(mesh_text, "1 1 1 2", "1 1 2 2"));
  const std::string base = R"yaml(
dimension: 3
integrator: {end_time: 1, step_size: 0.01}
beams:
  - {name: wire, section: {E: 1, G: 1, rho: 1, A: 1, I2: 1, I3: 1}, GEOMETRY}
joints:
  - {type: fixed, bodies: [ground, wire.start]}
)yaml";
  const auto from_points = read_problem_string(replaced(base, "GEOMETRY", "points_file: " + points), "test.yaml");
  ASSERT_EQ(from_points.model->bodies().size(), 3u);
  EXPECT_NEAR(from_points.model->body(from_points.model->find_body("wire.end")).initial_coordinates[1], 0.5, 0.0);
  const auto from_mesh = read_problem_string(replaced(base, "GEOMETRY", "gmsh: " + mesh), "test.yaml");
  ASSERT_EQ(from_mesh.model->bodies().size(), 3u);
  EXPECT_EQ(from_mesh.model->find_body("wire.start"), from_mesh.model->find_body("wire.node10"));
  EXPECT_EQ(from_mesh.model->find_body("wire.end"), from_mesh.model->find_body("wire.node12"));
  EXPECT_NEAR(from_mesh.model->body(from_mesh.model->find_body("wire.node12")).initial_coordinates[0], 2.0, 0.0);
  EXPECT_EQ(from_mesh.model->force_elements().size(), 2u);

  expect_error(replaced(base, "GEOMETRY", "points_file: " + (folder / "none.txt").string()), "beams[0].points_file",
               "cannot open the points file");
  write("bad.txt", "0 0 0\n1 0\n");
  expect_error(replaced(base, "GEOMETRY", "points_file: " + (folder / "bad.txt").string()), "beams[0].points_file",
               "line 2 of");
  expect_error(replaced(base, "GEOMETRY", "gmsh: " + (folder / "reversed.msh").string()), "beams[0].gmsh",
               "the elements at node 11 point in opposite directions");
  expect_error(replaced(base, "GEOMETRY", "gmsh: " + (folder / "triangle.msh").string()), "beams[0].gmsh",
               "element type 2 is not supported");
  expect_error(replaced(base, "GEOMETRY", "gmsh: " + points), "beams[0].gmsh", "not a Gmsh mesh file");
  // Other sections are skipped, and Windows line ends are read.
  std::string windows = replaced(mesh_text, "$Nodes\n", "$PhysicalNames\n1\n1 1 \"wire\"\n$EndPhysicalNames\n$Nodes\n");
  for (std::size_t at = windows.find('\n'); at != std::string::npos; at = windows.find('\n', at + 2))
    windows.insert(at, "\r");
  const auto from_windows =
      read_problem_string(replaced(base, "GEOMETRY", "gmsh: " + write("windows.msh", windows)), "test.yaml");
  EXPECT_EQ(from_windows.model->force_elements().size(), 2u);
  fs::remove_all(folder);
}

// A mesh file whose lines disagree with its counts is an input error naming the mesh file, the line
// and what was expected. Before, a duplicated element line was accepted and dropped the last element, block
// counts of -5 or 2e8 ended in std::bad_alloc or a vector-size error, and a count of 1e18 hung.
TEST(BeamInput, RefusesGmshMeshesThatDisagreeWithTheirCounts) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::temp_directory_path() / ("flexadj_gmsh_counts_" + std::to_string(::getpid()));
  fs::create_directories(folder);
  // Line numbers: $Nodes header 5, its blocks 6 and 9; $Elements header 16, its blocks 17 and 19, lines 20-21.
  const std::string mesh_text =
      "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
      "$Nodes\n2 3 10 12\n0 1 0 1\n10\n0 0 0\n1 1 0 2\n11\n12\n1 0 0\n2 0 0\n$EndNodes\n"
      "$Elements\n2 3 1 3\n0 1 15 1\n1 10\n1 1 1 2\n2 10 11\n3 11 12\n$EndElements\n";
  int files = 0;
  // The error names the mesh file and the line, then what was expected.
  auto expect_mesh_error = [&](const std::string& from, const std::string& to, int line, const std::string& expected) {
    const fs::path mesh = folder / ("mesh" + std::to_string(++files) + ".msh");
    std::ofstream(mesh) << replaced(mesh_text, from, to);
    const std::string yaml =
        "dimension: 3\nintegrator: {end_time: 1, step_size: 0.01}\n"
        "beams:\n  - {name: wire, section: {E: 1, G: 1, rho: 1, A: 1, I2: 1, I3: 1}, gmsh: " + mesh.string() + "}\n";
    expect_error(yaml, "beams[0].gmsh", "line " + std::to_string(line) + " of '" + mesh.string() + "': " + expected);
  };
  expect_mesh_error("2 10 11\n3 11 12", "2 10 11\n2 10 11\n3 11 12",
                    21, "element tag 2 appears twice (first on line 20)");
  expect_mesh_error("3 11 12\n", "3 11 12\n3 11 12\n",
                    22, "expected $EndElements (after the 2 blocks counted on line 16), got '3 11 12'");
  expect_mesh_error("1 1 1 2\n", "1 1 1 -5\n",
                    19, "expected a number of elements in the block >= 0, got -5");
  expect_mesh_error("1 1 1 2\n", "1 1 1 200000000\n",
                    19, "expected at most 3 elements in the block (what the 3 lines left in the file can "
                    "hold), got 200000000");
  expect_mesh_error("1 1 1 2\n", "1 1 1 1000000000000000000\n",
                    19, "expected at most 3 elements in the block");
  expect_mesh_error("1 1 1 2\n", "1 1 1 2e8\n",
                    19, "expected 'entityDim entityTag elementType numElementsInBlock' (4 integers), got "
                    "'1 1 1 2e8'");
  expect_mesh_error("2 3 1 3\n", "1000000000000000000 3 1 3\n",
                    16, "expected at most 6 entity blocks (what the 6 lines left in the file can hold)");
  expect_mesh_error("2 3 1 3\n", "2 -5 1 3\n", 16, "expected a number of elements >= 0, got -5");
  expect_mesh_error("2 3 10 12\n", "-5 3 10 12\n", 5, "expected a number of entity blocks >= 0, got -5");
  expect_mesh_error("1 1 0 2\n", "1 1 0 200000000\n", 9, "expected at most 6 nodes in the block");
  expect_mesh_error("1 1 0 2\n", "1 1 0 1\n", 11, "expected 'x y z' (3 numbers), got '12'");
  expect_mesh_error("2 3 1 3\n", "2 4 1 3\n", 16, "the header counts 4 elements, its blocks hold 3");
  expect_mesh_error("3 11 12\n", "3 11 13\n",
                    21, "element 3 refers to node 13, which the $Nodes section does not define");
  expect_mesh_error("\n12\n", "\n10\n", 11, "node tag 10 appears twice");
  expect_mesh_error("2 0 0\n", "2 nan 0\n", 13, "expected finite coordinates");
  expect_mesh_error("4.1 0 8", "2.2 0 8", 2, "expected '4.1 0 8' (Gmsh format 4.1 ASCII), got '2.2 0 8'");
  expect_mesh_error("$EndElements\n", "", 22, "expected $EndElements, got the end of the file");
  fs::remove_all(folder);
}

}  // namespace
}  // namespace flexadj::io
