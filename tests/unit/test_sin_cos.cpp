// model::sin_cos against Sacado's own sin and cos, bit for bit, in double and in the nested forward-AD types of the
// joints' and elements' second-order passes (values and derivatives at every level).
#include <gtest/gtest.h>

#include <Sacado_No_Kokkos.hpp>
#include <cmath>

#include "flexadj/model/sin_cos.hpp"

namespace {

using Inner = Sacado::Fad::SFad<double, 1>;
using Outer = Sacado::Fad::SLFad<Inner, 6>;

TEST(SinCos, DoubleIsStdSinAndCos) {
  for (const double x : {-3.0, -0.7, 0.0, 1e-9, 0.4, 2.5, 40.0}) {
    double s, c;
    flexadj::model::sin_cos(x, s, c);
    EXPECT_EQ(s, std::sin(x));
    EXPECT_EQ(c, std::cos(x));
  }
}

TEST(SinCos, NestedFadMatchesSacadoBitForBit) {
  for (const double x0 : {-2.1, 0.0, 0.3, 1.7}) {
    Inner inner(1, 0, x0);
    inner.fastAccessDx(0) = 0.75;
    Outer x(4, inner);
    for (int i = 0; i < 4; ++i) {
      Inner d(1, 0, 0.1 * (i + 1) - 0.2);
      d.fastAccessDx(0) = -0.3 * i + 0.05;
      x.fastAccessDx(i) = d;
    }
    Outer s, c;
    flexadj::model::sin_cos(x, s, c);
    const Outer s_ref = sin(x), c_ref = cos(x);
    ASSERT_EQ(s.size(), 4);
    EXPECT_EQ(s.val().val(), s_ref.val().val());
    EXPECT_EQ(c.val().val(), c_ref.val().val());
    EXPECT_EQ(s.val().dx(0), s_ref.val().dx(0));
    EXPECT_EQ(c.val().dx(0), c_ref.val().dx(0));
    for (int i = 0; i < 4; ++i) {
      EXPECT_DOUBLE_EQ(s.dx(i).val(), s_ref.dx(i).val()) << i;
      EXPECT_DOUBLE_EQ(c.dx(i).val(), c_ref.dx(i).val()) << i;
      EXPECT_DOUBLE_EQ(s.dx(i).dx(0), s_ref.dx(i).dx(0)) << i;
      EXPECT_DOUBLE_EQ(c.dx(i).dx(0), c_ref.dx(i).dx(0)) << i;
    }
  }
}

}  // namespace
