#!/bin/sh
# check-includes.sh - part of `make lint`: how the C code of the programs
# (agent/, calibrator/, common/, postproc/) includes itself.
#   1. Every #include "..." is a path from the repository root to a file
#      that exists ("agent/core/trace_file.h", "common/varint.h"); system
#      and library headers use <...>.
#   2. No include cycle between modules: a module is a .c file with its .h
#      (an X_internal.h belongs to module X); module A depends on B when a
#      file of A includes a header of B.
#   3. No include cycle between folders (agent/core/ and agent/ are two
#      folders): the rooms of CONTRIBUTING.md are layered.
# Prints each cycle it finds as "a -> b -> ... -> a", then a line
# "includes: N passed, N failed"; exit 1 when anything failed.
#
# Usage: scripts/check-includes.sh [FILE...]   (default: every C file of
# the programs that git knows; files given are checked instead, e.g. a
# deliberate cycle in a test)
set -u
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then
	files=$*
else
	files=$(git ls-files 'agent/*.[ch]' 'calibrator/*.[ch]' 'common/*.[ch]' 'postproc/*.[ch]')
fi

# "file included" pairs
edges=$(for f in $files; do
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
		while read -r inc; do printf '%s %s\n' "$f" "$inc"; done
done)

printf '%s\n' "$edges" | awk -v root="$(pwd)" '
function module(p) {
	sub(/\.[ch]$/, "", p)
	sub(/_internal$/, "", p)
	return p
}
function folder(p) {
	if (p !~ /\//)
		return "."
	sub(/\/[^\/]*$/, "", p)
	return p
}
function add(kind, a, b) {
	if (a == b || ((kind, a, b) in seen))
		return
	seen[kind, a, b] = 1
	n[kind, a]++
	to[kind, a, n[kind, a]] = b
	nodes[kind, a] = 1
	nodes[kind, b] = 1
}
# Depth-first search from v; state 1 on the path, 2 done. Prints the first
# cycle met through v and returns 1.
function dfs(kind, v,    i, w, k, s) {
	state[kind, v] = 1
	path[++depth] = v
	for (i = 1; i <= n[kind, v]; i++) {
		w = to[kind, v, i]
		if (state[kind, w] == 1) {
			s = ""
			for (k = 1; k <= depth; k++)
				if (path[k] == w || s != "")
					s = s (s == "" ? "" : " -> ") path[k]
			print "  cycle: " s " -> " w
			cycles[kind]++
			depth--
			state[kind, v] = 2
			return 1
		}
		if (state[kind, w] == 0 && dfs(kind, w)) {
			depth--
			state[kind, v] = 2
			return 1
		}
	}
	depth--
	state[kind, v] = 2
	return 0
}
NF == 2 {
	file = $1
	inc = $2
	if ((getline line < inc) < 0) {
		print "  " file ": #include \"" inc "\" is not a path from the repository root"
		badpath++
		next
	}
	close(inc)
	add("module", module(file), module(inc))
	add("folder", folder(file), folder(inc))
}
END {
	passed = failed = 0
	if (badpath) { print "FAIL include paths: " badpath " not from the root"; failed++ }
	else { print "ok   include paths from the repository root"; passed++ }
	split("module folder", kinds, " ")
	for (k = 1; k <= 2; k++) {
		kind = kinds[k]
		for (key in nodes) {
			split(key, part, SUBSEP)
			if (part[1] == kind && state[kind, part[2]] == 0)
				dfs(kind, part[2])
		}
		if (cycles[kind]) { print "FAIL " kind " include cycles: " cycles[kind]; failed++ }
		else { print "ok   no include cycle between " kind "s"; passed++ }
	}
	print "includes: " passed " passed, " failed " failed"
	exit failed ? 1 : 0
}'
