#pragma once
// The planar link maps of model/joint_tree.hpp (JointTree::place_child, Maciag, Malczyk and Fraczek 2022, sec. 2.2)
// with their local derivatives written out, for the recursive products of integrators/joint_space_equations.hpp.
//
// Every coordinate carries four parts (hyper-dual numbers, e_1^2 = e_2^2 = 0, e_1 e_2 = e_12): the value, g'[y],
// g'[z] and g''[y, z] for two directions y, z of the joint coordinates; a link maps its parent's parts and its joint
// coordinates' parts to its child's. The maps are sums and products of parts and rotations f(phi) = R(phi) s, whose
// derivatives are rotations again, f' = J f, f'' = -f (J the quarter turn), so that
//   f(phi) = f + e_1 phi_y f' + e_2 phi_z f' + e_12 (phi_yz f' - phi_y phi_z f)   (f, f' at phi's value)
// and one cos/sin per angle gives every part and every derivative. The transposed map takes weights on the child's
// parts back to weights on the parent's parts, the joint coordinates' parts and the link's parameters (the reverse
// of that of place_child in nested forward types, which stays the reference: tests/unit/test_planar_link_map.cpp).
#include <array>

#include "flexadj/model/joint_tree.hpp"

namespace flexadj::model {

// The four parts of one coordinate, c = 0 .. 3: value, d/dy, d/dz, d2/dydz.
using Parts = std::array<double, 4>;
// cos and sin of one angle.
struct Turn {
  double c = 1.0, s = 0.0;
};
// The angles of one link at one configuration: its parent's theta_a (given), its child's theta_b and, for a
// distance link, alpha_1 (computed by place_planar_child, read by its transpose).
struct LinkTurns {
  Turn parent, child, distance;
};

// Whether link l of a tree of `dimension` has a written-out map (the planar links; the spatial ones are
// differentiated through JointTree::place_child).
inline bool has_planar_link_map(int dimension, const JointTree::Link&) { return dimension == 2; }

// The child's parts (JointTree::child_coordinates(l) of them) from the parent's (nullptr: the ground), the joint
// coordinates' parts and the link's parameters pp; parent_turn: cos, sin of the parent's angle (a planar rigid
// parent: its LinkTurns::child). Fills turns.
void place_planar_child(const JointTree::Link& l, const Parts* parent, const Turn& parent_turn, const Parts* alpha,
                        const double* pp, Parts* child, LinkTurns& turns);
// The transpose at the same arguments (turns from place_planar_child): from the weights w_child on the child's parts,
// parent_bar += the weights on the parent's parts, alpha_bar += those on the joint coordinates' parts and pp_bar += the
// weights on the parameters (of their values; the parameters have no directional parts).
void place_planar_child_transposed(const JointTree::Link& l, const Parts* parent, const Parts* alpha,
                                   const double* pp, const LinkTurns& turns, const Parts* w_child, Parts* parent_bar,
                                   Parts* alpha_bar, double* pp_bar);

}  // namespace flexadj::model
