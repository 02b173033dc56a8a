#include "flexadj/objectives/objective_formula.hpp"

#include <sstream>

#include "flexadj/model/coordinate_names.hpp"

namespace flexadj::objectives {
namespace {

std::string format(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

}  // namespace

std::string objective_formula(const std::vector<ObjectiveTerm>& terms, const model::Model& system) {
  using Term = ObjectiveTerm;
  std::string text;
  for (const Term& term : terms) {
    if (term.kind == Term::Kind::FinalTime) {
      if (!text.empty()) text += " + ";
      text += (term.weight == 1.0 ? std::string() : format(term.weight) + " ") + "t_end";
      continue;
    }
    if (term.kind == Term::Kind::ControlEffort) {
      if (!text.empty()) text += " + ";
      text += (term.weight == 1.0 ? std::string("1/2 ") : format(term.weight) + "/2 ") + "int " + term.control + "(t)^2 dt";
      continue;
    }
    std::string x;
    if (term.sensor_body >= 0) {
      const char* axis[] = {"x", "y", "z"};
      const char* quantity[] = {"position", "velocity",         "angular_velocity", "direction",
                                "momentum", "angular_momentum", "acceleration"};  // Term::Quantity's order
      x = system.body(term.sensor_body).name + "." + quantity[static_cast<int>(term.quantity)] + "_" +
          axis[term.sensor_component];
    } else {
      std::string name = model::coordinate_name(system, term.coordinate);
      if (term.relative_to >= 0)
        name = "(" + name + " - " + model::coordinate_name(system, term.relative_to) + ")";
      x = term.quantity == Term::Quantity::Velocity       ? "v(" + name + ")"
          : term.quantity == Term::Quantity::Acceleration ? "a(" + name + ")"
                                                          : name;
    }
    const std::string w = term.weight == 1.0 ? "" : format(term.weight) + " ";
    const std::string half = term.weight == 1.0 ? "1/2 " : format(term.weight) + "/2 ";
    if (!text.empty()) text += " + ";
    switch (term.kind) {
      case Term::Kind::FinalValue: text += w + x + "(t_end)"; break;
      case Term::Kind::FinalSquare: text += half + "(" + x + "(t_end) - " + format(term.target) + ")^2"; break;
      case Term::Kind::Tracking: text += half + "int (" + x + " - r(t))^2 dt"; break;
      case Term::Kind::Penalty: text += half + "int excess(" + x + ")^2 dt"; break;
      case Term::Kind::ControlEffort: text += half + "int " + term.control + "(t)^2 dt"; break;
      case Term::Kind::FinalTime: break;
      case Term::Kind::StepSum: text += "sum_n w_n " + x + "(t_n)"; break;
    }
  }
  return text;
}

}  // namespace flexadj::objectives
