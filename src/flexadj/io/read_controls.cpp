// The control signals of a model file: piecewise linear or constant on a time grid, from the file, a CSV or
// an HDF5 file.
#include "flexadj/io/reader.hpp"

namespace flexadj::io::reader {

// ---- controls
void Reader::read_controls(const Value& list) {
  const std::size_t n = list.list_size("a list of controls");
  for (std::size_t i = 0; i < n; ++i) read_control(list.item(i));
}

void Reader::read_control(const Value& v) {
  v.expect_map({"name", "interpolation", "time", "times", "values", "grid", "value", "file", "column", "times_dataset",
                "values_dataset"});
  const std::string name = v.at("name").name();
  if (model_.find_control(name)) v.at("name").fail("duplicate control name '" + name + "'");
  const auto kind = v.has("interpolation") && v.at("interpolation").choice({"linear", "constant"}) == "constant"
                        ? functions::Interpolation::PiecewiseConstant
                        : functions::Interpolation::PiecewiseLinear;
  // time: normalized puts the grid on tau = (t - t0)/(t1 - t0) in [0, 1] (a free final time stretches it).
  const bool normalized = v.has("time") && v.at("time").choice({"absolute", "normalized"}) == "normalized";
  auto check_tau = [&](const Value& at, double tau) {
    if (normalized && !(tau >= 0.0 && tau <= 1.0))
      at.fail("time: normalized needs times tau = (t - t0)/(t1 - t0) in [0, 1], got " + format_number(tau));
  };
  const std::string source = exactly_one_of(v, {"times", "grid", "file"});
  auto allow_only = [&](const Keys& keys) {
    for (const std::string key : {"times", "values", "grid", "value", "file", "column", "times_dataset",
                                  "values_dataset"})
      if (std::find(keys.begin(), keys.end(), key) == keys.end())
        v.forbid(key, "cannot be combined with '" + source + "'");
  };
  std::shared_ptr<functions::ControlSignal> signal;
  if (source == "times") {
    allow_only({"times", "values"});
    const Value times = v.at("times");
    const std::vector<double> t = numbers_of_list(times);
    const std::vector<double> u = v.at("values").numbers(t.size());
    for (std::size_t k = 0; k < t.size(); ++k) check_tau(times.item(k), t[k]);
    for (std::size_t k = 1; k < t.size(); ++k)
      if (!(t[k] > t[k - 1])) times.item(k).fail("expected times that increase strictly, got " +
                                                   format_number(t[k]) + " after " + format_number(t[k - 1]));
    signal = make_signal(v, name, t, u, kind);
  } else if (source == "grid") {
    allow_only({"grid", "value", "values"});
    const Value grid = v.at("grid");
    grid.expect_map({"start", "end", "count"});
    const double start = grid.at("start").number();
    const Value end_value = grid.at("end");
    const double end = end_value.number();
    check_tau(grid.at("start"), start);
    check_tau(end_value, end);
    if (!(end > start))
      end_value.fail("expected a number greater than start (" + format_number(start) + "), got " +
                     end_value.describe());
    const int count = generated_count(grid.at("count"), 2);
    std::vector<double> t(count), u;
    for (int k = 0; k < count; ++k) t[k] = start + (end - start) * k / (count - 1);
    if (exactly_one_of(v, {"value", "values"}) == "value") u.assign(count, v.at("value").number());
    else u = v.at("values").numbers(count);
    signal = make_signal(v, name, t, u, kind);
  } else {
    const Value file = v.at("file");
    const fs::path path = resolve(file, file.name());
    const std::string extension = path.extension().string();
    const bool hdf5 = extension == ".h5" || extension == ".hdf5" || extension == ".he5";
    if (hdf5) allow_only({"file", "times_dataset", "values_dataset"});
    else allow_only({"file", "column"});
    const std::string column = !hdf5 && v.has("column") ? v.at("column").name() : name;
    const std::string times_dataset = hdf5 ? v.at("times_dataset").name() : "";
    const std::string values_dataset = hdf5 ? v.at("values_dataset").name() : "";
    try {
      signal = std::make_shared<functions::ControlSignal>(
          hdf5 ? functions::ControlSignal::from_hdf5(name, path.string(), times_dataset, values_dataset, kind)
               : functions::ControlSignal::from_csv(name, path.string(), column, kind));
    } catch (const InputError& e) {
      file.fail(e.what());  // keeps the control file's own message, adds the model file and key
    }
    if (normalized)
      for (double tau : signal->times())
        if (!(tau >= 0.0 && tau <= 1.0))
          file.fail("time: normalized needs times tau = (t - t0)/(t1 - t0) in [0, 1], and the file has " +
                    format_number(tau));
  }
  if (normalized) signal->set_time_base(functions::TimeBase::Normalized);
  model_.add_control(std::move(signal));
}

std::shared_ptr<functions::ControlSignal> Reader::make_signal(const Value& v, const std::string& name,
                                                      std::vector<double> t, std::vector<double> u,
                                                      functions::Interpolation kind) {
  try {
    return std::make_shared<functions::ControlSignal>(name, std::move(t), std::move(u), kind);
  } catch (const InputError& e) {
    v.fail(e.what());
  }
}

}  // namespace flexadj::io::reader
