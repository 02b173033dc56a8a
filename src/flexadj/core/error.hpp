#pragma once
// Error types. InputError: the user's model or command line is wrong (exit code 2).
// SolverError: the numerics failed (Newton divergence, singular system; exit code 3).
// OutputError: a result file could not be written (disk full, no permission; exit code 3).
#include <stdexcept>
#include <string>
#include <utility>

namespace flexadj {

class InputError : public std::runtime_error {
 public:
  // file: the input file (may be empty), key: the key path such as "bodies[2].mass".
  InputError(std::string file, std::string key, const std::string& message)
      : std::runtime_error(format(file, key, message)), file_(std::move(file)), key_(std::move(key)) {}
  const std::string& file() const { return file_; }
  const std::string& key() const { return key_; }

 private:
  static std::string format(const std::string& file, const std::string& key, const std::string& message) {
    std::string text = file.empty() ? std::string() : file + ": ";
    if (!key.empty()) text += key + ": ";
    return text + message;
  }
  std::string file_, key_;
};

class SolverError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace flexadj
