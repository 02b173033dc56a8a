#pragma once
// The optimiser's constraints as ROL sees them (optimizer.cpp runs ROL's augmented Lagrangian on them): the design
// part of ROL's iterates, the largest violation, and the constraint whose products come from one adjoint sweep.
#include <ROL_Constraint.hpp>
#include <ROL_PartitionedVector.hpp>
#include <ROL_StdVector.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "flexadj/optimization/optimizer.hpp"

namespace flexadj::optimization::rol {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

using RolVector = ROL::StdVector<double>;

inline const std::vector<double>& values_of(const ROL::Vector<double>& x) {
  return *dynamic_cast<const RolVector&>(x).getVector();
}

// The design part of ROL's iterate: with inequality constraints ROL appends slack variables (a PartitionedVector
// whose first block is the design).
inline const std::vector<double>& design_of(const ROL::Vector<double>& x) {
  if (const auto* parts = dynamic_cast<const ROL::PartitionedVector<double>*>(&x)) return values_of(*parts->get(0));
  return values_of(x);
}

inline bool constrained(const Settings& s) { return !s.constraint_lower.empty(); }

// max_i max(c_i - upper_i, lower_i - c_i, 0)
inline double violation(const Settings& s, const std::vector<double>& c) {
  double worst = 0.0;
  for (std::size_t i = 0; i < c.size(); ++i)
    worst = std::max({worst, c[i] - s.constraint_upper[i], s.constraint_lower[i] - c[i]});
  return std::isnan(worst) ? kInfinity : worst;
}

// The constraints as ROL sees them: values (minus the targets when all are equalities: ROL's equality form
// c(x) = 0) and the products J_c^T v, one Function::constraint_adjoint (one adjoint sweep) each. The augmented
// Lagrangian with a secant subproblem model never asks for J_c v or second derivatives: those throw, so that a
// configuration that would need them fails loudly instead of falling back on ROL's finite differences.
class RolConstraint : public ROL::Constraint<double> {
 public:
  RolConstraint(Function& f, const Settings& s, bool equality) : function_(f), settings_(s), equality_(equality) {}
  void value(ROL::Vector<double>& c, const ROL::Vector<double>& x, double&) override {
    std::vector<double>& out = *dynamic_cast<RolVector&>(c).getVector();
    function_.constraint_values(values_of(x), out);
    if (equality_)
      for (std::size_t i = 0; i < out.size(); ++i) out[i] -= settings_.constraint_lower[i];
  }
  void applyAdjointJacobian(ROL::Vector<double>& ajv, const ROL::Vector<double>& v, const ROL::Vector<double>& x,
                            double&) override {
    function_.constraint_adjoint(values_of(x), values_of(v), *dynamic_cast<RolVector&>(ajv).getVector());
  }
  void applyJacobian(ROL::Vector<double>&, const ROL::Vector<double>&, const ROL::Vector<double>&, double&) override {
    throw std::logic_error("the augmented Lagrangian asked for J_c v, which this formulation does not provide");
  }
  void applyAdjointHessian(ROL::Vector<double>&, const ROL::Vector<double>&, const ROL::Vector<double>&,
                           const ROL::Vector<double>&, double&) override {
    throw std::logic_error("the augmented Lagrangian asked for constraint second derivatives, which this "
                           "formulation does not provide");
  }

 private:
  Function& function_;
  const Settings& settings_;
  bool equality_;
};

}  // namespace flexadj::optimization::rol
