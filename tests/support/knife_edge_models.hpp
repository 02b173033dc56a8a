#pragma once
// The Chaplygin sleigh of the knife-edge tests: a planar rigid body (mass m, inertia I about its centre) whose
// contact point P = centre + b d(theta) may move only along d(theta) = (cos theta, sin theta), no gravity.
// With forward speed u = d . v and angular velocity w, J = I + m b^2, the equations of motion are
//   du/dt = -b w^2,   dw/dt = m b u w / J,   E = (m u^2 + J w^2)/2 conserved
// (Neimark and Fufaev 1972; Bloch 2003, the Chaplygin sleigh), solved by u = U tanh(k t + s0), U = sqrt(2E/m),
// k = -m b U / J, w = w0 cosh(s0) / cosh(k t + s0) for b < 0 (P behind the centre); for b = 0, w = w0 and the
// centre runs on a circle of radius u/w.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "flexadj/io/problem_reader.hpp"

namespace flexadj::testing {

struct Sleigh {
  double mass = 2.0, inertia = 0.3, b = -0.4, theta0 = 0.4, u0 = 0.5, w0 = 2.0, x0 = 0.1, y0 = -0.2;

  // The centre's initial velocity u0 d + (-w0 b) n, n = (-sin, cos): the constraint holds at t = 0.
  double vx0() const { return u0 * std::cos(theta0) + w0 * b * std::sin(theta0); }
  double vy0() const { return u0 * std::sin(theta0) - w0 * b * std::cos(theta0); }
  double energy() const { return 0.5 * (mass * u0 * u0 + (inertia + mass * b * b) * w0 * w0); }
  double speed_limit() const { return std::sqrt(2.0 * energy() / mass); }
  double rate() const { return -mass * b * speed_limit() / (inertia + mass * b * b); }
  double forward_speed(double t) const {
    const double U = speed_limit(), s0 = std::atanh(u0 / U);
    return U * std::tanh(rate() * t + s0);
  }
  double angular_velocity(double t) const {
    const double s0 = std::atanh(u0 / speed_limit());
    return w0 * std::cosh(s0) / std::cosh(rate() * t + s0);
  }

  // The model file: body `sleigh`, joint `edge` (point P and direction d, global at t = 0).
  std::string yaml(double end_time, double step_size, const std::string& extra = "") const {
    char text[2048];
    const double c = std::cos(theta0), s = std::sin(theta0);
    std::snprintf(text, sizeof text,
                  "title: Chaplygin sleigh\n"
                  "dimension: 2\n"
                  "gravity: [0, 0]\n"
                  "integrator: {end_time: %.17g, step_size: %.17g, spectral_radius: 1}\n"
                  "bodies:\n"
                  "  - {name: sleigh, type: rigid_body, mass: %.17g, inertia: %.17g, position: [%.17g, %.17g],\n"
                  "     orientation: %.17g, velocity: [%.17g, %.17g], angular_velocity: %.17g}\n"
                  "joints:\n"
                  "  - {name: edge, type: knife_edge, body: sleigh, point: [%.17g, %.17g], direction: [%.17g, %.17g]}\n"
                  "%s",
                  end_time, step_size, mass, inertia, x0, y0, theta0, vx0(), vy0(), w0, x0 + b * c, y0 + b * s, c, s,
                  extra.c_str());
    return text;
  }
  // The same sleigh as a spatial rigid body (Euler parameters) held in the plane z = 0 by prescribed z, e1 and e2,
  // on a spatial knife edge (plane normal z).
  std::string spatial_yaml(double end_time, double step_size) const {
    char text[2048];
    const double c = std::cos(theta0), s = std::sin(theta0);
    std::snprintf(text, sizeof text,
                  "title: Chaplygin sleigh in space\n"
                  "dimension: 3\n"
                  "gravity: [0, 0, 0]\n"
                  "integrator: {end_time: %.17g, step_size: %.17g, spectral_radius: 1}\n"
                  "bodies:\n"
                  "  - {name: sleigh, type: rigid_body, mass: %.17g, inertia: {principal: [0.5, 0.4, %.17g]},\n"
                  "     position: [%.17g, %.17g, 0], orientation: {axis: [0, 0, 1], angle: %.17g},\n"
                  "     velocity: [%.17g, %.17g, 0], angular_velocity: [0, 0, %.17g]}\n"
                  "joints:\n"
                  "  - {type: prescribed_coordinate, body: sleigh, coordinate: 2, value: \"0\"}\n"
                  "  - {type: prescribed_coordinate, body: sleigh, coordinate: 4, value: \"0\"}\n"
                  "  - {type: prescribed_coordinate, body: sleigh, coordinate: 5, value: \"0\"}\n"
                  "  - {name: edge, type: knife_edge, body: sleigh, point: [%.17g, %.17g, 0], direction: [%.17g, %.17g, 0]}\n",
                  end_time, step_size, mass, inertia, x0, y0, theta0, vx0(), vy0(), w0, x0 + b * c, y0 + b * s, c, s);
    return text;
  }

  problem::Problem problem(double end_time, double step_size, const std::vector<std::string>& overrides = {}) const {
    return io::read_problem_string(yaml(end_time, step_size), "sleigh.yaml", overrides);
  }

  // g = n . v_P = -sin(theta) vx + cos(theta) vy + b w for coordinates (x, y, theta).
  double constraint(const std::vector<double>& q, const std::vector<double>& v) const {
    return -std::sin(q[2]) * v[0] + std::cos(q[2]) * v[1] + b * v[2];
  }
};

}  // namespace flexadj::testing
