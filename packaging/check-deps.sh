#!/usr/bin/env bash
# Proves that packaging/debian-packages.txt is complete for a configured (and built) tree:
# every file the build used from the system must belong to a Debian package in the
# dependency closure of the listed packages, or to a package every Debian 12 system has
# (Priority: required or Essential). A file installed by hand, or by a package that is on
# this machine only because someone installed it, fails the check with its package named.
#
# What "used" means: the package config dirs, libraries, headers' include dirs and programs
# CMake found (CMakeCache.txt), every header the compiler read (the .o.d dependency files),
# every library the linker was given (link.txt) and every library the built programs load
# (ldd). Run after the build; `ctest` runs it as the test install_deps_complete.
#
# usage: packaging/check-deps.sh BUILD_DIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source_dir="$(cd "$here/.." && pwd)"
build_dir="$(cd "${1:?usage: check-deps.sh BUILD_DIR}" && pwd)"
list="$here/debian-packages.txt"
cache="$build_dir/CMakeCache.txt"
[ -f "$cache" ] || { echo "check-deps: $cache not found: configure first" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# 1. Paths the build used.
{
  # From the cache, what CMake used rather than merely found: the package config folders
  # (<package>_DIR), the compiler, CMake itself, and our own find_program()s (GAPLENS_TOOL_*).
  # CTest's optional dashboard tools (git, valgrind, ...) and FindOpenGL's unused
  # libraries are found but never used, so they are not taken from here.
  # A folder has many owners (qt6-base-dev owns cmake/Qt6OpenGL too), so name the config
  # file itself.
  sed -n -E 's/^([A-Za-z0-9_]+)_DIR:PATH=(\/.*\/cmake\/.*)$/\1\t\2/p' "$cache" |
    while IFS=$'\t' read -r name dir; do
      lower="$(echo "$name" | tr '[:upper:]' '[:lower:]')"
      for f in "$dir/${name}Config.cmake" "$dir/$lower-config.cmake"; do
        if [ -f "$f" ]; then echo "$f"; fi
      done
    done
  sed -n -E 's/^(CMAKE_CXX_COMPILER|GAPLENS_TOOL_[A-Z0-9_]+):(FILEPATH|STRING)=(\/.*)$/\3/p' "$cache"
  sed -n -E 's/^CMAKE_(COMMAND|CTEST_COMMAND|CPACK_COMMAND):INTERNAL=(\/.*)$/\2/p' "$cache"
  # Headers the compiler read.
  find "$build_dir" -name '*.o.d' -print0 | xargs -0 -r cat | tr ' \\' '\n\n' | grep '^/' || true
  # Libraries the linker was given by path, and -l names resolved as the compiler does.
  find "$build_dir" -name link.txt -print0 | xargs -0 -r cat | tr ' ' '\n' | grep -E '^/.*\.(so|a)(\.[0-9.]+)?$' || true
  for lib in $(find "$build_dir" -name link.txt -print0 | xargs -0 -r cat | tr ' ' '\n' | sed -n 's/^-l//p' | sort -u); do
    "${CXX:-c++}" -print-file-name="lib$lib.so"
  done
  # Libraries the built programs and test executables load.
  find "$build_dir" -type f -perm -u+x -print0 | while IFS= read -r -d '' f; do
    if head -c 4 "$f" | grep -q 'ELF'; then
      ldd "$f" 2>/dev/null | sed -n -E 's/.*=> (\/[^ ]+) .*/\1/p' || true
    fi
  done
} | grep -v -e "^$source_dir" -e "^$build_dir" | grep -E '^/(usr|lib|bin|sbin|etc|opt)' | sort -u > "$work/used.raw"

# Normalise "/usr/lib/x86_64-linux-gnu/../../include/x" to "/usr/include/x"; keep the files
# that exist (folders prove nothing: several packages own each).
while IFS= read -r p; do
  if [ -f "$p" ]; then realpath -s -m "$p"; fi
done < "$work/used.raw" | grep -v -x -e /usr/local -e /usr | sort -u > "$work/used"

# 2. What a fresh Debian 12 with the listed packages has: their dependency closure plus the
# packages every system has.
mapfile -t listed < <(grep -v -e '^#' -e '^[[:space:]]*$' "$list")
{
  apt-cache depends --recurse --installed --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances "${listed[@]}" | grep -v '^ ' | tr -d '<>'
  dpkg-query -W -f='${Package} ${Priority} ${Essential}\n' | awk '$2 == "required" || $3 == "yes" { print $1 }'
} | sed 's/:.*//' | sort -u > "$work/closure"

# 3. Which packages own each path, from dpkg's file lists; one of them in the closure will do.
# A path no list names may be a symlink, or sit on the other side of merged /usr's
# /lib -> /usr/lib: try its real path and its alias too.
for f in /var/lib/dpkg/info/*.list; do
  pkg="$(basename "$f" .list)"
  sed "s|\$|\t${pkg%%:*}|" "$f"
done > "$work/owners"
while IFS= read -r p; do
  alias="$p"
  case "$p" in /usr/*) alias="${p#/usr}" ;; *) alias="/usr$p" ;; esac
  printf '%s\t%s\t%s\n' "$p" "$alias" "$(realpath -e "$p")"
done < "$work/used" > "$work/candidates"

# 4. Verdict.
awk -F '\t' -v list="$list" '
  FILENAME == ARGV[1] { closure[$1] = 1; next }
  FILENAME == ARGV[2] { owners[$1] = owners[$1] " " $2; if (closure[$2]) covered[$1] = 1; next }
  {
    checked++
    if (covered[$1] || covered[$2] || covered[$3]) next
    o = owners[$1] owners[$2] owners[$3]
    failed++
    if (o == "") { print "check-deps: " $1 " is not installed by any Debian package" > "/dev/stderr"; next }
    split(o, names, " ")
    if (!(names[1] in reported)) {
      print "check-deps: " $1 " comes from \x27" names[1] "\x27, which " list " does not pull in" > "/dev/stderr"
      reported[names[1]] = 1
      add = add " " names[1]
    }
  }
  END {
    if (failed) {
      print "check-deps: FAILED: " failed " of " checked " system files the build used are not covered;" \
        " add to " list ":" add > "/dev/stderr"
      exit 1
    }
    print "check-deps: ok: all " checked " system files the build used come from packages that " list " pulls in"
  }' "$work/closure" "$work/owners" "$work/candidates"
