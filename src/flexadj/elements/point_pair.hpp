#pragma once
// Kernel helpers for elements acting between a point on body a and a point on body b.
#include <array>

#include "flexadj/model/body.hpp"

namespace flexadj::elements {

// d = p_b - p_a and its time derivative; q and v hold body a's coordinates, then body b's from offset_b.
template <class S> struct PointPair {
  model::Vec3<S> separation, separation_rate;
};

template <class S, class P>
PointPair<S> point_pair(model::BodyKind a, model::BodyKind b, const S* q, const S* v, int offset_b,
                        const model::Vec3<P>& point_a, const model::Vec3<P>& point_b) {
  return {model::subtract(model::point_position(b, q + offset_b, point_b), model::point_position(a, q, point_a)),
          model::subtract(model::point_velocity(b, q + offset_b, v + offset_b, point_b),
                          model::point_velocity(a, q, v, point_a))};
}

// r -= Q for the force f acting on b at point_b and -f acting on a at point_a (n = local coordinates).
template <class S, class P, int MaxCoordinates>
void subtract_force_pair(model::BodyKind a, model::BodyKind b, const S* q, int offset_b, int n,
                         const model::Vec3<P>& point_a, const model::Vec3<P>& point_b,
                         const model::Vec3<S>& force_on_b, S* r) {
  const model::Vec3<S> zero{S(0.0), S(0.0), S(0.0)};
  std::array<S, MaxCoordinates> Q;
  for (int i = 0; i < n; ++i) Q[i] = 0.0;
  model::add_generalized_force(a, q, point_a, model::scaled(force_on_b, -1.0), zero, Q.data());
  model::add_generalized_force(b, q + offset_b, point_b, force_on_b, zero, Q.data() + offset_b);
  for (int i = 0; i < n; ++i) r[i] -= Q[i];
}

template <class P> model::Vec3<P> vector_at(const P* p, int first) { return {p[first], p[first + 1], p[first + 2]}; }

}  // namespace flexadj::elements
