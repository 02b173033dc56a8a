// Point-to-point linear spring and viscous damper.
#include <cmath>

#include "flexadj/elements/elements.hpp"
#include "flexadj/elements/point_pair.hpp"
#include "flexadj/model/component_ad.hpp"

namespace flexadj::elements {
namespace {

using model::Vec3;

// N: the capacity of the kernel's AD types (make_spring_damper picks the smallest that holds the bodies' coordinates).
template <int N>
class SpringDamper final : public model::ForceElementAD<SpringDamper<N>, N> {
  using Base = model::ForceElementAD<SpringDamper<N>, N>;
  using Base::add_parameter, Base::add_vector_parameter, Base::coordinate_count, Base::kinds, Base::local_offset,
      Base::parameters;

 public:
  enum : int { kStiffness, kDamping, kFreeLength, kPointA, kPointB = kPointA + 3 };

  SpringDamper(const std::string& name, std::array<int, 2> bodies, std::array<BodyKind, 2> kinds,
               const SpringDamperData& data)
      : Base(name, {bodies[0], bodies[1]}, {kinds[0], kinds[1]}) {
    add_parameter("stiffness", data.stiffness);
    add_parameter("damping", data.damping);
    add_parameter("free_length", data.free_length);
    add_vector_parameter("point_a", data.point_a);
    add_vector_parameter("point_b", data.point_b);
    offset_b_ = local_offset(1);
  }
  const char* type() const override { return "spring_damper"; }
  bool conservative() const override { return parameters()[kDamping] == 0.0; }

  template <class S, class P> void evaluate(const S* q, const S* v, const S*, const P* p, double, S* r) const {
    using std::sqrt;
    const Vec3<P> sa = vector_at(p, kPointA), sb = vector_at(p, kPointB);
    const PointPair<S> pair = point_pair(kinds()[0], kinds()[1], q, v, offset_b_, sa, sb);
    const Vec3<S>& d = pair.separation;
    const S length = sqrt(model::dot(d, d));
    const S tension =
        p[kStiffness] * (length - p[kFreeLength]) + p[kDamping] * model::dot(d, pair.separation_rate) / length;
    subtract_force_pair<S, P, N>(kinds()[0], kinds()[1], q, offset_b_, coordinate_count(), sa, sb,
                                  model::scaled(d, -tension / length), r);
  }

  double potential_energy(const double* q, double) const override {
    const double* p = parameters().data();
    const Vec3<double> d = model::subtract(model::point_position(kinds()[1], q + offset_b_, vector_at(p, kPointB)),
                                           model::point_position(kinds()[0], q, vector_at(p, kPointA)));
    const double stretch = std::sqrt(model::dot(d, d)) - p[kFreeLength];
    return 0.5 * p[kStiffness] * stretch * stretch;
  }

 private:
  int offset_b_ = 0;
};

}  // namespace

std::unique_ptr<model::ForceElement> make_spring_damper(const std::string& name, std::array<int, 2> bodies,
                                                        std::array<BodyKind, 2> kinds, const SpringDamperData& data) {
  const int coordinates = model::coordinate_count(kinds[0]) + model::coordinate_count(kinds[1]);
  return model::make_with_capacity<4, 6, 14>(coordinates, [&](auto capacity) -> std::unique_ptr<model::ForceElement> {
    return std::make_unique<SpringDamper<decltype(capacity)::value>>(name, bodies, kinds, data);
  });
}

}  // namespace flexadj::elements
