// The Python module flexadj (docs/python.md): Problem, Trajectory, and flexadj's errors as Python exceptions.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "flexadj/core/error.hpp"
#include "problem.hpp"
#include "runtime.hpp"
#include "trajectory.hpp"

namespace py = pybind11;
using flexadj::python::Problem;
using flexadj::python::Trajectory;

namespace {

using Values = py::array_t<double, py::array::c_style | py::array::forcecast>;

// The YAML text of an override's value: numbers, booleans, strings (read as YAML, like --set) and lists of these.
std::string yaml_value(const std::string& key, py::handle value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::float_>(value) && !std::isfinite(value.cast<double>())) {  // YAML's spelling
    const double x = value.cast<double>();
    return std::isnan(x) ? ".nan" : x > 0 ? ".inf" : "-.inf";
  }
  if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) return py::repr(value).cast<std::string>();
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    std::string text = "[";
    for (py::handle item : value) text += (text.size() > 1 ? ", " : "") + yaml_value(key, item);
    return text + "]";
  }
  // numpy scalars and arrays (numpy.int64 is no int) as the Python numbers and lists they hold
  if (py::hasattr(value, "tolist") && !py::isinstance<py::str>(value)) return yaml_value(key, value.attr("tolist")());
  throw flexadj::InputError("", key, "an override's value must be a number, a bool, a string or a list of these, got " +
                                         py::repr(value).cast<std::string>());
}

std::vector<std::string> override_strings(const std::optional<py::dict>& overrides) {
  std::vector<std::string> strings;
  if (!overrides) return strings;
  for (const auto& [key, value] : *overrides) {
    const std::string name = py::str(key).cast<std::string>();
    strings.push_back(name + "=" + yaml_value(name, value));
  }
  return strings;
}

std::optional<std::vector<double>> values_of(const std::optional<Values>& x) {
  if (!x) return std::nullopt;
  if (x->ndim() != 1) throw flexadj::InputError("", "x", "expected a one-dimensional array of design values");
  return std::vector<double>(x->data(), x->data() + x->size());
}

py::array_t<double> array_of(const std::vector<double>& values) {
  return py::array_t<double>(static_cast<py::ssize_t>(values.size()), values.data());
}

}  // namespace

PYBIND11_MODULE(flexadj, m) {
  m.doc() = "flexadj: flexible multibody dynamics with adjoint gradients (docs/python.md)";
  flexadj::python::start();
  py::module_::import("atexit").attr("register")(py::cpp_function([] { flexadj::python::stop(); }));

  static py::exception<flexadj::SolverError> solver_error(m, "SolverError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const flexadj::InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const flexadj::SolverError& e) {
      solver_error(e.what());
    } catch (const flexadj::OutputError& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    }
  });

  m.def("rank", [] { return flexadj::python::world()->getRank(); }, "This process's MPI rank (0 without MPI).");
  m.def("size", [] { return flexadj::python::world()->getSize(); }, "The number of MPI ranks.");

  py::class_<Trajectory>(m, "Trajectory", "A forward run: time, q and v of every step (numpy arrays).")
      .def_readonly("time", &Trajectory::time, "Step times t_0 .. t_N, shape (N + 1,).")
      .def_readonly("q", &Trajectory::q, "Coordinates of every step, shape (N + 1, coordinates).")
      .def_readonly("v", &Trajectory::v, "Velocities of every step, shape (N + 1, coordinates).")
      .def_readonly("coordinate_names", &Trajectory::coordinate_names, "'body.coordinate' of each column.")
      .def_property_readonly("design_values", [](const Trajectory& t) { return array_of(t.design_values()); },
                             "The design values of the run.")
      .def("write", &Trajectory::write, py::arg("path"), py::arg("xdmf") = true,
           "Writes the run as HDF5 (and XDMF for ParaView) like 'flexadj simulate -o PATH'. Collective.");

  py::class_<Problem, std::shared_ptr<Problem>>(m, "Problem", "The gradient problem of a model file.")
      .def(py::init([](const std::string& path, const std::optional<py::dict>& overrides) {
             return std::make_shared<Problem>(path, override_strings(overrides));
           }),
           py::arg("path"), py::arg("overrides") = py::none(),
           "Reads the model file; overrides {'integrator.end_time': 2.0, ...} act as the command line's --set.")
      .def_property_readonly("model_file", &Problem::model_file)
      .def_property_readonly("design_names", &Problem::design_names, "One name per design scalar.")
      .def("design_values", [](const Problem& p) { return array_of(p.design_values()); },
           "The design values of the model file (after the overrides).")
      .def("bounds", [](Problem& p) {
             const auto [lower, upper] = p.bounds();
             return py::make_tuple(array_of(lower), array_of(upper));
           },
           "(lower, upper): the model's optimization.bounds per design scalar, +-inf where none.")
      .def("control_times", [](Problem& p, const std::string& name) { return array_of(p.control_times(name)); },
           py::arg("name"), "The times of the values of a control signal (design names 'control:NAME[k]').")
      .def("objective", [](Problem& p, const std::optional<Values>& x) {
             const auto values = values_of(x);
             py::gil_scoped_release released;
             return p.objective(values);
           },
           py::arg("x") = py::none(), "J at the design values x (default: the model file's). Collective.")
      .def("gradient", [](Problem& p, const std::optional<Values>& x) {
             const auto values = values_of(x);
             std::pair<double, std::vector<double>> result;
             {
               py::gil_scoped_release released;
               result = p.gradient(values);
             }
             return py::make_tuple(result.first, array_of(result.second));
           },
           py::arg("x") = py::none(), "(J, dJ/dx) by the adjoint of the model's settings. Collective.")
      .def("hessian_vector", [](Problem& p, const std::optional<Values>& x, const Values& v) {
             const auto values = values_of(x);
             const std::vector<double> direction = *values_of(v);
             std::vector<double> product;
             {
               py::gil_scoped_release released;
               product = p.hessian_vector(values, direction);
             }
             return array_of(product);
           },
           py::arg("x"), py::arg("v"),
           "H v: the Hessian of the discrete J at x (None: the values set) times v, exact (the second-order "
           "adjoint; as 'flexadj hessian'). ValueError where the model has none. Collective.")
      .def("simulate", [](const std::shared_ptr<Problem>& p, const std::optional<Values>& x) {
             const auto values = values_of(x);
             flexadj::python::SimulatedRun run;
             {
               py::gil_scoped_release released;
               run = p->simulate(values);
             }
             return Trajectory(p, values ? *values : p->design_values(), run);
           },
           py::arg("x") = py::none(), "The forward run at x as a Trajectory. Collective.");
}
