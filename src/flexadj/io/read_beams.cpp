// Beam sections and the beams of a model file: geometrically exact beams and ANCF beams from lines, arcs,
// polylines, points files and Gmsh meshes.
#include "flexadj/io/gmsh_mesh.hpp"
#include "flexadj/io/parameter_rules.hpp"
#include "flexadj/io/reader.hpp"

namespace flexadj::io::reader {

elements::BeamSectionData Reader::read_section(const Value& v) const {
  v.expect_map(kSectionKeys);
  elements::BeamSectionData s;
  s.youngs_modulus = parameter_value(v.at("E"), "youngs_modulus");
  if (exactly_one_of(v, {"G", "nu"}) == "G") s.shear_modulus = parameter_value(v.at("G"), "shear_modulus");
  else s.shear_modulus = s.youngs_modulus / (2.0 * (1.0 + v.at("nu").in_range(-0.99, 0.5)));
  s.density = parameter_value(v.at("rho"), "density");
  s.area = parameter_value(v.at("A"), "area");
  if (v.has("I")) {  // a symmetric section: I2 = I3 = I
    v.forbid("I2", "cannot be combined with 'I' (I2 = I3 = I)");
    v.forbid("I3", "cannot be combined with 'I' (I2 = I3 = I)");
    s.I2 = s.I3 = parameter_value(v.at("I"), "I");
  } else {
    s.I2 = parameter_value(v.at("I2"), "I2");
    s.I3 = parameter_value(v.at("I3"), "I3");
  }
  s.J = parameter_value_or(v.at("J"), "J", s.I2 + s.I3);
  const Value shear = v.at("shear_factor");
  if (shear.is_list()) {
    shear.expect_list(2, "a list of 2 numbers");
    s.shear_factor_2 = parameter_value(shear.item(0), "shear_factor_2");
    s.shear_factor_3 = parameter_value(shear.item(1), "shear_factor_3");
  } else if (shear.given()) {
    s.shear_factor_2 = s.shear_factor_3 = parameter_value(shear, "shear_factor_2");
  }
  s.shear_viscosity = parameter_value_or(v.at("shear_viscosity"), "shear_viscosity", 0.0);
  s.bulk_viscosity = parameter_value_or(v.at("bulk_viscosity"), "bulk_viscosity", 0.0);
  s.rotary = {s.I2 + s.I3, s.I2, s.I3};
  if (v.has("rotary_inertia")) {
    const Value rotary = v.at("rotary_inertia");
    rotary.expect_list(3, "a list of 3 numbers");
    for (int i = 0; i < 3; ++i) s.rotary[i] = parameter_value(rotary.item(i), "rotary_" + std::to_string(i + 1));
  }
  return s;
}

void Reader::read_sections(const Value& list) {
  const std::size_t n = list.list_size("a list of beam sections");
  for (std::size_t i = 0; i < n; ++i) {
    const Value v = list.item(i);
    if (!v.is_map()) v.fail("expected a map with name, E, G or nu, rho, A, I2, I3, got " + v.describe());
    const std::string name = v.at("name").name();
    if (sections_.count(name)) v.at("name").fail("duplicate section name '" + name + "'");
    sections_[name] = read_section(v);
  }
}

void Reader::read_beams(const Value& list) {
  const std::size_t n = list.list_size("a list of beams");
  if (n > 0 && dimension_ != 3) list.fail("beams need a spatial model (dimension: 3)");
  for (std::size_t i = 0; i < n; ++i) read_beam(list.item(i));
}

void Reader::read_beam(const Value& v) {
  v.expect_map(
      {"name", "formulation", "section", "elements", "line", "arc", "points", "points_file", "gmsh", "section_axis_3"});
  const std::string name = v.at("name").name();
  const auto formulation = v.has("formulation") && v.at("formulation").choice({"geometrically_exact", "dual_quaternion"}) ==
                                                       "dual_quaternion"
                               ? elements::BeamFormulation::DualQuaternion
                               : elements::BeamFormulation::GeometricallyExact;
  check_body_name(v.at("name"), name + ".node0");
  if (beam_nodes_.count(name)) v.at("name").fail("duplicate beam name '" + name + "'");
  const Value section_value = v.at("section");
  section_value.expect_present();
  elements::BeamSectionData section;
  if (section_value.is_map()) {
    section_value.forbid("name", "is only used in the top-level 'sections' list");
    section = read_section(section_value);
  } else {
    const std::string section_name = section_value.name();
    const auto found = sections_.find(section_name);
    if (found == sections_.end()) {
      std::vector<std::string> known;
      for (const auto& [key, value] : sections_) known.push_back(key);
      section_value.fail("unknown section '" + section_name + "' (the 'sections' list defines: " +
                         (known.empty() ? std::string("none") : join(known)) + ")");
    }
    section = found->second;
  }
  const std::string geometry = exactly_one_of(v, {"line", "arc", "points", "points_file", "gmsh"});
  elements::BeamNodes nodes;
  try {
    if (geometry == "line") {
      const Value line = v.at("line");
      line.expect_map({"start", "end"});
      const Point start = line.at("start").point(3), end = line.at("end").point(3);
      Point axis3{0.0, 0.0, 1.0};
      const Point d = model::subtract(end, start);
      if (std::abs(d[2]) > 0.999 * norm(d)) axis3 = {1.0, 0.0, 0.0};  // a vertical beam
      nodes = elements::straight_beam(start, end, generated_count(v.at("elements"), 1), section_axis(v, axis3));
    } else if (geometry == "arc") {
      const Value arc = v.at("arc");
      arc.expect_map({"centre", "start", "angle", "axis"});
      v.forbid("section_axis_3", "is the arc axis for an arc");
      nodes = elements::arc_beam(arc.at("centre").point(3), arc.at("start").point(3), arc.at("angle").number(),
                                 arc.at("axis").point(3), generated_count(v.at("elements"), 1));
    } else if (geometry == "points") {
      v.forbid("elements", "is given by the points (one element between consecutive points)");
      const Value points = v.at("points");
      const std::size_t count = points.list_size("a list of at least 2 points");
      std::vector<Point> xs;
      for (std::size_t k = 0; k < count; ++k) xs.push_back(points.item(k).point(3));
      nodes = elements::polyline_beam(xs, section_axis(v, {0.0, 0.0, 1.0}));
    } else if (geometry == "points_file") {
      v.forbid("elements", "is given by the points (one element between consecutive points)");
      nodes = elements::polyline_beam(read_points_file(v.at("points_file")), section_axis(v, {0.0, 0.0, 1.0}));
    } else {
      v.forbid("elements", "is given by the mesh");
      const Value file = v.at("gmsh");
      const GmshLineMesh mesh = read_gmsh_line_mesh(resolve(file, file.text()).string());
      nodes = elements::mesh_beam(mesh.points, mesh.lines, mesh.tags, section_axis(v, {0.0, 0.0, 1.0}));
    }
  } catch (const std::invalid_argument& error) {
    v.at(geometry).fail(std::string("bad beam geometry: ") + error.what());
  }
  const std::size_t element_count = nodes.elements.empty() ? nodes.positions.size() - 1 : nodes.elements.size();
  for (std::size_t k = 0; k < element_count; ++k)
    claim_component_name(v.at("name"), name + ".element" + std::to_string(k + 1));
  const auto indices = elements::add_beam(model_, name, nodes, section, formulation);
  for (std::size_t k = 0; k < indices.size(); ++k) body_index_.emplace(model_.body(indices[k]).name, indices[k]);
  for (const char* end : {".start", ".end"}) body_index_.emplace(name + end, model_.find_body(name + end));
  beam_nodes_[name] = static_cast<int>(indices.size());
}

// A text file of points, one "x y z" (or "x, y, z") per line; '#' starts a comment.
std::vector<Point> Reader::read_points_file(const Value& v) const {
  const fs::path path = resolve(v, v.text());
  std::ifstream in(path);
  if (!in) v.fail("cannot open the points file '" + path.string() + "'");
  std::vector<Point> points;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream fields(line);
    Point x;
    std::string rest;
    if (!(fields >> x[0])) continue;  // blank or comment line
    if (!(fields >> x[1] >> x[2]) || (fields >> rest) || !std::isfinite(x[0] + x[1] + x[2]))
      v.fail("line " + std::to_string(number) + " of '" + path.string() + "': expected three numbers x y z");
    points.push_back(x);
  }
  return points;
}

Point Reader::section_axis(const Value& v, const Point& fallback) {
  return v.has("section_axis_3") ? unit_vector(v.at("section_axis_3"), 3) : fallback;
}

// ---- ANCF beams: planar (dimension 2), cable and full (dimension 3)
void Reader::read_ancf_beams(const Value& list) {
  const std::size_t n = list.list_size("a list of ANCF beams");
  for (std::size_t i = 0; i < n; ++i) read_ancf_beam(list.item(i));
}

void Reader::read_ancf_beam(const Value& v) {
  v.expect_map({"name", "type", "section", "elements", "line", "arc", "points", "section_axis_3", "curvature",
                "damping_time"});
  const std::string name = v.at("name").name();
  check_body_name(v.at("name"), name + ".node0");
  const Value type_value = v.at("type");
  const std::string type = type_value.choice({"planar", "cable", "full"});
  if ((type == "planar") != (dimension_ == 2))
    type_value.fail(type == "planar" ? "a planar ANCF beam needs a planar model (dimension: 2)"
                                     : "an ANCF " + type + " beam needs a spatial model (dimension: 3)");
  elements::AncfElementData data;
  const Value section_value = v.at("section");
  section_value.expect_present();
  if (section_value.is_map()) {
    section_value.forbid("name", "is only used in the top-level 'sections' list");
    data.section = read_section(section_value);
  } else {
    const std::string section_name = section_value.name();
    const auto found = sections_.find(section_name);
    if (found == sections_.end()) {
      std::vector<std::string> known;
      for (const auto& [key, value] : sections_) known.push_back(key);
      section_value.fail("unknown section '" + section_name + "' (the 'sections' list defines: " +
                         (known.empty() ? std::string("none") : join(known)) + ")");
    }
    data.section = found->second;
  }
  if (type == "cable" && data.section.I2 != data.section.I3)
    section_value.fail("a cable has one bending stiffness: expected I (or I2 = I3), got I2 = " +
                       format_number(data.section.I2) + ", I3 = " + format_number(data.section.I3));
  if (type == "full") v.forbid("curvature", "is an option of the planar and cable elements");
  else data.simple_curvature = v.has("curvature") && v.at("curvature").choice({"exact", "simple"}) == "simple";
  if (type != "full") v.forbid("section_axis_3", "is only used by the full element");
  data.damping_time = parameter_value_or(v.at("damping_time"), "damping_time", 0.0);
  const std::string geometry = exactly_one_of(v, {"line", "arc", "points"});
  elements::BeamNodes nodes;
  try {
    if (geometry == "line") {
      const Value line = v.at("line");
      line.expect_map({"start", "end"});
      const Point start = line.at("start").point(dimension_), end = line.at("end").point(dimension_);
      Point axis3{0.0, 0.0, 1.0};
      const Point d = model::subtract(end, start);
      if (std::abs(d[2]) > 0.999 * norm(d)) axis3 = {1.0, 0.0, 0.0};  // a vertical beam
      nodes = elements::straight_beam(start, end, generated_count(v.at("elements"), 1), section_axis(v, axis3));
    } else if (geometry == "arc") {
      const Value arc = v.at("arc");
      arc.expect_map(dimension_ == 2 ? Keys{"centre", "start", "angle"} : Keys{"centre", "start", "angle", "axis"});
      const Point axis = dimension_ == 2 ? Point{0.0, 0.0, 1.0} : arc.at("axis").point(3);
      nodes = elements::arc_beam(arc.at("centre").point(dimension_), arc.at("start").point(dimension_),
                                 arc.at("angle").number(), axis, generated_count(v.at("elements"), 1));
    } else {
      v.forbid("elements", "is given by the points (one element between consecutive points)");
      const Value points = v.at("points");
      const std::size_t count = points.list_size("a list of at least 2 points");
      std::vector<Point> xs;
      for (std::size_t k = 0; k < count; ++k) xs.push_back(points.item(k).point(dimension_));
      nodes = elements::polyline_beam(xs, section_axis(v, {0.0, 0.0, 1.0}));
    }
  } catch (const std::invalid_argument& error) {
    v.at(geometry).fail(std::string("bad ANCF beam geometry: ") + error.what());
  }
  for (std::size_t k = 0; k + 1 < nodes.positions.size(); ++k)
    claim_component_name(v.at("name"), name + ".element" + std::to_string(k + 1));
  const auto ancf_type = type == "planar" ? elements::AncfType::Planar
                         : type == "cable" ? elements::AncfType::Cable
                                           : elements::AncfType::Full;
  const auto indices = elements::add_ancf_beam(model_, name, ancf_type, nodes, data);
  for (std::size_t k = 0; k < indices.size(); ++k) body_index_.emplace(model_.body(indices[k]).name, indices[k]);
  body_index_.emplace(name + ".start", indices.front());
  body_index_.emplace(name + ".end", indices.back());
  beam_nodes_[name] = static_cast<int>(indices.size());
}

}  // namespace flexadj::io::reader
