#pragma once
// sin and cos of one angle together, for double and for (nested) Sacado forward-AD types. Sacado's sin(x) and
// cos(x) each evaluate both functions of x's value (the value and the derivative factor) at every level of a nested
// Fad, so a rotation R(theta) costs four transcendental calls per level where two do: here d sin = cos dx and
// d cos = -sin dx take the value level's pair, and each level evaluates sin and cos once. The planar rotations of
// the bodies and of the joint-coordinate link maps go through it.
#include <cmath>
#include <type_traits>

namespace flexadj::model {

template <class S> void sin_cos(const S& x, S& s, S& c) {
  if constexpr (std::is_floating_point_v<S>) {
    s = std::sin(x);
    c = std::cos(x);
  } else {
    using Value = typename S::value_type;
    Value sv, cv;
    sin_cos<Value>(x.val(), sv, cv);
    s = x;
    c = x;
    s.val() = sv;
    c.val() = cv;
    for (int i = 0; i < x.size(); ++i) {
      const Value dx = x.fastAccessDx(i);
      s.fastAccessDx(i) = cv * dx;
      c.fastAccessDx(i) = -sv * dx;
    }
  }
}

}  // namespace flexadj::model
