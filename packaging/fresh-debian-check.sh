#!/usr/bin/env bash
# Proves the README's set-up on a Debian 12 that has never seen the project: debootstraps a
# minimal bookworm into WORKDIR, clones the committed main of this checkout into it, puts a
# read-only copy of ../shared beside it, and runs the README's test command there, with
# nothing installed beyond what packaging/install-deps.sh installs. Then it installs the .deb
# that build made into a second fresh system and runs both programs from it.
# Needs root, debootstrap and Debian's mirror; takes a full build's time. Not run by CI.
#
# usage: sudo packaging/fresh-debian-check.sh WORKDIR [MIRROR]
set -euo pipefail
source_dir="$(cd "$(dirname "$0")/.." && pwd)"
workdir="$(mkdir -p "${1:?usage: fresh-debian-check.sh WORKDIR [MIRROR]}" && cd "$1" && pwd)"
mirror="${2:-http://deb.debian.org/debian}"
base="$workdir/base"
mounted=()
cleanup() { for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done; }
trap cleanup EXIT

if [ ! -x "$base/bin/bash" ]; then
  echo "== debootstrap --variant=minbase bookworm"
  debootstrap --variant=minbase bookworm "$base" "$mirror" > "$workdir/debootstrap.log"
fi

# A fresh copy of the minimal system, with /proc, /sys, /dev and the host's DNS.
fresh_system() {
  local root="$workdir/$1"
  rm -rf "$root"
  cp -a "$base" "$root"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  for fs in proc sys dev; do
    mount --rbind "/$fs" "$root/$fs"
    mount --make-rslave "$root/$fs"
    mounted+=("$root/$fs")
  done
  echo "$root"
}

echo "== the README's test command in a fresh clone on a fresh system"
build_root="$(fresh_system build)"
mkdir -p "$build_root/root/work"
git clone -q "$source_dir" "$build_root/root/work/main"
cp -a "$source_dir/../shared" "$build_root/root/work/shared"
chmod -R a-w "$build_root/root/work/shared"
test_command="$(sed -n '/^Build and run the tests:/,/^```$/p' "$source_dir/README.md" | sed -n '/^```sh$/,/^```$/p' | sed '1d;$d')"
[ -n "$test_command" ] || { echo "fresh-debian-check: no test command found in README.md" >&2; exit 1; }
echo "\$ $test_command"
chroot "$build_root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
  /bin/bash -c "cd /root/work/main && $test_command" 2>&1 | tee "$workdir/readme-test-command.log" | tail -n 25
echo "== cmake --build build --target package"
chroot "$build_root" /bin/bash -c "cd /root/work/main && cmake --build build --target package" > "$workdir/package.log" 2>&1
deb="$(ls "$build_root"/root/work/main/build/gaplens_*.deb)"
echo "$(basename "$deb")"

echo "== apt-get install ./$(basename "$deb") on another fresh system"
install_root="$(fresh_system install)"
cp "$deb" "$install_root/root/"
chroot "$install_root" /bin/bash -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ./root/$(basename "$deb")" \
  > "$workdir/install.log" 2>&1 || { tail -n 30 "$workdir/install.log"; exit 1; }
chroot "$install_root" /bin/bash -c '
  set -e
  gaplens --version
  gaplens-cli --version
  gaplens-cli synth --out /tmp/sample --ranks 2 --steps 5 > /dev/null
  gaplens-cli summary /tmp/sample
  gaplens --render /tmp/sample.png /tmp/sample
  ls -l /tmp/sample.png
  man -w gaplens gaplens-cli 2>/dev/null || ls /usr/share/man/man1/gaplens*'
cp "$install_root/tmp/sample.png" "$workdir/installed-render.png"
echo "fresh-debian-check: ok; logs and the installed app's picture in $workdir"
