#!/bin/sh
# check-exports.sh LIB - libjcal.so exports its entry points only
# (agent/libjcal.map): `nm -D --defined-only` must list exactly
# Agent_OnAttach, Agent_OnLoad, Agent_OnUnload, JNI_OnLoad and the three
# JavaCritical_ probes HotSpot 17 finds by name, so that nothing internal
# collides with another library in the JVM (docs/agent-internals.md,
# "Files"). Prints "ok" or "FAIL: ..."; "SKIP" without nm.
set -u
lib=${1:-build/libjcal.so}
command -v nm >/dev/null 2>&1 || { echo "SKIP: nm not found (binutils)"; exit 0; }
[ -f "$lib" ] || { echo "FAIL: $lib not found"; exit 1; }
want="Agent_OnAttach Agent_OnLoad Agent_OnUnload JNI_OnLoad JavaCritical_jcal_TrackerNatives_enter1 JavaCritical_jcal_TrackerNatives_exit1 JavaCritical_jcal_TrackerNatives_exitThrow1"
got=$(nm -D --defined-only "$lib" | awk '{ print $NF }' | sort | tr '\n' ' ' | sed 's/ $//')
if [ "$got" = "$want" ]; then
	echo "ok   exports of $lib: $got"
	exit 0
fi
echo "FAIL: $lib exports '$got', expected '$want'"
exit 1
