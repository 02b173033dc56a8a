#pragma once
// Sizes of memory as users write them: "4GB", "4 GB", "500MB", "2GiB", "512 mib", "4G", "1e9" (K, M, G, T: powers
// of 1000; Ki, Mi, Gi, Ti: powers of 1024; the B optional; units in any case, a space allowed before them). Used
// by --memory-limit and the model file's trajectory.memory_limit.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

namespace flexadj {

// The accepted forms, for messages.
inline const char* byte_size_forms() {
  return "a size such as 500MB, 4GB, 4 GB, 2GiB or 512MiB (K, M, G, T: powers of 1000; Ki, Mi, Gi, Ti: powers of "
         "1024; the B optional) or a number of bytes";
}

// The number of bytes, or a negative value if `text` is not a positive, finite size.
inline double parse_byte_size(const std::string& text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  // A decimal number (no hexadecimal, inf or nan), then an optional unit.
  std::size_t i = begin;
  auto digits = [&] {
    const std::size_t from = i;
    while (i < end && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    return i > from;
  };
  bool mantissa = digits();
  if (i < end && text[i] == '.') {
    ++i;
    mantissa = digits() || mantissa;
  }
  if (!mantissa) return -1.0;
  if (i < end && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < end && (text[i] == '+' || text[i] == '-')) ++i;
    if (!digits()) return -1.0;
  }
  const double value = std::strtod(text.substr(begin, i - begin).c_str(), nullptr);
  while (i < end && text[i] == ' ') ++i;
  std::string unit;
  for (; i < end; ++i) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  if (!unit.empty() && unit.back() == 'b') unit.pop_back();
  const std::pair<const char*, double> units[] = {{"", 1.0},      {"k", 1e3},         {"m", 1e6},
                                                  {"g", 1e9},     {"t", 1e12},        {"ki", 1024.0},
                                                  {"mi", 1048576.0}, {"gi", 1073741824.0}, {"ti", 1099511627776.0}};
  for (const auto& [name, factor] : units)
    if (unit == name && value > 0.0 && std::isfinite(value * factor)) return value * factor;
  return -1.0;
}

}  // namespace flexadj
