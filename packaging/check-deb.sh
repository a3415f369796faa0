#!/usr/bin/env bash
# Builds the .debs from a built tree, as `cmake --build BUILD --target package` does, into a
# scratch folder, and checks what a user installing them gets: the file names, both programs
# (running, with no display), man pages, a desktop entry and metainfo that validate, the
# icons, and Depends on the runtime libraries; and, when gaplens-mpi was built, its own
# package, which alone depends on MPI. `ctest` runs it as the test deb_package.
#
# usage: packaging/check-deb.sh BUILD_DIR
set -euo pipefail
build_dir="$(cd "${1:?usage: check-deb.sh BUILD_DIR}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "check-deb: $*" >&2; failures=$((failures + 1)); }

version="$(sed -n -E 's/^CMAKE_PROJECT_VERSION:STATIC=(.*)$/\1/p' "$build_dir/CMakeCache.txt")"
app_id="$(sed -n -E 's/^GAPLENS_APP_ID:INTERNAL=(.*)$/\1/p' "$build_dir/CMakeCache.txt")"
arch="$(dpkg --print-architecture)"
cpack --config "$build_dir/CPackConfig.cmake" -B "$work/out" > "$work/cpack.log" 2>&1 \
  || { cat "$work/cpack.log" >&2; echo "check-deb: cpack failed" >&2; exit 1; }
deb="$work/out/gaplens_${version}_${arch}.deb"
[ -f "$deb" ] || { ls "$work/out" >&2; echo "check-deb: no $(basename "$deb")" >&2; exit 1; }

dpkg-deb -x "$deb" "$work/root"
root="$work/root"
for f in usr/bin/gaplens usr/bin/gaplens-cli \
  usr/share/man/man1/gaplens.1.gz usr/share/man/man1/gaplens-cli.1.gz \
  "usr/share/applications/$app_id.desktop" "usr/share/metainfo/$app_id.metainfo.xml" \
  "usr/share/icons/hicolor/scalable/apps/$app_id.svg"; do
  [ -f "$root/$f" ] || fail "the package lacks /$f"
done
for size in 16 22 24 32 48 64 128 256; do
  png="$root/usr/share/icons/hicolor/${size}x${size}/apps/$app_id.png"
  file -b "$png" 2>/dev/null | grep -q "PNG image data, $size x $size" || fail "no ${size}x${size} PNG icon at /${png#"$root"/}"
done

desktop-file-validate "$root/usr/share/applications/$app_id.desktop" || fail "the desktop entry does not validate"
grep -q -x "Icon=$app_id" "$root/usr/share/applications/$app_id.desktop" || fail "the desktop entry names another icon"
appstreamcli validate --no-net "$root/usr/share/metainfo/$app_id.metainfo.xml" > "$work/appstream.log" 2>&1 \
  || { cat "$work/appstream.log" >&2; fail "the metainfo does not validate"; }
grep -q "<release version=\"$version\"" "$root/usr/share/metainfo/$app_id.metainfo.xml" || fail "the metainfo's release is not $version"

for page in gaplens gaplens-cli; do
  zcat "$root/usr/share/man/man1/$page.1.gz" | grep -q -i "^\.TH \"\?$page" || fail "$page.1.gz is not a man page for $page"
done
zcat "$root/usr/share/man/man1/gaplens-cli.1.gz" | grep -q 'summary' || fail "gaplens-cli(1) does not list the commands"

depends="$(dpkg-deb -f "$deb" Depends)"
depends_names() { echo "$1" | tr ',|' '\n\n' | sed -E 's/^ *//; s/ .*//'; }
for lib in libc6 libstdc++6 libqt6core6 libqt6gui6 libqt6widgets6 libqt6charts6 libqt6svg6 libsqlite3-0 libfmt9; do
  depends_names "$depends" | grep -q -x -F "$lib" || fail "Depends lacks $lib: $depends"
done
# A desktop install never pulls in MPI: gaplens-mpi has a package of its own.
depends_names "$depends" | grep -q -i -e mpi -e pmix -e hwloc && fail "the desktop package depends on MPI: $depends"
[ -e "$root/usr/bin/gaplens-mpi" ] && fail "the desktop package holds gaplens-mpi"

if grep -q -x 'GAPLENS_MPI_BUILT:INTERNAL=ON' "$build_dir/CMakeCache.txt"; then
  mpi_deb="$work/out/gaplens-mpi_${version}_${arch}.deb"
  if [ -f "$mpi_deb" ]; then
    dpkg-deb -x "$mpi_deb" "$work/mpi"
    for f in usr/bin/gaplens-mpi usr/share/man/man1/gaplens-mpi.1.gz; do
      [ -f "$work/mpi/$f" ] || fail "the gaplens-mpi package lacks /$f"
    done
    mpi_depends="$(dpkg-deb -f "$mpi_deb" Depends)"
    depends_names "$mpi_depends" | grep -q -E '^libopenmpi[0-9]+$' || fail "gaplens-mpi's Depends lack Open MPI: $mpi_depends"
    depends_names "$mpi_depends" | grep -q '^libqt6' && fail "gaplens-mpi depends on Qt: $mpi_depends"
    out="$("$work/mpi/usr/bin/gaplens-mpi" --version 2>&1)" || fail "/usr/bin/gaplens-mpi --version failed: $out"
    echo "$out" | grep -q "$version" || fail "/usr/bin/gaplens-mpi --version does not print $version: $out"
  else
    ls "$work/out" >&2
    fail "gaplens-mpi was built but there is no $(basename "$mpi_deb")"
  fi
fi

# The packaged programs run with no display at all.
for program in gaplens gaplens-cli; do
  out="$(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$root/usr/bin/$program" --version 2>&1)" \
    || fail "/usr/bin/$program --version failed: $out"
  echo "$out" | grep -q "$version" || fail "/usr/bin/$program --version does not print $version: $out"
done

if [ "$failures" -gt 0 ]; then
  echo "check-deb: FAILED: $failures problem(s) in $(basename "$deb")" >&2
  exit 1
fi
echo "check-deb: ok: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB), Depends: $depends"
[ -z "${mpi_deb:-}" ] || echo "check-deb: ok: $(basename "$mpi_deb") ($(du -k "$mpi_deb" | cut -f1) KiB), Depends: $mpi_depends"
