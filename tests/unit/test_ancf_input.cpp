// ANCF beams in the model file: node kinds and coordinates from line, arc and points, sections, joints and loads on
// ANCF nodes, and the input errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "flexadj/core/error.hpp"
#include "flexadj/io/problem_reader.hpp"
#include "flexadj/model/body.hpp"
#include "flexadj/model/coordinate_names.hpp"

namespace flexadj::io {
namespace {

const char* const kSpatial = R"yaml(
dimension: 3
integrator: {end_time: 1, step_size: 0.01}
sections:
  - {name: wire, E: 2.0e11, nu: 0.3, rho: 7850, A: 1.0e-6, I: 8.0e-14}
ancf:
  - {name: rope, type: cable, section: wire, elements: 4, line: {start: [0, 0, 0], end: [2, 0, 0]}}
  - name: ring
    type: full
    section: {E: 1.0e7, G: 4.0e6, rho: 1, A: 1, I2: 0.1, I3: 0.2, J: 0.3}
    elements: 6
    arc: {centre: [0, 1, 0], start: [0, 0, 0], angle: 1.5707963267948966, axis: [0, 0, 1]}
joints:
  - {type: spherical, bodies: [ground, rope.start]}
  - {type: prescribed_coordinate, body: rope.start, coordinate: 4, value: 0}
  - {type: spherical, bodies: [ground, ring.start]}
forces:
  - {type: load, body: ring.end, force: [0, 0, -1], moment: [0, 0, 1]}
)yaml";

const char* const kPlanar = R"yaml(
dimension: 2
integrator: {end_time: 1, step_size: 0.01}
ancf:
  - {name: arm, type: planar, curvature: simple, section: {E: 1.0e6, nu: 0.3, rho: 10, A: 0.01, I: 1.0e-6},
     points: [[0, 0], [1, 0], [1, 1], [2, 1]]}
joints:
  - {type: revolute, bodies: [ground, arm.start], point: [0, 0]}
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

TEST(AncfInput, GeneratesNodesWithPositionsAndGradients) {
  const auto m = read_problem_string(kSpatial, "test.yaml");
  ASSERT_EQ(m.model->bodies().size(), 5u + 7u);
  EXPECT_EQ(m.model->force_elements().size(),
            4u + 6u + 1u);                       // elements and the load: ANCF nodes have no inertia element
  EXPECT_EQ(m.model->constraints().size(), 3u);  // no unit-quaternion constraints
  EXPECT_EQ(m.model->body_kind(m.model->find_body("rope.node1")), model::BodyKind::AncfCableNode);
  EXPECT_EQ(m.model->body_kind(m.model->find_body("ring.end")), model::BodyKind::AncfFullNode);
  EXPECT_EQ(m.model->coordinate_count(), 5 * 6 + 7 * 12);
  // Cable: positions evenly spaced, slope the unit tangent.
  const auto& rope = m.model->body(m.model->find_body("rope.node2")).initial_coordinates;
  const std::vector<double> expected_rope{1.0, 0.0, 0.0, 1.0, 0.0, 0.0};
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(rope[i], expected_rope[i], 1e-15) << i;
  // Arc: a quarter circle of radius 1 ends at (1, 1, 0); r_x along +y, r_y (section axis 2) towards the centre
  // (-x), r_z along the arc axis.
  const auto& ring = m.model->body(m.model->find_body("ring.end")).initial_coordinates;
  const std::vector<double> expected_ring{1, 1, 0, 0, 1, 0, -1, 0, 0, 0, 0, 1};
  for (int i = 0; i < 12; ++i) EXPECT_NEAR(ring[i], expected_ring[i], 1e-12) << i;
  EXPECT_EQ(model::find_coordinate(*m.model, "ring.end.ry_x"),
            m.model->body_offset(m.model->find_body("ring.end")) + 6);
  EXPECT_EQ(model::find_coordinate(*m.model, "rope.start.rs_y"), 4);
}

TEST(AncfInput, PlanarPolylineAndSimpleCurvature) {
  const auto m = read_problem_string(kPlanar, "test.yaml");
  ASSERT_EQ(m.model->bodies().size(), 4u);
  EXPECT_EQ(m.model->body_kind(0), model::BodyKind::AncfPlanarNode);
  // Node 1 at the corner (1, 0): tangent the mean of +x and +y.
  const auto& corner = m.model->body(1).initial_coordinates;
  EXPECT_NEAR(corner[2], std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(corner[3], std::sqrt(0.5), 1e-15);
  EXPECT_STREQ(m.model->force_elements()[0]->type(), "ancf_planar");
  EXPECT_EQ(m.model->constraints()[0]->equation_count(), 2);  // a planar pin on an ANCF node
}

TEST(AncfInput, ErrorsNameTheKeyAndWhatIsExpected) {
  expect_error(replaced(kSpatial, "type: cable", "type: planar"), "ancf[0].type", "needs a planar model");
  expect_error(replaced(kSpatial, "type: cable", "type: rope"), "ancf[0].type", "expected one of: planar, cable, full");
  expect_error(replaced(kPlanar, "type: planar", "type: full"), "ancf[0].type", "needs a spatial model");
  expect_error(replaced(kSpatial, "section: wire", "section: steel"), "ancf[0].section", "unknown section 'steel'");
  expect_error(replaced(kSpatial, "I: 8.0e-14", "I2: 8.0e-14, I3: 9.0e-14"), "ancf[0].section",
               "a cable has one bending stiffness");
  expect_error(replaced(kSpatial, "I: 8.0e-14", "I: 8.0e-14, I2: 1"), "sections[0].I2", "cannot be combined with 'I'");
  expect_error(replaced(kSpatial, "end: [2, 0, 0]", "end: [0, 0, 0]"), "ancf[0].line", "zero length");
  expect_error(replaced(kSpatial, "elements: 6\n", "elements: 6\n    curvature: simple\n"), "ancf[1].curvature",
               "is an option of the planar and cable elements");
  expect_error(replaced(kSpatial, "bodies: [ground, ring.start]", "bodies: [rope.end, ring.node7]"),
               "joints[2].bodies[1]", "has no node 'node7'");
  // A joint's kernel holds at most 14 coordinates: a full node (12) joins ground or a point mass only.
  expect_error(replaced(kSpatial, "bodies: [ground, ring.start]", "bodies: [rope.end, ring.node2]"),
               "joints[2].bodies", "supports at most 14");
  expect_error(replaced(kSpatial, "type: spherical, bodies: [ground, rope.start]",
                        "type: fixed, bodies: [ground, rope.start]"),
               "joints[0].bodies", "does not clamp the gradients");
  expect_error(replaced(kPlanar, "points:", "elements: 3, points:"), "ancf[0].elements", "is given by the points");
}

}  // namespace
}  // namespace flexadj::io
