// The planar link maps with their derivatives written out (model/planar_link_map.hpp) against their AD reference,
// JointTree::place_child in nested forward types (the path of the spatial links), on random configurations: every
// planar link kind (revolute, prismatic, fixed, distance with a point-mass or a rigid child, free point masses and
// rigid bodies) from the ground, a point mass and a rigid body, with random parts (value, d/dy, d/dz, d2/dydz) of the
// parent's and the joint coordinates and random parameters. The child's four parts, and the transposed map's weights
// on the parent's parts, on every part of the joint coordinates and on every parameter, agree to 1e-12 relative to
// the largest entry of each. The same for the inverse maps' derivatives (model/planar_link_inverse.hpp) against
// JointTree::read_link in forward AD types: with respect to the parent's and child's coordinates and every parameter.
#include <gtest/gtest.h>

#include <Sacado_No_Kokkos.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "flexadj/io/problem_reader.hpp"
#include "flexadj/model/joint_tree.hpp"
#include "flexadj/model/planar_link_inverse.hpp"
#include "flexadj/model/planar_link_map.hpp"
#include "hand_derivative_checks.hpp"

namespace flexadj::testing {
namespace {

using model::BodyKind;
using model::JointTree;
using model::Parts;
using First = Sacado::Fad::SFad<double, 1>;
using Second = Sacado::Fad::SFad<First, 1>;
using Outer = Sacado::Fad::DFad<Second>;

// A planar tree: only its place_child (the AD reference of any planar link) is used.
const char* const kPendulum = R"yaml(
title: pendulum
dimension: 2
integrator: {type: hamiltonian, coordinates: joint, end_time: 0.01, step_size: 1e-3}
bodies:
  - {name: pendulum, type: rigid_body, mass: 1, inertia: 0.1, position: [0, -0.5]}
joints:
  - {name: pivot, type: revolute, bodies: [ground, pendulum], point: [0, 0]}
)yaml";

Second from_parts(const Parts& p) {
  First value(1, p[0]), direction(1, p[2]);
  value.fastAccessDx(0) = p[1];
  direction.fastAccessDx(0) = p[3];
  Second s(1, value);
  s.fastAccessDx(0) = direction;
  return s;
}
double part(const Second& s, int c) {
  const First& f = (c & 2) ? s.fastAccessDx(0) : s.val();
  return (c & 1) ? f.fastAccessDx(0) : f.val();
}
Second unit_part(int c) {
  Parts p{};
  p[std::size_t(c)] = 1.0;
  return from_parts(p);
}

struct Case {
  JointTree::LinkKind kind;
  BodyKind parent, child;  // parent Ground: the ground
  int alpha_count;
  std::string label;
};

std::vector<Case> cases() {
  using K = JointTree::LinkKind;
  std::vector<Case> all;
  for (BodyKind parent : {BodyKind::Ground, BodyKind::PointMass2D, BodyKind::PlanarRigid}) {
    const std::string from = parent == BodyKind::Ground ? " from the ground"
                             : parent == BodyKind::PointMass2D ? " from a point mass" : " from a rigid body";
    all.push_back({K::Revolute, parent, BodyKind::PlanarRigid, 1, "revolute" + from});
    all.push_back({K::Revolute, parent, BodyKind::PointMass2D, 0, "revolute, point-mass child" + from});
    all.push_back({K::Prismatic, parent, BodyKind::PlanarRigid, 1, "prismatic" + from});
    all.push_back({K::Prismatic, parent, BodyKind::PointMass2D, 1, "prismatic, point-mass child" + from});
    all.push_back({K::Fixed, parent, BodyKind::PlanarRigid, 0, "fixed" + from});
    all.push_back({K::Distance, parent, BodyKind::PlanarRigid, 2, "distance" + from});
    all.push_back({K::Distance, parent, BodyKind::PointMass2D, 1, "distance, point-mass child" + from});
  }
  all.push_back({K::Free, BodyKind::Ground, BodyKind::PlanarRigid, 3, "free rigid body"});
  all.push_back({K::Free, BodyKind::Ground, BodyKind::PointMass2D, 2, "free point mass"});
  return all;
}

class PlanarLinkMap : public ::testing::Test {
 protected:
  void SetUp() override {
    problem_ = io::read_problem_string(kPendulum, "pendulum.yaml");
    std::vector<int> identity(std::size_t(problem_.model->coordinate_count()));
    for (std::size_t i = 0; i < identity.size(); ++i) identity[i] = int(i);
    tree_ = std::make_unique<JointTree>(*problem_.model, identity);
  }
  problem::Problem problem_;
  std::unique_ptr<JointTree> tree_;
};

TEST_F(PlanarLinkMap, AgreesWithNestedForwardTypes) {
  std::mt19937 generator(40);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const auto random_parts = [&] { return Parts{3 * uniform(generator), uniform(generator), uniform(generator),
                                               uniform(generator)}; };
  const int kIota[14] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
  int checked = 0;
  for (const Case& k : cases())
    for (int sample = 0; sample < 20; ++sample) {
      const std::string label = k.label + ", sample " + std::to_string(sample);
      JointTree::Link l;
      l.kind = k.kind;
      l.constraint = k.kind == JointTree::LinkKind::Free ? -1 : 0;
      l.parent = k.parent == BodyKind::Ground ? model::kGround : 0;
      l.child = 1;
      l.parent_kind = k.parent;
      l.child_kind = k.child;
      l.alpha_count = k.alpha_count;
      l.parameter_count = k.kind == JointTree::LinkKind::Distance ? 7 : k.kind == JointTree::LinkKind::Free ? 0 : 16;
      const int np = JointTree::parent_coordinates(l), nc = JointTree::child_coordinates(l);
      const auto np_size = static_cast<std::size_t>(np), nc_size = static_cast<std::size_t>(nc),
                 alpha_size = static_cast<std::size_t>(l.alpha_count);
      std::vector<Parts> parent(np_size), alpha(alpha_size), w(nc_size);
      for (auto& p : parent) p = random_parts();
      for (auto& a : alpha) a = random_parts();
      for (auto& x : w) x = random_parts();
      std::vector<double> pp(static_cast<std::size_t>(l.parameter_count));
      for (auto& p : pp) p = uniform(generator);
      if (k.kind == JointTree::LinkKind::Distance) pp[6] = 0.5 + std::abs(pp[6]);  // the length
      model::Turn parent_turn;
      if (k.parent == BodyKind::PlanarRigid) parent_turn = {std::cos(parent[2][0]), std::sin(parent[2][0])};

      // The written-out map and its transpose.
      std::vector<Parts> child(nc_size), parent_bar(np_size), alpha_bar(alpha_size);
      std::vector<double> pp_bar(pp.size(), 0.0);
      model::LinkTurns turns;
      model::place_planar_child(l, np > 0 ? parent.data() : nullptr, parent_turn, alpha.data(), pp.data(),
                                child.data(), turns);
      model::place_planar_child_transposed(l, np > 0 ? parent.data() : nullptr, alpha.data(), pp.data(), turns,
                                           w.data(), parent_bar.data(), alpha_bar.data(), pp_bar.data());

      // The reference: place_child over every part of the parent's and joint coordinates and every parameter.
      const int directions = 4 * np + 4 * l.alpha_count + l.parameter_count;
      std::vector<Outer> q(np_size + nc_size), a(alpha_size), p(pp.size());
      for (int j = 0; j < np + nc; ++j)
        q[std::size_t(j)] = Outer(directions, j < np ? from_parts(parent[std::size_t(j)]) : Second(0.0));
      for (int j = 0; j < l.alpha_count; ++j) a[std::size_t(j)] = Outer(directions, from_parts(alpha[std::size_t(j)]));
      for (int j = 0; j < l.parameter_count; ++j) p[std::size_t(j)] = Outer(directions, Second(pp[std::size_t(j)]));
      for (int d = 0; d < directions; ++d) {
        if (d < 4 * np) q[std::size_t(d / 4)].fastAccessDx(d) = unit_part(d % 4);
        else if (d < 4 * np + 4 * l.alpha_count) a[std::size_t((d - 4 * np) / 4)].fastAccessDx(d) = unit_part(d % 4);
        else p[std::size_t(d - 4 * np - 4 * l.alpha_count)].fastAccessDx(d) = Second(1.0);
      }
      tree_->place_child(l, np > 0 ? kIota : nullptr, kIota + np, a.data(), p.data(), q.data());

      std::vector<double> hand_child, ad_child, hand_bar, ad_bar(static_cast<std::size_t>(directions), 0.0);
      for (int i = 0; i < nc; ++i)
        for (int c = 0; c < 4; ++c) {
          hand_child.push_back(child[std::size_t(i)][std::size_t(c)]);
          ad_child.push_back(part(q[std::size_t(np + i)].val(), c));
          for (int d = 0; d < directions; ++d)
            ad_bar[std::size_t(d)] +=
                w[std::size_t(i)][std::size_t(c)] * part(q[std::size_t(np + i)].fastAccessDx(d), c);
        }
      for (const auto& x : parent_bar) hand_bar.insert(hand_bar.end(), x.begin(), x.end());
      for (const auto& x : alpha_bar) hand_bar.insert(hand_bar.end(), x.begin(), x.end());
      hand_bar.insert(hand_bar.end(), pp_bar.begin(), pp_bar.end());
      expect_close(hand_child, ad_child, label + ": child's parts");
      expect_close(hand_bar, ad_bar, label + ": transposed map");
      ASSERT_GT(max_abs(ad_bar), 0.1) << label;  // (not vacuous)
      ++checked;
    }
  EXPECT_EQ(checked, 23 * 20);
}


TEST_F(PlanarLinkMap, InverseDerivativesAgreeWithForwardTypes) {
  using Plain = Sacado::Fad::DFad<double>;
  std::mt19937 generator(41);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const int kIota[6] = {0, 1, 2, 3, 4, 5};
  int checked = 0;
  for (const Case& k : cases())
    for (int sample = 0; sample < 20; ++sample) {
      const std::string label = k.label + ", sample " + std::to_string(sample);
      JointTree::Link l;
      l.kind = k.kind;
      l.parent = k.parent == BodyKind::Ground ? model::kGround : 0;
      l.child = 1;
      l.parent_kind = k.parent;
      l.child_kind = k.child;
      l.alpha_count = k.alpha_count;
      l.parameter_count = k.kind == JointTree::LinkKind::Distance ? 7 : k.kind == JointTree::LinkKind::Free ? 0 : 16;
      const int np = JointTree::parent_coordinates(l), nc = JointTree::child_coordinates(l);
      std::vector<double> q(static_cast<std::size_t>(np + nc)), pp(static_cast<std::size_t>(l.parameter_count));
      for (auto& x : q) x = 3 * uniform(generator);
      for (auto& x : pp) x = uniform(generator);
      double dq[3][6], dp[3][16];
      model::planar_link_inverse_jacobian(l, np > 0 ? q.data() : nullptr, q.data() + np, pp.data(), dq, dp);
      const int directions = np + nc + l.parameter_count;
      std::vector<Plain> q_ad(q.size()), p_ad(pp.size()), a_ad(static_cast<std::size_t>(l.alpha_count));
      for (int i = 0; i < np + nc; ++i) q_ad[std::size_t(i)] = Plain(directions, i, q[std::size_t(i)]);
      for (int i = 0; i < l.parameter_count; ++i)
        p_ad[std::size_t(i)] = Plain(directions, np + nc + i, pp[std::size_t(i)]);
      tree_->read_link(l, np > 0 ? kIota : nullptr, kIota + np, q_ad.data(), p_ad.data(), a_ad.data());
      for (int j = 0; j < l.alpha_count; ++j) {
        std::vector<double> hand, ad;
        for (int d = 0; d < directions; ++d) {
          hand.push_back(d < np + nc ? dq[j][d] : dp[j][d - np - nc]);
          ad.push_back(a_ad[std::size_t(j)].dx(d));
        }
        expect_close(hand, ad, label + ": d alpha_" + std::to_string(j + 1));
        ASSERT_GT(max_abs(ad), 0.01) << label;  // (not vacuous)
      }
      ++checked;
    }
  EXPECT_EQ(checked, 23 * 20);
}

}  // namespace
}  // namespace flexadj::testing
