#include "flexadj/model/joint_tree.hpp"

#include <string>

#include "flexadj/core/error.hpp"

namespace flexadj::model {
namespace {
const char* kWhy = "the joint-coordinate formulations (integrator coordinates: joint or joint_midpoint) ";
}

JointTree::JointTree(const Model& model, const std::vector<int>& local_index) {
  const std::string& file = model.source_file;
  dimension_ = model.dimension;
  const bool spatial = dimension_ == 3;
  const int body_count = static_cast<int>(model.bodies().size());
  body_first_.assign(std::size_t(body_count), 0);
  initial_orientation_.assign(std::size_t(body_count), {1.0, 0.0, 0.0, 0.0});
  for (int b = 0; b < body_count; ++b) {
    const BodyKind kind = model.body_kind(b);
    if (kind != BodyKind::PointMass2D && kind != BodyKind::PlanarRigid && kind != BodyKind::PointMass3D &&
        kind != BodyKind::SpatialRigid)
      throw InputError(file, "bodies." + model.body(b).name,
                       std::string(kWhy) + "takes point masses and rigid bodies only, this body is a " +
                           to_string(kind) + "; use coordinates: absolute");
    body_first_[std::size_t(b)] = static_cast<int>(body_local_.size());
    for (int j = 0; j < model::coordinate_count(kind); ++j)
      body_local_.push_back(local_index.at(std::size_t(model.body_offset(b) + j)));
  }
  coordinate_count_ = static_cast<int>(body_local_.size());

  // Classify the constraints; each must be a joint from a parent to its child.
  const auto& constraints = model.constraints();
  std::vector<int> parent_joint(std::size_t(body_count), -1);
  for (std::size_t c = 0; c < constraints.size(); ++c) {
    const Constraint& constraint = *constraints[c];
    const std::string key = "joints." + constraint.name();
    const std::string type = constraint.type();
    if (type == "unit_quaternion") continue;  // g gives unit Euler parameters
    const bool supported = type == "revolute" || type == "prismatic" || type == "fixed" ||
                           (spatial ? type == "spherical" : type == "distance");
    if (!supported)
      throw InputError(file, key,
                       std::string(kWhy) + "takes revolute, prismatic, fixed and " +
                           (spatial ? "spherical" : "distance") + " joints in " + (spatial ? "spatial" : "planar") +
                           " models, not '" + type + "'; use coordinates: absolute");
    const int child = constraint.bodies().at(1);
    if (child == kGround)
      throw InputError(file, key, std::string(kWhy) + "needs bodies: [parent, child] with the ground as the parent");
    if (parent_joint[std::size_t(child)] >= 0)
      throw InputError(file, key,
                       std::string(kWhy) + "needs a tree: body '" + model.body(child).name +
                           "' is already the child of joint '" +
                           constraints[std::size_t(parent_joint[std::size_t(child)])]->name() +
                           "' (a closed loop, or bodies: [parent, child] listed the other way round)");
    parent_joint[std::size_t(child)] = static_cast<int>(c);
  }

  // Free bodies first, then the joints outwards from the placed bodies (breadth first).
  std::vector<bool> placed(std::size_t(body_count), false);
  auto add_link = [&](Link l) {
    l.first_alpha = alpha_count_;
    alpha_count_ += l.alpha_count;
    links_.push_back(l);
    placed[std::size_t(l.child)] = true;
  };
  for (int b = 0; b < body_count; ++b)
    if (parent_joint[std::size_t(b)] < 0) {
      Link l;
      l.child = b;
      l.child_kind = model.body_kind(b);
      l.alpha_count = l.child_kind == BodyKind::SpatialRigid ? 6 : model::coordinate_count(l.child_kind);
      add_link(l);
    }
  for (bool progress = true; progress;) {
    progress = false;
    for (int b = 0; b < body_count; ++b) {
      const int c = parent_joint[std::size_t(b)];
      if (placed[std::size_t(b)] || c < 0) continue;
      const Constraint& constraint = *constraints[std::size_t(c)];
      const int parent = constraint.bodies().at(0);
      if (parent != kGround && !placed[std::size_t(parent)]) continue;
      Link l;
      l.constraint = c;
      l.parent = parent;
      l.child = b;
      l.parent_kind = model.body_kind(parent);
      l.child_kind = model.body_kind(b);
      l.first_parameter = static_cast<int>(parameters_.size());
      const bool rigid_child = l.child_kind == BodyKind::PlanarRigid || l.child_kind == BodyKind::SpatialRigid;
      const std::string type = constraint.type();
      if (type == "revolute") l.kind = LinkKind::Revolute, l.alpha_count = rigid_child ? 1 : 0;
      else if (type == "prismatic") l.kind = LinkKind::Prismatic, l.alpha_count = 1;
      else if (type == "fixed") l.kind = LinkKind::Fixed, l.alpha_count = 0;
      else if (type == "spherical") l.kind = LinkKind::Spherical, l.alpha_count = rigid_child ? 3 : 0;
      else l.kind = LinkKind::Distance, l.alpha_count = rigid_child ? 2 : 1;
      // The constraint's equations leave exactly the link's joint coordinates free.
      const int free = model::coordinate_count(l.child_kind) - (l.child_kind == BodyKind::SpatialRigid ? 1 : 0) -
                       constraint.equation_count();
      if (free != l.alpha_count)
        throw InputError(file, "joints." + constraint.name(),
                         std::string(kWhy) + "cannot parametrise this " + type + " joint (" +
                             std::to_string(constraint.equation_count()) + " equations on a " +
                             to_string(l.child_kind) + "); use coordinates: absolute");
      const auto& values = constraint.parameters();
      parameters_.insert(parameters_.end(), values.begin(), values.end());
      l.parameter_count = static_cast<int>(values.size());
      add_link(l);
      progress = true;
    }
  }
  refresh(model);
  for (int b = 0; b < body_count; ++b)
    if (!placed[std::size_t(b)])
      throw InputError(file, "joints." + constraints[std::size_t(parent_joint[std::size_t(b)])]->name(),
                       std::string(kWhy) + "needs a tree: body '" + model.body(b).name +
                           "' is not connected to the ground or a free body through parents (a closed loop?)");
}

void JointTree::refresh(const Model& model) {
  for (std::size_t b = 0; b < initial_orientation_.size(); ++b)
    if (model.body_kind(int(b)) == BodyKind::SpatialRigid) {
      const auto& q = model.body(int(b)).initial_coordinates;
      initial_orientation_[b] = {q[3], q[4], q[5], q[6]};
    }
  for (const Link& l : links_) {
    if (l.constraint < 0) continue;
    const auto& values = model.constraints()[std::size_t(l.constraint)]->parameters();
    std::copy(values.begin(), values.end(), parameters_.begin() + l.first_parameter);
  }
}

int JointTree::parameter_index(int constraint, int k) const {
  for (const Link& l : links_)
    if (l.constraint == constraint) return l.first_parameter + k;
  return -1;
}

}  // namespace flexadj::model
