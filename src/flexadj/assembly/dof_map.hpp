#pragma once
// Ownership and global numbering of coordinates and multipliers.
// Each body belongs to the rank body_partition.hpp gives it (contiguous blocks, or a graph partition).
// A component is evaluated by the rank that owns its first non-ground body; the multipliers of a
// constraint belong to that rank. Global ids: coordinates 0 .. n_q-1 (model order), multipliers
// n_q .. n_q+n_c-1 (model order), independent of the number of ranks.
#include <vector>

#include "flexadj/model/model.hpp"

namespace flexadj::assembly {

class DofMap {
 public:
  // body_rank: the rank of every body (partition_bodies()).
  DofMap(const model::Model& model, int rank, std::vector<int> body_rank);

  int rank_of_body(int body) const { return body_rank_.at(body); }
  const std::vector<int>& body_ranks() const { return body_rank_; }
  int rank_of_component(const model::Component& component) const;

  // Global ids of this rank's coordinates and multipliers, ascending.
  const std::vector<long long>& owned_coordinates() const { return owned_coordinates_; }
  const std::vector<long long>& owned_multipliers() const { return owned_multipliers_; }
  // Coordinates read by local components but owned elsewhere, ascending.
  const std::vector<long long>& ghost_coordinates() const { return ghost_coordinates_; }
  const std::vector<int>& local_force_elements() const { return local_force_elements_; }
  const std::vector<int>& local_constraints() const { return local_constraints_; }
  const std::vector<int>& owned_bodies() const { return owned_bodies_; }

  // Global coordinate ids of a component's local coordinates, in its local order.
  std::vector<long long> coordinates_of(const model::Component& component) const;
  long long coordinate_count() const { return coordinate_count_; }
  long long multiplier_count() const { return multiplier_count_; }

 private:
  const model::Model& model_;
  std::vector<int> body_rank_;
  std::vector<long long> owned_coordinates_, owned_multipliers_, ghost_coordinates_;
  std::vector<int> local_force_elements_, local_constraints_, owned_bodies_;
  long long coordinate_count_ = 0, multiplier_count_ = 0;
};

}  // namespace flexadj::assembly
