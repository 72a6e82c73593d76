#!/usr/bin/env bash
# Puts the ctemplate files listed in files.txt (third-party, never committed) under
# ../shared/benchmarks/ctemplate/<path>. First bring the snapshot with the `fetch` tool
# (github:OlafvdSpek/ctemplate), or clone https://github.com/OlafvdSpek/ctemplate and
# give its .git folder as MIRROR_GIT=...
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
out="${TRACELEARN_BENCHMARKS:-$here/../../../shared/benchmarks}/ctemplate"
git_dir="${MIRROR_GIT:-${MIRROR:-/work/.mirror}/OlafvdSpek+ctemplate/repo}"
[ -d "$git_dir" ] || { echo "missing snapshot of OlafvdSpek/ctemplate: fetch github:OlafvdSpek/ctemplate first (or MIRROR_GIT=dir)" >&2; exit 1; }
while read -r repo commit path dest; do
  case "$repo" in ''|'#'*) continue ;; esac
  dest="${dest:-$path}"
  mkdir -p "$out/$(dirname "$dest")"
  git -C "$git_dir" show "$commit:$path" > "$out/$dest"
  echo "$out/$dest: $repo $path at $commit"
done < "$here/files.txt"
