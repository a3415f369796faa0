#!/usr/bin/env bash
# Installs the Debian 12 packages gaplens builds with (listed in debian-packages.txt).
# Uses sudo unless already root; quiet unless something fails.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
missing=()
while read -r pkg; do
  case "$pkg" in '' | '#'*) continue ;; esac
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done < "$here/debian-packages.txt"
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" > /tmp/gaplens-apt.log 2>&1 \
    || { cat /tmp/gaplens-apt.log; exit 1; }
fi
