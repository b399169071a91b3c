#!/usr/bin/env bash
# Build the project's container image from the repository's one Dockerfile.
#
#   scripts/build_image.sh                      # tag teotihuacan-server:dev
#   scripts/build_image.sh --tag NAME:TAG
#   scripts/build_image.sh --podman-args        # print the podman storage flags, build nothing
#
# With Docker where a Docker engine answers (`docker info`), a plain `docker build`: the
# Dockerfile's default bases (python:3.11-slim-bookworm, python:3.11-bookworm) come from
# the registry. Otherwise (no engine, no image registry reachable) podman builds it from
# two local Debian bookworm bases made by debootstrap from Debian's package mirror, given
# to the Dockerfile as its PYTHON_IMAGE / BUILD_IMAGE build arguments:
#
#   localhost/teoti-bookworm-python:<recipe>   python3.11 + venv     (for python:3.11-slim-bookworm)
#   localhost/teoti-bookworm-build:<recipe>    the above + gcc, headers, pip (for python:3.11-bookworm)
#
# Each is what the Dockerfile needs of the official image: `python` is Python 3.11 with
# venv and ensurepip, and the build one's pip installs into the system Python (the
# official images' Python is not Debian's, so it has no PEP 668 "externally managed"
# marker; the Debian base drops that marker). <recipe> hashes the package list, so a
# changed list makes new bases and an unchanged one re-uses them (about 10 s instead of
# minutes); podman's layer cache makes an unchanged rebuild of the image itself quick too.
#
# Environment:
#   TEOTI_IMAGE_ENGINE   docker | podman (default: docker if its engine answers, else podman)
#   TEOTI_IMAGE_CACHE    podman storage, debootstrap's .deb cache (default
#                        ${XDG_CACHE_HOME:-$HOME/.cache}/teotihuacan-server/image, outside the
#                        checkout: about 1 GB with overlay, 4-6 GB with vfs)
#   TEOTI_IMAGE_STORAGE_DRIVER  podman's storage driver: overlay where root can mount
#                        overlayfs (tried first), else vfs (works anywhere, copies each layer)
#   DEBIAN_MIRROR        Debian's mirror (default http://deb.debian.org/debian)
#   DEBIAN_SECURITY_MIRROR  (default http://deb.debian.org/debian-security)
#   TEOTI_BUILD_CA_BUNDLE  a CA bundle bind-mounted (read-only) over the build containers'
#                        /etc/ssl/certs/ca-certificates.crt during RUN steps only, for pip
#                        behind a TLS-intercepting proxy (default: this host's bundle when
#                        it has a local CA in /usr/local/share/ca-certificates; never
#                        written into an image layer)
#
# podman (root) needs: podman, debootstrap (Debian packages of the same names). The
# podman path keeps its storage apart from the system's: run other podman commands on the
# result with the flags `--podman-args` prints, e.g.
#   podman $(scripts/build_image.sh --podman-args) image mount teotihuacan-server:dev
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

tag="teotihuacan-server:dev"
print_args=0
while [ "$#" -gt 0 ]; do
  case "$1" in
    --tag) tag="$2"; shift 2 ;;
    --tag=*) tag="${1#--tag=}"; shift ;;
    --podman-args) print_args=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "build_image.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

cache="${TEOTI_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/teotihuacan-server/image}"
# overlay shares layers between images (about 1 GB of storage and a 6 s unchanged rebuild
# here); vfs copies every layer (about 4 GB, minutes) but works wherever overlayfs does not.
overlay_mounts() {
  [ "$(id -u)" = 0 ] || return 1
  local probe
  mkdir -p "$cache" && probe="$(mktemp -d "$cache/.overlay-probe.XXXXXX")" || return 1
  mkdir -p "$probe/lower" "$probe/upper" "$probe/work" "$probe/merged"
  local ok=1
  if mount -t overlay overlay \
      -o "lowerdir=$probe/lower,upperdir=$probe/upper,workdir=$probe/work" "$probe/merged" \
      2>/dev/null; then
    umount "$probe/merged" && ok=0
  fi
  rm -rf "$probe"
  return "$ok"
}
storage_driver="${TEOTI_IMAGE_STORAGE_DRIVER:-}"
if [ -z "$storage_driver" ]; then
  if overlay_mounts; then storage_driver=overlay; else storage_driver=vfs; fi
fi
# podman refuses a storage made by another driver, so each other driver has its own.
storage="$cache/storage" run="$cache/run"
if [ "$storage_driver" != vfs ]; then storage+="-$storage_driver" run+="-$storage_driver"; fi
podman_args=(--root "$storage" --runroot "$run" --storage-driver "$storage_driver")
if [ "$print_args" = 1 ]; then echo "${podman_args[*]}"; exit 0; fi

log() { echo "build_image: $*" >&2; }

engine="${TEOTI_IMAGE_ENGINE:-}"
if [ -z "$engine" ]; then
  if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
    engine=docker
  else
    engine=podman
  fi
fi

start=$SECONDS
if [ "$engine" = docker ]; then
  log "docker build -t $tag"
  docker build -t "$tag" "$root"
  log "built $tag with docker in $((SECONDS - start)) s"
  exit 0
fi
[ "$engine" = podman ] || { echo "build_image.sh: TEOTI_IMAGE_ENGINE must be docker or podman" >&2; exit 2; }

missing=()
for tool in podman debootstrap; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "build_image.sh: no Docker engine answers, and the podman path needs ${missing[*]}" \
    "(as root: apt-get install podman debootstrap)" >&2
  exit 3
fi
if [ "$(id -u)" != 0 ]; then
  echo "build_image.sh: the podman path runs debootstrap and podman as root (use sudo)" >&2
  exit 3
fi

mkdir -p "$cache/debs/partial" "$storage" "$run"
pod() { podman "${podman_args[@]}" "$@"; }
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security_mirror="${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"

# What the Dockerfile uses of python:3.11-slim-bookworm: python (3.11) with venv/ensurepip,
# CA certificates, groupadd/useradd (passwd is in every Debian base).
runtime_packages="python3.11 python3.11-venv python-is-python3 ca-certificates"
# ...and of python:3.11-bookworm: pip, a C compiler and Python's headers for mypyc.
build_packages="$runtime_packages python3-pip python3.11-dev gcc libc6-dev make"

# A bookworm minbase root filesystem, made once by debootstrap and kept as a tarball.
minbase_tar="$cache/bookworm-minbase.tar"
minbase() {
  [ -s "$minbase_tar" ] && return
  local dir="$cache/rootfs-minbase"
  rm -rf "$dir"
  log "debootstrap --variant=minbase bookworm from $mirror: a few minutes"
  if ! debootstrap --variant=minbase --cache-dir="$cache/debs" bookworm "$dir" "$mirror" \
      >"$cache/debootstrap.log" 2>&1; then
    tail -30 "$cache/debootstrap.log" >&2
    echo "build_image.sh: debootstrap failed (log: $cache/debootstrap.log)" >&2
    exit 1
  fi
  tar --numeric-owner -C "$dir" -cf "$minbase_tar.part" .
  mv "$minbase_tar.part" "$minbase_tar"
  rm -rf "$dir"
}

# Make (once per recipe) and print the name of a local Debian base image: the minbase,
# brought up to date from bookworm-updates and -security like Debian's own images, plus
# the packages (apt-get resolves their dependencies, debootstrap's --include does not).
debian_base() {
  local name="$1" packages="$2" recipe image dir
  recipe="$(printf 'bookworm minbase upgrade %s v2\n' "$packages" | sha256sum | cut -c1-12)"
  image="localhost/teoti-bookworm-$name:$recipe"
  if pod image exists "$image"; then
    log "re-using base $image"
    echo "$image"
    return
  fi
  minbase
  dir="$cache/rootfs-$name"
  rm -rf "$dir"
  mkdir -p "$dir"
  tar --numeric-owner -C "$dir" -xf "$minbase_tar"
  cat >"$dir/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security_mirror bookworm-security main
SOURCES
  cp /etc/resolv.conf "$dir/etc/resolv.conf"
  log "apt-get install $packages into the $name base"
  # A private mount namespace: /dev, /proc and the .deb cache are bound for apt only.
  if ! unshare --mount --propagation private sh -euc '
      dir="$1" debs="$2"; shift 2
      mount --rbind /dev "$dir/dev"
      mount --rbind /proc "$dir/proc"
      mount --bind "$debs" "$dir/var/cache/apt/archives"
      export DEBIAN_FRONTEND=noninteractive LC_ALL=C
      chroot "$dir" apt-get update -qq
      chroot "$dir" apt-get upgrade -y -qq
      chroot "$dir" apt-get install -y -qq --no-install-recommends "$@"
    ' sh "$dir" "$cache/debs" $packages >"$cache/apt-$name.log" 2>&1; then
    tail -30 "$cache/apt-$name.log" >&2
    echo "build_image.sh: apt-get in the $name base failed (log: $cache/apt-$name.log)" >&2
    exit 1
  fi
  # The official image's Python is not Debian's, so pip there installs system-wide; here
  # the marker would make the build stage's `python -m pip install` refuse (PEP 668).
  rm -f "$dir"/usr/lib/python3*/EXTERNALLY-MANAGED
  rm -rf "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/*.bin
  : >"$dir/etc/resolv.conf"
  tar --numeric-owner --xattrs -C "$dir" \
      --exclude=./dev/* --exclude=./proc/* --exclude=./sys/* --exclude=./tmp/* \
      --exclude=./var/cache/apt/archives/* -c . \
    | pod import --quiet \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV LANG=C.UTF-8' \
        --change 'CMD ["python3"]' \
        --message "debootstrap --variant=minbase bookworm + apt-get install $packages" \
        - "$image" >/dev/null
  rm -rf "$dir"
  log "made base $image"
  echo "$image"
}

python_image="$(debian_base python "$runtime_packages")"
build_image="$(debian_base build "$build_packages")"

volumes=()
ca_bundle="${TEOTI_BUILD_CA_BUNDLE:-}"
if [ -z "$ca_bundle" ] && compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null \
    && [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  ca_bundle=/etc/ssl/certs/ca-certificates.crt
fi
if [ -n "$ca_bundle" ]; then
  log "RUN steps see $ca_bundle as their CA bundle (not stored in the image)"
  volumes=(--volume "$ca_bundle:/etc/ssl/certs/ca-certificates.crt:ro")
fi

previous="$(pod image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)"
log "podman build -t $tag (PYTHON_IMAGE=$python_image BUILD_IMAGE=$build_image)"
pod build --isolation chroot --network host --layers \
  --build-arg "PYTHON_IMAGE=$python_image" --build-arg "BUILD_IMAGE=$build_image" \
  "${volumes[@]}" --tag "$tag" --file "$root/Dockerfile" "$root"
# The previous build of this tag, now untagged, would pile up in the vfs storage (its
# layer cache stays for what is still shared).
current="$(pod image inspect --format '{{.Id}}' "$tag")"
if [ -n "$previous" ] && [ "$previous" != "$current" ]; then
  pod rmi "$previous" >/dev/null 2>&1 || true
fi
log "built $tag with podman in $((SECONDS - start)) s: $(pod image inspect --format '{{.Size}}' "$tag") bytes"
