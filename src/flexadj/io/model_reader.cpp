// Model-file reader.
//
// Two layers: Value, a small typed accessor over YAML::Node that knows its key path ("bodies[2].mass"), the
// keys allowed in a map and how to describe what it holds, so that every error comes out uniformly as
//   InputError(file, "bodies[2].mass", "expected a positive number, got -1 (line 14)");
// and Reader, which interprets the sections of the schema (docs/model-format.md) on top of it and fills the
// model::Model.
#include "flexadj/io/model_reader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "flexadj/adjoint/design_space.hpp"
#include "flexadj/constraints/constraints.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/elements/ancf_builder.hpp"
#include "flexadj/elements/beam_builder.hpp"
#include "flexadj/elements/elements.hpp"
#include "flexadj/functions/control_signal.hpp"
#include "flexadj/functions/expression.hpp"
#include "flexadj/model/coordinate_names.hpp"

namespace flexadj::io {
namespace {

namespace fs = std::filesystem;
using constraints::JointKind;
using functions::Expression;
using model::Body;
using model::BodyKind;
using model::kGround;
using model::Point;

using Keys = std::vector<std::string>;

// ---- small helpers -------------------------------------------------------------------------------

std::string format_number(double x) {
  std::ostringstream out;
  out.precision(12);
  out << x;
  return out.str();
}

std::string join(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? separator : std::string()) + items[i];
  return text;
}

std::string key_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}
std::string index_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

// True if the key path `path` is `root` or lies below it.
bool within(const std::string& path, const std::string& root) {
  if (root.empty() || path.compare(0, root.size(), root) != 0) return false;
  return path.size() == root.size() || path[root.size()] == '.' || path[root.size()] == '[';
}

double norm(const Point& x) { return std::sqrt(model::dot(x, x)); }

// ---- error context -------------------------------------------------------------------------------

struct AppliedOverride {
  std::string text;  // as given: "integrator.step_size=1e-4"
  std::string root;  // key path of the outermost node it created or replaced
};

struct Context {
  std::string file;  // for messages
  fs::path folder;   // relative paths in the model resolve against it
  std::vector<AppliedOverride> overrides;

  // Errors inside a node set by an override name the override (its line numbers would be meaningless);
  // others give the line in the model file.
  // True if the node at `path` was set by a command-line override.
  bool overridden(const std::string& path) const {
    for (const auto& o : overrides)
      if (within(path, o.root)) return true;
    return false;
  }

  [[noreturn]] void fail(const std::string& path, std::string message, const YAML::Mark& mark) const {
    for (auto it = overrides.rbegin(); it != overrides.rend(); ++it) {
      if (within(path, it->root)) throw InputError(file, path, message + " (from command-line override '" + it->text + "')");
    }
    if (!mark.is_null()) message += " (line " + std::to_string(mark.line + 1) + ")";
    throw InputError(file, path, message);
  }
};

// ---- typed accessor ------------------------------------------------------------------------------

// A node of the model tree with its key path. It may be absent (a key that is not in its map): reading a
// required value from an absent node reports the missing key at the parent.
class Value {
 public:
  Value(const Context& context, const YAML::Node& node, std::string path)
      : context_(&context), node_(node), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  // Present and not null (an empty "key:" counts as not given).
  bool given() const { return defined_ && !node_.IsNull(); }
  bool is_map() const { return defined_ && node_.IsMap(); }
  bool is_list() const { return defined_ && node_.IsSequence(); }

  [[noreturn]] void fail(const std::string& message) const { context_->fail(path_, message, mark()); }

  // ---- maps
  // Checks that this is a map (null counts as an empty map) whose keys are all in `allowed`.
  void expect_map(const Keys& allowed) const {
    require();
    if (node_.IsNull()) return;
    if (!node_.IsMap()) fail("expected a map (key: value entries), got " + describe());
    std::set<std::string> seen;
    for (const auto& entry : node_) {
      if (!entry.first.IsScalar()) context_->fail(path_, "expected a name as key, got a list or map", entry.first.Mark());
      const std::string key = entry.first.Scalar();
      if (!seen.insert(key).second)
        context_->fail(key_path(path_, key), "duplicate key '" + key + "'", entry.first.Mark());
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        context_->fail(key_path(path_, key), "unknown key '" + key + "' (expected one of: " + join(allowed) + ")",
                       entry.first.Mark());
    }
  }
  Value at(const std::string& key) const {
    Value child(*context_, YAML::Node(), key_path(path_, key));
    child.key_ = key;
    child.parent_path_ = path_;
    child.parent_mark_ = mark();
    if (is_map()) {
      const YAML::Node& map = node_;
      const YAML::Node found = map[key];
      if (found.IsDefined()) child.node_ = found;
      else child.defined_ = false;
    } else {
      child.defined_ = false;
    }
    return child;
  }
  bool has(const std::string& key) const { return at(key).given(); }
  // Fails with "missing required key" if this map entry is absent.
  void expect_present() const { require(); }
  // Fails at `key` if it is given: it does not apply here.
  void forbid(const std::string& key, const std::string& reason) const {
    const Value child = at(key);
    if (child.given()) child.fail("'" + key + "' " + reason);
  }

  // ---- lists
  // Number of entries of a list (a null or absent optional list is empty).
  std::size_t list_size(const std::string& what = "a list") const {
    if (!given()) return 0;
    if (!node_.IsSequence()) fail("expected " + what + ", got " + describe());
    return node_.size();
  }
  void expect_list(std::size_t count, const std::string& what) const {
    require();
    if (!node_.IsSequence() || node_.size() != count) fail("expected " + what + ", got " + describe());
  }
  Value item(std::size_t index) const {
    const YAML::Node& list = node_;
    return Value(*context_, list[index], index_path(path_, index));
  }

  // ---- scalars
  double number() const {
    require();
    double x = 0.0;
    if (!decode_number(x)) fail("expected a number, got " + describe());
    if (!std::isfinite(x)) fail("expected a finite number, got " + describe());
    return x;
  }
  double positive() const {
    const double x = number();
    if (!(x > 0.0)) fail("expected a positive number, got " + describe());
    return x;
  }
  double non_negative() const {
    const double x = number();
    if (!(x >= 0.0)) fail("expected a number >= 0, got " + describe());
    return x;
  }
  double in_range(double lo, double hi) const {
    const double x = number();
    if (!(x >= lo && x <= hi))
      fail("expected a number in [" + format_number(lo) + ", " + format_number(hi) + "], got " + describe());
    return x;
  }
  int integer(int lo, int hi = INT_MAX) const {
    require();
    double x = 0.0;
    const std::string range = hi == INT_MAX ? " >= " + std::to_string(lo)
                                            : " in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (!decode_number(x) || x != std::floor(x) || x < lo || x > hi)
      fail("expected an integer" + range + ", got " + describe());
    return static_cast<int>(x);
  }
  bool boolean() const {
    require();
    bool b = false;
    if (!node_.IsScalar() || !YAML::convert<bool>::decode(node_, b))
      fail("expected true or false, got " + describe());
    return b;
  }
  std::string text() const {
    require();
    if (!node_.IsScalar()) fail("expected a text, got " + describe());
    return node_.Scalar();
  }
  std::string name() const {
    const std::string s = text();
    if (s.empty()) fail("expected a non-empty name");
    return s;
  }
  std::string choice(const Keys& options) const {
    require();
    if (!node_.IsScalar() || std::find(options.begin(), options.end(), node_.Scalar()) == options.end())
      fail("expected one of: " + join(options) + "; got " + describe());
    return node_.Scalar();
  }
  // A number, or a text parsed as an expression of the time t.
  Expression expression() const {
    require();
    double x = 0.0;
    if (decode_number(x) && std::isfinite(x)) return Expression::constant(x);
    if (!node_.IsScalar()) fail("expected a number or an expression of t, got " + describe());
    try {
      return Expression::parse(node_.Scalar());
    } catch (const InputError& e) {
      fail(e.what());
    }
  }
  std::vector<double> numbers(std::size_t count) const {
    expect_list(count, "a list of " + std::to_string(count) + " numbers");
    std::vector<double> x(count);
    for (std::size_t i = 0; i < count; ++i) x[i] = item(i).number();
    return x;
  }
  // A list of `dimension` numbers; the z entry of a planar point is 0.
  Point point(int dimension) const {
    const std::vector<double> x = numbers(dimension);
    return {x[0], x[1], dimension == 3 ? x[2] : 0.0};
  }

  bool is_text(const std::string& s) const { return given() && node_.IsScalar() && node_.Scalar() == s; }

  // ---- with defaults
  double number_or(double fallback) const { return given() ? number() : fallback; }
  double non_negative_or(double fallback) const { return given() ? non_negative() : fallback; }
  Point point_or(int dimension, const Point& fallback) const { return given() ? point(dimension) : fallback; }

  // "a map", "a list of 2 entries", -1, 'abc', "nothing"
  std::string describe() const {
    if (!given()) return "nothing";
    if (node_.IsMap()) return "a map";
    if (node_.IsSequence()) {
      const std::size_t n = node_.size();
      return n == 0 ? "an empty list" : "a list of " + std::to_string(n) + (n == 1 ? " entry" : " entries");
    }
    double x = 0.0;
    return decode_number(x) ? node_.Scalar() : "'" + node_.Scalar() + "'";
  }

 private:
  YAML::Mark mark() const { return defined_ ? node_.Mark() : parent_mark_; }
  void require() const {
    if (!defined_) context_->fail(parent_path_, "missing required key '" + key_ + "'", parent_mark_);
  }
  bool decode_number(double& x) const { return node_.IsScalar() && YAML::convert<double>::decode(node_, x); }

  const Context* context_;
  YAML::Node node_;
  std::string path_;
  bool defined_ = true;
  std::string key_;          // for a map entry: its key
  std::string parent_path_;  // and the map's path and position, for "missing required key"
  YAML::Mark parent_mark_ = YAML::Mark::null_mark();
};

// ---- overrides -----------------------------------------------------------------------------------

// One step of an override path: a map key or a list index.
struct PathStep {
  std::string key;
  long index = -1;  // >= 0: a list index
};

[[noreturn]] void bad_override(const Context& context, const std::string& text, const std::string& why) {
  throw InputError(context.file, "", "invalid command-line override '" + text + "': " + why);
}

std::vector<PathStep> parse_override_path(const Context& context, const std::string& text, const std::string& path) {
  std::vector<PathStep> steps;
  std::size_t i = 0;
  const auto expected = "expected key.path=value, e.g. integrator.step_size=1e-4 or bodies[2].mass=3";
  while (i < path.size()) {
    const std::size_t end = path.find_first_of(".[]", i);
    const std::string key = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (key.empty()) bad_override(context, text, expected);
    steps.push_back({key, -1});
    i = end == std::string::npos ? path.size() : end;
    while (i < path.size() && path[i] == '[') {
      const std::size_t close = path.find(']', i);
      const std::string digits = close == std::string::npos ? "" : path.substr(i + 1, close - i - 1);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9)
        bad_override(context, text, "expected a list index such as [2]");
      steps.push_back({"", std::stol(digits)});
      i = close + 1;
    }
    if (i < path.size()) {
      if (path[i] != '.' || i + 1 == path.size()) bad_override(context, text, expected);
      ++i;
    }
  }
  if (steps.empty()) bad_override(context, text, expected);
  return steps;
}

std::string describe_node(const YAML::Node& node) {
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  if (node.IsNull()) return "empty";
  return "a single value";
}

// Applies "key.path=value" to the tree. Map keys along the path are created if missing; list entries must exist.
void apply_override(Context& context, YAML::Node& root, const std::string& text) {
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos) bad_override(context, text, "expected key.path=value");
  const std::vector<PathStep> steps = parse_override_path(context, text, text.substr(0, equals));
  YAML::Node value;
  try {
    value = YAML::Load(text.substr(equals + 1));
  } catch (const YAML::Exception& e) {
    bad_override(context, text, "the value is not valid YAML: " + e.msg);
  }
  if (value.IsNull()) bad_override(context, text, "no value after '='");

  YAML::Node node;
  node.reset(root);  // reset(): walk without assigning into the tree
  std::string path, root_path;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const PathStep& step = steps[s];
    const bool last = s + 1 == steps.size();
    const std::string parent = path;
    if (step.index >= 0) {
      path = index_path(path, step.index);
      if (!node.IsSequence())
        throw InputError(context.file, parent,
                         "command-line override '" + text + "': expected a list here, but the model has " +
                             (node.IsDefined() ? describe_node(node) : "no such key"));
      if (static_cast<std::size_t>(step.index) >= node.size())
        throw InputError(context.file, path,
                         "command-line override '" + text + "': the list has only " + std::to_string(node.size()) +
                             (node.size() == 1 ? " entry" : " entries"));
    } else {
      path = key_path(path, step.key);
      if (!node.IsMap() && !node.IsNull())
        throw InputError(context.file, parent,
                         "command-line override '" + text + "': cannot set '" + step.key + "' inside " +
                             describe_node(node) + ", expected a map");
      const YAML::Node& map = node;
      if (!map[step.key].IsDefined()) {
        if (!last && steps[s + 1].index >= 0)
          throw InputError(context.file, path,
                           "command-line override '" + text + "': there is no list '" + step.key + "' in the model");
        if (root_path.empty()) root_path = path;  // created here
        if (!last) node[step.key] = YAML::Node(YAML::NodeType::Map);
      }
    }
    const auto index = static_cast<std::size_t>(step.index);
    if (last) {
      if (step.index >= 0) node[index] = value;
      else node[step.key] = value;
    } else {
      YAML::Node child = step.index >= 0 ? node[index] : node[step.key];
      node.reset(child);
    }
  }
  context.overrides.push_back({text, root_path.empty() ? path : root_path});
}

// ---- interpretation ------------------------------------------------------------------------------

const Keys kTopKeys = {"title",  "dimension", "gravity", "integrator", "output",    "controls",
                       "bodies", "forces",    "joints",  "chain",      "objective", "design_variables",
                       "static", "sections",  "beams",      "ancf", "optimization"};

class Reader {
 public:
  Reader(const Context& context, model::Model& model) : context_(context), model_(model) {}

  void read(const Value& root) {
    if (!root.given()) root.fail("the model is empty; expected a map with at least dimension, integrator and bodies");
    if (!root.is_map()) root.fail("expected a map of model settings (key: value lines), got " + root.describe());
    root.expect_map(kTopKeys);
    model_.source_file = context_.file;
    if (root.has("title")) model_.title = root.at("title").text();
    dimension_ = root.at("dimension").integer(2, 3);
    model_.dimension = dimension_;
    // Gravity first: each body's inertia element takes its weight from it.
    model_.gravity = root.at("gravity").point_or(dimension_, {0.0, 0.0, 0.0});
    read_integrator(root.at("integrator"));
    read_output(root.at("output"));
    read_controls(root.at("controls"));
    const Value bodies = root.at("bodies"), chain = root.at("chain");
    read_static(root.at("static"));
    const Value beams = root.at("beams"), ancf = root.at("ancf");
    // bodies may be left out if a chain, beams or ANCF beams are given
    if (bodies.given() || (!chain.given() && !beams.given() && !ancf.given())) read_bodies(bodies);
    if (chain.given()) read_chain(chain);
    read_sections(root.at("sections"));
    read_beams(beams);
    read_ancf_beams(ancf);
    read_forces(root.at("forces"));
    read_joints(root.at("joints"));
    read_objective(root.at("objective"));
    read_design_variables(root.at("design_variables"));
    read_optimization(root.at("optimization"));
  }

 private:
  // ---- run settings
  void read_static(const Value& v) {
    model_.statics.time = model_.integrator.start_time;
    if (!v.given()) return;
    v.expect_map({"load_steps", "max_newton_iterations", "newton_tolerance", "time"});
    auto& s = model_.statics;
    if (v.has("load_steps")) s.load_steps = v.at("load_steps").integer(1);
    if (v.has("max_newton_iterations")) s.max_newton_iterations = v.at("max_newton_iterations").integer(1);
    if (v.has("newton_tolerance")) s.newton_tolerance = v.at("newton_tolerance").positive();
    s.time = v.at("time").number_or(model_.integrator.start_time);
  }

  // ---- beams (geometrically exact elements)
  const Keys kSectionKeys = {"name", "E", "G", "nu", "rho", "A", "I", "I2", "I3", "J", "shear_factor",
                             "shear_viscosity", "bulk_viscosity", "rotary_inertia"};

  elements::BeamSectionData read_section(const Value& v) const {
    v.expect_map(kSectionKeys);
    elements::BeamSectionData s;
    s.youngs_modulus = v.at("E").positive();
    if (exactly_one_of(v, {"G", "nu"}) == "G") s.shear_modulus = v.at("G").positive();
    else s.shear_modulus = s.youngs_modulus / (2.0 * (1.0 + v.at("nu").in_range(-0.99, 0.5)));
    s.density = v.at("rho").non_negative();
    s.area = v.at("A").positive();
    if (v.has("I")) {  // a symmetric section: I2 = I3 = I
      v.forbid("I2", "cannot be combined with 'I' (I2 = I3 = I)");
      v.forbid("I3", "cannot be combined with 'I' (I2 = I3 = I)");
      s.I2 = s.I3 = v.at("I").positive();
    } else {
      s.I2 = v.at("I2").positive();
      s.I3 = v.at("I3").positive();
    }
    s.J = v.has("J") ? v.at("J").positive() : s.I2 + s.I3;
    const Value shear = v.at("shear_factor");
    if (shear.is_list()) {
      const auto k = shear.numbers(2);
      for (int i = 0; i < 2; ++i)
        if (!(k[i] > 0.0)) shear.item(i).fail("expected a positive shear factor, got " + shear.item(i).describe());
      s.shear_factor_2 = k[0];
      s.shear_factor_3 = k[1];
    } else if (shear.given()) {
      s.shear_factor_2 = s.shear_factor_3 = shear.positive();
    }
    s.shear_viscosity = v.at("shear_viscosity").non_negative_or(0.0);
    s.bulk_viscosity = v.at("bulk_viscosity").non_negative_or(0.0);
    s.rotary = {s.I2 + s.I3, s.I2, s.I3};
    if (v.has("rotary_inertia")) {
      const auto r = v.at("rotary_inertia").numbers(3);
      for (int i = 0; i < 3; ++i) {
        if (!(r[i] >= 0.0)) v.at("rotary_inertia").item(i).fail("expected a non-negative value");
        s.rotary[i] = r[i];
      }
    }
    return s;
  }

  void read_sections(const Value& list) {
    const std::size_t n = list.list_size("a list of beam sections");
    for (std::size_t i = 0; i < n; ++i) {
      const Value v = list.item(i);
      if (!v.is_map()) v.fail("expected a map with name, E, G or nu, rho, A, I2, I3, got " + v.describe());
      const std::string name = v.at("name").name();
      if (sections_.count(name)) v.at("name").fail("duplicate section name '" + name + "'");
      sections_[name] = read_section(v);
    }
  }

  void read_beams(const Value& list) {
    const std::size_t n = list.list_size("a list of beams");
    if (n > 0 && dimension_ != 3) list.fail("beams need a spatial model (dimension: 3)");
    for (std::size_t i = 0; i < n; ++i) read_beam(list.item(i));
  }

  void read_beam(const Value& v) {
    v.expect_map({"name", "section", "elements", "line", "arc", "points", "points_file", "gmsh", "section_axis_3"});
    const std::string name = v.at("name").name();
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
        nodes = elements::straight_beam(start, end, v.at("elements").integer(1), section_axis(v, axis3));
      } else if (geometry == "arc") {
        const Value arc = v.at("arc");
        arc.expect_map({"centre", "start", "angle", "axis"});
        v.forbid("section_axis_3", "is the arc axis for an arc");
        nodes = elements::arc_beam(arc.at("centre").point(3), arc.at("start").point(3), arc.at("angle").number(),
                                   arc.at("axis").point(3), v.at("elements").integer(1));
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
        nodes = elements::read_gmsh_beam(resolve(file, file.text()).string(), section_axis(v, {0.0, 0.0, 1.0}));
      }
    } catch (const std::invalid_argument& error) {
      v.at(geometry).fail(std::string("bad beam geometry: ") + error.what());
    }
    const std::size_t element_count = nodes.elements.empty() ? nodes.positions.size() - 1 : nodes.elements.size();
    for (std::size_t k = 0; k < element_count; ++k)
      claim_component_name(v.at("name"), name + ".element" + std::to_string(k + 1));
    const auto indices = elements::add_beam(model_, name, nodes, section);
    for (std::size_t k = 0; k < indices.size(); ++k) body_index_.emplace(model_.body(indices[k]).name, indices[k]);
    for (const char* end : {".start", ".end"}) body_index_.emplace(name + end, model_.find_body(name + end));
    beam_nodes_[name] = static_cast<int>(indices.size());
  }

  // A text file of points, one "x y z" (or "x, y, z") per line; '#' starts a comment.
  std::vector<Point> read_points_file(const Value& v) const {
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

  static Point section_axis(const Value& v, const Point& fallback) {
    return v.has("section_axis_3") ? unit_vector(v.at("section_axis_3"), 3) : fallback;
  }

  // ---- ANCF beams: planar (dimension 2), cable and full (dimension 3)
  void read_ancf_beams(const Value& list) {
    const std::size_t n = list.list_size("a list of ANCF beams");
    for (std::size_t i = 0; i < n; ++i) read_ancf_beam(list.item(i));
  }

  void read_ancf_beam(const Value& v) {
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
    data.damping_time = v.at("damping_time").non_negative_or(0.0);
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
        nodes = elements::straight_beam(start, end, v.at("elements").integer(1), section_axis(v, axis3));
      } else if (geometry == "arc") {
        const Value arc = v.at("arc");
        arc.expect_map(dimension_ == 2 ? Keys{"centre", "start", "angle"} : Keys{"centre", "start", "angle", "axis"});
        const Point axis = dimension_ == 2 ? Point{0.0, 0.0, 1.0} : arc.at("axis").point(3);
        nodes = elements::arc_beam(arc.at("centre").point(dimension_), arc.at("start").point(dimension_),
                                   arc.at("angle").number(), axis, v.at("elements").integer(1));
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

  void read_integrator(const Value& v) {
    v.expect_map({"type", "start_time", "end_time", "step_size", "spectral_radius", "max_newton_iterations",
                  "newton_tolerance", "linear_solver"});
    auto& s = model_.integrator;
    if (v.has("type")) s.scheme = v.at("type").choice({"generalized_alpha", "hht", "variational"});
    s.start_time = v.at("start_time").number_or(0.0);
    const Value end = v.at("end_time");
    s.end_time = end.number();
    if (!(s.end_time > s.start_time))
      end.fail("expected a number greater than start_time (" + format_number(s.start_time) + "), got " +
               end.describe());
    s.step_size = v.at("step_size").positive();
    if (v.has("spectral_radius")) {
      if (s.scheme == "variational")
        v.at("spectral_radius")
            .fail("not used by type variational (it has no numerical damping by construction); remove it from the "
                  "integrator section, or choose type generalized_alpha or hht");
      s.spectral_radius = v.at("spectral_radius").in_range(s.scheme == "hht" ? 0.5 : 0.0, 1.0);
    }
    if (v.has("max_newton_iterations")) s.max_newton_iterations = v.at("max_newton_iterations").integer(1);
    if (v.has("newton_tolerance")) s.newton_tolerance = v.at("newton_tolerance").positive();
    if (v.has("linear_solver")) s.linear_solver = v.at("linear_solver").choice({"auto", "direct", "iterative"});
  }

  void read_output(const Value& v) {
    if (!v.given()) return;
    v.expect_map({"path", "every", "xdmf"});
    if (v.has("path")) model_.output.path = v.at("path").text();
    if (v.has("every")) model_.output.every = v.at("every").integer(1);
    if (v.has("xdmf")) model_.output.xdmf = v.at("xdmf").boolean();
  }

  // ---- controls
  void read_controls(const Value& list) {
    const std::size_t n = list.list_size("a list of controls");
    for (std::size_t i = 0; i < n; ++i) read_control(list.item(i));
  }

  void read_control(const Value& v) {
    v.expect_map({"name", "interpolation", "times", "values", "grid", "value", "file", "column", "times_dataset",
                  "values_dataset"});
    const std::string name = v.at("name").name();
    if (model_.find_control(name)) v.at("name").fail("duplicate control name '" + name + "'");
    const auto kind = v.has("interpolation") && v.at("interpolation").choice({"linear", "constant"}) == "constant"
                          ? functions::Interpolation::PiecewiseConstant
                          : functions::Interpolation::PiecewiseLinear;
    const std::string source = exactly_one_of(v, {"times", "grid", "file"});
    auto allow_only = [&](const Keys& keys) {
      for (const std::string key : {"times", "values", "grid", "value", "file", "column", "times_dataset",
                                    "values_dataset"})
        if (std::find(keys.begin(), keys.end(), key) == keys.end())
          v.forbid(key, "cannot be combined with '" + source + "'");
    };
    std::shared_ptr<functions::ControlSignal> signal;
    if (source == "times") {
      allow_only({"times", "values"});
      const Value times = v.at("times");
      const std::vector<double> t = numbers_of_list(times);
      const std::vector<double> u = v.at("values").numbers(t.size());
      for (std::size_t k = 1; k < t.size(); ++k)
        if (!(t[k] > t[k - 1])) times.item(k).fail("expected times that increase strictly, got " +
                                                     format_number(t[k]) + " after " + format_number(t[k - 1]));
      signal = make_signal(v, name, t, u, kind);
    } else if (source == "grid") {
      allow_only({"grid", "value", "values"});
      const Value grid = v.at("grid");
      grid.expect_map({"start", "end", "count"});
      const double start = grid.at("start").number();
      const Value end_value = grid.at("end");
      const double end = end_value.number();
      if (!(end > start))
        end_value.fail("expected a number greater than start (" + format_number(start) + "), got " +
                       end_value.describe());
      const int count = grid.at("count").integer(2);
      std::vector<double> t(count), u;
      for (int k = 0; k < count; ++k) t[k] = start + (end - start) * k / (count - 1);
      if (exactly_one_of(v, {"value", "values"}) == "value") u.assign(count, v.at("value").number());
      else u = v.at("values").numbers(count);
      signal = make_signal(v, name, t, u, kind);
    } else {
      const Value file = v.at("file");
      const fs::path path = resolve(file, file.name());
      const std::string extension = path.extension().string();
      const bool hdf5 = extension == ".h5" || extension == ".hdf5" || extension == ".he5";
      if (hdf5) allow_only({"file", "times_dataset", "values_dataset"});
      else allow_only({"file", "column"});
      const std::string column = !hdf5 && v.has("column") ? v.at("column").name() : name;
      const std::string times_dataset = hdf5 ? v.at("times_dataset").name() : "";
      const std::string values_dataset = hdf5 ? v.at("values_dataset").name() : "";
      try {
        signal = std::make_shared<functions::ControlSignal>(
            hdf5 ? functions::ControlSignal::from_hdf5(name, path.string(), times_dataset, values_dataset, kind)
                 : functions::ControlSignal::from_csv(name, path.string(), column, kind));
      } catch (const InputError& e) {
        file.fail(e.what());  // keeps the control file's own message, adds the model file and key
      }
    }
    model_.add_control(std::move(signal));
  }

  std::shared_ptr<functions::ControlSignal> make_signal(const Value& v, const std::string& name,
                                                        std::vector<double> t, std::vector<double> u,
                                                        functions::Interpolation kind) {
    try {
      return std::make_shared<functions::ControlSignal>(name, std::move(t), std::move(u), kind);
    } catch (const InputError& e) {
      v.fail(e.what());
    }
  }

  // The one key of `keys` that is given in the map v.
  static std::string exactly_one_of(const Value& v, const Keys& keys) {
    std::vector<std::string> given;
    for (const auto& key : keys)
      if (v.has(key)) given.push_back(key);
    if (given.empty()) v.fail("expected one of the keys: " + join(keys));
    if (given.size() > 1) v.at(given[1]).fail("'" + given[1] + "' cannot be combined with '" + given[0] + "'");
    return given.front();
  }

  static std::vector<double> numbers_of_list(const Value& v) {
    const std::size_t n = v.list_size("a non-empty list of numbers");
    if (n == 0) v.fail("expected a non-empty list of numbers, got " + v.describe());
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = v.item(i).number();
    return x;
  }

  // A file named by `v`: relative paths resolve against the model file's folder, or against the working
  // directory when the value comes from a command-line override (--set key=file).
  fs::path resolve(const Value& v, const std::string& file) const {
    const fs::path path(file);
    if (path.is_absolute() || context_.folder.empty() || context_.overridden(v.path())) return path;
    return context_.folder / path;
  }

  // ---- bodies
  BodyKind body_kind(const std::string& type) const {
    if (type == "point_mass") return dimension_ == 2 ? BodyKind::PointMass2D : BodyKind::PointMass3D;
    return dimension_ == 2 ? BodyKind::PlanarRigid : BodyKind::SpatialRigid;
  }

  void read_bodies(const Value& list) {
    list.expect_present();
    const std::size_t n = list.list_size("a non-empty list of bodies");
    if (n == 0) list.fail("expected a non-empty list of bodies, got " + list.describe());
    for (std::size_t i = 0; i < n; ++i) read_body(list.item(i));
  }

  void read_body(const Value& v) {
    v.expect_map({"name", "type", "mass", "inertia", "position", "orientation", "velocity", "angular_velocity"});
    Body body;
    body.name = v.at("name").name();
    check_body_name(v.at("name"), body.name);
    body.kind = body_kind(v.at("type").choice({"point_mass", "rigid_body"}));
    body.mass = v.at("mass").positive();
    const bool rigid = model::has_orientation(body.kind);
    if (rigid) {
      body.inertia = read_inertia(v.at("inertia"), body.kind);
    } else {
      for (const char* key : {"inertia", "orientation", "angular_velocity"})
        v.forbid(key, "is not allowed for a point mass");
    }
    const Point position = v.at("position").point(dimension_);
    const Point velocity = v.at("velocity").point_or(dimension_, {0.0, 0.0, 0.0});
    for (int i = 0; i < dimension_; ++i) {
      body.initial_coordinates.push_back(position[i]);
      body.initial_velocities.push_back(velocity[i]);
    }
    if (body.kind == BodyKind::PlanarRigid) {
      body.initial_coordinates.push_back(v.at("orientation").number_or(0.0));
      body.initial_velocities.push_back(v.at("angular_velocity").number_or(0.0));
    } else if (body.kind == BodyKind::SpatialRigid) {
      const std::array<double, 4> e = read_euler_parameters(v.at("orientation"));
      const Point w = v.at("angular_velocity").point_or(3, {0.0, 0.0, 0.0});
      const std::array<double, 4> e_dot = euler_parameter_rates(e, w);
      body.initial_coordinates.insert(body.initial_coordinates.end(), e.begin(), e.end());
      body.initial_velocities.insert(body.initial_velocities.end(), e_dot.begin(), e_dot.end());
    }
    add_body(body);
  }

  // Model::find_body is a linear search: a chain of 10^5 links needs the map.
  static constexpr int kUnknown = -2;
  int find_body(const std::string& name) const {
    if (name == "ground") return kGround;
    const auto found = body_index_.find(name);
    return found == body_index_.end() ? kUnknown : found->second;
  }
  int add_body(const Body& body) {
    const int index = model_.add_body(body);
    body_index_.emplace(body.name, index);
    return index;
  }

  void check_body_name(const Value& at, const std::string& name) const {
    if (name == "ground") at.fail("'ground' is reserved for the fixed frame; choose another body name");
    if (find_body(name) != kUnknown) at.fail("duplicate body name '" + name + "'");
  }

  // Planar: Izz > 0. Spatial: [Ixx, Iyy, Izz, Ixy, Ixz, Iyz], symmetric positive definite, or {principal: [..]}.
  std::array<double, 6> read_inertia(const Value& v, BodyKind kind) const {
    if (kind == BodyKind::PlanarRigid) return {0.0, 0.0, v.positive(), 0.0, 0.0, 0.0};
    if (v.is_map()) {
      v.expect_map({"principal"});
      const Value principal = v.at("principal");
      principal.expect_list(3, "a list of 3 numbers");
      std::array<double, 6> inertia{};
      for (int i = 0; i < 3; ++i) inertia[i] = principal.item(i).positive();
      return inertia;
    }
    if (v.given() && !v.is_list())
      v.fail("expected a list of 6 numbers [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] or {principal: [I1, I2, I3]}, got " +
             v.describe());
    const std::vector<double> I = v.numbers(6);
    // Cholesky factorisation of the symmetric tensor; a pivot not clearly positive means singular or indefinite.
    const double a[3][3] = {{I[0], I[3], I[4]}, {I[3], I[1], I[5]}, {I[4], I[5], I[2]}};
    const double scale = std::max({std::abs(I[0]), std::abs(I[1]), std::abs(I[2])});
    double L[3][3] = {};
    for (int j = 0; j < 3; ++j) {
      double pivot = a[j][j];
      for (int k = 0; k < j; ++k) pivot -= L[j][k] * L[j][k];
      if (!(pivot > 1e-12 * scale)) v.fail("inertia tensor is not positive definite (singular or indefinite)");
      L[j][j] = std::sqrt(pivot);
      for (int i = j + 1; i < 3; ++i) {
        double sum = a[i][j];
        for (int k = 0; k < j; ++k) sum -= L[i][k] * L[j][k];
        L[i][j] = sum / L[j][j];
      }
    }
    return {I[0], I[1], I[2], I[3], I[4], I[5]};
  }

  // {euler_parameters: [e0, e1, e2, e3]} or {axis: [..], angle: rad}; identity if not given.
  static std::array<double, 4> read_euler_parameters(const Value& v) {
    if (!v.given()) return {1.0, 0.0, 0.0, 0.0};
    v.expect_map({"euler_parameters", "axis", "angle"});
    if (exactly_one_of(v, {"euler_parameters", "axis"}) == "euler_parameters") {
      v.forbid("angle", "cannot be combined with 'euler_parameters'");
      const Value ev = v.at("euler_parameters");
      const std::vector<double> e = ev.numbers(4);
      const double length = std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3]);
      if (std::abs(length - 1.0) > 1e-3)
        ev.fail("expected Euler parameters of unit norm (within 1e-3; they are then normalised), got norm " +
                format_number(length));
      return {e[0] / length, e[1] / length, e[2] / length, e[3] / length};
    }
    const Point n = unit_vector(v.at("axis"), 3);
    const double angle = v.at("angle").number();
    const double s = std::sin(0.5 * angle);
    return {std::cos(0.5 * angle), s * n[0], s * n[1], s * n[2]};
  }

  // de/dt = 1/2 E(e)^T w, w in global axes; Nikravesh 1988, eq. (6.104).
  static std::array<double, 4> euler_parameter_rates(const std::array<double, 4>& e, const Point& w) {
    const double E[3][4] = {{-e[1], e[0], -e[3], e[2]}, {-e[2], e[3], e[0], -e[1]}, {-e[3], -e[2], e[1], e[0]}};
    std::array<double, 4> rates{};
    for (int j = 0; j < 4; ++j) rates[j] = 0.5 * (E[0][j] * w[0] + E[1][j] * w[1] + E[2][j] * w[2]);
    return rates;
  }

  static Point unit_vector(const Value& v, int dimension) {
    const Point x = v.point(dimension);
    const double length = norm(x);
    if (!(length > 0.0)) v.fail("expected a non-zero direction, got a zero vector");
    return model::scaled(x, 1.0 / length);
  }

  // ---- chain generator
  void read_chain(const Value& v) {
    v.expect_map({"count", "name", "type", "mass", "inertia", "length", "direction", "anchor"});
    const int count = v.at("count").integer(1);
    const std::string prefix = v.has("name") ? v.at("name").name() : "link";
    const BodyKind kind = body_kind(v.at("type").choice({"rigid_body", "point_mass"}));
    const bool rigid = model::has_orientation(kind);
    const double mass = v.at("mass").positive();
    std::array<double, 6> inertia{};
    if (rigid) inertia = read_inertia(v.at("inertia"), kind);
    else v.forbid("inertia", "is not allowed for a point mass");
    const double length = v.at("length").positive();
    const Point direction = v.has("direction") ? unit_vector(v.at("direction"), dimension_)
                                               : Point{1.0, 0.0, 0.0};
    const Point anchor = v.at("anchor").point_or(dimension_, {0.0, 0.0, 0.0});
    const auto along = [&](double s) { return model::add(anchor, model::scaled(direction, s * length)); };
    // Rigid links are turned so that their body x axis points along the chain.
    const std::array<double, 4> e = rotation_from_x_to(direction);

    int previous = kGround;
    for (int k = 1; k <= count; ++k) {
      Body body;
      body.name = prefix + std::to_string(k);
      if (find_body(body.name) != kUnknown)
        v.at("name").fail("the chain's body name '" + body.name + "' is already used");
      body.kind = kind;
      body.mass = mass;
      body.inertia = inertia;
      const Point position = along(rigid ? k - 0.5 : k);
      body.initial_coordinates.assign(position.begin(), position.begin() + dimension_);
      if (kind == BodyKind::PlanarRigid) body.initial_coordinates.push_back(std::atan2(direction[1], direction[0]));
      if (kind == BodyKind::SpatialRigid) body.initial_coordinates.insert(body.initial_coordinates.end(), e.begin(), e.end());
      body.initial_velocities.assign(body.initial_coordinates.size(), 0.0);
      const int index = add_body(body);

      const std::string joint = prefix + "_joint" + std::to_string(k);
      claim_component_name(v, joint);
      const std::array<int, 2> ids{previous, index};
      const std::array<BodyKind, 2> kinds{model_.body_kind(previous), kind};
      if (rigid) {
        const JointKind joint_kind = dimension_ == 2 ? JointKind::Revolute : JointKind::Spherical;
        model_.add_constraint(constraints::make_joint(
            joint, joint_kind, ids, kinds, model_.joint_geometry(joint_kind, previous, index, along(k - 1), {})));
      } else {
        model_.add_constraint(constraints::make_distance(joint, ids, kinds, model_.to_body_point(previous, along(k - 1)),
                                                         model_.to_body_point(index, position), length));
      }
      previous = index;
    }
  }

  // Euler parameters of the smallest rotation taking the x axis onto the unit vector d.
  static std::array<double, 4> rotation_from_x_to(const Point& d) {
    const Point x{1.0, 0.0, 0.0};
    const Point axis = model::cross(x, d);
    const double s = norm(axis), c = d[0];
    if (s < 1e-12) return c > 0.0 ? std::array<double, 4>{1.0, 0.0, 0.0, 0.0} : std::array<double, 4>{0.0, 0.0, 0.0, 1.0};
    const double angle = std::atan2(s, c), h = std::sin(0.5 * angle) / s;
    return {std::cos(0.5 * angle), axis[0] * h, axis[1] * h, axis[2] * h};
  }

  // ---- references to bodies and shared helpers for forces and joints
  std::string body_list() const {
    std::vector<std::string> names;
    const auto& bodies = model_.bodies();
    for (std::size_t i = 0; i < bodies.size() && i < 20; ++i) names.push_back(bodies[i].name);
    if (bodies.size() > 20) names.push_back("... (" + std::to_string(bodies.size()) + " bodies)");
    return join(names);
  }

  int body_ref(const Value& v, bool allow_ground) const {
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
  std::array<int, 2> body_pair(const Value& v) const {
    v.expect_list(2, "a list of 2 body names");
    const std::array<int, 2> ids{body_ref(v.item(0), true), body_ref(v.item(1), true)};
    if (ids[0] == kGround && ids[1] == kGround) v.fail("both bodies are ground; expected at most one ground");
    if (ids[0] == ids[1]) v.fail("both bodies are '" + model_.body(ids[0]).name + "'; expected two different bodies");
    return ids;
  }

  Point centre_of_mass(int body) const {
    const auto& q = model_.body(body).initial_coordinates;
    return {q[0], q[1], dimension_ == 3 ? q[2] : 0.0};
  }

  // The global point of body `body` at t = 0 given in v, by default its centre of mass (ground: required).
  Point point_or_centre(const Value& v, int body) const {
    if (v.given() || body == kGround) return v.point(dimension_);
    return centre_of_mass(body);
  }

  // points: [[on a], [on b]] global at t = 0; default: the centres of mass (required if one body is ground).
  std::array<Point, 2> point_pair(const Value& v, const std::array<int, 2>& ids) const {
    if (!v.given() && ids[0] != kGround && ids[1] != kGround) return {centre_of_mass(ids[0]), centre_of_mass(ids[1])};
    v.expect_list(2, "a list of 2 points");
    return {v.item(0).point(dimension_), v.item(1).point(dimension_)};
  }

  std::array<BodyKind, 2> kinds_of(const std::array<int, 2>& ids) const {
    return {model_.body_kind(ids[0]), model_.body_kind(ids[1])};
  }

  // Force and joint names are unique; the default is "<type><index>".
  std::string component_name(const Value& v, const std::string& type, std::size_t index) {
    const std::string name = v.has("name") ? v.at("name").name() : type + std::to_string(index);
    claim_component_name(v.has("name") ? v.at("name") : v, name);
    return name;
  }
  void claim_component_name(const Value& at, const std::string& name) {
    if (!component_names_.insert(name).second)
      at.fail("duplicate name '" + name + "' (force and joint names must be unique)");
  }

  // Reads `type` and checks the map's keys against those of that type.
  static std::string typed_entry(const Value& v, const std::vector<std::pair<std::string, Keys>>& types) {
    if (!v.is_map()) v.fail("expected a map (key: value entries), got " + v.describe());
    Keys names;
    for (const auto& [type, keys] : types) names.push_back(type);
    const std::string type = v.at("type").choice(names);
    for (const auto& [candidate, keys] : types)
      if (candidate == type) v.expect_map(keys);
    return type;
  }

  // ---- forces
  // Reads each entry of a list of components with read(entry, index); a component that refuses its bodies
  // (std::invalid_argument, model/component_ad.hpp) is an input error of its entry.
  template <class Read> void read_components(const Value& list, const char* expected, Read read) {
    const std::size_t n = list.list_size(expected);
    for (std::size_t i = 0; i < n; ++i) {
      const Value entry = list.item(i);
      try {
        read(entry, i);
      } catch (const std::invalid_argument& e) {
        entry.fail(e.what());
      }
    }
  }

  void read_forces(const Value& list) {
    read_components(list, "a list of forces", [&](const Value& v, std::size_t i) { read_force(v, i); });
  }

  void read_force(const Value& v, std::size_t index) {
    const std::string type = typed_entry(
        v, {{"spring_damper", {"name", "type", "bodies", "points", "stiffness", "damping", "free_length"}},
            {"rotational_spring_damper", {"name", "type", "bodies", "stiffness", "damping", "rest_angle", "axis"}},
            {"angle_spring_damper", {"name", "type", "bodies", "points", "stiffness", "damping", "rest_angle"}},
            {"load", {"name", "type", "body", "point", "force", "moment", "frame", "control"}}});
    const std::string name = component_name(v, type, index);
    if (type == "spring_damper") read_spring_damper(v, name);
    else if (type == "rotational_spring_damper") read_rotational_spring_damper(v, name);
    else if (type == "angle_spring_damper") read_angle_spring_damper(v, name);
    else read_load(v, name);
  }

  void read_spring_damper(const Value& v, const std::string& name) {
    const auto ids = body_pair(v.at("bodies"));
    const auto points = point_pair(v.at("points"), ids);
    elements::SpringDamperData data;
    data.stiffness = v.at("stiffness").non_negative_or(0.0);
    data.damping = v.at("damping").non_negative_or(0.0);
    const double distance = norm(model::subtract(points[1], points[0]));
    if (!(distance > 0.0))
      (v.has("points") ? v.at("points") : v.at("bodies"))
          .fail("the attachment points coincide at t = 0, so the spring direction is undefined");
    data.free_length = v.has("free_length") ? v.at("free_length").positive() : distance;
    data.point_a = model_.to_body_point(ids[0], points[0]);
    data.point_b = model_.to_body_point(ids[1], points[1]);
    model_.add_force_element(elements::make_spring_damper(name, ids, kinds_of(ids), data));
  }

  void read_rotational_spring_damper(const Value& v, const std::string& name) {
    const Value bodies = v.at("bodies");
    auto ids = body_pair(bodies);
    for (int k = 0; k < 2; ++k)
      if (ids[k] != kGround && !model::has_orientation(model_.body_kind(ids[k])))
        bodies.item(k).fail("expected a rigid body or ground, got the point mass '" + model_.body(ids[k]).name + "'");
    elements::RotationalSpringDamperData data;
    data.damping = v.at("damping").non_negative_or(0.0);
    if (dimension_ == 2) {
      v.forbid("axis", "is not used in planar models (the axis is z)");
      data.stiffness = v.at("stiffness").non_negative_or(0.0);
      const auto angle = [&](int body) { return body == kGround ? 0.0 : model_.body(body).initial_coordinates[2]; };
      data.rest_angle = v.at("rest_angle").number_or(angle(ids[1]) - angle(ids[0]));
      // The kernel measures the rotation of b: keep ground as a.
      if (ids[1] == kGround) {
        std::swap(ids[0], ids[1]);
        data.rest_angle = -data.rest_angle;
      }
    } else {
      const Value stiffness = v.at("stiffness");
      if (stiffness.given() && stiffness.non_negative() != 0.0)
        stiffness.fail("rotational stiffness is only available in planar models");
      v.forbid("rest_angle", "is only used in planar models");
      data.axis = model_.to_body_vector(ids[0], unit_vector(v.at("axis"), 3));
    }
    model_.add_force_element(elements::make_rotational_spring_damper(name, ids, kinds_of(ids), data));
  }

  void read_angle_spring_damper(const Value& v, const std::string& name) {
    if (dimension_ != 2) v.at("type").fail("angle_spring_damper is only available in planar models");
    const auto ids = body_pair(v.at("bodies"));
    const auto points = point_pair(v.at("points"), ids);
    const Point d = model::subtract(points[1], points[0]);
    elements::AngleSpringDamperData data;
    data.stiffness = v.at("stiffness").non_negative_or(0.0);
    data.damping = v.at("damping").non_negative_or(0.0);
    if (!(norm(d) > 0.0))
      (v.has("points") ? v.at("points") : v.at("bodies"))
          .fail("the points coincide at t = 0, so the direction of the line is undefined");
    data.rest_angle = v.at("rest_angle").number_or(std::atan2(d[1], d[0]));
    data.point_a = model_.to_body_point(ids[0], points[0]);
    data.point_b = model_.to_body_point(ids[1], points[1]);
    model_.add_force_element(elements::make_angle_spring_damper(name, ids, kinds_of(ids), data));
  }

  void read_load(const Value& v, const std::string& name) {
    const int body = body_ref(v.at("body"), false);
    const BodyKind kind = model_.body_kind(body);
    const bool rigid = model::takes_moment(kind);  // rigid bodies and ANCF nodes
    elements::LoadData data;
    data.point = model_.to_body_point(body, point_or_centre(v.at("point"), body));
    const Value force = v.at("force");
    if (force.given()) {
      force.expect_list(dimension_, "a list of " + std::to_string(dimension_) + " numbers or expressions of t");
      for (int i = 0; i < dimension_; ++i) data.force[i] = force.item(i).expression();
    }
    const Value moment = v.at("moment");
    if (moment.given()) {
      if (!rigid) moment.fail("a point mass takes no moment");
      if (dimension_ == 2) {
        data.moment[2] = moment.expression();
      } else {
        moment.expect_list(3, "a list of 3 numbers or expressions of t");
        for (int i = 0; i < 3; ++i) data.moment[i] = moment.item(i).expression();
      }
    }
    data.body_frame = v.has("frame") && v.at("frame").choice({"global", "body"}) == "body";
    const Value control = v.at("control");
    if (control.given()) {
      control.expect_map({"name", "force_direction", "moment_direction"});
      const Value control_name = control.at("name");
      data.control = model_.find_control(control_name.name());
      if (!data.control) {
        std::vector<std::string> names;
        for (const auto& entry : model_.controls()) names.push_back(entry.first);
        control_name.fail("unknown control '" + control_name.text() + "' (" +
                          (names.empty() ? "the model has no controls" : "controls are: " + join(names)) + ")");
      }
      data.control_force_direction = control.at("force_direction").point_or(dimension_, {0.0, 0.0, 0.0});
      const Value moment_direction = control.at("moment_direction");
      if (moment_direction.given()) {
        if (!rigid) moment_direction.fail("a point mass takes no moment");
        data.control_moment_direction =
            dimension_ == 2 ? Point{0.0, 0.0, moment_direction.number()} : moment_direction.point(3);
      }
      if (!control.has("force_direction") && !moment_direction.given())
        control.fail("expected force_direction or moment_direction (how the control acts on the body)");
    }
    model_.add_force_element(elements::make_load(name, body, kind, data));
  }

  // ---- joints
  void read_joints(const Value& list) {
    read_components(list, "a list of joints", [&](const Value& v, std::size_t i) { read_joint(v, i); });
  }

  void read_joint(const Value& v, std::size_t index) {
    const Keys lower_pair = {"name", "type", "bodies", "point", "axis"};
    const std::string type = typed_entry(
        v, {{"spherical", lower_pair},
            {"revolute", lower_pair},
            {"prismatic", lower_pair},
            {"fixed", lower_pair},
            {"distance", {"name", "type", "bodies", "points", "length"}},
            {"winch", {"name", "type", "bodies", "drum", "points", "radius"}},
            {"prescribed_motion", {"name", "type", "body", "point", "path"}},
            {"prescribed_coordinate", {"name", "type", "body", "coordinate", "value"}}});
    const std::string name = component_name(v, type, index);
    if (type == "distance") read_distance(v, name);
    else if (type == "winch") read_winch(v, name);
    else if (type == "prescribed_motion") read_prescribed_motion(v, name);
    else if (type == "prescribed_coordinate") read_prescribed_coordinate(v, name);
    else read_lower_pair(v, name, type);
  }

  void read_lower_pair(const Value& v, const std::string& name, const std::string& type) {
    const JointKind kind = type == "spherical" ? JointKind::Spherical
                           : type == "revolute" ? JointKind::Revolute
                           : type == "prismatic" ? JointKind::Prismatic
                                                 : JointKind::Fixed;
    const Value bodies = v.at("bodies");
    auto ids = body_pair(bodies);
    if (ids[1] == kGround) std::swap(ids[0], ids[1]);  // b carries the rotation lock: never ground
    const auto kinds = kinds_of(ids);
    if (kind == JointKind::Fixed)
      for (int k = 0; k < 2; ++k)
        if (ids[k] != kGround && model::is_ancf_node(kinds[k]))
          bodies.fail("a fixed joint does not clamp the gradients of the ANCF node '" + model_.body(ids[k]).name +
                      "': use a spherical joint (revolute in planar models) and prescribed_coordinate on the slopes");
    if (kind == JointKind::Prismatic && ids[0] != kGround && !model::has_orientation(kinds[0]))
      bodies.fail("a prismatic joint between two bodies needs a rigid body first (it carries the sliding direction); "
                  "'" + model_.body(ids[0]).name + "' is a point mass");
    if (kind == JointKind::Revolute && dimension_ == 3)
      for (int k = 0; k < 2; ++k)
        if (ids[k] != kGround && !model::has_orientation(kinds[k]))
          bodies.fail("a spatial revolute joint needs rigid bodies; '" + model_.body(ids[k]).name +
                      "' is a point mass (use a spherical joint)");
    const Point point = point_or_centre(v.at("point"), ids[1]);
    Point axis{0.0, 0.0, 0.0};
    const bool needs_axis = kind == JointKind::Prismatic || (kind == JointKind::Revolute && dimension_ == 3);
    if (needs_axis) axis = unit_vector(v.at("axis"), dimension_);
    else v.forbid("axis", "is not used by a " + type + " joint" + (dimension_ == 2 ? " in a planar model" : ""));
    try {
      model_.add_constraint(
          constraints::make_joint(name, kind, ids, kinds, model_.joint_geometry(kind, ids[0], ids[1], point, axis)));
    } catch (const std::invalid_argument& error) {
      bodies.fail(error.what());  // e.g. two full ANCF nodes: more coordinates than a joint supports
    }
  }

  void read_distance(const Value& v, const std::string& name) {
    const auto ids = body_pair(v.at("bodies"));
    const auto points = point_pair(v.at("points"), ids);
    const double distance = norm(model::subtract(points[1], points[0]));
    double length = distance;
    if (v.has("length")) length = v.at("length").positive();
    else if (!(distance > 0.0))
      (v.has("points") ? v.at("points") : v.at("bodies"))
          .fail("the points coincide at t = 0; give a positive length");
    model_.add_constraint(constraints::make_distance(name, ids, kinds_of(ids), model_.to_body_point(ids[0], points[0]),
                                                     model_.to_body_point(ids[1], points[1]), length));
  }

  void read_winch(const Value& v, const std::string& name) {
    const auto ids = body_pair(v.at("bodies"));
    const Value drum_value = v.at("drum");
    const int drum = body_ref(drum_value, false);
    if (model_.body_kind(drum) != BodyKind::PlanarRigid)
      drum_value.fail("expected a planar rigid body as drum, '" + model_.body(drum).name + "' is a " +
                      model::to_string(model_.body_kind(drum)));
    const auto points = point_pair(v.at("points"), ids);
    const double length = norm(model::subtract(points[1], points[0]));
    if (!(length > 0.0))
      (v.has("points") ? v.at("points") : v.at("bodies")).fail("the cable ends coincide at t = 0");
    const double radius = v.at("radius").positive();
    model_.add_constraint(constraints::make_winch(
        name, {ids[0], ids[1], drum}, {model_.body_kind(ids[0]), model_.body_kind(ids[1]), BodyKind::PlanarRigid},
        model_.to_body_point(ids[0], points[0]), model_.to_body_point(ids[1], points[1]), length, radius,
        model_.body(drum).initial_coordinates[2]));
  }

  void read_prescribed_motion(const Value& v, const std::string& name) {
    const int body = body_ref(v.at("body"), false);
    const Point point = model_.to_body_point(body, point_or_centre(v.at("point"), body));
    const Value path = v.at("path");
    path.expect_list(dimension_, "a list of " + std::to_string(dimension_) + " expressions of t or \"free\"");
    std::array<Expression, 3> motion;
    std::array<bool, 3> axes{false, false, false};
    for (int i = 0; i < dimension_; ++i) {
      const Value entry = path.item(i);
      if (entry.is_text("free")) continue;
      motion[i] = entry.expression();
      axes[i] = true;
    }
    if (!axes[0] && !axes[1] && !axes[2]) path.fail("every axis is \"free\"; expected at least one prescribed axis");
    model_.add_constraint(constraints::make_prescribed_motion(name, body, model_.body_kind(body), point, motion, axes));
  }

  void read_prescribed_coordinate(const Value& v, const std::string& name) {
    const int body = body_ref(v.at("body"), false);
    const BodyKind kind = model_.body_kind(body);
    const int coordinate = v.at("coordinate").integer(0, model::coordinate_count(kind) - 1);
    model_.add_constraint(
        constraints::make_prescribed_coordinate(name, body, kind, coordinate, v.at("value").expression()));
  }

  // ---- gradient problems
  void read_objective(const Value& list) {
    const std::size_t n = list.list_size("a list of objective terms");
    if (n == 0 && list.is_list()) list.fail("expected a non-empty list of objective terms, got an empty list");
    for (std::size_t i = 0; i < n; ++i) model_.objective_terms.push_back(read_objective_term(list.item(i)));
  }

  objectives::ObjectiveTerm read_objective_term(const Value& v) const {
    using Term = objectives::ObjectiveTerm;
    const std::string type =
        typed_entry(v, {{"final_value", {"type", "coordinate", "sensor", "relative_to", "quantity", "weight"}},
                        {"final_square", {"type", "coordinate", "sensor", "relative_to", "quantity", "weight", "target"}},
                        {"tracking", {"type", "coordinate", "sensor", "relative_to", "quantity", "weight", "reference",
                                      "reference_control"}},
                        {"penalty",
                         {"type", "coordinate", "sensor", "relative_to", "quantity", "weight", "lower", "upper"}},
                        {"control_effort", {"type", "control", "weight"}}});
    Term term;
    term.kind = type == "final_value"      ? Term::Kind::FinalValue
                : type == "final_square"   ? Term::Kind::FinalSquare
                : type == "tracking"       ? Term::Kind::Tracking
                : type == "penalty"        ? Term::Kind::Penalty
                                           : Term::Kind::ControlEffort;
    if (term.kind == Term::Kind::ControlEffort) {
      const Value control = v.at("control");
      term.control = control.text();
      if (!model_.find_control(term.control)) control.fail("unknown control '" + term.control + "'");
      term.weight = v.at("weight").number_or(1.0);
      return term;
    }
    if (term.kind == Term::Kind::Penalty) {
      if (!v.has("lower") && !v.has("upper")) v.fail("a penalty needs 'lower', 'upper' or both");
      if (v.has("lower")) term.lower = v.at("lower").number();
      if (v.has("upper")) term.upper = v.at("upper").number();
      if (!(term.lower < term.upper)) v.at("upper").fail("expected upper > lower");
    }
    if (v.has("sensor")) {
      if (v.has("coordinate")) v.at("sensor").fail("give either 'coordinate' or 'sensor', not both");
      if (v.has("relative_to")) v.at("relative_to").fail("'relative_to' applies to coordinates, not to a sensor");
      read_sensor(v.at("sensor"), v.at("quantity"), term);
    } else {
      if (!v.has("coordinate")) v.fail("expected 'coordinate' (e.g. mass.x) or 'sensor' (a body point, see docs/model-format.md)");
      term.coordinate = coordinate_ref(v.at("coordinate"));
      if (v.has("relative_to")) term.relative_to = coordinate_ref(v.at("relative_to"));
      if (v.has("quantity") && v.at("quantity").choice({"position", "velocity"}) == "velocity")
        term.quantity = Term::Quantity::Velocity;
    }
    term.weight = v.at("weight").number_or(1.0);
    term.target = v.at("target").number_or(0.0);
    term.reference = v.has("reference") ? v.at("reference").expression() : Expression::constant(0.0);
    if (v.has("reference_control")) {
      // Measured data: the reference is a control signal (e.g. read from a CSV file).
      if (v.has("reference")) v.at("reference_control").fail("give either 'reference' or 'reference_control', not both");
      const Value control = v.at("reference_control");
      term.reference_signal = model_.find_control(control.text());
      if (!term.reference_signal) control.fail("unknown control '" + control.text() + "'");
    }
    return term;
  }

  // sensor: {body, point (global at t = 0; default the centre of mass), component: x | y | z} with quantity
  // position | velocity | angular_velocity | direction; for direction, `direction` (global at t = 0) instead
  // of `point`.
  void read_sensor(const Value& v, const Value& quantity, objectives::ObjectiveTerm& term) const {
    using Term = objectives::ObjectiveTerm;
    v.expect_map({"body", "point", "direction", "component"});
    term.sensor_body = body_ref(v.at("body"), false);
    const std::string q =
        quantity.given() ? quantity.choice({"position", "velocity", "angular_velocity", "direction"}) : "position";
    term.quantity = q == "velocity"           ? Term::Quantity::Velocity
                    : q == "angular_velocity" ? Term::Quantity::AngularVelocity
                    : q == "direction"        ? Term::Quantity::Direction
                                              : Term::Quantity::Position;
    if (term.quantity == Term::Quantity::Direction) {
      if (v.has("point")) v.at("point").fail("a direction sensor takes 'direction', not 'point'");
      if (!v.has("direction")) v.fail("a direction sensor needs 'direction': a body-fixed direction, global at t = 0");
      term.sensor_point = model_.to_body_vector(term.sensor_body, unit_vector(v.at("direction"), dimension_));
    } else {
      if (v.has("direction")) v.at("direction").fail("'direction' belongs to quantity: direction");
      if (term.quantity != Term::Quantity::AngularVelocity)
        term.sensor_point = model_.to_body_point(term.sensor_body, point_or_centre(v.at("point"), term.sensor_body));
    }
    const Value component = v.at("component");
    const std::string axis = dimension_ == 2 && term.quantity == Term::Quantity::AngularVelocity
                                 ? component.choice({"z"})
                                 : dimension_ == 2 ? component.choice({"x", "y"})
                                                   : component.choice({"x", "y", "z"});
    term.sensor_component = axis == "x" ? 0 : axis == "y" ? 1 : 2;
  }

  // "<body>.<coordinate>" -> global coordinate id.
  long long coordinate_ref(const Value& v) const {
    const std::string name = v.name();
    try {
      return model::find_coordinate(model_, name);
    } catch (const InputError& e) {
      v.fail(e.what());
    }
  }

  // Stored as names that adjoint::DesignSpace resolves: "spring.stiffness", "initial_velocity:mass.x", ...
  void read_design_variables(const Value& list) {
    const std::size_t n = list.list_size("a list of design variables");
    if (n == 0 && list.is_list())
      list.fail("expected a non-empty list of design variables (leave the section out for all component "
                "parameters), got an empty list");
    const adjoint::ParameterSpace parameters(model_);
    std::set<std::string> seen;
    for (std::size_t i = 0; i < n; ++i) {
      const auto [at, name] = design_variable(list.item(i));
      try {
        adjoint::DesignSpace::resolve(model_, parameters, name);
      } catch (const InputError& e) {
        at.fail(e.what());
      }
      if (!seen.insert(name).second) at.fail("duplicate design variable '" + name + "'");
      for (const auto& term : model_.objective_terms)
        if (term.reference_signal && name == "control:" + term.reference_signal->name())
          at.fail("control '" + term.reference_signal->name() +
                  "' is the reference_control of an objective term (measured data), not a design variable");
      model_.design_variables.push_back(name);
    }
  }

  // ---- optimization (flexadj optimize); after design_variables, whose names the bounds refer to
  void read_optimization(const Value& v) {
    if (!v.given()) return;
    v.expect_map({"method", "max_iterations", "gradient_tolerance", "relative_gradient_tolerance",
                  "objective_tolerance", "objective_target", "step_fraction", "line_search", "lbfgs_memory",
                  "bounds", "start_from"});
    auto& s = model_.optimization;
    if (v.has("method")) s.method = v.at("method").choice({"lbfgs", "trust_region", "gradient", "barzilai_borwein"});
    if (v.has("max_iterations")) s.max_iterations = v.at("max_iterations").integer(0);
    if (v.has("gradient_tolerance")) s.gradient_tolerance = v.at("gradient_tolerance").non_negative();
    if (v.has("relative_gradient_tolerance"))
      s.relative_gradient_tolerance = v.at("relative_gradient_tolerance").non_negative();
    if (v.has("objective_tolerance")) s.objective_tolerance = v.at("objective_tolerance").non_negative();
    if (v.has("objective_target")) s.objective_target = v.at("objective_target").number();
    if (v.has("step_fraction")) s.step_fraction = v.at("step_fraction").positive();
    if (v.has("line_search")) s.line_search = v.at("line_search").choice({"armijo", "none"});
    if (v.has("lbfgs_memory")) s.lbfgs_memory = v.at("lbfgs_memory").integer(1);
    const adjoint::DesignSpace design = adjoint::DesignSpace::of(model_);
    std::vector<std::string> known;
    for (const auto& e : design.entries()) known.push_back(e.name);
    const Value bounds = v.at("bounds");
    const std::size_t n = bounds.list_size("a list of bounds such as {variable: spring.stiffness, lower: 0}");
    std::set<std::string> bounded;
    for (std::size_t i = 0; i < n; ++i) {
      const Value b = bounds.item(i);
      if (!b.is_map()) b.fail("expected a map {variable: <design variable>, lower: <number>, upper: <number>}, got " + b.describe());
      b.expect_map({"variable", "lower", "upper"});
      model::DesignBound bound;
      const Value variable = b.at("variable");
      bound.variable = variable.name();
      if (std::find(known.begin(), known.end(), bound.variable) == known.end())
        variable.fail("'" + bound.variable + "' is not a design variable (the design variables are: " + join(known) +
                      ")");
      if (!bounded.insert(bound.variable).second) variable.fail("duplicate bounds for '" + bound.variable + "'");
      if (!b.has("lower") && !b.has("upper")) b.fail("a bound needs 'lower', 'upper' or both");
      if (b.has("lower")) bound.lower = b.at("lower").number();
      if (b.has("upper")) bound.upper = b.at("upper").number();
      if (!(bound.lower <= bound.upper))
        b.at("upper").fail("expected upper >= lower (" + format_number(bound.lower) + "), got " + b.at("upper").describe());
      s.bounds.push_back(bound);
    }
    if (v.has("start_from")) {
      const Value from = v.at("start_from");
      s.start_from = resolve(from, from.name()).string();
      try {
        apply_design_values(model_, s.start_from);
      } catch (const InputError& e) {
        from.fail(e.what());
      }
    }
  }

  // A parameter name, {initial_position: <coordinate>}, {initial_velocity: <coordinate>} or {control: <name>}:
  // the value that names it (for messages) and the design-variable name.
  static std::pair<Value, std::string> design_variable(const Value& v) {
    if (v.is_list() || !v.given())
      v.fail("expected a parameter name such as spring.stiffness, or a map {initial_position: <body>.<coordinate>}, "
             "{initial_velocity: <body>.<coordinate>} or {control: <name>}; got " + v.describe());
    if (!v.is_map()) return {v, v.name()};
    const Keys kinds = {"initial_position", "initial_velocity", "control"};
    v.expect_map(kinds);
    const std::string kind = exactly_one_of(v, kinds);
    const Value named = v.at(kind);
    return {named, kind + ":" + named.name()};
  }

  const Context& context_;
  model::Model& model_;
  int dimension_ = 3;
  std::unordered_set<std::string> component_names_;
  std::unordered_map<std::string, int> body_index_;
  std::map<std::string, elements::BeamSectionData> sections_;
  std::map<std::string, int> beam_nodes_;  // beam name -> number of nodes
};

std::unique_ptr<model::Model> read(const std::string& text, Context context, const std::vector<std::string>& overrides) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(context.file, "",
                     "YAML syntax error at line " + std::to_string(e.mark.line + 1) + ", column " +
                         std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  auto model = std::make_unique<model::Model>();
  try {
    if (!overrides.empty() && !root.IsMap())
      throw InputError(context.file, "", "cannot apply command-line overrides: the model is not a map");
    for (const std::string& o : overrides) apply_override(context, root, o);
    Reader(context, *model).read(Value(context, root, ""));
  } catch (const YAML::Exception& e) {
    // Not expected: the accessors check types before converting.
    throw InputError(context.file, "", std::string("cannot interpret the model: ") + e.what());
  }
  return model;
}

}  // namespace

std::unique_ptr<model::Model> read_model_file(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in || fs::is_directory(path)) {
    const std::string reason = fs::is_directory(path) ? "it is a directory" : std::strerror(errno);
    throw InputError(path, "", "the file cannot be opened (" + reason + ")");
  }
  std::ostringstream text;
  text << in.rdbuf();
  Context context;
  context.file = path;
  context.folder = fs::path(path).parent_path();
  return read(text.str(), std::move(context), overrides);
}

void apply_design_values(model::Model& model, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw InputError(path, "", "the design-values file cannot be opened");
  } catch (const YAML::ParserException& e) {
    throw InputError(path, "", "YAML syntax error at line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  const YAML::Node values = root.IsMap() ? root["design_values"] : YAML::Node();
  if (!values.IsDefined() || !values.IsMap())
    throw InputError(path, "design_values", "expected a map of design-variable names to values");
  const adjoint::ParameterSpace parameters(model);
  for (const auto& entry : values) {
    const std::string name = entry.first.as<std::string>(), key = "design_values." + name;
    try {
      adjoint::DesignSpace::resolve(model, parameters, name);
    } catch (const InputError& e) {
      throw InputError(path, key, e.what());
    }
    const adjoint::DesignSpace one(model, {name});
    std::vector<double> x;
    try {
      if (entry.second.IsSequence()) x = entry.second.as<std::vector<double>>();
      else x.push_back(entry.second.as<double>());
    } catch (const YAML::Exception&) {
      throw InputError(path, key, "expected a number or a list of numbers");
    }
    if (static_cast<int>(x.size()) != one.size())
      throw InputError(path, key,
                       "expected " + std::to_string(one.size()) + " value(s), got " + std::to_string(x.size()));
    for (double xi : x)
      if (!std::isfinite(xi)) throw InputError(path, key, "expected finite numbers");
    one.set_values(model, x);
  }
}

void write_design_values(const std::string& path, const std::vector<std::string>& names,
                         const std::vector<std::vector<double>>& values, const std::string& comment) {
  std::ofstream out(path);
  if (!out) throw InputError(path, "", "cannot write the design-values file (does its folder exist?)");
  out.precision(17);
  out << "# " << comment << "\n# Read back with 'optimization: {start_from: <this file>}' in the model file.\n";
  out << "design_values:\n";
  for (std::size_t i = 0; i < names.size(); ++i) {
    out << "  \"" << names[i] << "\": ";
    if (names[i].rfind("control:", 0) != 0 && values[i].size() == 1) {
      out << values[i][0] << "\n";
      continue;
    }
    out << "[";
    for (std::size_t k = 0; k < values[i].size(); ++k) out << (k ? ", " : "") << values[i][k];
    out << "]\n";
  }
  if (!out) throw InputError(path, "", "writing the design-values file failed");
}

std::unique_ptr<model::Model> read_model_string(const std::string& yaml_text, const std::string& name_for_messages,
                                                const std::vector<std::string>& overrides) {
  Context context;
  context.file = name_for_messages;
  context.folder = fs::path(name_for_messages).parent_path();
  return read(yaml_text, std::move(context), overrides);
}

}  // namespace flexadj::io
