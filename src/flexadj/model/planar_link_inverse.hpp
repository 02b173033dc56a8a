#pragma once
// The derivatives of a planar link's inverse map, alpha = G(q) (JointTree::read_link; [MMF22] sec. 2.2, g^-1), with
// respect to its parent's and child's coordinates and its parameters, written out (one cos/sin per angle): the
// products G_q v and G_q^T a_bar of the saddle-point solve M_hat^-1 (integrators/joint_space_equations.hpp).
// JointTree::read_link in forward AD types stays the reference (tests/unit/test_planar_link_map.cpp).
#include "flexadj/model/joint_tree.hpp"

namespace flexadj::model {

// Rows j < l.alpha_count: dq[j][i] = d alpha_j / d(local coordinate i) (the parent's JointTree::parent_coordinates(l),
// then the child's) and dp[j][k] = d alpha_j / d(parameter k), at the parent's coordinates `parent` (nullptr: the
// ground) and the child's `child`. Overwrites dq and dp (the first 6 and l.parameter_count columns).
void planar_link_inverse_jacobian(const JointTree::Link& l, const double* parent, const double* child,
                                  const double* pp, double (*dq)[6], double (*dp)[16]);

}  // namespace flexadj::model
