#pragma once
// The base of the Sacado adaptors (component_ad.hpp, discrete_momenta_ad.hpp) that turn a templated force kernel into
// the double-valued interfaces of component.hpp: the kernel traits, the static AD types sized by the kernel's
// MaxCoordinates, and the kernel evaluated with or without its control value. Include only in the .cpp files that
// define components: Sacado headers are heavy.
#include <Sacado_No_Kokkos.hpp>

#include <array>
#include <cassert>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "flexadj/functions/control_signal.hpp"
#include "flexadj/model/component.hpp"

namespace flexadj::model {

// Largest number of parameters of a component (a spatial joint has 19).
constexpr int kMaxComponentParameters = 24;
static_assert(kMaxComponentParameters <= 32, "ParameterMask has 32 bits");

// The indices of the wanted parameters among the first `count`; returns how many.
inline int wanted_parameters(ParameterMask wanted, int count, std::array<int, kMaxComponentParameters>& indices) {
  int found = 0;
  for (int k = 0; k < count; ++k)
    if ((wanted >> k) & 1u) indices[found++] = k;
  return found;
}

// The kernels' static-size AD types hold MaxCoordinates local coordinates: refuse a component on more.
inline void check_coordinate_count(const Component& c, int max_coordinates) {
  if (c.coordinate_count() > max_coordinates)
    throw std::invalid_argument("'" + c.name() + "' connects bodies with " + std::to_string(c.coordinate_count()) +
                                " coordinates in all; this kind of component supports at most " +
                                std::to_string(max_coordinates));
}

// A kernel's AD types are sized by its MaxCoordinates. make(std::integral_constant<int, N>) with the first N of the
// capacities that holds `coordinates`: a spring between two planar point masses (4 coordinates) then works on Fad
// types of 4 derivatives instead of the 14 of two spatial rigid bodies, without unused slots to copy and clear.
template <int First, int... Rest, class Make>
auto make_with_capacity(int coordinates, Make&& make) {
  if constexpr (sizeof...(Rest) == 0) {
    return make(std::integral_constant<int, First>{});
  } else {
    if (coordinates <= First) return make(std::integral_constant<int, First>{});
    return make_with_capacity<Rest...>(coordinates, std::forward<Make>(make));
  }
}

// True if Kernel defines kinetic() (detection idiom).
template <class Kernel, class = void> struct HasKineticEnergy : std::false_type {};
template <class Kernel>
struct HasKineticEnergy<Kernel, std::void_t<decltype(std::declval<const Kernel&>().template kinetic<double, double>(
                                    std::declval<const double*>(), std::declval<const double*>(),
                                    std::declval<const double*>()))>> : std::true_type {};

// True if Kernel takes its control value as an argument, evaluate_controlled(q, v, a, p, u, t, r) (a load with a
// control signal): the second-order products then differentiate in u as well.
template <class Kernel, class = void> struct HasControlledKernel : std::false_type {};
template <class Kernel>
struct HasControlledKernel<Kernel, std::void_t<decltype(std::declval<const Kernel&>().template evaluate_controlled<double, double>(
                                       std::declval<const double*>(), std::declval<const double*>(),
                                       std::declval<const double*>(), std::declval<const double*>(),
                                       std::declval<const double&>(), 0.0, std::declval<double*>()))>>
    : std::true_type {};

// The kernel adaptor of ForceElementAD. FixedLength: the element always has exactly MaxCoordinates coordinates (and at most kMaxComponentParameters
// parameters); its Fad types are then the fixed-length SFad, whose unrolled loops are faster than SLFad's.
template <class Derived, int MaxCoordinates, bool FixedLength = false>
class ForceKernelAdaptor : public ForceElement {
 public:
  ForceKernelAdaptor(std::string name, std::vector<int> bodies, std::vector<BodyKind> kinds)
      : ForceElement(std::move(name), std::move(bodies), std::move(kinds)) {
    check_coordinate_count(*this, MaxCoordinates);
    if (FixedLength && coordinate_count() != MaxCoordinates)
      throw std::invalid_argument("'" + this->name() + "' needs exactly " + std::to_string(MaxCoordinates) +
                                  " coordinates");
  }
  template <int N, class Scalar = double>
  using FadOf = std::conditional_t<FixedLength, Sacado::Fad::SFad<Scalar, N>, Sacado::Fad::SLFad<Scalar, N>>;
  using Fad = FadOf<MaxCoordinates>;

 protected:
  const Derived& derived() const { return static_cast<const Derived&>(*this); }

  // The control value u(t) of the element's signal (0 without one).
  double control_value(double t) const { return control() ? control()->value(t) : 0.0; }
  // The kernel with the control value given (of the AD type S), for the second-order products.
  template <class S, class P>
  void evaluate_with_control_value(const S* q, const S* v, const S* a, const P* p, const S& u, double t, S* r) const {
    if constexpr (HasControlledKernel<Derived>::value)
      derived().template evaluate_controlled<S, P>(q, v, a, p, u, t, r);
    else
      derived().template evaluate<S, P>(q, v, a, p, t, r);
  }

  // r += the residual without inertia terms.
  template <class S, class P> void add_applied(const S* q, const S* v, const P* p, double t, S* r) const {
    if constexpr (HasKineticEnergy<Derived>::value) {
      derived().template applied<S, P>(q, v, p, t, r);
    } else {
      std::array<S, MaxCoordinates> no_acceleration;
      for (int i = 0; i < coordinate_count(); ++i) no_acceleration[i] = S(0.0);
      derived().template evaluate<S, P>(q, v, no_acceleration.data(), p, t, r);
    }
  }

  // add_applied with the control value u given (of the AD type S): a controlled kernel (a load, without inertia)
  // through evaluate_controlled.
  template <class S, class P>
  void add_applied_with_control(const S* q, const S* v, const P* p, const S& u, double t, S* r) const {
    if constexpr (HasControlledKernel<Derived>::value && !HasKineticEnergy<Derived>::value) {
      std::array<S, MaxCoordinates> no_acceleration;
      for (int i = 0; i < coordinate_count(); ++i) no_acceleration[i] = S(0.0);
      derived().template evaluate_controlled<S, P>(q, v, no_acceleration.data(), p, u, t, r);
    } else {
      add_applied<S, P>(q, v, p, t, r);
    }
  }

  static Sacado::Fad::SFad<double, 1> seeded_tangent(double x, double dx) {
    Sacado::Fad::SFad<double, 1> y(1, 0, x);
    y.fastAccessDx(0) = dx;
    return y;
  }
};

}  // namespace flexadj::model
