#!/usr/bin/env bash
# Format check: every tracked *.h and *.cpp must be as clang-format-14 leaves it with the
# repository's .clang-format. Prints each file that differs and fails (exit 1) if any does;
# changes nothing. .ci/run calls it first.
#
# usage: .ci/check-format.sh
# To format the tree (what this check expects):
#   git ls-files -z '*.h' '*.cpp' | xargs -0 clang-format-14 -i --style=file
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format="${CLANG_FORMAT:-clang-format-14}"
command -v "$clang_format" > /dev/null || { echo "check-format: $clang_format not found (packaging/install-deps.sh installs it)" >&2; exit 2; }
[ -f .clang-format ] || { echo "check-format: .clang-format not found" >&2; exit 2; }

mapfile -d '' files < <(git ls-files -z -- '*.h' '*.cpp')
differ=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue  # deleted in the work tree, not yet in the index
  if ! "$clang_format" --style=file --dry-run -Werror "$f" > /dev/null 2>&1; then
    differ+=("$f")
  fi
done
if [ ${#differ[@]} -gt 0 ]; then
  printf 'check-format: %s\n' "${differ[@]}" >&2
  echo "check-format: FAILED: ${#differ[@]} of ${#files[@]} files differ from $clang_format --style=file; format them with" >&2
  echo "  git ls-files -z '*.h' '*.cpp' | xargs -0 $clang_format -i --style=file" >&2
  exit 1
fi
echo "check-format: ok: all ${#files[@]} files match $clang_format --style=file"
