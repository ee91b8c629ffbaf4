#!/usr/bin/env bash
# Install the HIP/CUDA compile toolchain that hipport's tests use, from Debian's archive only.
#
#   scripts/install-toolchain.sh [--check] [--help]
#
# Everything except a few bookworm packages (installed with apt-get) goes into
# $HIPPORT_TOOLCHAIN_DIR (default: <repo>/.toolchain, git-ignored):
#   apt/<suite>/          private apt views of trixie (main non-free) and sid (main)
#   pkgs/<suite>/<name>/  packages unpacked with dpkg -x (nvidia-cuda-dev: only what nvcc needs)
#   cuda/                 relocatable CUDA 12.4 folder (bin/nvcc + nvcc.profile using $(_HERE_))
#   amd-libs/usr/         the HIP/ROCm math libraries (sid) merged into one prefix (hard links)
#   hip-amd-cmake/, hip-amd.cmake   HIP root (links) and toolchain file for CMake's HIP language
#   stamps/               one file per finished step; a finished step is skipped next time
#   toolchain.json        absolute paths read by hipport/toolchain.py
# Work in progress happens under tmp/ and is moved into place with mv, so an interrupted
# run never leaves a half-filled folder that a later run mistakes for a finished one.
#
# --check  re-run the final self-check even if it passed before.
# See scripts/README.md for the background.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TC="${HIPPORT_TOOLCHAIN_DIR:-$REPO/.toolchain}"
FORCE_CHECK=0
for arg in "$@"; do
  case "$arg" in
    --check) FORCE_CHECK=1 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "install-toolchain: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

START=$SECONDS
log() { printf '[toolchain %3ds] %s\n' "$((SECONDS - START))" "$*"; }
die() { printf 'install-toolchain: ERROR: %s\n' "$*" >&2; exit 1; }

[ "$(uname -m)" = x86_64 ] || die "only x86-64 hosts are supported (the .debs are amd64)"
command -v apt-get >/dev/null || die "apt-get not found: this script needs Debian (bookworm)"

mkdir -p "$TC"
TC="$(cd "$TC" && pwd)"
STAMPS="$TC/stamps"
TMP="$TC/tmp"
mkdir -p "$STAMPS" "$TC/pkgs"

# One installer at a time per toolchain folder.
exec 9>"$TC/.lock"
if ! flock -n 9; then
  log "another install-toolchain.sh is running on $TC; waiting for it"
  flock 9
fi
# Leftovers of an interrupted run are never trusted.
rm -rf "$TMP"
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || die "not root and sudo is missing: cannot apt-get install"
  SUDO=(sudo)
fi

done_step() { [ -e "$STAMPS/$1" ]; }
# Before (re)building any part, withdraw toolchain.json so that nothing trusts a
# toolchain in the middle of a change; it is written again at the end.
invalidate() { rm -f "$TC/toolchain.json" "$STAMPS/selfcheck"; }
mark_done() { date -u +%FT%TZ >"$STAMPS/$1.tmp" && mv -f "$STAMPS/$1.tmp" "$STAMPS/$1"; }

# ---------------------------------------------------------------------------
# 1. bookworm packages (system-wide). Not stamped: checked each run, cheap.
# libclang-rt-19-dev: compiler-rt builtins, which CMake's HIP language (hip-lang) links.
# libomp-19-dev: LLVM's OpenMP runtime and omp.h, which a ROCm install ships with its clang
# (host code of CUDA programs often includes <omp.h>; clang has none without it).
SYSTEM_PKGS=(clang-19 lld-19 clang-tools-19 libclang-rt-19-dev libomp-19-dev g++-12 cmake)
missing=()
for p in "${SYSTEM_PKGS[@]}"; do
  if [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" != installed ]; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  log "system packages present: ${SYSTEM_PKGS[*]}"
else
  need_update=0
  for p in "${missing[@]}"; do
    cand="$(apt-cache policy "$p" 2>/dev/null | awk '/Candidate:/ {print $2}')"
    if [ -z "$cand" ] || [ "$cand" = "(none)" ]; then need_update=1; fi
  done
  if [ $need_update -eq 1 ]; then
    log "apt-get update (package lists lack ${missing[*]})"
    # Third-party sources that cannot be reached make update exit non-zero; the install
    # below fails loudly if the Debian lists are still unusable.
    "${SUDO[@]}" apt-get update -qq || log "apt-get update reported errors; trying to install anyway"
  fi
  apt_install() {
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "${SYSTEM_PKGS[@]}" >/dev/null
  }
  log "apt-get install ${missing[*]}"
  if ! apt_install; then
    if [ $need_update -eq 1 ]; then die "apt-get install ${missing[*]} failed"; fi
    # Old lists can name versions the mirror no longer has.
    log "install failed; apt-get update and one more try"
    "${SUDO[@]}" apt-get update -qq || log "apt-get update reported errors; trying to install anyway"
    apt_install || die "apt-get install ${missing[*]} failed"
  fi
fi

CLANG="$(command -v clang++-19)" || die "clang++-19 missing after install"
BUNDLER="$(command -v clang-offload-bundler-19)" || die "clang-offload-bundler-19 missing (clang-tools-19)"
CCBIN="$(command -v g++-12)" || die "g++-12 missing after install"
OBJCOPY="$(command -v llvm-objcopy-19 || command -v objcopy || true)"
[ -n "$OBJCOPY" ] || die "no objcopy (binutils) found"

# ---------------------------------------------------------------------------
# 2. private apt views (download only; the system's apt state is untouched).
apt_opts() {  # apt_opts SUITE -> prints one option per line
  local d="$TC/apt/$1"
  printf '%s\n' \
    "-oDir::Etc::SourceList=$d/debian.sources" \
    "-oDir::Etc::SourceParts=/dev/null" \
    "-oDir::Etc::Preferences=/dev/null" \
    "-oDir::Etc::PreferencesParts=/dev/null" \
    "-oDir::State::Lists=$d/lists" \
    "-oDir::Cache=$d/cache" \
    "-oAcquire::Languages=none" \
    "-oAPT::Get::List-Cleanup=false"
  # As root apt drops to user _apt, which cannot write into the download folder.
  if [ "$(id -u)" -eq 0 ]; then echo "-oAPT::Sandbox::User=root"; fi
}

apt_view() {  # apt_view SUITE COMPONENTS
  local suite=$1 comps=$2 d="$TC/apt/$1"
  done_step "apt-$suite" && return 0
  log "apt view $suite ($comps): apt-get update"
  mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
  cat >"$d/debian.sources.tmp" <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: $suite
Components: $comps
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  mv -f "$d/debian.sources.tmp" "$d/debian.sources"
  local opts; mapfile -t opts < <(apt_opts "$suite")
  apt-get "${opts[@]}" -qq update || die "apt-get update of the $suite view failed"
  mark_done "apt-$suite"
}

apt_view trixie "main non-free"
apt_view sid "main"

# ---------------------------------------------------------------------------
# 3. download + unpack, one folder per package under pkgs/<suite>/<name>.
#    The unpacked folder carries .hipport-deb-version with the package version.

# Extract only what nvcc needs from nvidia-cuda-dev (2.5 GB unpacked otherwise).
CUDA_DEV_MEMBERS=(
  ./usr/include
  ./usr/lib/x86_64-linux-gnu/libcudart_static.a
  ./usr/lib/x86_64-linux-gnu/libcudadevrt.a
  ./usr/lib/x86_64-linux-gnu/libculibos.a
  ./usr/lib/x86_64-linux-gnu/stubs
)

unpack_deb() {  # unpack_deb DEB DEST PKG
  local deb=$1 dest=$2 pkg=$3
  if [ "$pkg" = nvidia-cuda-dev ]; then
    mkdir -p "$dest"
    local member
    member="$(ar t "$deb" | grep '^data\.tar' || true)"
    if [ "$member" = data.tar.xz ] && command -v xz >/dev/null; then
      # xz >= 5.4 decompresses multi-block streams on all cores; dpkg-deb uses one.
      ar p "$deb" data.tar.xz | xz -dc -T0 | tar -x -C "$dest" "${CUDA_DEV_MEMBERS[@]}"
    else
      dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dest" "${CUDA_DEV_MEMBERS[@]}"
    fi
  else
    dpkg -x "$deb" "$dest"
  fi
}

fetch_suite() {  # fetch_suite SUITE PKG... : one apt-get download for all missing, then unpack each
  local suite=$1; shift
  local pkg todo=() opts dl="$TMP/$suite-dl"
  for pkg in "$@"; do
    if done_step "pkg-$suite-$pkg" && [ -d "$TC/pkgs/$suite/$pkg" ]; then
      log "have $suite/$pkg $(cat "$TC/pkgs/$suite/$pkg/.hipport-deb-version")"
    else
      todo+=("$pkg")
    fi
  done
  [ ${#todo[@]} -gt 0 ] || return 0
  mkdir -p "$dl" "$TC/pkgs/$suite"
  mapfile -t opts < <(apt_opts "$suite")
  log "download $suite: ${todo[*]}"
  if ! (cd "$dl" && apt-get "${opts[@]}" -qq download "${todo[@]}"); then
    # Stale lists point at a version the mirror dropped: refresh once and retry.
    log "download failed; refreshing the $suite lists and retrying"
    apt-get "${opts[@]}" -qq update || die "apt-get update of the $suite view failed"
    rm -f "$dl"/*.deb
    (cd "$dl" && apt-get "${opts[@]}" -qq download "${todo[@]}") || die "cannot download from $suite: ${todo[*]}"
  fi
  # Nothing installed has changed while downloading: only now withdraw toolchain.json.
  invalidate
  local deb version dest work
  for pkg in "${todo[@]}"; do
    deb="$(ls "$dl/${pkg}_"*.deb)"
    version="$(dpkg-deb -f "$deb" Version)"
    dest="$TC/pkgs/$suite/$pkg"
    work="$TMP/$suite-$pkg"
    log "unpack $suite/$pkg $version ($(du -h "$deb" | cut -f1))"
    rm -rf "$dest" "$work"  # present without its stamp = interrupted between mv and stamp
    unpack_deb "$deb" "$work" "$pkg"
    printf '%s\n' "$version" >"$work/.hipport-deb-version"
    mv "$work" "$dest"
    mark_done "pkg-$suite-$pkg"
    rm -f "$deb"
  done
  rm -rf "$dl"
}

# libcudart12: the shared CUDA runtime, which CMake's FindCUDAToolkit requires (CUDA_CUDART);
# nvcc itself links cudart statically. cuBLAS, cuRAND, cuFFT, cuSPARSE and cuSOLVER link
# through NVIDIA's link stubs in nvidia-cuda-dev's stubs/ (no real library is fetched).
# libcub-dev, libthrust-dev: CUB and Thrust 2.3.2 (CUDA 12.4's own), packaged apart from the toolkit.
fetch_suite trixie nvidia-cuda-toolkit nvidia-cuda-dev libcu++-dev libamdhip64-dev rocm-device-libs-17 libcudart12 \
  libcub-dev libthrust-dev
# sid: current HIP headers for AMD checks, and the HIP runtime library only so that CMake's
# HIP language can link (nothing is run on an AMD GPU here).
fetch_suite sid libamdhip64-dev libamdhip64-6
# sid: the HIP/ROCm math libraries. Compiling needs only the -dev packages (headers, CMake
# packages). The runtime libraries below are fetched only because the CMake packages name
# them (find_package stops when an imported library file is missing) and lld links against
# them; amd_comgr and hsa-runtime64 are what find_package(hip) itself looks for. rocBLAS,
# rocSPARSE, rocSOLVER, hipBLASLt and RCCL are left out (280, 362, 530, 159 and 125 MB
# downloads; librocblas.so alone is 1 GB): their headers compile, their find_package fails.
AMD_LIB_DEV_PKGS=(libhipblas-dev libhipblas-common-dev librocblas-dev libhipsparse-dev
  librocsparse-dev libhipsolver-dev librocsolver-dev libhipfft-dev librocfft-dev libhiprand-dev
  librocrand-dev libhipcub-dev librocprim-dev librocthrust-dev libmiopen-dev librccl-dev
  libhipblaslt-dev libroctx-dev)
AMD_LIB_RUNTIME_PKGS=(libhipblas2 libhipsparse1 libhipsolver0 libhipfft0 librocfft0 libhiprand1
  librocrand1 libmiopen1 libamd-comgr-dev libamd-comgr3 libhsa-runtime-dev libhsa-runtime64-1
  libroctx64-4)
fetch_suite sid "${AMD_LIB_DEV_PKGS[@]}" "${AMD_LIB_RUNTIME_PKGS[@]}"

CUDA_TK="$TC/pkgs/trixie/nvidia-cuda-toolkit"
CUDA_DEV="$TC/pkgs/trixie/nvidia-cuda-dev"
LIBCUXX="$TC/pkgs/trixie/libcu++-dev"
HIP_NV="$TC/pkgs/trixie/libamdhip64-dev"
HIP_AMD="$TC/pkgs/sid/libamdhip64-dev"
HIP_AMD_RT="$TC/pkgs/sid/libamdhip64-6"
DEVLIBS="$TC/pkgs/trixie/rocm-device-libs-17"
CUDART="$TC/pkgs/trixie/libcudart12"

ver() { cat "$1/.hipport-deb-version"; }
HIP_AMD_VERSION="$(ver "$HIP_AMD")"
HIP_NV_VERSION="$(ver "$HIP_NV")"
CUDA_VERSION="$(ver "$CUDA_TK")"
# Other versions may work, but they are untested: say so instead of failing.
case "$HIP_AMD_VERSION" in 6.4.*) ;; *) log "WARNING: sid libamdhip64-dev is $HIP_AMD_VERSION, tested with 6.4.3" ;; esac
case "$HIP_NV_VERSION" in 5.7.*) ;; *) log "WARNING: trixie libamdhip64-dev is $HIP_NV_VERSION, tested with 5.7.1" ;; esac
case "$CUDA_VERSION" in 12.4.*) ;; *) log "WARNING: trixie nvidia-cuda-toolkit is $CUDA_VERSION, tested with 12.4" ;; esac
for p in "${AMD_LIB_DEV_PKGS[@]}"; do
  # hipBLASLt and hipblas-common are 7.1 in sid, RCCL 5.4; the others 6.4.
  case "$p:$(ver "$TC/pkgs/sid/$p")" in
    libhipblaslt-dev:7.1.*|libhipblas-common-dev:7.1.*|librccl-dev:5.4.*|*:6.4.*) ;;
    *) log "WARNING: sid $p is $(ver "$TC/pkgs/sid/$p"), untested" ;;
  esac
done
[ -d "$HIP_NV/usr/include/hip/nvidia_detail" ] || die "trixie libamdhip64-dev lacks hip/nvidia_detail"

# A glob, not `ls | head -n1`: under pipefail head's early exit can kill ls with SIGPIPE.
devlib_dirs=("$DEVLIBS"/usr/lib/llvm-*/lib/clang/*/amdgcn/bitcode)
DEVLIB_DIR="${devlib_dirs[0]}"
[ -f "$DEVLIB_DIR/ocml.bc" ] || die "no ocml.bc under $DEVLIBS"

# ---------------------------------------------------------------------------
# 4. relocatable CUDA folder (Debian's nvcc.profile holds absolute /usr paths).
#    Links are relative so the whole toolchain folder may be moved as one piece.
#    lib64/ is a folder of links: nvidia-cuda-dev's static libraries and stubs/ (the link
#    stubs of libcuda, cuBLAS, cuRAND, cuFFT, cuSPARSE, cuSOLVER...), and libcudart.so from
#    libcudart12 (stamp v2: before it, lib64 was a link to nvidia-cuda-dev's folder; v3 adds
#    the CUB and Thrust include folders).
if ! done_step cuda-folder-v3 || [ ! -x "$TC/cuda/bin/nvcc" ]; then
  log "build relocatable CUDA folder"
  invalidate
  c="$TMP/cuda"
  mkdir -p "$c/bin" "$c/nvvm"
  # Hard links where possible (same file system): nvcc finds nvcc.profile next to itself.
  bins=("$CUDA_TK"/usr/lib/nvidia-cuda-toolkit/bin/{nvcc,cicc,crt}
        "$CUDA_TK"/usr/bin/{ptxas,fatbinary,nvlink,cudafe++,bin2c,cuobjdump})
  cp -al "${bins[@]}" "$c/bin/" 2>/dev/null || { rm -rf "$c/bin"; mkdir -p "$c/bin"; cp -a "${bins[@]}" "$c/bin/"; }
  ln -s ../pkgs/trixie/nvidia-cuda-dev/usr/include "$c/include"
  mkdir -p "$c/lib64"
  for f in "$CUDA_DEV"/usr/lib/x86_64-linux-gnu/*; do
    ln -s "../../pkgs/trixie/nvidia-cuda-dev/usr/lib/x86_64-linux-gnu/$(basename "$f")" "$c/lib64/"
  done
  for f in "$CUDART"/usr/lib/x86_64-linux-gnu/libcudart.so.*; do
    ln -s "../../pkgs/trixie/libcudart12/usr/lib/x86_64-linux-gnu/$(basename "$f")" "$c/lib64/"
  done
  ln -s libcudart.so.12 "$c/lib64/libcudart.so"  # the dev link (nvidia-cuda-dev has it)
  ln -s ../../pkgs/trixie/nvidia-cuda-toolkit/usr/lib/nvidia-cuda-toolkit/libdevice "$c/nvvm/libdevice"
  # libcu++ (nv/target, cuda/std), CUB and Thrust are packages of their own: more include folders.
  ln -s ../pkgs/trixie/libcu++-dev/usr/include "$c/include-libcu++"
  ln -s ../pkgs/trixie/libcub-dev/usr/include "$c/include-cub"
  ln -s ../pkgs/trixie/libthrust-dev/usr/include "$c/include-thrust"
  cat >"$c/bin/nvcc.profile" <<'EOF'
# Written by hipport scripts/install-toolchain.sh: paths relative to this folder.
TOP                = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
PATH              += $(_HERE_):
INCLUDES          += "-I$(TOP)/include" "-I$(TOP)/include-libcu++" "-I$(TOP)/include-cub" "-I$(TOP)/include-thrust" $(_SPACE_)
LIBRARIES         =+ $(_SPACE_) "-L$(TOP)/lib64/stubs" "-L$(TOP)/lib64"
EOF
  "$c/bin/nvcc" --version >/dev/null || die "the relocated nvcc does not run"
  rm -rf "$TC/cuda"
  mv "$c" "$TC/cuda"
  for l in lib64/libcudart.so lib64/libcudart_static.a lib64/stubs/libcublas.so lib64/stubs/libcurand.so \
           include-cub/cub/cub.cuh include-thrust/thrust/device_vector.h; do
    [ -e "$TC/cuda/$l" ] || die "cuda/$l missing or a broken link"
  done
  rm -f "$STAMPS/cuda-folder" "$STAMPS/cuda-folder-v2"  # stamps of earlier layouts
  mark_done cuda-folder-v3
else
  log "have relocatable CUDA folder"
fi
NVCC="$TC/cuda/bin/nvcc"
CUOBJDUMP="$TC/cuda/bin/cuobjdump"

# ---------------------------------------------------------------------------
# 4a. amd-libs/usr: the sid math-library packages merged into one prefix, as on a ROCm
#     install. Hard links, not symbolic ones: the ROCm CMake packages locate their prefix
#     through the REALPATH of their config file, and their imported libraries come from
#     other packages (libhipblas-dev's hipblas-targets.cmake names libhipblas2's library).
#     The stamp holds the package versions; another set rebuilds the folder.
AMD_LIBS="$TC/amd-libs"
amd_libs_id="$(for p in "${AMD_LIB_DEV_PKGS[@]}" "${AMD_LIB_RUNTIME_PKGS[@]}"; do
  echo "$p $(ver "$TC/pkgs/sid/$p")"; done)"
if ! done_step amd-libs || [ "$(cat "$STAMPS/amd-libs")" != "$amd_libs_id" ] || [ ! -d "$AMD_LIBS/usr/include" ]; then
  log "merge the AMD math libraries into amd-libs/"
  invalidate
  # Beside its final place (hard links need the same file system; tmp/ is inside $TC too).
  a="$TMP/amd-libs"
  mkdir -p "$a"
  for p in "${AMD_LIB_DEV_PKGS[@]}" "${AMD_LIB_RUNTIME_PKGS[@]}"; do
    # No two of these packages ship the same file: cp -l fails if one ever does.
    cp -al "$TC/pkgs/sid/$p/usr" "$a/" || die "cannot merge sid/$p into amd-libs"
  done
  for h in hipblas/hipblas.h rocblas/rocblas.h hiprand/hiprand.h rocrand/rocrand.h hipfft/hipfft.h \
           rocfft/rocfft.h hipsparse/hipsparse.h rocsparse/rocsparse.h hipsolver/hipsolver.h \
           rocsolver/rocsolver.h hipcub/hipcub.hpp rocprim/rocprim.hpp thrust/device_vector.h \
           miopen/miopen.h rccl/rccl.h hipblaslt/hipblaslt.h roctracer/roctx.h; do
    [ -f "$a/usr/include/$h" ] || die "amd-libs: $h missing"
  done
  [ ! -e "$a/usr/include/hip" ] || die "amd-libs: a library package ships include/hip (would shadow HIP)"
  rm -rf "$AMD_LIBS"
  mv "$a" "$AMD_LIBS"
  printf '%s\n' "$amd_libs_id" >"$STAMPS/amd-libs.tmp" && mv -f "$STAMPS/amd-libs.tmp" "$STAMPS/amd-libs"
else
  log "have amd-libs/ (HIP/ROCm math libraries)"
fi

# ---------------------------------------------------------------------------
# 4b. CMake HIP language (project(x LANGUAGES HIP)) for AMD: a HIP root made of links
#     and a CMake toolchain file. CMake 3.25 wants <root>/lib/cmake/hip-lang (Debian has
#     lib/x86_64-linux-gnu/cmake) and hip-lang-targets.cmake computes its prefix four
#     folders above itself, hence lib/cmake and the top-level lib/include links. Linking
#     uses lld: it accepts libamdhip64.so.6 without its own dependencies (ROCr, comgr),
#     which are not installed because nothing is ever run on an AMD GPU here.
#     find_package(hip) (which every ROCm library package calls) wants <root>/bin to exist
#     and finds amd_comgr and hsa-runtime64 in amd-libs/ through CMAKE_PREFIX_PATH; v2 adds
#     those and the library headers.
CMAKE_ROOT="$TC/hip-amd-cmake"
CMAKE_TCFILE="$TC/hip-amd.cmake"
if ! done_step cmake-hip-v2 || [ ! -f "$CMAKE_TCFILE" ] || [ ! -d "$CMAKE_ROOT" ]; then
  log "CMake HIP root and toolchain file"
  invalidate
  # Built beside its final place (not under tmp/) so that its relative links resolve.
  r="$TC/.hip-amd-cmake.partial"
  rm -rf "$r"
  mkdir -p "$r/usr/lib/x86_64-linux-gnu" "$r/usr/bin"  # bin: hip-config.cmake checks it exists
  ln -s ../../pkgs/sid/libamdhip64-dev/usr/include "$r/usr/include"
  ln -s ../../pkgs/sid/libamdhip64-dev/usr/share "$r/usr/share"
  ml="$r/usr/lib/x86_64-linux-gnu"
  ln -s ../../../../pkgs/sid/libamdhip64-dev/usr/lib/x86_64-linux-gnu/cmake "$ml/cmake"
  for f in "$HIP_AMD_RT"/usr/lib/x86_64-linux-gnu/libamdhip64.so.*; do
    ln -s "../../../../pkgs/sid/libamdhip64-6/usr/lib/x86_64-linux-gnu/$(basename "$f")" "$ml/"
  done
  ln -s libamdhip64.so.6 "$ml/libamdhip64.so"
  ln -s x86_64-linux-gnu/cmake "$r/usr/lib/cmake"
  ln -s x86_64-linux-gnu/libamdhip64.so "$r/usr/lib/libamdhip64.so"  # clang --hip-link: -L<hip>/lib
  ln -s usr/lib "$r/lib"
  ln -s usr/include "$r/include"
  [ -f "$r/usr/lib/cmake/hip-lang/hip-lang-config.cmake" ] || die "hip-lang CMake package missing"
  [ -e "$r/lib/x86_64-linux-gnu/libamdhip64.so" ] || die "libamdhip64.so link broken"
  cat >"$TMP/hip-amd.cmake" <<EOF
# CMake toolchain file written by hipport scripts/install-toolchain.sh (absolute paths).
# HIP for AMD with clang++-19 and HIP $HIP_AMD_VERSION; objects for any gfx target, and
# executables that link (they cannot run here: no AMD GPU, no ROCr runtime installed).
#   cmake -S SRC -B BUILD -DCMAKE_TOOLCHAIN_FILE=$CMAKE_TCFILE [-DCMAKE_HIP_ARCHITECTURES=gfx90a]
set(CMAKE_HIP_COMPILER "$CLANG")
set(CMAKE_HIP_COMPILER_ROCM_ROOT "$CMAKE_ROOT/usr")
set(CMAKE_HIP_COMPILER_ROCM_LIB "$CMAKE_ROOT/usr/lib")
# The HIP/ROCm math-library headers come after HIP's, as from /opt/rocm/include on ROCm.
set(CMAKE_HIP_FLAGS_INIT "-isystem $CMAKE_ROOT/usr/include -isystem $AMD_LIBS/usr/include --hip-path=$CMAKE_ROOT/usr --rocm-device-lib-path=$DEVLIB_DIR -fuse-ld=lld")
if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)
  set(CMAKE_HIP_ARCHITECTURES "gfx90a;gfx942;gfx1030;gfx1100")
endif()
# find_package(hip hipblas hiprand rocrand hipcub rocprim rocthrust hipfft rocfft hipsparse
# hipsolver miopen): HIP's root first, then the merged libraries. Not found: rocblas,
# rocsparse, rocsolver, hipblaslt, rccl (their runtime libraries are not installed).
list(APPEND CMAKE_PREFIX_PATH "$CMAKE_ROOT/usr" "$AMD_LIBS/usr")
# sid's libraries were built against glibc 2.38+ and libstdc++ 14 (GLIBCXX_3.4.32), newer
# than bookworm's; lld checks a library's undefined symbols once it finds all its
# dependencies. Nothing built here runs on an AMD GPU, so links accept them.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--allow-shlib-undefined")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-Wl,--allow-shlib-undefined")
# hip-config.cmake runs amdgpu-arch (there is no GPU) unless GPU_TARGETS is set.
if(NOT DEFINED GPU_TARGETS)
  set(GPU_TARGETS "\${CMAKE_HIP_ARCHITECTURES}")
endif()
EOF
  rm -rf "$CMAKE_ROOT" "$CMAKE_TCFILE"
  mv "$r" "$CMAKE_ROOT"
  mv "$TMP/hip-amd.cmake" "$CMAKE_TCFILE"
  rm -f "$STAMPS/cmake-hip"  # the stamp of the layout before v2
  mark_done cmake-hip-v2
else
  log "have CMake HIP root and toolchain file"
fi
CMAKE_BIN="$(command -v cmake)" || die "cmake missing after install"

# ---------------------------------------------------------------------------
# 5. toolchain.json (written to a temporary name, then renamed).
log "write toolchain.json"
TC_CLANG="$CLANG" TC_BUNDLER="$BUNDLER" TC_OBJCOPY="$OBJCOPY" TC_HIP_AMD="$HIP_AMD/usr" \
TC_DEVLIB="$DEVLIB_DIR" TC_NVCC="$NVCC" TC_CUOBJDUMP="$CUOBJDUMP" TC_HIP_NV="$HIP_NV/usr" \
TC_CCBIN="$CCBIN" TC_HIP_AMD_VERSION="$HIP_AMD_VERSION" TC_HIP_NV_VERSION="$HIP_NV_VERSION" \
TC_CUDA_VERSION="$CUDA_VERSION" TC_CMAKE="$CMAKE_BIN" TC_CMAKE_TCFILE="$CMAKE_TCFILE" \
TC_AMD_LIBS="$AMD_LIBS/usr" TC_CUDA_LIBS="$TC/cuda/lib64" \
TC_AMD_LIBRARY_VERSIONS="$amd_libs_id" python3 - "$TC/toolchain.json" <<'EOF'
import json, os, sys
e = os.environ
data = {
    "version": 1,
    "clang": e["TC_CLANG"],
    "offload_bundler": e["TC_BUNDLER"],
    "objcopy": e["TC_OBJCOPY"],
    "hip_amd_root": e["TC_HIP_AMD"],
    "hip_amd_include": os.path.join(e["TC_HIP_AMD"], "include"),
    "rocm_device_lib_path": e["TC_DEVLIB"],
    "nvcc": e["TC_NVCC"],
    "cuobjdump": e["TC_CUOBJDUMP"],
    "hip_nvidia_include": os.path.join(e["TC_HIP_NV"], "include"),
    "ccbin": e["TC_CCBIN"],
    "hip_amd_version": e["TC_HIP_AMD_VERSION"],
    "hip_nvidia_version": e["TC_HIP_NV_VERSION"],
    "cuda_version": e["TC_CUDA_VERSION"],
    "cmake": e["TC_CMAKE"],
    "cmake_hip_toolchain_file": e["TC_CMAKE_TCFILE"],
    # Include root of the HIP/ROCm math libraries (hipblas/, rocblas/, hiprand/, thrust/...).
    "amd_library_include": os.path.join(e["TC_AMD_LIBS"], "include"),
    # Where -lcublas -lcurand ... resolve for nvcc (link stubs in stubs/, libcudart.so).
    "cuda_library_dir": e["TC_CUDA_LIBS"],
    "amd_library_versions": dict(line.split(" ", 1) for line in e["TC_AMD_LIBRARY_VERSIONS"].splitlines()),
}
for key, value in data.items():
    if key in ("version", "amd_library_versions"):
        continue
    if not key.endswith("_version") and not os.path.exists(value):
        sys.exit(f"install-toolchain: ERROR: {key} path does not exist: {value}")
path = sys.argv[1]
with open(path + ".tmp", "w") as f:
    json.dump(data, f, indent=2)
    f.write("\n")
os.replace(path + ".tmp", path)
EOF

# ---------------------------------------------------------------------------
# 6. self-check: a vector add for gfx90a/gfx942/gfx1030/gfx1100 and sm_90.
if done_step selfcheck && [ $FORCE_CHECK -eq 0 ]; then
  log "self-check passed before (run with --check to repeat it)"
else
  rm -f "$STAMPS/selfcheck"
  log "self-check: vadd.hip for gfx90a gfx942 gfx1030 gfx1100 and sm_90 (-lcublas -lcurand), and with CMake (hipblas)"
  sc="$TMP/selfcheck"
  mkdir -p "$sc"
  cat >"$sc/vadd.hip" <<'EOF'
#include <hip/hip_runtime.h>
#include <cstdio>
#define CHECK(x) do { if ((x) != hipSuccess) { std::printf("%s failed\n", #x); return 1; } } while (0)
__global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
int main() {
  const int n = 1024;
  float *a, *b, *c;
  CHECK(hipMalloc(&a, n * sizeof(float)));
  CHECK(hipMalloc(&b, n * sizeof(float)));
  CHECK(hipMalloc(&c, n * sizeof(float)));
  hipLaunchKernelGGL(vadd, dim3(n / 256), dim3(256), 0, 0, a, b, c, n);
  CHECK(hipGetLastError());
  CHECK(hipDeviceSynchronize());
  CHECK(hipFree(a));
  CHECK(hipFree(b));
  CHECK(hipFree(c));
  std::printf("ok\n");
  return 0;
}
EOF
  archs=(gfx90a gfx942 gfx1030 gfx1100)
  amd_cmd=("$CLANG" -isystem "$HIP_AMD/usr/include" -x hip -DHIP_ENABLE_WARP_SYNC_BUILTINS)
  for a in "${archs[@]}"; do amd_cmd+=("--offload-arch=$a"); done
  amd_cmd+=("--hip-path=$HIP_AMD/usr" "--rocm-device-lib-path=$DEVLIB_DIR" -O2 -c "$sc/vadd.hip" -o "$sc/vadd.o")
  "${amd_cmd[@]}" >"$sc/amd.log" 2>&1 || { cat "$sc/amd.log" >&2; die "self-check: AMD compile failed: ${amd_cmd[*]}"; }
  "$OBJCOPY" --dump-section .hip_fatbin="$sc/fatbin.bin" "$sc/vadd.o" "$sc/vadd.copy.o" \
    || die "self-check: no .hip_fatbin section in the AMD object"
  got="$("$BUNDLER" --list --type=o --input="$sc/fatbin.bin" | grep amdgcn | sort | tr '\n' ' ')"
  want="$(for a in "${archs[@]}"; do echo "hipv4-amdgcn-amd-amdhsa--$a"; done | sort | tr '\n' ' ')"
  [ "$got" = "$want" ] || die "self-check: code objects are [$got], expected [$want]"
  # -lcublas -lcurand: the library links resolve (stubs/), cheap to check here.
  nv_cmd=("$NVCC" -ccbin "$CCBIN" -x cu -I "$HIP_NV/usr/include"
          -gencode 'arch=compute_90,code=[sm_90,compute_90]' -O2 -diag-suppress 2810
          -Xcompiler -Wno-deprecated-declarations "$sc/vadd.hip" -o "$sc/vadd_nv" -lcublas -lcurand)
  "${nv_cmd[@]}" >"$sc/nv.log" 2>&1 || { cat "$sc/nv.log" >&2; die "self-check: NVIDIA compile failed: ${nv_cmd[*]}"; }
  # Into a file, then grep: `cuobjdump | grep -q` fails under pipefail whenever grep exits at
  # its first match before cuobjdump has written everything (cuobjdump dies of SIGPIPE, 141).
  "$CUOBJDUMP" --list-elf "$sc/vadd_nv" >"$sc/elf.txt" 2>&1 \
    || { cat "$sc/elf.txt" >&2; die "self-check: cuobjdump --list-elf failed on the NVIDIA binary"; }
  grep -q sm_90 "$sc/elf.txt" || die "self-check: no sm_90 code in the NVIDIA binary"
  # CMake: HIP language project, configure + build (link) for gfx90a, with a ROCm library
  # package (find_package(hipblas) also finds hip, amd_comgr, hsa-runtime64, hipblas-common).
  mkdir -p "$sc/cmake"
  cp "$sc/vadd.hip" "$sc/cmake/vadd.hip"
  printf '%s\n' 'cmake_minimum_required(VERSION 3.21)' 'project(vadd LANGUAGES CXX HIP)' \
    'find_package(hipblas CONFIG REQUIRED)' 'add_executable(vadd vadd.hip)' \
    'target_link_libraries(vadd PRIVATE roc::hipblas)' >"$sc/cmake/CMakeLists.txt"
  { "$CMAKE_BIN" -S "$sc/cmake" -B "$sc/cmake/build" -DCMAKE_TOOLCHAIN_FILE="$CMAKE_TCFILE" \
      -DCMAKE_HIP_ARCHITECTURES=gfx90a && "$CMAKE_BIN" --build "$sc/cmake/build"; } >"$sc/cmake.log" 2>&1 \
    || { cat "$sc/cmake.log" >&2; die "self-check: CMake HIP project did not configure/build"; }
  [ -x "$sc/cmake/build/vadd" ] || die "self-check: CMake built no vadd executable"
  mark_done selfcheck
  log "self-check ok: $got+ sm_90 + CMake HIP executable with hipblas"
fi

log "done: $TC/toolchain.json (HIP $HIP_AMD_VERSION for AMD, HIP $HIP_NV_VERSION + CUDA $CUDA_VERSION for NVIDIA)"
