#include "flexadj/assembly/body_partition.hpp"

#include <Tpetra_CrsGraph.hpp>
#include <Zoltan2_PartitioningProblem.hpp>
#include <Zoltan2_XpetraCrsGraphAdapter.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace flexadj::assembly {
namespace {

std::vector<int> blocks(const model::Model& model, int ranks) {
  const int body_count = static_cast<int>(model.bodies().size());
  std::vector<int> body_rank(body_count);
  const long long total = model.coordinate_count();
  for (int b = 0; b < body_count; ++b) {
    const long long middle = 2LL * model.body_offset(b) + model::coordinate_count(model.body(b).kind);
    body_rank[b] = std::min<int>(ranks - 1, static_cast<int>(middle * ranks / std::max(2 * total, 1LL)));
  }
  return body_rank;
}

template <class F> void for_each_component(const model::Model& model, F&& f) {
  for (const auto& element : model.force_elements()) f(*element);
  for (const auto& constraint : model.constraints()) f(*constraint);
}

int first_body(const model::Component& component) {
  for (int body : component.bodies())
    if (body != model::kGround) return body;
  return model::kGround;
}

// Zoltan2 with Scotch on the body graph. Every rank holds the whole model; each gives Zoltan2 the rows of its
// block of bodies, and the parts come back to every rank by a sum over ranks.
std::vector<int> graph(const model::Model& model, const Comm& comm) {
  using Graph = Tpetra::CrsGraph<LocalOrdinal, GlobalOrdinal, Node>;
  using Adapter = Zoltan2::XpetraCrsGraphAdapter<Graph>;
  const int body_count = static_cast<int>(model.bodies().size());
  std::vector<std::set<long long>> neighbours(body_count);
  std::vector<double> weight(body_count);
  for (int b = 0; b < body_count; ++b) weight[b] = model::coordinate_count(model.body(b).kind);
  for_each_component(model, [&](const model::Component& component) {
    const int owner = first_body(component);
    if (owner == model::kGround) return;
    weight[owner] += component.coordinate_count();  // the element work goes with the first body
    for (int a : component.bodies())
      for (int b : component.bodies())
        if (a != model::kGround && b != model::kGround && a != b) neighbours[a].insert(b);
  });

  const RCP<const Comm> comm_rcp = Teuchos::rcpFromRef(comm);
  const auto rows = rcp(new Map(static_cast<Tpetra::global_size_t>(body_count), 0, comm_rcp));
  std::size_t degree = 1;
  for (const auto& n : neighbours) degree = std::max(degree, n.size());
  const auto body_graph = rcp(new Graph(rows, degree));
  std::vector<double> local_weight;
  for (std::size_t i = 0; i < rows->getNodeNumElements(); ++i) {
    const long long b = rows->getGlobalElement(static_cast<LocalOrdinal>(i));
    const std::vector<long long> columns(neighbours[b].begin(), neighbours[b].end());
    if (!columns.empty())
      body_graph->insertGlobalIndices(b, Teuchos::ArrayView<const long long>(columns.data(), columns.size()));
    local_weight.push_back(weight[b]);
  }
  body_graph->fillComplete();

  Adapter adapter(body_graph, 1);
  adapter.setVertexWeights(local_weight.data(), 1, 0);
  Teuchos::ParameterList parameters("flexadj body partition");
  parameters.set("algorithm", "scotch");
  parameters.set("num_global_parts", static_cast<int>(comm.getSize()));
  parameters.set("imbalance_tolerance", 1.03);
  Zoltan2::PartitioningProblem<Adapter> problem(&adapter, &parameters, comm_rcp);
  problem.solve();
  const auto* parts = problem.getSolution().getPartListView();

  std::vector<int> local(body_count, 0), body_rank(body_count, 0);
  for (std::size_t i = 0; i < rows->getNodeNumElements(); ++i)
    local[rows->getGlobalElement(static_cast<LocalOrdinal>(i))] = static_cast<int>(parts[i]);
  Teuchos::reduceAll(comm, Teuchos::REDUCE_SUM, body_count, local.data(), body_rank.data());
  for (int& rank : body_rank)
    if (rank < 0 || rank >= comm.getSize()) throw std::runtime_error("Zoltan2 returned a part outside the ranks");
  return body_rank;
}

}  // namespace

Partition partition_from_name(const std::string& name) {
  if (name == "blocks") return Partition::Blocks;
  if (name == "graph") return Partition::Graph;
  throw std::invalid_argument("unknown partition '" + name + "' (expected blocks or graph)");
}

const char* partition_name(Partition partition) { return partition == Partition::Graph ? "graph" : "blocks"; }

std::vector<int> partition_bodies(const model::Model& model, const Comm& comm, Partition partition) {
  if (partition == Partition::Blocks || comm.getSize() == 1 || model.bodies().empty())
    return blocks(model, comm.getSize());
  return graph(model, comm);
}

long long cut_components(const model::Model& model, const std::vector<int>& body_rank) {
  long long cut = 0;
  for_each_component(model, [&](const model::Component& component) {
    int rank = -1;
    for (int b : component.bodies()) {
      if (b == model::kGround) continue;
      if (rank >= 0 && body_rank[b] != rank) {
        ++cut;
        return;
      }
      rank = body_rank[b];
    }
  });
  return cut;
}

}  // namespace flexadj::assembly
