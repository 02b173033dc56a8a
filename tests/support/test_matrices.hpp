#pragma once
// Small distributed matrices for the linear-solver tests.
#include <vector>

#include "flexadj/core/tpetra_types.hpp"

namespace flexadj::testing {

// Tridiagonal, non-symmetric, with a zero diagonal in every fifth row (like multiplier rows).
// `weight` scales the off-diagonal entries: other values on the same graph.
inline RCP<CrsMatrix> make_matrix(RCP<const Map> map, double weight = 1.0) {
  auto matrix = rcp(new CrsMatrix(map, 3));
  const long long n = static_cast<long long>(map->getGlobalNumElements());
  for (std::size_t local = 0; local < map->getNodeNumElements(); ++local) {
    const GlobalOrdinal row = map->getGlobalElement(static_cast<LocalOrdinal>(local));
    std::vector<GlobalOrdinal> columns;
    std::vector<double> values;
    if (row > 0) { columns.push_back(row - 1); values.push_back(weight * (-1.0 - 0.01 * double(row))); }
    columns.push_back(row);
    values.push_back(row % 5 == 4 ? 0.0 : 4.0 + 0.1 * double(row % 3));
    if (row + 1 < n) { columns.push_back(row + 1); values.push_back(weight * (2.0 + 0.02 * double(row))); }
    matrix->insertGlobalValues(row, Teuchos::ArrayView<const GlobalOrdinal>(columns.data(), columns.size()),
                               Teuchos::ArrayView<const double>(values.data(), values.size()));
  }
  matrix->fillComplete();
  return matrix;
}

}  // namespace flexadj::testing
