#pragma once
// Sizes of memory as users write them: "4GB", "500MB", "2GiB", "1e9" (K, M, G, T: powers of 1000; Ki, Mi, Gi,
// Ti: powers of 1024; the B optional). Used by --memory-limit and the model file's trajectory.memory_limit.
#include <cmath>
#include <string>
#include <utility>

namespace flexadj {

// The number of bytes, or a negative value if `text` is not a positive size.
inline double parse_byte_size(const std::string& text) {
  std::size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return -1.0;
  }
  std::string unit = text.substr(used);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  const std::pair<const char*, double> units[] = {{"", 1.0},      {"k", 1e3},        {"K", 1e3},
                                                  {"M", 1e6},     {"G", 1e9},        {"T", 1e12},
                                                  {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0},
                                                  {"Ti", 1099511627776.0}};
  for (const auto& [name, factor] : units)
    if (used > 0 && unit == name && value > 0.0 && std::isfinite(value)) return value * factor;
  return -1.0;
}

}  // namespace flexadj
