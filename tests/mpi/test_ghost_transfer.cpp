// GhostTransfer (assembly/ghost_transfer.hpp) gives what Tpetra's doImport (INSERT) and doExport (ADD into a
// cleared vector) give, with maps that have ghosts and with maps that are the same, at np 1 and np 2.
#include <gtest/gtest.h>

#include <Teuchos_DefaultMpiComm.hpp>
#include <vector>

#include "flexadj/assembly/ghost_transfer.hpp"

namespace flexadj::testing {
namespace {

RCP<const Comm> world() { return rcp(new Teuchos::MpiComm<int>(MPI_COMM_WORLD)); }

RCP<const Map> map_of(const std::vector<GlobalOrdinal>& ids, const RCP<const Comm>& comm) {
  const auto invalid = Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid();
  return rcp(new Map(invalid, Teuchos::ArrayView<const GlobalOrdinal>(ids.data(), ids.size()), 0, comm));
}

// Rank r owns entries 4r .. 4r + 3 of a chain; with ghosts it also sees its neighbours' nearest entries.
void expect_as_tpetra(bool with_ghosts) {
  const auto comm = world();
  const int rank = comm->getRank(), size = comm->getSize();
  std::vector<GlobalOrdinal> owned, ghosted;
  for (int k = 0; k < 4; ++k) owned.push_back(4 * rank + k);
  ghosted = owned;
  if (with_ghosts) {
    if (rank > 0) ghosted.push_back(4 * rank - 1);
    if (rank + 1 < size) ghosted.push_back(4 * rank + 4);
  }
  const auto owned_map = map_of(owned, comm), ghosted_map = map_of(ghosted, comm);
  const assembly::GhostTransfer transfer(owned_map, ghosted_map);
  EXPECT_EQ(transfer.local(), !with_ghosts || size == 1);

  MultiVector source(owned_map, 2);
  for (std::size_t j = 0; j < 2; ++j) {
    auto data = source.getDataNonConst(j);
    for (std::size_t i = 0; i < owned.size(); ++i) data[i] = 1.5 * double(owned[i]) + 100.0 * double(j) + 0.25;
  }
  MultiVector ghosted_ours(ghosted_map, 2), ghosted_tpetra(ghosted_map, 2);
  ghosted_ours.putScalar(-7.0);  // overwritten
  transfer.to_ghosted(source, ghosted_ours);
  ghosted_tpetra.doImport(source, Import(owned_map, ghosted_map), Tpetra::INSERT);

  // Sums: each ghosted entry adds its own value into its owner's.
  MultiVector summed_ours(owned_map, 2), summed_tpetra(owned_map, 2);
  summed_ours.putScalar(-7.0);  // overwritten, not added to
  transfer.to_owned(ghosted_tpetra, summed_ours);
  summed_tpetra.putScalar(0.0);
  summed_tpetra.doExport(ghosted_tpetra, Export(ghosted_map, owned_map), Tpetra::ADD);

  for (std::size_t j = 0; j < 2; ++j) {
    const auto ours = ghosted_ours.getData(j), theirs = ghosted_tpetra.getData(j);
    for (std::size_t i = 0; i < ghosted.size(); ++i) {
      EXPECT_EQ(ours[i], theirs[i]) << "import, entry " << ghosted[i] << ", column " << j;
      EXPECT_EQ(theirs[i], 1.5 * double(ghosted[i]) + 100.0 * double(j) + 0.25);
    }
    const auto sum_ours = summed_ours.getData(j), sum_theirs = summed_tpetra.getData(j);
    for (std::size_t i = 0; i < owned.size(); ++i)
      EXPECT_EQ(sum_ours[i], sum_theirs[i]) << "export, entry " << owned[i] << ", column " << j;
  }
  // An entry some other rank ghosts comes back doubled (its owner's value plus the ghost's).
  if (with_ghosts && size > 1) {
    const GlobalOrdinal shared = rank + 1 < size ? 4 * rank + 3 : 4 * rank;
    const auto sums = summed_ours.getData(0);
    EXPECT_EQ(sums[owned_map->getLocalElement(shared)], 2.0 * (1.5 * double(shared) + 0.25));
  }
}

TEST(GhostTransfer, WithGhostsAsTpetra) { expect_as_tpetra(true); }
TEST(GhostTransfer, SameMapsAsTpetra) { expect_as_tpetra(false); }

}  // namespace
}  // namespace flexadj::testing
