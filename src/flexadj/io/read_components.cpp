// What the component sections share: body references, points, names, typed entries.
#include "flexadj/io/reader.hpp"

namespace flexadj::io::reader {

// The one key of `keys` that is given in the map v.
std::string Reader::exactly_one_of(const Value& v, const Keys& keys) {
  std::vector<std::string> given;
  for (const auto& key : keys)
    if (v.has(key)) given.push_back(key);
  if (given.empty()) v.fail("expected one of the keys: " + join(keys));
  if (given.size() > 1) v.at(given[1]).fail("'" + given[1] + "' cannot be combined with '" + given[0] + "'");
  return given.front();
}

std::vector<double> Reader::numbers_of_list(const Value& v) {
  const std::size_t n = v.list_size("a non-empty list of numbers");
  if (n == 0) v.fail("expected a non-empty list of numbers, got " + v.describe());
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = v.item(i).number();
  return x;
}

// A file named by `v`: relative paths resolve against the model file's folder, or against the working
// directory when the value comes from a command-line override (--set key=file).
fs::path Reader::resolve(const Value& v, const std::string& file) const {
  const fs::path path(file);
  if (path.is_absolute() || context_.folder.empty() || context_.overridden(v.path())) return path;
  return context_.folder / path;
}

// ---- references to bodies and shared helpers for forces and joints
std::string Reader::body_list() const {
  std::vector<std::string> names;
  const auto& bodies = model_.bodies();
  for (std::size_t i = 0; i < bodies.size() && i < 20; ++i) names.push_back(bodies[i].name);
  if (bodies.size() > 20) names.push_back("... (" + std::to_string(bodies.size()) + " bodies)");
  return join(names);
}

int Reader::body_ref(const Value& v, bool allow_ground) const {
  const std::string name = v.name();
  const int index = find_body(name);
  if (index == kUnknown) {
    const auto dot = name.rfind('.');
    const auto beam = dot == std::string::npos ? beam_nodes_.end() : beam_nodes_.find(name.substr(0, dot));
    if (beam != beam_nodes_.end())
      v.fail("beam '" + beam->first + "' has no node '" + name.substr(dot + 1) + "' (its nodes are " + beam->first +
             ".node0 .. " + beam->first + ".node" + std::to_string(beam->second - 1) + ", " + beam->first +
             ".start and " + beam->first + ".end)");
    v.fail("unknown body '" + name + "' (bodies are: " + body_list() + ")");
  }
  if (index == kGround && !allow_ground) v.fail("expected a body, not ground");
  return index;
}

// bodies: [a, b], two different bodies, at most one of them ground.
std::array<int, 2> Reader::body_pair(const Value& v) const {
  v.expect_list(2, "a list of 2 body names");
  const std::array<int, 2> ids{body_ref(v.item(0), true), body_ref(v.item(1), true)};
  if (ids[0] == kGround && ids[1] == kGround) v.fail("both bodies are ground; expected at most one ground");
  if (ids[0] == ids[1]) v.fail("both bodies are '" + model_.body(ids[0]).name + "'; expected two different bodies");
  return ids;
}

Point Reader::centre_of_mass(int body) const {
  const auto& b = model_.body(body);
  if (b.kind == model::BodyKind::DualQuaternionNode)
    return model::point_position(b.kind, b.initial_coordinates.data(), Point{0.0, 0.0, 0.0});
  const auto& q = b.initial_coordinates;
  return {q[0], q[1], dimension_ == 3 ? q[2] : 0.0};
}

// The global point of body `body` at t = 0 given in v, by default its centre of mass (ground: required).
Point Reader::point_or_centre(const Value& v, int body) const {
  if (v.given() || body == kGround) return v.point(dimension_);
  return centre_of_mass(body);
}

// points: [[on a], [on b]] global at t = 0; default: the centres of mass (required if one body is ground).
std::array<Point, 2> Reader::point_pair(const Value& v, const std::array<int, 2>& ids) const {
  if (!v.given() && ids[0] != kGround && ids[1] != kGround) return {centre_of_mass(ids[0]), centre_of_mass(ids[1])};
  v.expect_list(2, "a list of 2 points");
  return {v.item(0).point(dimension_), v.item(1).point(dimension_)};
}

std::array<BodyKind, 2> Reader::kinds_of(const std::array<int, 2>& ids) const {
  return {model_.body_kind(ids[0]), model_.body_kind(ids[1])};
}

// Force and joint names are unique; the default is "<type><index>".
std::string Reader::component_name(const Value& v, const std::string& type, std::size_t index) {
  const std::string name = v.has("name") ? v.at("name").name() : type + std::to_string(index);
  claim_component_name(v.has("name") ? v.at("name") : v, name);
  return name;
}

void Reader::claim_component_name(const Value& at, const std::string& name) {
  if (!component_names_.insert(name).second)
    at.fail("duplicate name '" + name + "' (force and joint names must be unique)");
}

// Reads `type` and checks the map's keys against those of that type.
std::string Reader::typed_entry(const Value& v, const std::vector<std::pair<std::string, Keys>>& types) {
  if (!v.is_map()) v.fail("expected a map (key: value entries), got " + v.describe());
  Keys names;
  for (const auto& [type, keys] : types) names.push_back(type);
  const std::string type = v.at("type").choice(names);
  for (const auto& [candidate, keys] : types)
    if (candidate == type) v.expect_map(keys);
  return type;
}

}  // namespace flexadj::io::reader
