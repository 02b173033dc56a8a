// Command-line overrides "key.path=value" applied to the YAML tree before it is read (io/problem_reader.hpp).
#include "flexadj/io/reader_value.hpp"

namespace flexadj::io::reader {
namespace {

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

}  // namespace

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

}  // namespace flexadj::io::reader
