# tomcat-lib.sh - sourced by bench/tomcat-overhead.sh, tomcat-windows.sh and
# tomcat-first.sh:
# checks (built, root), Debian's Tomcat 10 with its examples and ab
# installed when missing, a scratch directory removed at exit, and
# tomcat_start (a fresh Tomcat as user tomcat, as Debian's service runs it,
# without any agent, once no other server answers on its port: TPID, PID), rate N (ab's requests/s of N requests, 4 at
# a time, keep-alive), took N (the seconds they took) and cpu (Tomcat's
# CPU time so far, in clock ticks). NAME: the
# sourcing script's name for its messages.
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}
URL=http://127.0.0.1:8080/examples/servlets/servlet/HelloWorldExample
[ -x build/jcal ] && [ -x build/jcal-post ] || {
	echo "$NAME: build first: make all" >&2
	exit 1
}
[ "$(id -u)" = 0 ] || {
	echo "$NAME: run as root (Tomcat runs as user tomcat)" >&2
	exit 1
}
if ! dpkg -s tomcat10 tomcat10-examples apache2-utils >/dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q tomcat10 tomcat10-examples apache2-utils >/dev/null
fi
OUT=$(mktemp -d /tmp/jcal-tomcat.XXXXXX)
chmod 755 "$OUT"
TPID=
cleanup() {
	[ -n "$TPID" ] && kill "$TPID" 2>/dev/null && wait "$TPID" 2>/dev/null
	rm -rf "$OUT"
}
trap cleanup EXIT

tomcat_start() {
	# another Tomcat on the port (a run of another user of the machine, or
	# the last one still going down) would answer ab in this one's place
	for i in $(seq 300); do
		curl -s -o /dev/null "$URL" || break
		[ "$i" = 300 ] && {
			echo "$NAME: another server answers on $URL: stop it first" >&2
			exit 1
		}
		sleep 1
	done
	runuser -u tomcat -- env JAVA_HOME="$JAVA_HOME" CATALINA_HOME=/usr/share/tomcat10 \
		CATALINA_BASE=/var/lib/tomcat10 CATALINA_TMPDIR=/var/cache/tomcat10 \
		CATALINA_OPTS="-Djcal.bench=$OUT" \
		/usr/share/tomcat10/bin/catalina.sh run >"$OUT/catalina.log" 2>&1 &
	TPID=$!
	for _ in $(seq 100); do
		curl -sf -o /dev/null "$URL" && break
		sleep 0.2
	done
	# this run's JVM, not another Tomcat of user tomcat
	PID=$(pgrep -u tomcat -f "jcal.bench=$OUT" | head -1)
}

tomcat_stop() {
	kill "$TPID"
	wait "$TPID" 2>/dev/null || true
	TPID=
}

# cpu: Tomcat's CPU time so far (user + system, in clock ticks)
cpu() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
rate() { ab -q -k -n "$1" -c 4 "$URL" 2>/dev/null | awk '/^Requests per second/ {printf "%.0f", $4}'; }
took() { ab -q -k -n "$1" -c 4 "$URL" 2>/dev/null | awk '/^Time taken for tests/ {print $5}'; }
