#!/usr/bin/env bash
# Installs every dependency from Debian's packages (README.md, "Set up and test"), then configures and builds
# flexadj in build/ (Release). Safe to run again: installed packages are skipped, the build is incremental.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

PACKAGES=(cmake ninja-build g++ pkg-config libgtest-dev libgmock-dev libyaml-cpp-dev
  openmpi-bin libopenmpi-dev libhdf5-openmpi-dev hdf5-tools libptscotch-dev trilinos-dev
  libtrilinos-teuchos-dev libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev libtrilinos-tpetra-dev
  libtrilinos-belos-dev libtrilinos-amesos2-dev libtrilinos-ifpack2-dev libtrilinos-epetra-dev
  libtrilinos-epetraext-dev libtrilinos-aztecoo-dev libtrilinos-rtop-dev libtrilinos-shylu-dev
  libtrilinos-thyra-dev libtrilinos-trilinosss-dev libtrilinos-triutils-dev libtrilinos-xpetra-dev
  libtrilinos-zoltan-dev libtrilinos-zoltan2-dev libtrilinos-muelu-dev libtrilinos-rol-dev
  libtrilinos-sacado-dev libtrilinos-amesos-dev libtrilinos-anasazi-dev libtrilinos-galeri-dev
  libtrilinos-ifpack-dev libtrilinos-intrepid-dev libtrilinos-intrepid2-dev libtrilinos-isorropia-dev
  libtrilinos-ml-dev libtrilinos-shards-dev libtrilinos-stratimikos-dev libtrilinos-teko-dev
  python3-h5py python3-numpy zlib1g-dev libsuitesparse-dev procps
  libmumps-dev time  # MUMPS: the distributed direct solver; GNU time: scripts/benchmark_scaling.py
  pybind11-dev python3-dev python3-mpi4py python3-scipy python3-matplotlib python3-pytest  # the Python module
  clang libclang-rt-14-dev)  # clang: the libFuzzer harnesses of the test fuzz_short (docs/reliability.md)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${#missing[@]} Debian packages"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

BUILD_TYPE="${BUILD_TYPE:-Release}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE"
cmake --build build -j "${JOBS:-2}"
echo "setup: build/apps/flexadj and the Python module build/python (scripts/python) are ready"
