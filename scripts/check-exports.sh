#!/bin/sh
# check-exports.sh LIB - libjcal.so exports its entry points only
# (agent/libjcal.map): `nm -D --defined-only` must list exactly
# Agent_OnAttach, Agent_OnLoad, Agent_OnUnload and JNI_OnLoad, so that nothing internal
# collides with another library in the JVM (docs/agent-internals.md,
# "Files"). Prints "ok" or "FAIL: ..."; "SKIP" without nm.
set -u
lib=${1:-build/libjcal.so}
command -v nm >/dev/null 2>&1 || { echo "SKIP: nm not found (binutils)"; exit 0; }
[ -f "$lib" ] || { echo "FAIL: $lib not found"; exit 1; }
want="Agent_OnAttach Agent_OnLoad Agent_OnUnload JNI_OnLoad"
got=$(nm -D --defined-only "$lib" | awk '{ print $NF }' | sort | tr '\n' ' ' | sed 's/ $//')
if [ "$got" = "$want" ]; then
	echo "ok   exports of $lib: $got"
	exit 0
fi
echo "FAIL: $lib exports '$got', expected '$want'"
exit 1
