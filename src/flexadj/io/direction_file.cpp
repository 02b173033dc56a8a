#include "flexadj/io/direction_file.hpp"

#include <cmath>
#include <fstream>
#include <unordered_map>

#include "flexadj/core/error.hpp"

namespace flexadj::io {
namespace {

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// A quoted field as `flexadj gradient -o` writes names with commas: "a,b" with "" for a quote.
std::string unquoted(const std::string& text) {
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') return text;
  std::string out;
  for (std::size_t i = 1; i + 1 < text.size(); ++i) {
    out += text[i];
    if (text[i] == '"' && text[i + 1] == '"') ++i;
  }
  return out;
}

}  // namespace

std::vector<double> read_direction(const std::string& path, const std::vector<std::string>& names) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "--direction", "cannot read the direction file");
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t k = 0; k < names.size(); ++k) index.emplace(names[k], k);
  std::vector<double> values(names.size(), 0.0);
  std::vector<bool> seen(names.size(), false);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = trimmed(line);
    if (line.empty() || line[0] == '#') continue;
    const std::string where = "line " + std::to_string(number);
    const auto comma = line.rfind(',');
    if (comma == std::string::npos) throw InputError(path, where, "expected name,value, got '" + line + "'");
    const std::string name = unquoted(trimmed(line.substr(0, comma))), text = trimmed(line.substr(comma + 1));
    if (number == 1 && name == "name" && text == "value") continue;  // the header
    const auto it = index.find(name);
    if (it == index.end())
      throw InputError(path, name, "not a design scalar of the model (" + where + "; expected the names of "
                                   "'flexadj gradient -o', e.g. " + (names.empty() ? std::string("none") : names[0]) + ")");
    if (seen[it->second]) throw InputError(path, name, "given twice (" + where + ")");
    std::size_t used = 0;
    double value = 0.0;
    try {
      value = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (text.empty() || used != text.size() || !std::isfinite(value))
      throw InputError(path, name, "expected a finite number, got '" + text + "' (" + where + ")");
    values[it->second] = value;
    seen[it->second] = true;
  }
  for (std::size_t k = 0; k < names.size(); ++k)
    if (!seen[k])
      throw InputError(path, names[k], "missing: the direction needs one line per design scalar (" +
                                           std::to_string(names.size()) + " in all)");
  return values;
}

}  // namespace flexadj::io
