#!/usr/bin/env bash
# Makes sure the MPI tests can build and run: OpenMPI's mpirun and headers, and libclang, with
# which the `mpi` crate generates its bindings (petri-cli's `mpi` feature). Installs Debian's
# openmpi-bin, libopenmpi-dev and libclang-dev when one is missing; leaves a machine that has
# them alone.
set -euo pipefail

packages=()
command -v mpirun >/dev/null || packages+=(openmpi-bin)
{ command -v mpicc >/dev/null && mpicc -showme:compile >/dev/null 2>&1; } || packages+=(libopenmpi-dev)
ldconfig -p 2>/dev/null | grep -Eq 'libclang(-[0-9.]+)?\.so' || packages+=(libclang-dev)
[ ${#packages[@]} = 0 ] && exit 0

echo "Installing MPI for the tests: ${packages[*]}" >&2
if ! command -v apt-get >/dev/null; then
    echo "error: apt-get is not available; install OpenMPI (mpirun, mpi.h) and libclang by hand." >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null; then SUDO="sudo"; else
        echo "error: installing ${packages[*]} needs root (or sudo)." >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq "${packages[@]}" >&2
