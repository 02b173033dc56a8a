#include "flexadj/functions/control_signal.hpp"

#include <hdf5.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <utility>

#include "flexadj/core/error.hpp"
#include "flexadj/core/hdf5_storage.hpp"

namespace flexadj::functions {
namespace {

std::string format_number(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

// What is wrong with a time series, or an empty string if nothing is.
std::string series_problem(const std::vector<double>& times, const std::vector<double>& values) {
  if (times.empty()) return "needs at least one value";
  if (times.size() != values.size()) {
    return "has " + std::to_string(times.size()) + " times but " + std::to_string(values.size()) + " values";
  }
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (!std::isfinite(times[i])) return "time at index " + std::to_string(i) + " is not finite";
    if (!std::isfinite(values[i])) return "value at index " + std::to_string(i) + " is not finite";
    if (i > 0 && !(times[i] > times[i - 1])) {
      return "times must increase strictly, but time " + format_number(times[i]) + " at index " + std::to_string(i) +
             " follows " + format_number(times[i - 1]);
    }
    // The interpolation's slope (and the time derivative) must be a number.
    if (i > 0 && !std::isfinite((values[i] - values[i - 1]) / (times[i] - times[i - 1]))) {
      return "changes too fast between index " + std::to_string(i - 1) + " and " + std::to_string(i) + " (from " +
             format_number(values[i - 1]) + " to " + format_number(values[i]) + "): its slope overflows";
    }
  }
  return {};
}

// ---- CSV ----

std::string_view trim(std::string_view text) {
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

// Comma-separated cells, trimmed and with enclosing double quotes removed.
std::vector<std::string> split_cells(std::string_view line) {
  std::vector<std::string> cells;
  for (;;) {
    const std::size_t comma = line.find(',');
    std::string_view cell = trim(line.substr(0, comma));
    if (cell.size() >= 2 && cell.front() == '"' && cell.back() == '"') cell = cell.substr(1, cell.size() - 2);
    cells.emplace_back(cell);
    if (comma == std::string_view::npos) return cells;
    line.remove_prefix(comma + 1);
  }
}

std::optional<double> parse_finite(std::string_view cell) {
  if (cell.size() > 1 && cell.front() == '+') cell.remove_prefix(1);
  double value = 0.0;
  const auto [end, error] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (error != std::errc() || end != cell.data() + cell.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

bool is_time_column(std::string name) {
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name == "t" || name == "time";
}

// ---- HDF5 ----

// Owns an HDF5 identifier.
class Hdf5Handle {
 public:
  Hdf5Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Hdf5Handle(const Hdf5Handle&) = delete;
  Hdf5Handle& operator=(const Hdf5Handle&) = delete;
  ~Hdf5Handle() {
    if (id_ >= 0) close_(id_);
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// Keeps HDF5 from printing its error stack: failures are reported as InputError instead.
class QuietHdf5Errors {
 public:
  QuietHdf5Errors() {
    H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  QuietHdf5Errors(const QuietHdf5Errors&) = delete;
  QuietHdf5Errors& operator=(const QuietHdf5Errors&) = delete;
  ~QuietHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }

 private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

std::vector<double> read_dataset(hid_t file, const std::string& path, const std::string& dataset) {
  const Hdf5Handle set(H5Dopen2(file, dataset.c_str(), H5P_DEFAULT), H5Dclose);
  if (!set.valid()) throw InputError(path, dataset, "no such dataset");

  const Hdf5Handle type(H5Dget_type(set.get()), H5Tclose);
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class != H5T_FLOAT && type_class != H5T_INTEGER) throw InputError(path, dataset, "dataset is not numeric");

  const Hdf5Handle space(H5Dget_space(set.get()), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank != 1) throw InputError(path, dataset, "dataset must be 1-D but has rank " + std::to_string(rank));
  hsize_t size = 0;
  H5Sget_simple_extent_dims(space.get(), &size, nullptr);

  std::string damage = hdf5_chunk_index_problem(file, set.get(), {size});
  if (damage.empty()) damage = hdf5_storage_problem(file, set.get(), {size}, 0, size > 0 ? size - 1 : 0, true);
  if (!damage.empty()) throw InputError(path, dataset, damage);
  std::vector<double> data(size);
  if (size > 0 && H5Dread(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) < 0) {
    throw InputError(path, dataset, "cannot read dataset");
  }
  return data;
}

}  // namespace

ControlSignal::ControlSignal(std::string name, std::vector<double> times, std::vector<double> values,
                             Interpolation kind)
    : name_(std::move(name)), times_(std::move(times)), values_(std::move(values)), kind_(kind) {
  const std::string problem = series_problem(times_, values_);
  if (!problem.empty()) throw InputError("", name_, "control signal " + problem);
}

ControlSignal ControlSignal::from_csv(const std::string& name, const std::string& path, const std::string& column,
                                      Interpolation kind) {
  std::ifstream file(path);
  if (!file) throw InputError(path, column, "cannot open file");

  std::vector<std::string> header;
  std::size_t value_column = 0;
  std::vector<double> times, values;
  std::string line;
  for (int line_number = 1; std::getline(file, line); ++line_number) {
    if (line_number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // UTF-8 byte order mark
    const std::string_view content = trim(line);
    if (content.empty() || content.front() == '#') continue;
    const std::string at_line = " at line " + std::to_string(line_number);
    std::vector<std::string> cells = split_cells(content);

    if (header.empty()) {
      header = std::move(cells);
      if (!is_time_column(header.front())) {
        throw InputError(path, column, "the first column must be 't' or 'time' but is '" + header.front() + "'" + at_line);
      }
      const auto found = std::find(header.begin(), header.end(), column);
      if (found == header.end()) throw InputError(path, column, "no column '" + column + "' in the header" + at_line);
      if (std::find(found + 1, header.end(), column) != header.end()) {
        throw InputError(path, column, "column '" + column + "' appears twice in the header" + at_line);
      }
      value_column = found - header.begin();
      continue;
    }

    if (cells.size() != header.size()) {
      throw InputError(path, column,
                       "expected " + std::to_string(header.size()) + " cells but found " +
                           std::to_string(cells.size()) + at_line);
    }
    const auto number = [&](std::size_t i) {
      const std::optional<double> value = parse_finite(cells[i]);
      if (!value) {
        throw InputError(path, column,
                         "'" + cells[i] + "' in column '" + header[i] + "' is not a finite number" + at_line);
      }
      return *value;
    };
    const double time = number(0);
    if (!times.empty() && !(time > times.back())) {
      throw InputError(path, column,
                       "time " + cells[0] + at_line + " is not greater than the previous time " +
                           format_number(times.back()));
    }
    times.push_back(time);
    values.push_back(number(value_column));
  }
  if (header.empty()) throw InputError(path, column, "file has no header line");
  if (times.empty()) throw InputError(path, column, "file has no data lines");
  // What the constructor would refuse (a slope that overflows), said of this file and column.
  if (const std::string problem = series_problem(times, values); !problem.empty())
    throw InputError(path, column, "control signal " + problem);
  return ControlSignal(name, std::move(times), std::move(values), kind);
}

ControlSignal ControlSignal::from_hdf5(const std::string& name, const std::string& path,
                                       const std::string& times_dataset, const std::string& values_dataset,
                                       Interpolation kind) {
  if (!std::filesystem::is_regular_file(path)) throw InputError(path, "", "cannot open file: no such file");
  const QuietHdf5Errors quiet;
  const Hdf5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) throw InputError(path, "", "cannot open file as HDF5");
  // HDF5's default format (superblock 0 or 1: h5py's and most tools' default) carries no metadata checksums, and
  // HDF5 1.10.8 dereferences null on some damaged group heaps of it (fuzzing, docs/reliability.md): read only the
  // checksummed format of HDF5 1.8 or later, as flexadj's own files.
  H5F_info2_t info{};
  if (H5Fget_info2(file.get(), &info) < 0) throw InputError(path, "", "cannot read the HDF5 superblock");
  if (info.super.version < 2)
    throw InputError(path, "",
                     "an HDF5 file without metadata checksums (superblock version " +
                         std::to_string(info.super.version) +
                         ", HDF5's oldest format), which a damaged byte can make HDF5 misread; control files must be "
                         "in HDF5 1.8's format or later: convert it with `h5repack --low=1 " +
                         path + " NEW.h5`, write it with h5py.File(name, 'w', libver='v108') or "
                         "H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, ...), or give the control as a CSV file");

  std::vector<double> times = read_dataset(file.get(), path, times_dataset);
  std::vector<double> values = read_dataset(file.get(), path, values_dataset);
  const std::string problem = series_problem(times, values);
  if (!problem.empty()) {
    throw InputError(path, times_dataset + ", " + values_dataset, "control signal " + problem);
  }
  return ControlSignal(name, std::move(times), std::move(values), kind);
}

ControlSignal::Weights ControlSignal::weights(double time) const {
  const double t = grid_time(time);
  const std::size_t upper = upper_index(t);
  if (upper == 0) return {0, 1.0, 0, 0.0};
  const int k = static_cast<int>(upper) - 1;
  if (upper == times_.size() || kind_ == Interpolation::PiecewiseConstant) return {k, 1.0, k, 0.0};
  const double s = (t - times_[k]) / (times_[k + 1] - times_[k]);
  return {k, 1.0 - s, k + 1, s};
}

void ControlSignal::set_time_base(TimeBase base) {
  if (base == TimeBase::Normalized && (times_.front() < 0.0 || times_.back() > 1.0))
    throw InputError("", name_, "time: normalized needs times in [0, 1] (tau = (t - t0)/(t1 - t0)), got " +
                                    format_number(times_.front()) + " to " + format_number(times_.back()));
  time_base_ = base;
}

void ControlSignal::set_time_window(double t0, double t1) {
  if (!(t1 > t0) || !std::isfinite(t0) || !std::isfinite(t1))
    throw std::invalid_argument("control signal '" + name_ + "': the time window needs t1 > t0, got [" +
                                format_number(t0) + ", " + format_number(t1) + "]");
  window_start_ = t0;
  window_end_ = t1;
}

void ControlSignal::set_values(const std::vector<double>& values) {
  if (values.size() != values_.size()) {
    throw std::invalid_argument("control signal '" + name_ + "' has " + std::to_string(values_.size()) +
                                " values, not " + std::to_string(values.size()));
  }
  values_ = values;
}

}  // namespace flexadj::functions
