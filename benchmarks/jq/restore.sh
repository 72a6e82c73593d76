#!/usr/bin/env bash
# Puts jq's sources (third-party, never committed) under ../shared/benchmarks/jq: the
# commit of bug #817 and the commit that fixed it, each with a compile_commands.json.
# First bring the snapshot with the `fetch` tool (github:jqlang/jq), or clone
# https://github.com/jqlang/jq and give its .git folder as MIRROR_GIT=...
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
out="${TRACELEARN_BENCHMARKS:-$here/../../../shared/benchmarks}/jq"
git_dir="${MIRROR_GIT:-${MIRROR:-/work/.mirror}/jqlang+jq/repo}"
[ -d "$git_dir" ] || { echo "missing snapshot of jqlang/jq: fetch github:jqlang/jq first (or MIRROR_GIT=dir)" >&2; exit 1; }
while read -r name commit what; do
  case "$name" in ''|'#'*) continue ;; esac
  rm -rf "$out/$name"
  mkdir -p "$out/$name"
  git -C "$git_dir" archive "$commit" | tar -x -C "$out/$name"
  python3 "$here/compile_db.py" "$out/$name"
  echo "$out/$name: jq at $commit ($what)"
done < "$here/commits.txt"
