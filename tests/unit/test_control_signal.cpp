#include "flexadj/functions/control_signal.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "flexadj/core/error.hpp"

namespace {

using flexadj::InputError;
using flexadj::functions::ControlSignal;
using flexadj::functions::Interpolation;

// Minimal forward-mode dual number carrying d/dt.
struct Dual {
  double v = 0.0, d = 0.0;
  Dual() = default;
  Dual(double value, double derivative = 0.0) : v(value), d(derivative) {}
};
Dual operator+(Dual a, Dual b) { return {a.v + b.v, a.d + b.d}; }
Dual operator-(Dual a, Dual b) { return {a.v - b.v, a.d - b.d}; }
Dual operator*(Dual a, Dual b) { return {a.v * b.v, a.d * b.v + a.v * b.d}; }
bool operator<(Dual a, Dual b) { return a.v < b.v; }

// 0 at t = 0, 2 at t = 1, -2 at t = 3
ControlSignal make_signal(Interpolation kind) { return ControlSignal("u", {0.0, 1.0, 3.0}, {0.0, 2.0, -2.0}, kind); }

// Expects `action` to throw an InputError whose message contains every one of `parts`.
template <class Action>
void expect_input_error(Action action, const std::vector<std::string>& parts) {
  try {
    action();
    ADD_FAILURE() << "no InputError; expected one mentioning '" << parts.back() << "'";
  } catch (const InputError& error) {
    const std::string what = error.what();
    for (const std::string& part : parts) EXPECT_NE(what.find(part), std::string::npos) << what;
  }
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(ControlSignal, PiecewiseLinear) {
  const ControlSignal u = make_signal(Interpolation::PiecewiseLinear);
  EXPECT_EQ(u.value(0.0), 0.0);
  EXPECT_EQ(u.value(0.5), 1.0);
  EXPECT_EQ(u.value(1.0), 2.0);
  EXPECT_EQ(u.value(2.0), 0.0);
  EXPECT_EQ(u.value(2.5), -1.0);
  EXPECT_EQ(u.value(3.0), -2.0);
  EXPECT_EQ(u.value(-1.0), 0.0);  // held before the grid
  EXPECT_EQ(u.value(7.0), -2.0);  // and after it
}

TEST(ControlSignal, PiecewiseConstant) {
  const ControlSignal u = make_signal(Interpolation::PiecewiseConstant);
  EXPECT_EQ(u.value(-1.0), 0.0);
  EXPECT_EQ(u.value(0.0), 0.0);
  EXPECT_EQ(u.value(0.999), 0.0);
  EXPECT_EQ(u.value(1.0), 2.0);
  EXPECT_EQ(u.value(2.9), 2.0);
  EXPECT_EQ(u.value(3.0), -2.0);
  EXPECT_EQ(u.value(9.0), -2.0);
}

TEST(ControlSignal, SingleValueIsConstant) {
  for (Interpolation kind : {Interpolation::PiecewiseLinear, Interpolation::PiecewiseConstant}) {
    const ControlSignal u("u", {1.0}, {4.0}, kind);
    for (double t : {-1.0, 1.0, 2.0}) {
      EXPECT_EQ(u.value(t), 4.0);
      const ControlSignal::Weights w = u.weights(t);
      EXPECT_EQ(w.k0, 0);
      EXPECT_EQ(w.k1, 0);
      EXPECT_EQ(w.w0 + w.w1, 1.0);
    }
  }
}

TEST(ControlSignal, WeightsReproduceValues) {
  for (Interpolation kind : {Interpolation::PiecewiseLinear, Interpolation::PiecewiseConstant}) {
    const ControlSignal u = make_signal(kind);
    for (double t = -0.5; t <= 3.5; t += 0.125) {
      const ControlSignal::Weights w = u.weights(t);
      ASSERT_GE(w.k0, 0);
      ASSERT_LT(w.k1, 3);
      EXPECT_GE(w.w0, 0.0);
      EXPECT_GE(w.w1, 0.0);
      EXPECT_DOUBLE_EQ(w.w0 + w.w1, 1.0) << "t = " << t;
      EXPECT_NEAR(w.w0 * u.values()[w.k0] + w.w1 * u.values()[w.k1], u.value(t), 1e-15) << "t = " << t;
    }
  }
  const ControlSignal::Weights w = make_signal(Interpolation::PiecewiseLinear).weights(2.5);
  EXPECT_EQ(w.k0, 1);
  EXPECT_EQ(w.w0, 0.25);
  EXPECT_EQ(w.k1, 2);
  EXPECT_EQ(w.w1, 0.75);
}

TEST(ControlSignal, TimeDerivativeWithDualNumbers) {
  const ControlSignal linear = make_signal(Interpolation::PiecewiseLinear);
  EXPECT_EQ(linear.value(Dual(0.5, 1.0)).d, 2.0);
  EXPECT_EQ(linear.value(Dual(2.0, 1.0)).d, -2.0);
  EXPECT_EQ(linear.value(Dual(1.0, 1.0)).d, -2.0);  // right derivative at a grid time
  EXPECT_EQ(linear.value(Dual(2.0, 1.0)).v, 0.0);
  EXPECT_EQ(linear.value(Dual(-1.0, 1.0)).d, 0.0);
  EXPECT_EQ(linear.value(Dual(4.0, 1.0)).d, 0.0);
  const ControlSignal constant = make_signal(Interpolation::PiecewiseConstant);
  EXPECT_EQ(constant.value(Dual(0.5, 1.0)).d, 0.0);
  EXPECT_EQ(constant.value(Dual(0.5, 1.0)).v, 0.0);
}

// A time carrying a derivative with a val() (as Sacado's types): a normalized signal reads its value.
struct ValuedDual : Dual {
  ValuedDual(double value, double derivative = 0.0) : Dual(value, derivative) {}
  ValuedDual(const Dual& dual) : Dual(dual) {}
  double val() const { return v; }
};

// time: normalized: the grid on tau = (t - t0)/(t1 - t0) of the window; the value of an AD time carries no
// derivative (a step's tau is fixed under a free final time).
TEST(ControlSignal, NormalizedTime) {
  ControlSignal u("u", {0.0, 0.5, 1.0}, {0.0, 2.0, -2.0}, Interpolation::PiecewiseLinear);
  u.set_time_base(flexadj::functions::TimeBase::Normalized);
  EXPECT_TRUE(u.normalized());
  u.set_time_window(1.0, 3.0);
  EXPECT_EQ(u.value(1.5), 1.0);   // tau = 0.25
  EXPECT_EQ(u.value(2.5), 0.0);   // tau = 0.75
  EXPECT_EQ(u.value(4.0), -2.0);  // held after the window
  const ControlSignal::Weights w = u.weights(1.5);
  EXPECT_EQ(w.k0, 0);
  EXPECT_EQ(w.w0, 0.5);
  EXPECT_EQ(w.k1, 1);
  EXPECT_EQ(w.w1, 0.5);
  u.set_time_window(1.0, 5.0);  // a later end stretches it
  EXPECT_EQ(u.value(2.0), 1.0);
  const ValuedDual t = u.value(ValuedDual(2.0, 1.0));
  EXPECT_EQ(t.v, 1.0);
  EXPECT_EQ(t.d, 0.0);
  EXPECT_THROW(u.value(Dual(2.0, 1.0)), std::logic_error);
  EXPECT_THROW(u.set_time_window(2.0, 2.0), std::invalid_argument);
  ControlSignal outside("v", {0.0, 2.0}, {0.0, 1.0}, Interpolation::PiecewiseLinear);
  EXPECT_THROW(outside.set_time_base(flexadj::functions::TimeBase::Normalized), InputError);
  EXPECT_FALSE(outside.normalized());
  EXPECT_EQ(outside.value(1.0), 0.5);  // absolute: the window is not read
}

TEST(ControlSignal, SetValues) {
  ControlSignal u = make_signal(Interpolation::PiecewiseLinear);
  u.set_values({1.0, 1.0, 3.0});
  EXPECT_EQ(u.value(2.0), 2.0);
  EXPECT_THROW(u.set_values({1.0}), std::invalid_argument);
  EXPECT_EQ(u.name(), "u");
  EXPECT_EQ(u.size(), 3u);
  EXPECT_EQ(u.interpolation(), Interpolation::PiecewiseLinear);
}

TEST(ControlSignal, ConstructorValidation) {
  const double inf = std::numeric_limits<double>::infinity();
  const auto make = [](std::vector<double> times, std::vector<double> values) {
    return [=] { ControlSignal("torque", times, values, Interpolation::PiecewiseLinear); };
  };
  expect_input_error(make({}, {}), {"torque: ", "needs at least one value"});
  expect_input_error(make({0, 1}, {1}), {"torque: ", "has 2 times but 1 values"});
  expect_input_error(make({0, 1, 1}, {1, 2, 3}), {"torque: ", "time 1 at index 2 follows 1"});
  expect_input_error(make({0, 2, 1}, {1, 2, 3}), {"time 1 at index 2 follows 2"});
  expect_input_error(make({0, inf}, {1, 2}), {"time at index 1 is not finite"});
  expect_input_error(make({0, 1}, {std::nan(""), 2}), {"value at index 0 is not finite"});
}

TEST(ControlSignal, ReadsCsv) {
  const std::string path = "control_signal_test_ok.csv";
  write_text(path,
             "# torque schedule\n"
             "time, \"force\", torque\r\n"
             "0, 5, 0\r\n"
             "\n"
             "1.0, 6, +2\n"
             "3, 7, -2e0\n");
  const ControlSignal u = ControlSignal::from_csv("u", path, "torque", Interpolation::PiecewiseLinear);
  EXPECT_EQ(u.name(), "u");
  EXPECT_EQ(u.times(), (std::vector<double>{0.0, 1.0, 3.0}));
  EXPECT_EQ(u.values(), (std::vector<double>{0.0, 2.0, -2.0}));
  EXPECT_EQ(u.value(2.0), 0.0);

  const ControlSignal f = ControlSignal::from_csv("f", path, "force", Interpolation::PiecewiseConstant);
  EXPECT_EQ(f.values(), (std::vector<double>{5.0, 6.0, 7.0}));
  EXPECT_EQ(f.value(2.0), 6.0);

  write_text(path, "T,u\n0,1\n");
  EXPECT_EQ(ControlSignal::from_csv("u", path, "u", Interpolation::PiecewiseLinear).value(5.0), 1.0);
  std::remove(path.c_str());
}

TEST(ControlSignal, CsvErrorsNameFileColumnAndLine) {
  const std::string path = "control_signal_test_bad.csv";
  const auto read = [&](const std::string& column) {
    return [=] { ControlSignal::from_csv("u", path, column, Interpolation::PiecewiseLinear); };
  };
  const std::string missing = "control_signal_test_missing.csv";
  expect_input_error([&] { ControlSignal::from_csv("u", missing, "u", Interpolation::PiecewiseLinear); },
                     {missing + ": u: cannot open file"});

  write_text(path, "t,u\n0,1\n");
  expect_input_error(read("v"), {path + ": v: ", "no column 'v' in the header at line 1"});

  write_text(path, "x,u\n0,1\n");
  expect_input_error(read("u"), {path + ": u: ", "the first column must be 't' or 'time' but is 'x' at line 1"});

  write_text(path, "t,u,u\n0,1,2\n");
  expect_input_error(read("u"), {path + ": u: ", "column 'u' appears twice in the header at line 1"});

  write_text(path, "t,u\n0,1\n1,abc\n");
  expect_input_error(read("u"), {path + ": u: ", "'abc' in column 'u' is not a finite number at line 3"});

  write_text(path, "t,u\n0,1\nnan,2\n");
  expect_input_error(read("u"), {path + ": u: ", "'nan' in column 't' is not a finite number at line 3"});

  write_text(path, "t,u\n0,1\n1,\n");
  expect_input_error(read("u"), {path + ": u: ", "'' in column 'u' is not a finite number at line 3"});

  write_text(path, "t,u\n0,1\n\n1,2\n1,3\n");
  expect_input_error(read("u"), {path + ": u: ", "time 1 at line 5 is not greater than the previous time 1"});

  write_text(path, "t,u\n0,1\n1,2,3\n");
  expect_input_error(read("u"), {path + ": u: ", "expected 2 cells but found 3 at line 3"});

  write_text(path, "t,u\n");
  expect_input_error(read("u"), {path + ": u: ", "file has no data lines"});

  write_text(path, "# nothing\n");
  expect_input_error(read("u"), {path + ": u: ", "file has no header line"});

  // Finite values whose slope overflows (found by fuzzing: the constructor's refusal named neither file nor column).
  write_text(path, "t,u\n0,1\n0.001,1.1e306\n");
  expect_input_error(read("u"), {path + ": u: ", "control signal changes too fast between index 0 and 1",
                                 "its slope overflows"});
  std::remove(path.c_str());
}

// ---- HDF5 ----

// Writes a double dataset of the given shape, creating missing groups on the way.
void write_dataset(hid_t file, const std::string& name, const std::vector<double>& data,
                   std::vector<hsize_t> shape = {}) {
  if (shape.empty()) shape = {data.size()};
  const hid_t links = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(links, 1);
  const hid_t space = H5Screate_simple(static_cast<int>(shape.size()), shape.data(), nullptr);
  const hid_t set = H5Dcreate2(file, name.c_str(), H5T_NATIVE_DOUBLE, space, links, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(set, 0) << name;
  ASSERT_GE(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), 0);
  H5Dclose(set);
  H5Sclose(space);
  H5Pclose(links);
}

// Creates an HDF5 file in the format of HDF5 1.8 (superblock 2, checksummed metadata), or in HDF5's default format.
hid_t create_file(const std::string& path, bool checksummed = true) {
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (checksummed) H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18);
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  H5Pclose(fapl);
  return file;
}

TEST(ControlSignal, ReadsHdf5) {
  const std::string path = "control_signal_test.h5";
  const hid_t file = create_file(path);
  ASSERT_GE(file, 0);
  write_dataset(file, "/controls/t", {0.0, 1.0, 3.0});
  write_dataset(file, "/controls/torque", {0.0, 2.0, -2.0});
  write_dataset(file, "/controls/short", {0.0, 2.0});
  write_dataset(file, "/controls/decreasing", {0.0, 2.0, 1.0});
  write_dataset(file, "/controls/matrix", {1, 2, 3, 4, 5, 6}, {3, 2});
  H5Fclose(file);

  const auto read = [&](const std::string& times, const std::string& values) {
    return ControlSignal::from_hdf5("u", path, times, values, Interpolation::PiecewiseLinear);
  };
  const ControlSignal u = read("/controls/t", "/controls/torque");
  EXPECT_EQ(u.times(), (std::vector<double>{0.0, 1.0, 3.0}));
  EXPECT_EQ(u.values(), (std::vector<double>{0.0, 2.0, -2.0}));
  EXPECT_EQ(u.value(0.5), 1.0);

  expect_input_error([&] { read("/controls/t", "/controls/force"); },
                     {path + ": /controls/force: no such dataset"});
  expect_input_error([&] { read("/nothing/t", "/controls/torque"); }, {path + ": /nothing/t: no such dataset"});
  expect_input_error([&] { read("/controls/t", "/controls/matrix"); },
                     {path + ": /controls/matrix: dataset must be 1-D but has rank 2"});
  expect_input_error([&] { read("/controls/t", "/controls/short"); },
                     {path + ": /controls/t, /controls/short: control signal has 3 times but 2 values"});
  expect_input_error([&] { read("/controls/decreasing", "/controls/torque"); },
                     {path + ": /controls/decreasing, /controls/torque: ", "time 1 at index 2 follows 2"});
  expect_input_error([&] { ControlSignal::from_hdf5("u", "missing.h5", "/t", "/u", Interpolation::PiecewiseLinear); },
                     {"missing.h5: cannot open file"});
  const std::string not_hdf5 = "control_signal_test_not_hdf5.h5";
  write_text(not_hdf5, "t,u\n");
  expect_input_error([&] { ControlSignal::from_hdf5("u", not_hdf5, "/t", "/u", Interpolation::PiecewiseLinear); },
                     {not_hdf5 + ": cannot open file as HDF5"});
  std::remove(not_hdf5.c_str());
  std::remove(path.c_str());
}

// A file in HDF5's default format (no metadata checksums; h5py's default) is refused with the way to convert it, and
// the conversion the message names gives a file that is read (fuzzing found damaged group heaps of that format on
// which HDF5 1.10.8 dereferences null).
TEST(ControlSignal, RefusesHdf5WithoutChecksumsAndNamesTheConversion) {
  const std::string path = "control_signal_old_format.h5", converted = "control_signal_converted.h5";
  const hid_t file = create_file(path, false);
  ASSERT_GE(file, 0);
  write_dataset(file, "/t", {0.0, 1.0});
  write_dataset(file, "/u", {3.0, 5.0});
  H5Fclose(file);
  const auto read = [](const std::string& p) {
    return ControlSignal::from_hdf5("u", p, "/t", "/u", Interpolation::PiecewiseLinear);
  };
  expect_input_error([&] { read(path); },
                     {path + ": an HDF5 file without metadata checksums (superblock version 0",
                      "h5repack --low=1 " + path + " NEW.h5", "libver='v108'", "CSV file"});
  std::remove(converted.c_str());
  const std::string command = "h5repack --low=1 " + path + " " + converted + " > /dev/null 2>&1";
  if (std::system("command -v h5repack > /dev/null 2>&1") == 0) {
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    const ControlSignal u = read(converted);
    EXPECT_EQ(u.values(), (std::vector<double>{3.0, 5.0}));
    EXPECT_EQ(u.value(0.5), 4.0);
  }
  std::remove(converted.c_str());
  std::remove(path.c_str());
}

}  // namespace
