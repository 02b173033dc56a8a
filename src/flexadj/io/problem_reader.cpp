// The entry points of the model-file reader (problem_reader.hpp) and the top level of a model file.
#include "flexadj/io/problem_reader.hpp"

#include "flexadj/io/reader.hpp"

namespace flexadj::io {
namespace reader {

const Keys kTopKeys = {"title",  "dimension", "gravity", "integrator", "output",      "controls",
                       "bodies", "forces",    "joints",  "chain",      "objective",   "design_variables",
                       "static", "sections",  "beams",   "ancf",       "optimization", "trajectory",
                       "constraints"};

void Reader::read(const Value& root) {
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
  read_trajectory(root.at("trajectory"));
  read_controls(root.at("controls"));
  model_.set_time_window(problem_.integrator.start_time, problem_.integrator.end_time);
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
  read_end_condition(root.at("integrator").at("end_condition"));
  read_objective(root.at("objective"));
  read_constraints(root.at("constraints"));
  read_design_variables(root.at("design_variables"));
  read_optimization(root.at("optimization"));
  check_final_time_model(root);
}

}  // namespace reader

namespace {

using reader::Context;
using reader::Reader;
using reader::Value;
namespace fs = std::filesystem;

// Each top-level section of the model as YAML text, sorted by key (--set may add a key at the end).
std::vector<std::pair<std::string, std::string>> sections_of(const YAML::Node& root) {
  std::vector<std::pair<std::string, std::string>> sections;
  for (const auto& entry : root) {
    YAML::Emitter text;
    text << entry.second;
    sections.emplace_back(entry.first.as<std::string>(), text.c_str());
  }
  std::sort(sections.begin(), sections.end());
  return sections;
}

problem::Problem read(const std::string& text, Context context, const std::vector<std::string>& overrides) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(context.file, "",
                     "YAML syntax error at line " + std::to_string(e.mark.line + 1) + ", column " +
                         std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  problem::Problem problem;
  try {
    // A model that is not a map (empty, a list, a word) takes no override: the reader says what it is instead.
    if (root.IsMap())
      for (const std::string& o : overrides) apply_override(context, root, o);
    Reader(context, problem).read(Value(context, root, ""));
    problem.model_sections = sections_of(root);
  } catch (const YAML::Exception& e) {
    // Not expected: the accessors check types before converting.
    throw InputError(context.file, "", std::string("cannot interpret the model: ") + e.what());
  }
  return problem;
}

}  // namespace

problem::Problem read_problem_file(const std::string& path, const std::vector<std::string>& overrides) {
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

problem::Problem read_problem_string(const std::string& yaml_text, const std::string& name_for_messages,
                                     const std::vector<std::string>& overrides) {
  Context context;
  context.file = name_for_messages;
  context.folder = fs::path(name_for_messages).parent_path();
  return read(yaml_text, std::move(context), overrides);
}

}  // namespace flexadj::io
