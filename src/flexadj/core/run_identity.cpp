#include "flexadj/core/run_identity.hpp"

namespace flexadj {
namespace {

RunIdentityItems items_of(const std::string& text) {
  RunIdentityItems items;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find("; ", start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const std::size_t equals = item.find('=');
    if (equals == std::string::npos) items.emplace_back(item, "");
    else items.emplace_back(item.substr(0, equals), item.substr(equals + 1));
    start = end + 2;
  }
  return items;
}

}  // namespace

std::string run_identity_text(const RunIdentityItems& items) {
  std::string text;
  for (const auto& [name, value] : items) text += (text.empty() ? "" : "; ") + name + "=" + value;
  return text;
}

std::string run_identity_difference(const std::string& stored, const std::string& current) {
  if (stored == current) return "";
  const RunIdentityItems file = items_of(stored), run = items_of(current);
  for (const auto& [name, value] : run) {
    std::string in_file;
    bool found = false;
    for (const auto& [file_name, file_value] : file)
      if (file_name == name) {
        in_file = file_value;
        found = true;
      }
    if (!found)
      return "its " + name + " is not recorded in the file (written by another version of flexadj, or by another "
             "kind of run); this run's is " + value;
    if (in_file != value) return "its " + name + " differs (" + in_file + " in the file, " + value + " in this run)";
  }
  for (const auto& [name, value] : file) {
    bool found = false;
    for (const auto& item : run) found = found || item.first == name;
    if (!found) return "the file records " + name + "=" + value + ", which this run does not have";
  }
  return "the identities differ: '" + stored + "' in the file, '" + current + "' in this run";
}

}  // namespace flexadj
