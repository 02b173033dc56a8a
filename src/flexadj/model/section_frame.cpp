// Section frames of ANCF nodes for output (model::section_frame in body.hpp). The gradients of an ANCF node
// (Shabana and Yakoub 2001; Gerstmayr and Shabana 2006) need not be orthonormal, so the frame is a convention:
//   planar node  axis_x = r_x/|r_x|, axis_z = e_z, axis_y = axis_z x axis_x;
//   cable node   axis_x = r_s/|r_s|, turned from e_x by the rotation of smallest angle;
//   full node    Gram-Schmidt of (r_x, r_y), axis_z = axis_x x axis_y.
#include <cmath>

#include "flexadj/model/body.hpp"

namespace flexadj::model {
namespace {

using Frame = std::array<double, 9>;

Frame from_columns(const Vec3<double>& x, const Vec3<double>& y, const Vec3<double>& z) {
  return {x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]};
}

Vec3<double> unit(const Vec3<double>& a) { return scaled(a, 1.0 / std::sqrt(dot(a, a))); }

// A cable has no torsional orientation (no twist in the model), so its section axes are a convention: the frame
// the rotation of smallest angle takes e_x to the unit tangent t = (a, b, c) to, about e_x x t (Rodrigues:
// R = I + [v] + [v]^2/(1 + a), v = e_x x t). Written with u = (b, c)/s, s = |(b, c)|, and 1/(1 + a) = (1 - a)/s^2,
// so that it stays orthonormal to round-off as t approaches -e_x; at t = -e_x, where every axis normal to e_x
// gives a smallest rotation, the half turn about e_z (u = (1, 0)).
Frame smallest_rotation_from_x(const Vec3<double>& t) {
  const double s = std::hypot(t[1], t[2]);
  const double u_y = s > 0.0 ? t[1] / s : 1.0, u_z = s > 0.0 ? t[2] / s : 0.0;
  const double a = t[0], f = 1.0 - a;
  return from_columns(t, {-t[1], a + f * u_z * u_z, -f * u_y * u_z}, {-t[2], -f * u_y * u_z, a + f * u_y * u_y});
}

}  // namespace

Frame section_frame(BodyKind kind, const double* q) {
  switch (kind) {
    case BodyKind::AncfPlanarNode: {
      const Vec3<double> x = unit(Vec3<double>{q[2], q[3], 0.0});
      return from_columns(x, {-x[1], x[0], 0.0}, {0.0, 0.0, 1.0});
    }
    case BodyKind::AncfCableNode: return smallest_rotation_from_x(unit(Vec3<double>{q[3], q[4], q[5]}));
    case BodyKind::AncfFullNode: {
      // The section may shear (r_y not normal to r_x) and deform (|r_y| != 1): of the orthonormal frames, the
      // one with axis_x along the centreline and axis_y in the plane of r_x and r_y, closest to r_y.
      const Vec3<double> x = unit(Vec3<double>{q[3], q[4], q[5]});
      const Vec3<double> r_y{q[6], q[7], q[8]};
      const Vec3<double> y = unit(subtract(r_y, scaled(x, dot(r_y, x))));
      return from_columns(x, y, cross(x, y));
    }
    default: return body_rotation(kind, q);
  }
}

}  // namespace flexadj::model
