#pragma once
// Force elements of one kind evaluated together. The assembly gathers the local states of up to kBatchLanes
// consecutive elements lane by lane (structure of arrays: coordinate i of lane l at x[i * kBatchLanes + l]) and
// calls the kernel once for them; the kernel's loops run over the lanes with a fixed trip count, which the compiler
// vectorises, and it reads each lane's parameters from its element. Lanes at and past `count` repeat the last
// element: they are evaluated and not read. An element kind offers this by also deriving from BatchedForceElement;
// its batched results equal its residual_jacobian() and residual_jacobians() bit for bit (the same operations in the
// same order), so that a batched assembly sums the same numbers in the same order as the element-by-element one.
#include "flexadj/model/component.hpp"

namespace flexadj::model {

inline constexpr int kBatchLanes = 8;

struct ForceBatch {
  const ForceElement* const* elements;  // kBatchLanes entries (padded)
  int count;                            // the lanes that hold elements of their own
  const double* q;                      // coordinate_count() x kBatchLanes each
  const double* v;
  const double* a;
  double t;
};

class BatchedForceElement {
 public:
  virtual ~BatchedForceElement() = default;
  // Whether `other` shares this element's kernel and coordinate layout (false for itself where this element takes
  // its own path, e.g. a spring on a rigid body). Asked once, when the assembly is set up.
  virtual bool batches_with(const ForceElement& other) const = 0;
  // r[i * kBatchLanes + l] and J[(i * n + j) * kBatchLanes + l] (n = coordinate_count()) of each lane, as its
  // residual_jacobian() with coefficients c gives them.
  virtual void batch_residual_jacobian(const ForceBatch& batch, const JacobianCoefficients& c, double* r,
                                       double* J) const = 0;
  // r and dr/dq, dr/dv, dr/da of each lane (lane-major as above), as its residual_jacobians() gives them.
  virtual void batch_residual_jacobians(const ForceBatch& batch, double* r, double* dr_dq, double* dr_dv,
                                        double* dr_da) const = 0;
};

}  // namespace flexadj::model
