#pragma once
// Force elements. Each factory returns a component whose kernel lives in the matching .cpp file.
#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "flexadj/functions/control_signal.hpp"
#include "flexadj/functions/expression.hpp"
#include "flexadj/model/component.hpp"

namespace flexadj::elements {

using model::BodyKind;
using Point = std::array<double, 3>;

// Inertia and weight of one body: M a + (gyroscopic terms) - m g.
std::unique_ptr<model::ForceElement> make_body_inertia(const model::Body& body, int body_index, const Point& gravity);
// The same with every derivative by the AD pass over its kernel: the reference against which tests check the
// written-out derivatives of point masses and planar rigid bodies.
std::unique_ptr<model::ForceElement> make_body_inertia_plain_ad(const model::Body& body, int body_index,
                                                                const Point& gravity);

// Linear spring and viscous damper between body points: tension k (L - L0) + c dL/dt.
struct SpringDamperData {
  double stiffness = 0.0, damping = 0.0, free_length = 0.0;
  Point point_a{}, point_b{};  // body-frame attachment points (global for ground)
};
std::unique_ptr<model::ForceElement> make_spring_damper(const std::string& name, std::array<int, 2> bodies,
                                                        std::array<BodyKind, 2> kinds, const SpringDamperData& data);
// The same with every derivative by the AD pass over its kernel: the reference against which tests check the
// derivatives written out between point masses, ANCF nodes and ground points.
std::unique_ptr<model::ForceElement> make_spring_damper_plain_ad(const std::string& name, std::array<int, 2> bodies,
                                                                 std::array<BodyKind, 2> kinds,
                                                                 const SpringDamperData& data);

// Rotational spring and viscous damper on a planar relative rotation (also viscous joint friction):
//   moment on b = -(k (theta_b - theta_a - theta_0) + c (omega_b - omega_a)).
// For spatial rigid bodies the damper acts on the relative angular velocity about `axis`
// (given in the body frame of a, global if a is ground); the stiffness must then be zero.
struct RotationalSpringDamperData {
  double stiffness = 0.0, damping = 0.0, rest_angle = 0.0;
  Point axis{0.0, 0.0, 1.0};
};
std::unique_ptr<model::ForceElement> make_rotational_spring_damper(const std::string& name, std::array<int, 2> bodies,
                                                                   std::array<BodyKind, 2> kinds,
                                                                   const RotationalSpringDamperData& data);

// Planar spring on the direction of the line from point a to point b (a torsional spring at a pivot
// acting on a rod, as in Held and Seifried's pendulum): V = k/2 phi^2, phi the angle of the line
// measured from the rest direction (angle rest_angle from the x axis); damping on dphi/dt.
struct AngleSpringDamperData {
  double stiffness = 0.0, damping = 0.0, rest_angle = 0.0;
  Point point_a{}, point_b{};
};
std::unique_ptr<model::ForceElement> make_angle_spring_damper(const std::string& name, std::array<int, 2> bodies,
                                                              std::array<BodyKind, 2> kinds,
                                                              const AngleSpringDamperData& data);

// Applied force at a body point and applied moment: components given as time functions plus,
// optionally, a named control signal times a direction. `body_frame` rotates both with the body.
struct LoadData {
  Point point{};
  std::array<functions::Expression, 3> force, moment;
  std::shared_ptr<const functions::ControlSignal> control;
  Point control_force_direction{}, control_moment_direction{};
  bool body_frame = false;
};
std::unique_ptr<model::ForceElement> make_load(const std::string& name, int body, BodyKind kind, const LoadData& data);

// Geometrically exact (Simo-Reissner) beam element between two nodes (spatial rigid bodies without inertia
// elements of their own); see geometrically_exact_beam.cpp.
struct BeamSectionData {
  double youngs_modulus = 0.0, shear_modulus = 0.0, density = 0.0, area = 0.0;
  double I2 = 0.0, I3 = 0.0, J = 0.0;              // area moments about section axes 2, 3; torsion constant
  double shear_factor_2 = 1.0, shear_factor_3 = 1.0;
  double shear_viscosity = 0.0, bulk_viscosity = 0.0;  // eta, zeta of Kelvin-Voigt damping
  std::array<double, 3> rotary{};                  // area moments of the rotary inertia (default I2 + I3, I2, I3)
};
// The section data as the element parameters of both beam elements, in their order: youngs_modulus, shear_modulus,
// density, area, I2, I3, J, shear_factor_2, shear_factor_3, shear_viscosity, bulk_viscosity, rotary_1 .. rotary_3.
inline std::vector<std::pair<std::string, double>> section_parameters(const BeamSectionData& s) {
  return {{"youngs_modulus", s.youngs_modulus}, {"shear_modulus", s.shear_modulus}, {"density", s.density},
          {"area", s.area}, {"I2", s.I2}, {"I3", s.I3}, {"J", s.J}, {"shear_factor_2", s.shear_factor_2},
          {"shear_factor_3", s.shear_factor_3}, {"shear_viscosity", s.shear_viscosity},
          {"bulk_viscosity", s.bulk_viscosity}, {"rotary_1", s.rotary[0]}, {"rotary_2", s.rotary[1]},
          {"rotary_3", s.rotary[2]}};
}
// Reference length and strains of the stress-free configuration.
struct BeamReference {
  double length = 0.0;
  std::array<double, 3> stretch{}, curvature{};
};
// The reference of an element from its 14 coordinates (r_A, e_A, r_B, e_B) in the stress-free state.
BeamReference beam_reference(const double* q);
// Strains (Gamma_1..3, K_1..3) minus the reference values at coordinates q.
std::array<double, 6> beam_strains(const double* q, const BeamReference& reference);
std::unique_ptr<model::ForceElement> make_geometrically_exact_beam(const std::string& name, std::array<int, 2> nodes,
                                                                   const BeamSectionData& section,
                                                                   const BeamReference& reference,
                                                                   const Point& gravity);
// The same element with every derivative by the plain AD pass over its residual kernel: the reference against
// which tests check the element's faster Newton matrix and adjoint products.
std::unique_ptr<model::ForceElement> make_geometrically_exact_beam_plain_ad(const std::string& name,
                                                                            std::array<int, 2> nodes,
                                                                            const BeamSectionData& section,
                                                                            const BeamReference& reference,
                                                                            const Point& gravity);

// Dual-quaternion beam element (Schubert et al. 2024, sec. 4) between two DualQuaternionNode nodes; see
// dual_quaternion_beam.cpp and dual_quaternion_lagrangian.hpp. Its reference: the length and the strain measures conj(q_b) (q_B - q_A)/length at the two
// nodes in the stress-free configuration (8 values each).
struct DualQuaternionBeamReference {
  double length = 0.0;
  std::array<double, 16> strains{};
};
DualQuaternionBeamReference dual_quaternion_beam_reference(const double* q);
std::unique_ptr<model::ForceElement> make_dual_quaternion_beam(const std::string& name, std::array<int, 2> nodes,
                                                               const BeamSectionData& section,
                                                               const DualQuaternionBeamReference& reference,
                                                               const Point& gravity);
// The same element with every derivative by forward AD over its templated momenta and residual: the reference
// against which tests check its Jacobians, transposed products and parameter partials written out.
std::unique_ptr<model::ForceElement> make_dual_quaternion_beam_plain_ad(const std::string& name,
                                                                        std::array<int, 2> nodes,
                                                                        const BeamSectionData& section,
                                                                        const DualQuaternionBeamReference& reference,
                                                                        const Point& gravity);

// ANCF elements between two ANCF nodes (model::is_ancf_node); see ancf_cable.cpp and ancf_beam.cpp.
struct AncfElementData {
  BeamSectionData section;      // E, rho, A, I3 (bending in the plane / of the cable); G, I2, J, shear factors (full)
  double damping_time = 0.0;    // Kelvin-Voigt retardation time tau: stresses E (eps + tau deps/dt)
  double length = 0.0;          // reference length
  std::array<double, 24> reference{};  // the element's coordinates in the stress-free reference configuration
  bool simple_curvature = false;       // gradient-deficient elements: bending energy EI/2 |r''|^2
};
// Gradient-deficient element: planar (dimension 2, AncfPlanarNode) or cable (dimension 3, AncfCableNode).
std::unique_ptr<model::ForceElement> make_ancf_gradient_deficient(const std::string& name, int dimension,
                                                                  std::array<int, 2> nodes,
                                                                  const AncfElementData& data, const Point& gravity);
// The same element with every derivative by the plain AD pass over its residual kernel: the reference against which
// tests check its hand-written residual, Jacobians and parameter partials.
std::unique_ptr<model::ForceElement> make_ancf_gradient_deficient_plain_ad(const std::string& name, int dimension,
                                                                           std::array<int, 2> nodes,
                                                                           const AncfElementData& data,
                                                                           const Point& gravity);
// Fully parameterised spatial element (AncfFullNode).
std::unique_ptr<model::ForceElement> make_ancf_full_beam(const std::string& name, std::array<int, 2> nodes,
                                                         const AncfElementData& data, const Point& gravity);
// The same element with its parameter partials and kept Jacobians by the plain AD pass over its residual kernel (the
// tests' reference).
std::unique_ptr<model::ForceElement> make_ancf_full_beam_plain_ad(const std::string& name, std::array<int, 2> nodes,
                                                                  const AncfElementData& data, const Point& gravity);

}  // namespace flexadj::elements
