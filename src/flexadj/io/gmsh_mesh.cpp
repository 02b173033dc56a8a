// Gmsh 4.1 ASCII meshes (gmsh_mesh.hpp), as the Gmsh reference manual describes them ("MSH file format"): one
// record per line, every count checked against the lines left in the file before anything is read for it.
#include "flexadj/io/gmsh_mesh.hpp"

#include <charconv>
#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace flexadj::io {
namespace {

constexpr std::size_t kQuotedLength = 60;  // longer lines are cut in messages

std::string quoted(std::string_view text) {
  const bool cut = text.size() > kQuotedLength;
  return "'" + std::string(text.substr(0, kQuotedLength)) + (cut ? "...'" : "'");
}

std::string_view trimmed(std::string_view s) {
  const std::size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  for (std::size_t at = line.find_first_not_of(" \t\r"); at != std::string_view::npos;
       at = line.find_first_not_of(" \t\r", at)) {
    const std::size_t end = std::min(line.find_first_of(" \t\r", at), line.size());
    out.push_back(line.substr(at, end - at));
    at = end;
  }
  return out;
}

template <class T> bool parse(std::string_view field, T& value) {
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
  return error == std::errc() && end == field.data() + field.size();
}

// The text as numbered lines, read one at a time; errors name the file and the line.
class Lines {
 public:
  Lines(const std::string& text, std::string name) : text_(text), name_(std::move(name)) {
    for (std::size_t at = 0; at < text.size();) {
      starts_.push_back(at);
      const std::size_t end = text.find('\n', at);
      at = end == std::string::npos ? text.size() : end + 1;
    }
  }
  bool at_end() const { return next_ == starts_.size(); }
  std::size_t remaining() const { return starts_.size() - next_; }
  std::size_t number() const { return next_; }  // of the line read last, from 1

  std::string_view next(const std::string& expected) {
    if (at_end()) fail_at(starts_.size() + 1, "expected " + expected + ", got the end of the file");
    const std::size_t start = starts_[next_++];
    return std::string_view(text_).substr(start, text_.find('\n', start) - start);
  }

  // The next line as exactly `count` fields that parse as T.
  template <class T> std::vector<T> record(std::size_t count, const std::string& expected) {
    const std::string_view line = next(expected);
    const auto parts = fields(line);
    std::vector<T> values(parts.size());
    bool ok = parts.size() == count;
    for (std::size_t k = 0; ok && k < count; ++k) ok = parse(parts[k], values[k]);
    if (!ok) fail("expected " + expected + ", got " + quoted(trimmed(line)));
    return values;
  }

  // A count given on the line just read, of items that take at least `lines_per_item` lines each.
  long long count(long long value, std::size_t lines_per_item, const std::string& items) const {
    const auto room = static_cast<long long>(std::min<std::size_t>(remaining() / lines_per_item, INT_MAX));
    if (value < 0) fail("expected a number of " + items + " >= 0, got " + std::to_string(value));
    if (value > room)
      fail("expected at most " + std::to_string(room) + " " + items + " (what the " + std::to_string(remaining()) +
           " lines left in the file can hold), got " + std::to_string(value));
    return value;
  }

  void expect(std::string_view keyword, const std::string& why) {
    const std::string_view line = trimmed(next(std::string(keyword)));
    if (line != keyword) fail("expected " + std::string(keyword) + why + ", got " + quoted(line));
  }

  [[noreturn]] void fail(const std::string& message) const { fail_at(number(), message); }
  [[noreturn]] void fail_at(std::size_t line, const std::string& message) const {
    throw std::invalid_argument("line " + std::to_string(line) + " of '" + name_ + "': " + message);
  }

 private:
  const std::string& text_;
  std::string name_;
  std::vector<std::size_t> starts_;
  std::size_t next_ = 0;
};

void read_format(Lines& lines) {
  const std::string_view first = trimmed(lines.next("$MeshFormat (the first line of a Gmsh mesh file)"));
  if (first != "$MeshFormat") lines.fail("expected $MeshFormat: not a Gmsh mesh file, got " + quoted(first));
  const std::string_view format = trimmed(lines.next("'4.1 0 8'"));
  const auto parts = fields(format);
  if (parts.size() != 3 || parts[0] != "4.1" || parts[1] != "0")
    lines.fail("expected '4.1 0 8' (Gmsh format 4.1 ASCII), got " + quoted(format));
  lines.expect("$EndMeshFormat", "");
}

void read_nodes(Lines& lines, GmshLineMesh& mesh, std::unordered_map<long long, int>& index_of_tag) {
  const auto header = lines.record<long long>(4, "'numEntityBlocks numNodes minNodeTag maxNodeTag' (4 integers)");
  const std::size_t header_line = lines.number();
  const long long blocks = lines.count(header[0], 1, "entity blocks");
  const long long total = lines.count(header[1], 2, "nodes");
  long long read = 0;
  for (long long b = 0; b < blocks; ++b) {
    const auto block =
        lines.record<long long>(4, "'entityDim entityTag parametric numNodesInBlock' (4 integers)");
    if (block[0] < 0 || block[0] > 3) lines.fail("expected entityDim 0, 1, 2 or 3, got " + std::to_string(block[0]));
    if (block[2] != 0 && block[2] != 1) lines.fail("expected parametric 0 or 1, got " + std::to_string(block[2]));
    const long long count = lines.count(block[3], 2, "nodes in the block");
    if (read + count > total)
      lines.fail("the blocks hold more nodes than the " + std::to_string(total) + " of the $Nodes header (line " +
                 std::to_string(header_line) + ")");
    for (long long k = 0; k < count; ++k) {
      const long long tag = lines.record<long long>(1, "a node tag (an integer)")[0];
      if (tag < 1) lines.fail("expected a node tag >= 1, got " + std::to_string(tag));
      if (!index_of_tag.emplace(tag, static_cast<int>(mesh.tags.size())).second)
        lines.fail("node tag " + std::to_string(tag) + " appears twice");
      mesh.tags.push_back(tag);
    }
    const std::size_t values = 3 + (block[2] ? block[0] : 0);
    const std::string expected = values == 3 ? "'x y z' (3 numbers)" : std::to_string(values) + " numbers (x y z and the parametric coordinates)";
    for (long long k = 0; k < count; ++k) {
      const auto x = lines.record<double>(values, expected);
      for (double xi : x)
        if (!std::isfinite(xi)) lines.fail("expected finite coordinates, got " + std::to_string(xi));
      mesh.points.push_back({x[0], x[1], x[2]});
    }
    read += count;
  }
  if (read != total)
    lines.fail_at(header_line, "the header counts " + std::to_string(total) + " nodes, its blocks hold " +
                                   std::to_string(read));
  lines.expect("$EndNodes", " (after the " + std::to_string(blocks) + " blocks counted on line " +
                                std::to_string(header_line) + ")");
}

void read_elements(Lines& lines, GmshLineMesh& mesh, const std::unordered_map<long long, int>& index_of_tag) {
  const auto header =
      lines.record<long long>(4, "'numEntityBlocks numElements minElementTag maxElementTag' (4 integers)");
  const std::size_t header_line = lines.number();
  const long long blocks = lines.count(header[0], 1, "entity blocks");
  const long long total = lines.count(header[1], 1, "elements");
  std::unordered_map<long long, std::size_t> line_of_tag;
  long long read = 0;
  for (long long b = 0; b < blocks; ++b) {
    const auto block =
        lines.record<long long>(4, "'entityDim entityTag elementType numElementsInBlock' (4 integers)");
    const long long type = block[2];
    const std::size_t nodes = type == 1 ? 2 : type == 15 ? 1 : 0;
    if (nodes == 0)
      lines.fail("element type " + std::to_string(type) +
                 " is not supported (only 2-node lines, type 1, and points, type 15)");
    const long long count = lines.count(block[3], 1, "elements in the block");
    if (read + count > total)
      lines.fail("the blocks hold more elements than the " + std::to_string(total) + " of the $Elements header (line " +
                 std::to_string(header_line) + ")");
    const std::string expected =
        nodes == 2 ? "'elementTag nodeTag nodeTag' (3 integers)" : "'elementTag nodeTag' (2 integers)";
    for (long long k = 0; k < count; ++k) {
      const auto element = lines.record<long long>(1 + nodes, expected);
      const std::string tag = std::to_string(element[0]);
      if (element[0] < 1) lines.fail("expected an element tag >= 1, got " + tag);
      const auto [first, added] = line_of_tag.emplace(element[0], lines.number());
      if (!added)
        lines.fail("element tag " + tag + " appears twice (first on line " + std::to_string(first->second) + ")");
      std::array<int, 2> ends{};
      for (std::size_t n = 0; n < nodes; ++n) {
        const auto found = index_of_tag.find(element[1 + n]);
        if (found == index_of_tag.end())
          lines.fail("element " + tag + " refers to node " + std::to_string(element[1 + n]) +
                     ", which the $Nodes section does not define");
        ends[n] = found->second;
      }
      if (nodes == 2) mesh.lines.push_back(ends);
    }
    read += count;
  }
  if (read != total)
    lines.fail_at(header_line, "the header counts " + std::to_string(total) + " elements, its blocks hold " +
                                   std::to_string(read));
  lines.expect("$EndElements", " (after the " + std::to_string(blocks) + " blocks counted on line " +
                                   std::to_string(header_line) + ")");
}

// Skips a section this reader does not need ($Entities, $PhysicalNames, ...) up to its end line.
void skip_section(Lines& lines, std::string_view name) {
  const std::string end = "$End" + std::string(name.substr(1));
  const std::size_t start = lines.number();
  while (!lines.at_end())
    if (trimmed(lines.next(end)) == end) return;
  lines.fail_at(start, "the section " + std::string(name) + " has no " + end + " line");
}

}  // namespace

GmshLineMesh parse_gmsh_line_mesh(const std::string& text, const std::string& name) {
  Lines lines(text, name);
  read_format(lines);
  GmshLineMesh mesh;
  std::unordered_map<long long, int> index_of_tag;
  bool have_nodes = false, have_elements = false;
  while (!lines.at_end()) {
    const std::string_view line = trimmed(lines.next("a section"));
    if (line.empty()) continue;
    if (line == "$Nodes" || line == "$Elements") {
      const bool nodes = line == "$Nodes";
      if (nodes ? have_nodes : have_elements)
        lines.fail("expected one " + std::string(line) + " section, got a second one");
      if (!nodes && !have_nodes) lines.fail("expected the $Nodes section before $Elements");
      if (nodes) read_nodes(lines, mesh, index_of_tag);
      else read_elements(lines, mesh, index_of_tag);
      (nodes ? have_nodes : have_elements) = true;
    } else if (line.size() > 1 && line[0] == '$' && line.rfind("$End", 0) != 0) {
      skip_section(lines, line);
    } else {
      lines.fail("expected a section such as $Nodes or $Elements, got " + quoted(line));
    }
  }
  if (!have_nodes || !have_elements)
    lines.fail_at(lines.number() + 1, std::string("expected a ") + (have_nodes ? "$Elements" : "$Nodes") +
                                          " section, got the end of the file");
  return mesh;
}

GmshLineMesh read_gmsh_line_mesh(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    throw std::invalid_argument("cannot open the mesh file '" + path + "' (expected a regular file)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot open the mesh file '" + path + "'");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw std::invalid_argument("cannot read the mesh file '" + path + "'");
  return parse_gmsh_line_mesh(text, path);
}

}  // namespace flexadj::io
