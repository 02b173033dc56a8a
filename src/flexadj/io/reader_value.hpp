#pragma once
// The value layer of the model-file reader (internal to io/): YAML values that know their key path and file, so
// that every error names the file, the key and what was expected; the reading context; command-line overrides
// (io/reader_overrides.cpp). docs/model-format.md describes the format.
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
#include "flexadj/problem/design_space.hpp"
#include "flexadj/constraints/constraints.hpp"
#include "flexadj/core/error.hpp"
#include "flexadj/elements/ancf_builder.hpp"
#include "flexadj/elements/beam_builder.hpp"
#include "flexadj/elements/elements.hpp"
#include "flexadj/functions/control_signal.hpp"
#include "flexadj/functions/expression.hpp"
#include "flexadj/model/coordinate_names.hpp"

namespace flexadj::io::reader {


namespace fs = std::filesystem;
using constraints::JointKind;
using functions::Expression;
using model::Body;
using model::BodyKind;
using model::kGround;
using model::Point;

using Keys = std::vector<std::string>;

// ---- small helpers -------------------------------------------------------------------------------

inline std::string format_number(double x) {
  std::ostringstream out;
  out.precision(12);
  out << x;
  return out.str();
}

inline std::string join(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? separator : std::string()) + items[i];
  return text;
}

inline std::string key_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}
inline std::string index_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

// True if the key path `path` is `root` or lies below it.
inline bool within(const std::string& path, const std::string& root) {
  if (root.empty() || path.compare(0, root.size(), root) != 0) return false;
  return path.size() == root.size() || path[root.size()] == '.' || path[root.size()] == '[';
}

// Control characters of the model's text shown as \xNN (a NUL would end the message); newlines and tabs kept.
inline std::string printable(const std::string& text) {
  static const char* const hex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7f) {
      out += "\\x";
      out += hex[byte >> 4];
      out += hex[byte & 15];
    } else {
      out += c;
    }
  }
  return out;
}

inline double norm(const Point& x) { return std::sqrt(model::dot(x, x)); }

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
      if (within(path, it->root))
        throw InputError(file, printable(path),
                         printable(message + " (from command-line override '" + it->text + "')"));
    }
    if (!mark.is_null()) message += " (line " + std::to_string(mark.line + 1) + ")";
    throw InputError(file, printable(path), printable(message));
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
  // `why`, if given, explains the upper bound in the message.
  int integer(int lo, int hi = INT_MAX, const std::string& why = "") const {
    require();
    double x = 0.0;
    const std::string range = hi == INT_MAX ? " >= " + std::to_string(lo)
                                            : " in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]" + why;
    if (!decode_number(x) || x != std::floor(x) || x < lo || x > hi)
      fail("expected an integer" + range + ", got " + describe());
    return static_cast<int>(x);
  }
  // The number of items a generator makes (chain links, beam and ANCF elements, control grid times). Every rank
  // holds the whole model, and a rigid link takes about 17 KB in a run (3.1 GB for 10^5 links): 10^7 links are
  // far beyond any rank's memory, and a larger count would end in std::bad_alloc after minutes of building.
  static constexpr int kMaxGeneratedCount = 10'000'000;
  int generated_count(int lo) const {
    return integer(lo, kMaxGeneratedCount, " (the limit for generated items: every rank holds the whole model)");
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

// Applies one "key.path=value" override to the YAML tree (reader_overrides.cpp).
void apply_override(Context& context, YAML::Node& root, const std::string& text);

}  // namespace flexadj::io::reader
