#include "flexadj/assembly/dof_map.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <utility>

namespace flexadj::assembly {

DofMap::DofMap(const model::Model& model, int rank, std::vector<int> body_rank)
    : model_(model),
      body_rank_(std::move(body_rank)),
      coordinate_count_(model.coordinate_count()),
      multiplier_count_(model.multiplier_count()) {
  const int body_count = static_cast<int>(model.bodies().size());
  if (static_cast<int>(body_rank_.size()) != body_count) throw std::invalid_argument("DofMap: one rank per body");
  for (int b = 0; b < body_count; ++b) {
    if (body_rank_[b] != rank) continue;
    owned_bodies_.push_back(b);
    for (int i = 0; i < model::coordinate_count(model.body(b).kind); ++i)
      owned_coordinates_.push_back(model.body_offset(b) + i);
  }
  std::set<long long> ghosts;
  auto collect_ghosts = [&](const model::Component& component) {
    for (long long gid : coordinates_of(component))
      if (!std::binary_search(owned_coordinates_.begin(), owned_coordinates_.end(), gid)) ghosts.insert(gid);
  };
  for (std::size_t i = 0; i < model.force_elements().size(); ++i) {
    if (rank_of_component(*model.force_elements()[i]) != rank) continue;
    local_force_elements_.push_back(static_cast<int>(i));
    collect_ghosts(*model.force_elements()[i]);
  }
  for (std::size_t i = 0; i < model.constraints().size(); ++i) {
    const auto& constraint = *model.constraints()[i];
    if (rank_of_component(constraint) != rank) continue;
    local_constraints_.push_back(static_cast<int>(i));
    for (int k = 0; k < constraint.equation_count(); ++k)
      owned_multipliers_.push_back(coordinate_count_ + model.constraint_offset(static_cast<int>(i)) + k);
    collect_ghosts(constraint);
  }
  ghost_coordinates_.assign(ghosts.begin(), ghosts.end());
}

int DofMap::rank_of_component(const model::Component& component) const {
  for (int body : component.bodies())
    if (body != model::kGround) return body_rank_.at(body);
  return 0;
}

std::vector<long long> DofMap::coordinates_of(const model::Component& component) const {
  std::vector<long long> ids;
  ids.reserve(component.coordinate_count());
  for (int body : component.bodies()) {
    if (body == model::kGround) continue;
    for (int i = 0; i < model::coordinate_count(model_.body(body).kind); ++i) ids.push_back(model_.body_offset(body) + i);
  }
  return ids;
}

}  // namespace flexadj::assembly
