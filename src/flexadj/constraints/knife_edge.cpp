// The planar knife edge (Chaplygin sleigh): the body point P may not move across the edge's direction d,
//   g(q, v) = n(theta) . v_P = 0,  n = R(theta) (e_z x d),  v_P = (dx/dt, dy/dt) + dtheta/dt e_z x R(theta) s,
// a non-holonomic constraint linear in v (Neimark and Fufaev 1972; Bloch 2003, the Chaplygin sleigh).
#include "flexadj/constraints/spatial_knife_edge.hpp"
#include "flexadj/model/velocity_constraint_ad.hpp"

namespace flexadj::constraints {
namespace {

class KnifeEdge final : public model::VelocityConstraintAD<KnifeEdge, 3, 1> {
 public:
  enum : int { kPoint = 0, kDirection = 3 };
  KnifeEdge(const std::string& name, int body, const Point& point, const Point& direction)
      : VelocityConstraintAD(name, {body}, {BodyKind::PlanarRigid}, 1) {
    add_vector_parameter("point", point);
    add_vector_parameter("direction", direction);
  }
  const char* type() const override { return "knife_edge"; }

  template <class S, class P> void evaluate(const S* q, const S* v, const S&, const P* p, S* g) const {
    using model::Vec3;
    const Vec3<P> s{p[kPoint], p[kPoint + 1], p[kPoint + 2]};
    const Vec3<P> across{-p[kDirection + 1], p[kDirection], P(0.0)};  // e_z x d in body axes
    const auto R = model::body_rotation(BodyKind::PlanarRigid, q);
    const Vec3<S> n = model::multiply(R, across);
    const Vec3<S> velocity = model::point_velocity(BodyKind::PlanarRigid, q, v, s);
    g[0] = n[0] * velocity[0] + n[1] * velocity[1];
  }
};

// The spatial knife edge: the body point P has no velocity along the body-fixed direction m (across the edge),
//   g(q, v) = (R(e) m) . v_P = 0,  v_P = dr/dt + omega x R(e) s,  omega = 2 R G(e) de/dt
// (Neimark and Fufaev 1972; Nikravesh 1988, eq. (6.104) for omega), linear in v.
class SpatialKnifeEdge final : public model::VelocityConstraintAD<SpatialKnifeEdge, 7, 1> {
 public:
  enum : int { kPoint = 0, kAcross = 3 };
  SpatialKnifeEdge(const std::string& name, int body, const Point& point, const Point& across)
      : VelocityConstraintAD(name, {body}, {BodyKind::SpatialRigid}, 1) {
    add_vector_parameter("point", point);
    add_vector_parameter("across", across);
  }
  const char* type() const override { return "knife_edge"; }

  template <class S, class P> void evaluate(const S* q, const S* v, const S&, const P* p, S* g) const {
    using model::Vec3;
    const Vec3<P> s{p[kPoint], p[kPoint + 1], p[kPoint + 2]};
    const Vec3<P> across{p[kAcross], p[kAcross + 1], p[kAcross + 2]};
    const Vec3<S> m = model::multiply(model::body_rotation(BodyKind::SpatialRigid, q), across);
    const Vec3<S> velocity = model::point_velocity(BodyKind::SpatialRigid, q, v, s);
    g[0] = model::dot(m, velocity);
  }
};

}  // namespace

std::unique_ptr<model::Constraint> make_spatial_knife_edge(const std::string& name, int body, const Point& point,
                                                           const Point& across) {
  return std::make_unique<SpatialKnifeEdge>(name, body, point, across);
}

std::unique_ptr<model::Constraint> make_knife_edge(const std::string& name, int body, const Point& point,
                                                   const Point& direction) {
  return std::make_unique<KnifeEdge>(name, body, point, direction);
}

}  // namespace flexadj::constraints
