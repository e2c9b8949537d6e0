#!/usr/bin/env bash
# Builds Cowatch for people who have no Swift toolchain: a Debian package and a tarball of
# the same tree.
#
#   scripts/package.sh                 release build with the Swift runtime linked in, then
#                                      dist/cowatch_VERSION_ARCH.deb and
#                                      dist/cowatch-VERSION-linux-ARCH.tar.gz
#   scripts/package.sh --check         the same, then the package checked as a user gets
#                                      it: unpacked into a temporary root, no libswift in
#                                      `ldd`, `cowatch demo` run from there with no Swift
#                                      toolchain on PATH or LD_LIBRARY_PATH
#   scripts/package.sh --from BIN      packages an existing build (BIN: the cowatch
#                                      executable, e.g. .build/debug/cowatch) instead of
#                                      building one: the layout test in CI uses it
#   --out DIR                          where the package goes (default dist/)
#   --fast                             compress little (the layout test: a debug build is
#                                      ~75 MB, and xz takes half a minute on it)
#
# The tree: /usr/bin/cowatch; /usr/share/cowatch/Media (catalog, demo script, subtitles:
# found there by an installed cowatch, see Catalog.installedMediaPath); shell completions
# (bash, zsh, fish, as ArgumentParser writes them); a man page per command (from
# `cowatch --experimental-dump-help`); the relay's systemd unit; the docs. Depends: the
# packages of the shared libraries the binary links (found with dpkg -S, so the list
# follows the build), Recommends: mpv, yt-dlp.
set -euo pipefail
cd "$(dirname "$0")/.."

from=""
out=dist
check=0
fast=0
while (($#)); do
  case "$1" in
    --from) from=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --check) check=1; shift ;;
    --fast) fast=1; shift ;;
    *) echo "package.sh: unknown option $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done

say() { echo "package: $*"; }

if [[ -z "$from" ]]; then
  say "building a release cowatch with the Swift runtime linked in"
  swift build -c release --product cowatch --static-swift-stdlib
  from=$(swift build -c release --show-bin-path)/cowatch
fi
[[ -x "$from" ]] || { echo "package.sh: no executable at $from" >&2; exit 1; }

version=$("$from" --version)
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "package.sh: odd version '$version'" >&2; exit 1; }
arch=$(dpkg --print-architecture)
name=cowatch_${version}_${arch}
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/$name

# The files.
install -Dm755 "$from" "$root/usr/bin/cowatch"
strip --strip-unneeded "$root/usr/bin/cowatch" 2>/dev/null || true
share=$root/usr/share/cowatch/Media
install -Dm644 Media/catalog.yaml "$share/catalog.yaml"
install -Dm644 Media/demo.cowatch "$share/demo.cowatch"
(cd Media && find subtitles -type f -name '*.srt' -print0) |
  while IFS= read -r -d '' f; do install -Dm644 "Media/$f" "$share/$f"; done
"$from" --generate-completion-script bash |
  install -Dm644 /dev/stdin "$root/usr/share/bash-completion/completions/cowatch"
"$from" --generate-completion-script zsh |
  install -Dm644 /dev/stdin "$root/usr/share/zsh/vendor-completions/_cowatch"
"$from" --generate-completion-script fish |
  install -Dm644 /dev/stdin "$root/usr/share/fish/vendor_completions.d/cowatch.fish"
# Dated by the last commit, so that packaging twice gives the same pages.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
mkdir -p "$root/usr/share/man/man1"
"$from" --experimental-dump-help |
  python3 scripts/lib/manpages.py "$root/usr/share/man/man1" "$version"
gzip -9n "$root"/usr/share/man/man1/*.1
# The relay as a service (not enabled: `systemctl enable --now cowatch-relay`), running the
# packaged binary.
packaged() { sed 's|/usr/local/bin/cowatch|/usr/bin/cowatch|' "$1" | install -Dm644 /dev/stdin "$2"; }
packaged deploy/cowatch-relay.service "$root/usr/lib/systemd/system/cowatch-relay.service"
packaged deploy/cowatch-relay-ca-certificate.conf \
  "$root/usr/share/doc/cowatch/examples/cowatch-relay-ca-certificate.conf"
install -Dm644 README.md "$root/usr/share/doc/cowatch/README.md"
for doc in docs/*.md; do install -Dm644 "$doc" "$root/usr/share/doc/cowatch/$doc"; done

# What it links, as packages: each shared library the binary needs, by the package that
# ships it here. A debug build (--from) also links the Swift runtime from the toolchain,
# which no package ships: left out, and the check below makes sure a release has none.
swift_runtime='^lib(swift|_?Foundation|dispatch|BlocksRuntime|XCTest|Testing)'
depends=$(objdump -p "$root/usr/bin/cowatch" | awk '/NEEDED/ {print $2}' | while read -r lib; do
  path=$(ldd "$root/usr/bin/cowatch" | awk -v l="$lib" '$1 == l {print $3; exit} $1 ~ ("/" l "$") {print $1; exit}')
  owner=""
  [[ -n "$path" && "$path" != "not" ]] &&
    owner=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null || dpkg -S "$path" 2>/dev/null || true)
  if [[ -n "$owner" ]]; then
    echo "${owner%%:*}"
  elif [[ "$lib" =~ $swift_runtime ]]; then
    echo "package: $lib is the Swift runtime (only a debug build links it)" >&2
  else
    echo "package.sh: no installed package ships $lib (${path:-not found})" >&2
    exit 1
  fi
done | sort -u)
[[ -n "$depends" ]] || { echo "package.sh: found no libraries it links" >&2; exit 1; }
# Each at least the version it was built against.
depends_line=$(for p in $depends; do
  v=$(dpkg-query -W -f='${Version}' "$p" | sed 's/-[^-]*$//')
  printf '%s (>= %s), ' "$p" "$v"
done | sed 's/, $//')
size=$(du -sk "$root/usr" | cut -f1)
mkdir -p "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<CONTROL
Package: cowatch
Version: $version
Architecture: $arch
Maintainer: Cowatch developers <cowatch@localhost>
Installed-Size: $size
Depends: $depends_line
Recommends: mpv (>= 0.34), yt-dlp
Section: video
Priority: optional
Homepage: https://github.com/cowatch/cowatch
Description: watch the same episode together from terminals, in sync
 Cowatch keeps several people's players on one shared clock, rate and
 position: play, pause, seek and rate changes from anyone reach everyone,
 with who did it. One person hosts a room (a relay and their terminal
 front), the others join from an invite link; rooms outlive their host.
 Real video plays through mpv; "cowatch demo" shows it with a simulated
 player, and "cowatch doctor" says what this machine lacks.
CONTROL

compression=(-Zxz) gzip_level=-9
((fast)) && compression=(-Zgzip -z1) gzip_level=-1
dpkg-deb --root-owner-group "${compression[@]}" --build "$root" "$out/$name.deb" >/dev/null
tarball=$out/cowatch-$version-linux-$arch.tar.gz
tar --owner=0 --group=0 -C "$root" -cf - usr | gzip "$gzip_level" >"$tarball"
say "$out/$name.deb ($(du -k "$out/$name.deb" | cut -f1) KiB), $tarball"

((check)) || exit 0

# The check: the package as someone without Swift gets it.
unpacked=$(mktemp -d)
trap 'rm -rf "$stage" "$unpacked"' EXIT
dpkg-deb -x "$out/$name.deb" "$unpacked"
bin=$unpacked/usr/bin/cowatch
if ldd "$bin" | grep -i swift; then
  echo "package.sh: the packaged cowatch still links the Swift runtime (above)" >&2
  exit 1
fi
missing=$(ldd "$bin" | grep 'not found' || true)
[[ -z "$missing" ]] || { echo "package.sh: missing libraries: $missing" >&2; exit 1; }
clean_path=/usr/bin:/bin
if PATH=$clean_path command -v swift >/dev/null; then
  echo "package.sh: swift is on $clean_path: the check cannot tell a runtime it borrows" >&2
  exit 1
fi
run() {
  (cd "$unpacked" && env -i PATH=$clean_path HOME="$unpacked" TERM=dumb \
    XDG_STATE_HOME="$unpacked/state" XDG_CONFIG_HOME="$unpacked/config" "$@")
}
started=$(date +%s%N)
run "$bin" --help >/dev/null
help_ms=$((($(date +%s%N) - started) / 1000000))
started=$(date +%s%N)
run "$bin" demo --plain --speed 20 >"$unpacked/demo.log" 2>&1 ||
  { tail -20 "$unpacked/demo.log" >&2; echo "package.sh: cowatch demo failed from the package" >&2; exit 1; }
demo_ms=$((($(date +%s%N) - started) / 1000000))
grep -q . "$unpacked/demo.log" || { echo "package.sh: the demo printed nothing" >&2; exit 1; }
say "checked: no libswift linked; from the unpacked package, cowatch --help in ${help_ms} ms, cowatch demo --speed 20 in ${demo_ms} ms; installed size ${size} KiB"
