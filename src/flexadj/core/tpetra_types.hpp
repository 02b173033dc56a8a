#pragma once
// Tpetra type aliases. Debian's Trilinos 13.2 has GlobalOrdinal long long and the Serial node only.
#include <Teuchos_Comm.hpp>
#include <Teuchos_RCP.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_Map.hpp>
#include <Tpetra_MultiVector.hpp>
#include <Tpetra_Vector.hpp>

namespace flexadj {

using Map = Tpetra::Map<>;
using LocalOrdinal = Map::local_ordinal_type;
using GlobalOrdinal = Map::global_ordinal_type;
using Node = Map::node_type;
using Vector = Tpetra::Vector<double, LocalOrdinal, GlobalOrdinal, Node>;
using MultiVector = Tpetra::MultiVector<double, LocalOrdinal, GlobalOrdinal, Node>;
using CrsMatrix = Tpetra::CrsMatrix<double, LocalOrdinal, GlobalOrdinal, Node>;
using Import = Tpetra::Import<LocalOrdinal, GlobalOrdinal, Node>;
using Export = Tpetra::Export<LocalOrdinal, GlobalOrdinal, Node>;
using Comm = Teuchos::Comm<int>;
using Teuchos::RCP;
using Teuchos::rcp;

}  // namespace flexadj
