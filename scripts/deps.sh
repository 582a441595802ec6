#!/bin/sh
# Install the Debian packages rocesim needs, only those missing.
# OpenMPI (sweeps across machines) and gnuplot (figures) are optional: the
# build and `rocesim plot` detect them, but we install them so all works.
#   deps.sh        build and test with gcc (and MPI, gnuplot)
#   deps.sh test   what only the tests need (chromium: big)
#   deps.sh fuzz   also clang and its libFuzzer runtime (make fuzz)
set -e
PKGS="gcc make cmake pkg-config libcmocka-dev libinih-dev libopenmpi-dev openmpi-bin gnuplot-nox"
[ "${1:-}" = test ] && PKGS="chromium"
[ "${1:-}" = fuzz ] && PKGS="$PKGS clang-14 libclang-rt-14-dev"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -q
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
