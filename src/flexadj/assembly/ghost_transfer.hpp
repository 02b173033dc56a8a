#pragma once
// Vectors moved between an owned map and its ghosted map (the owned entries first, then the ghosts): the ghosts
// imported (INSERT), the ghosted sums exported to their owners (ADD into a cleared owned vector).
//
// Where the two maps are the same on every rank (one rank, or no ghosts anywhere) both are copies of the local
// values, which this class makes itself: Tpetra's doImport and doExport copy such entries too
// (MultiVector::copyAndPermute on the same IDs, for INSERT and ADD alike), but spend about 10 us per call on
// bookkeeping (profiling hooks, Behavior lookups, view reference counts), more than a small model's whole assembly.
#include "flexadj/core/tpetra_types.hpp"

namespace flexadj::assembly {

class GhostTransfer {
 public:
  // Collective (the maps' comparison).
  GhostTransfer(const RCP<const Map>& owned, const RCP<const Map>& ghosted);

  // ghosted = the owned values and the ghosts from their owners. Collective unless local().
  void to_ghosted(const MultiVector& owned, MultiVector& ghosted) const;
  // owned = the sums over the ranks of the ghosted values of each owned entry. Collective unless local().
  void to_owned(const MultiVector& ghosted, MultiVector& owned) const;
  // True where the transfers are copies of the local values.
  bool local() const { return local_; }

 private:
  RCP<const Import> import_;
  RCP<const Export> export_;
  bool local_ = false;
};

}  // namespace flexadj::assembly
