#include "flexadj/adjoint/spacetime_matrix.hpp"

#include <mpi.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "flexadj/core/mpi_comm.hpp"

namespace flexadj::adjoint {

RCP<CrsMatrix> assemble_spacetime_matrix(SpacetimeSystem& system) {
  const RCP<const Map> map = system.map();
  const MPI_Comm comm = raw_mpi_comm(*map->getComm());
  const int ranks = map->getComm()->getSize();
  const std::size_t width = system.block_width(), first = system.first_step(), last = system.last_step();
  const std::size_t local = (last - first + 1) * width, steps = system.step_count();
  // Per rank: group, place in the group, first global row (contiguous map, rank order), block width, first step.
  long long length = static_cast<long long>(local), offset = 0;
  MPI_Exscan(&length, &offset, 1, MPI_LONG_LONG, MPI_SUM, comm);
  if (map->getComm()->getRank() == 0) offset = 0;
  const long long mine[5] = {static_cast<long long>(system.group()), system.group_comm()->getRank(), offset,
                             static_cast<long long>(width), static_cast<long long>(first)};
  std::vector<long long> all(5 * std::size_t(ranks));
  MPI_Allgather(mine, 5, MPI_LONG_LONG, all.data(), 5, MPI_LONG_LONG, comm);
  // Entry k of the block of step m held by group g: its rank and the global row.
  const auto global_row = [&](std::size_t g, std::size_t k, std::size_t m) -> GlobalOrdinal {
    std::vector<int> order(std::size_t(system.group_comm()->getSize()), -1);
    for (int r = 0; r < ranks; ++r)
      if (all[5 * r] == static_cast<long long>(g)) order.at(std::size_t(all[5 * r + 1])) = r;
    for (int r : order) {
      const auto w = static_cast<std::size_t>(all[5 * r + 3]);
      if (k < w) return all[5 * r + 2] + static_cast<long long>((m - std::size_t(all[5 * r + 4])) * w + k);
      k -= w;
    }
    throw std::logic_error("assemble_spacetime_matrix: no such block entry");
  };
  long long block = static_cast<long long>(width);  // W: the block width of the whole group
  MPI_Allreduce(MPI_IN_PLACE, &block, 1, MPI_LONG_LONG, MPI_SUM, raw_mpi_comm(*system.group_comm()));
  long long place_start = 0, w = static_cast<long long>(width);  // this rank's entries k in the block
  MPI_Exscan(&w, &place_start, 1, MPI_LONG_LONG, MPI_SUM, raw_mpi_comm(*system.group_comm()));
  if (system.group_comm()->getRank() == 0) place_start = 0;

  std::vector<std::vector<GlobalOrdinal>> columns(local);
  std::vector<std::vector<double>> values(local);
  for (std::size_t r = 0; r < local; ++r) {
    columns[r].push_back(offset + static_cast<long long>(r));
    values[r].push_back(1.0);
  }
  std::vector<double> x(local), y(local);
  for (long long k = 0; k < block; ++k) {
    std::fill(x.begin(), x.end(), 0.0);
    if (k >= place_start && k < place_start + w)
      for (std::size_t n = first; n <= last; ++n) x[(n - first) * width + std::size_t(k - place_start)] = 1.0;
    system.transfer(x.data(), y.data());
    for (std::size_t n = first; n <= last && n < steps; ++n) {
      const std::size_t g = n < last ? system.group() : system.group() + 1;
      const GlobalOrdinal column = global_row(g, std::size_t(k), n + 1);
      for (std::size_t i = 0; i < width; ++i) {
        const std::size_t r = (n - first) * width + i;
        if (y[r] == 0.0) continue;
        columns[r].push_back(column);
        values[r].push_back(-y[r]);
      }
    }
  }
  std::vector<std::size_t> counts(local);
  for (std::size_t r = 0; r < local; ++r) counts[r] = columns[r].size();
  auto matrix = rcp(new CrsMatrix(map, Teuchos::ArrayView<const std::size_t>(counts)));
  for (std::size_t r = 0; r < local; ++r)
    matrix->insertGlobalValues(offset + static_cast<long long>(r), Teuchos::ArrayView<const GlobalOrdinal>(columns[r]),
                               Teuchos::ArrayView<const double>(values[r]));
  matrix->fillComplete(map, map);
  return matrix;
}

}  // namespace flexadj::adjoint
