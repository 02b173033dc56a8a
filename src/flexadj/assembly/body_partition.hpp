#pragma once
// Which rank owns which body (and so its coordinates, and the components whose first body it is: dof_map.hpp).
//   blocks: contiguous blocks of bodies in model order, balanced by coordinate count. Enough for chains and
//           beams numbered along their length; it cuts every coupling of a model whose numbering jumps.
//   graph:  a graph partition of the bodies (vertices weighted by their coordinates and the components they
//           carry; an edge for every pair of bodies a component couples) by Zoltan2 with Scotch, which cuts few
//           couplings whatever the numbering (trees, closed loops, beams attached to bodies).
// Global ids stay those of model order whatever the partition (dof_map.hpp), so results agree across rank
// counts and partitions to round-off.
#include <string>
#include <vector>

#include "flexadj/core/tpetra_types.hpp"
#include "flexadj/model/model.hpp"

namespace flexadj::assembly {

enum class Partition { Blocks, Graph };

// "blocks" or "graph"; std::invalid_argument otherwise.
Partition partition_from_name(const std::string& name);
const char* partition_name(Partition partition);

// The rank of every body (the same vector on every rank). Collective for Partition::Graph.
std::vector<int> partition_bodies(const model::Model& model, const Comm& comm, Partition partition);

// The number of components whose bodies lie on more than one rank (their coupling crosses ranks).
long long cut_components(const model::Model& model, const std::vector<int>& body_rank);

}  // namespace flexadj::assembly
