#include "flexadj/assembly/ghost_transfer.hpp"

#include <algorithm>
#include <stdexcept>

namespace flexadj::assembly {

namespace {

// target = source, column by column, on the local entries (the same count and order on both maps).
void copy_local(const MultiVector& source, MultiVector& target) {
  if (source.getNumVectors() != target.getNumVectors() || source.getLocalLength() != target.getLocalLength())
    throw std::logic_error("GhostTransfer: vectors of different shapes");
  const auto from = source.getLocalViewHost(Tpetra::Access::ReadOnly);
  const auto to = target.getLocalViewHost(Tpetra::Access::OverwriteAll);
  const std::size_t rows = source.getLocalLength();
  for (std::size_t j = 0; j < source.getNumVectors(); ++j) {
    const double* in = &from(0, j);
    std::copy(in, in + rows, &to(0, j));
  }
}

}  // namespace

GhostTransfer::GhostTransfer(const RCP<const Map>& owned, const RCP<const Map>& ghosted)
    : import_(rcp(new Import(owned, ghosted))), export_(rcp(new Export(ghosted, owned))),
      local_(owned->isSameAs(*ghosted)) {}

void GhostTransfer::to_ghosted(const MultiVector& owned, MultiVector& ghosted) const {
  if (local_) return copy_local(owned, ghosted);
  ghosted.doImport(owned, *import_, Tpetra::INSERT);
}

void GhostTransfer::to_owned(const MultiVector& ghosted, MultiVector& owned) const {
  if (local_) return copy_local(ghosted, owned);
  owned.putScalar(0.0);
  owned.doExport(ghosted, *export_, Tpetra::ADD);
}

}  // namespace flexadj::assembly
