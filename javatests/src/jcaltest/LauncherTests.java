package jcaltest;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The jcal launcher (build/jcal) against real processes: each error it
 * names (no such process, not a JVM, another user's JVM, attach disabled,
 * no attach socket within the timeout, library or jars missing) with its
 * exit code and one "jcal: error:" line, and no SIGQUIT ever reaching a
 * process that could die of it; jcal list; the command protocol (start,
 * status, stop, dump, record, already recording, not recording, agent
 * errors) against the stand-in agent build/launcher-test/libjcal.so
 * (native-tests/launcher/echo_agent.c) on every JDK at hand; and the same
 * round trip against libjcal.so itself once it has Agent_OnAttach.
 * Every process runs under a timeout and is ended by the test.
 * Run by jcaltest.Main (javatests/run.sh).
 */
public final class LauncherTests {
	private final Runner r;
	private final LauncherKit k;
	private final String jcal, echoLib;
	private final List<String> javas;

	private LauncherTests(Runner r) throws Exception {
		this.r = r;
		k = new LauncherKit(r);
		jcal = k.jcal;
		echoLib = k.echoLib;
		javas = k.javas;
	}

	private Runner.Result run(List<String> cmd, int seconds) throws Exception {
		return k.run(cmd, seconds);
	}

	private Runner.Result jcal(List<String> prefix, Object... args) throws Exception {
		return k.jcal(prefix, args);
	}

	private Runner.Result jcal(Object... args) throws Exception {
		return k.jcal(args);
	}

	private void expectError(String what, Runner.Result res, int rc, String contains) {
		k.expectError(what, res, rc, contains);
	}

	private void expectOk(String what, Runner.Result res, String outContains) {
		k.expectOk(what, res, outContains);
	}

	/* ---- the tests ---- */

	private void testHelp() throws Exception {
		Runner.Result h = jcal("--help");
		expectOk("--help", h, "Exit codes:");
		for (int code = 0; code <= 11; code++)
			r.check(h != null && h.out.matches("(?s).*\n  " + code + " +\\S.*"), "--help lists exit code " + code);
		expectOk("--version", jcal("--version"), "jcal ");
		expectError("unknown command", jcal("frobnicate"), 2, "unknown command 'frobnicate'");
		expectError("record without -d", jcal("record", "1"), 2, "record needs -d DURATION");
		expectError("reply= given", jcal("start", "1", "reply=/tmp/x"), 2, "reply= is jcal's own");
	}

	private void testNoProcess() throws Exception {
		Process t = new ProcessBuilder("true").start();
		t.waitFor(10, TimeUnit.SECONDS);
		long pid = t.pid();
		r.check(!Files.exists(Path.of("/proc/" + pid)), "pid " + pid + " is free again");
		expectError("status of a finished pid", jcal("status", pid), 3, "no such process " + pid);
		expectError("start on a finished pid", jcal("start", pid, "--lib", echoLib), 3, "no such process");
	}

	/** A process that is not a JVM gets no SIGQUIT (it would die of it). */
	private void testNotJvm() throws Exception {
		Process sleep = new ProcessBuilder("sleep", "60").start();
		try {
			for (String cmd : List.of("start", "status", "stop")) {
				expectError(cmd + " on sleep", jcal(cmd, sleep.pid(), "--lib", echoLib), 4,
						"process " + sleep.pid() + " (sleep) is not a JVM");
				r.check(sleep.isAlive(), cmd + ": sleep must still be alive (no SIGQUIT sent)");
			}
		} finally {
			sleep.destroyForcibly();
			sleep.waitFor(10, TimeUnit.SECONDS);
		}
	}

	/** -XX:+DisableAttachMechanism, seen in the JVM's PerfData: refused before any SIGQUIT. */
	private void testAttachDisabled() throws Exception {
		for (String java : javas)
			try (LauncherKit.Jvm j = k.jvm(java, List.of(), "-XX:+DisableAttachMechanism")) {
				expectError(java + ": start", jcal("start", j.pid, "--lib", echoLib), 6,
						"-XX:+DisableAttachMechanism");
				Runner.Result list = jcal("list");
				r.check(list != null && list.out.matches("(?s).*\n" + j.pid + " .*(attach disabled).*"),
						java + ": list marks it: " + (list == null ? "" : list.out));
				r.check(j.p.isAlive() && !j.stdout().contains("Full thread dump"),
						java + ": the JVM got no SIGQUIT (no thread dump): " + j.stdout());
			}
	}

	/** No PerfData either: jcal can only wait for the socket, and says so after --timeout. */
	private void testAttachTimeout() throws Exception {
		try (LauncherKit.Jvm j = k.jvm(r.java, List.of(), "-XX:+DisableAttachMechanism", "-XX:-UsePerfData")) {
			long t0 = System.nanoTime();
			Runner.Result res = jcal("start", j.pid, "--lib", echoLib, "--timeout", "2");
			double s = (System.nanoTime() - t0) / 1e9;
			expectError("no socket", res, 7, "did not open its attach socket");
			r.check(s >= 1.9 && s < 20, "gave up after its 2 s timeout, not " + s + " s");
			r.check(j.p.isAlive(), "the JVM is still alive");
			r.check(!Files.exists(j.dir.resolve(".attach_pid" + j.pid)) && !Files.exists(Path.of("/tmp/.attach_pid" + j.pid)),
					"the .attach_pid trigger file is removed");
		}
	}

	private void testMissingLibrary() throws Exception {
		try (LauncherKit.Jvm j = k.jvm(r.java, List.of())) {
			expectError("--lib /nonexistent", jcal("start", j.pid, "--lib", "/nonexistent/libjcal.so"), 10,
					"/nonexistent/libjcal.so (--lib): No such file or directory");
			Path dir = Files.createTempDirectory(r.tmp, "nojars");
			Files.copy(Path.of(echoLib), dir.resolve("libjcal.so"));
			expectError("no jars beside it", jcal("start", j.pid, "--lib", dir.resolve("libjcal.so")), 10,
					"jcal-agent.jar");
			Runner.Result res = run(List.of("env", "JCAL_LIB=/nonexistent/l.so", jcal, "start", "" + j.pid), 60);
			expectError("$JCAL_LIB", res, 10, "/nonexistent/l.so ($JCAL_LIB)");
			String maps = Files.readString(Path.of("/proc/" + j.pid + "/maps"));
			r.check(!maps.contains("libjcal.so"), "nothing was loaded into the JVM");
		}
	}

	private void testList() throws Exception {
		for (String java : javas)
			try (LauncherKit.Jvm j = k.jvm(java, List.of())) {
				Runner.Result jv = run(List.of(java, "-XshowSettings:properties", "-version"), 30);
				String version = jv == null ? "?" : jv.err.replaceAll("(?s).*java\\.version = (\\S+).*", "$1");
				Runner.Result list = jcal("list");
				expectOk(java + ": list", list, "PID");
				boolean found = false;
				for (String line : list == null ? new String[0] : list.out.split("\n")) {
					String[] f = line.trim().split("\\s+");
					if (f.length >= 4 && f[0].equals("" + j.pid)) {
						found = true;
						r.check(f[1].equals(System.getProperty("user.name")) && f[2].equals(version)
								&& f[3].equals(LauncherKit.HOLD), java + ": list line: " + line + " (JDK " + version + ")");
					}
				}
				r.check(found, java + ": list shows pid " + j.pid + ": " + (list == null ? "" : list.out));
			}
	}

	/** The command protocol against the stand-in agent, on every JDK at hand. */
	private void testProtocol() throws Exception {
		for (String java : javas)
			try (LauncherKit.Jvm j = k.jvm(java, List.of(), "-XX:+EnableDynamicAgentLoading")) {
				String w = java + ": ";
				String cwd = r.tmp.toString();
				expectOk(w + "status, no agent", jcal("status", j.pid, "--lib", echoLib), "recording: no\nagent: not loaded");
				expectError(w + "stop, no agent", jcal("stop", j.pid, "--lib", echoLib), 9, "has no jcal agent loaded");
				expectOk(w + "start", jcal("start", j.pid, "--lib", echoLib, "-o", "rel.bin", "metric=tsc"),
						"options: start,out=" + cwd + "/rel.bin,metric=tsc,reply=/tmp/jcal-reply-");
				/* from here on, the library the JVM maps is found without --lib */
				expectOk(w + "status", jcal("status", j.pid), "recording: yes");
				Runner.Result again = jcal("start", j.pid);
				r.check(again != null && again.rc == 8 && again.err.startsWith("jcal: error: already recording"),
						w + "second start: exit 8 and the agent's line: " + (again == null ? "" : again.rc + " " + again.err));
				expectOk(w + "dump", jcal("dump", j.pid, "-o", "/abs/snap.bin"), "options: dump,out=/abs/snap.bin,reply=");
				expectOk(w + "stop", jcal("stop", j.pid), "stopped");
				Runner.Result stop2 = jcal("stop", j.pid);
				r.check(stop2 != null && stop2.rc == 9, w + "stop when stopped: exit 9: " + (stop2 == null ? "" : stop2.err));
				Runner.Result bad = jcal("start", j.pid, "bogus=1");
				r.check(bad != null && bad.rc == 1 && bad.err.startsWith("jcal: error: bad option"),
						w + "agent error: exit 1 and its line: " + (bad == null ? "" : bad.rc + " " + bad.err));
				Runner.Result rec = jcal("record", j.pid, "-d", "1s", "-o", "r.bin");
				expectOk(w + "record", rec, "recording: no\nended: duration reached");
				r.check(rec != null && rec.out.contains("options: start,out=" + cwd + "/r.bin,duration=1s,reply=")
						&& rec.out.endsWith("jcal: recording of process " + j.pid + " written to " + cwd + "/r.bin\n"),
						w + "record's output: " + (rec == null ? "" : rec.out));
				r.check(j.p.isAlive(), w + "the JVM is still alive");
				/* the directories the stand-in agent was told to answer into
				 * (other jcal runs of the machine may have theirs in /tmp now) */
				List<String> left = k.replyDirsLeft();
				r.check(k.replyDirsSeen() >= 5 && left.isEmpty(), w + "reply directories removed: " + left + " (of " + k.replyDirsSeen() + ")");
			}
	}

	/** record stops the recording when it gets SIGTERM. */
	private void testRecordInterrupted() throws Exception {
		try (LauncherKit.Jvm j = k.jvm(r.java, List.of())) {
			Path out = Files.createTempFile(r.tmp, "rec", ".txt");
			Process rec = new ProcessBuilder(jcal, "record", "" + j.pid, "-d", "60", "--lib", echoLib)
					.redirectOutput(out.toFile()).redirectErrorStream(true).start();
			long end = System.nanoTime() + 20_000_000_000L;
			while (!Files.readString(out).contains("started") && rec.isAlive() && System.nanoTime() < end)
				Thread.sleep(20);
			new ProcessBuilder("kill", "-TERM", "" + rec.pid()).start().waitFor(10, TimeUnit.SECONDS);
			boolean done = rec.waitFor(20, TimeUnit.SECONDS);
			if (!done)
				rec.destroyForcibly();
			String text = Files.readString(out);
			r.check(done && rec.exitValue() == 0, "record ends with exit 0 after SIGTERM: " + text);
			r.check(text.contains("stopping the recording of process " + j.pid) && text.contains("ended: stopped by stop"),
					"record sent stop: " + text);
		}
	}

	/** record of a JVM that exits before the duration: exit 3, not a hang or a protocol error. */
	private void testRecordJvmExits() throws Exception {
		try (LauncherKit.Jvm j = k.jvm(r.java, List.of())) {
			Path out = Files.createTempFile(r.tmp, "rec", ".txt"), err = Files.createTempFile(r.tmp, "rec", ".err");
			Process rec = new ProcessBuilder(jcal, "record", "" + j.pid, "-d", "2", "--lib", echoLib)
					.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
			long end = System.nanoTime() + 20_000_000_000L;
			while (!Files.readString(out).contains("started") && rec.isAlive() && System.nanoTime() < end)
				Thread.sleep(20);
			Files.writeString(j.go, "");
			r.check(j.p.waitFor(10, TimeUnit.SECONDS), "the JVM ended");
			boolean done = rec.waitFor(30, TimeUnit.SECONDS);
			if (!done)
				rec.destroyForcibly();
			String text = Files.readString(err);
			r.check(done && rec.exitValue() == 3 && text.equals("jcal: error: process " + j.pid
					+ " exited during the recording (the agent finishes its file at VM death)\n"),
					"record: exit 3 and one line: " + (done ? rec.exitValue() : "hung") + " " + text);
		}
	}

	/** Another user's JVM: refused for a non-root user; root becomes that user to attach. */
	private boolean testOtherUser() throws Exception {
		if (!System.getProperty("user.name").equals("root") || !Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
			System.out.println("     SKIP: needs root and setpriv (util-linux) to run a JVM as nobody");
			return false;
		}
		List<String> asNobody = List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups");
		List<String> asDaemon = List.of("setpriv", "--reuid=daemon", "--regid=daemon", "--clear-groups");
		try (LauncherKit.Jvm j = k.jvm(r.java, asNobody)) {
			for (String cmd : List.of("status", "start"))
				expectError(cmd + " as daemon", jcal(asDaemon, cmd, j.pid, "--lib", echoLib), 5,
						"process " + j.pid + " belongs to user nobody");
			Runner.Result list = jcal("list");
			r.check(list != null && list.out.matches("(?s).*\n" + j.pid + " +nobody .*"), "root's list shows nobody's JVM: "
					+ (list == null ? "" : list.out));
			Runner.Result mine = jcal(asDaemon, "list");
			r.check(mine != null && mine.rc == 0 && !mine.out.contains("\n" + j.pid + " "),
					"daemon's list does not show it: " + (mine == null ? "" : mine.out));
			expectOk("root: start", jcal("start", j.pid, "--lib", echoLib), "started");
			expectOk("root: status", jcal("status", j.pid), "recording: yes");
			expectOk("root: stop", jcal("stop", j.pid), "stopped");
		}
		return true;
	}

	/** libjcal.so itself, once it has Agent_OnAttach. */
	private boolean testRealAgent() throws Exception {
		byte[] so = Files.readAllBytes(Path.of(r.agent));
		if (!new String(so, StandardCharsets.ISO_8859_1).contains("Agent_OnAttach")) {
			System.out.println("     SKIP: " + r.agent + " has no Agent_OnAttach yet");
			return false;
		}
		for (String java : javas)
			try (LauncherKit.Jvm j = k.jvm(java, List.of(), "-XX:+EnableDynamicAgentLoading")) {
				String w = java + ": ";
				expectOk(w + "status, no agent", jcal("status", j.pid, "--lib", r.agent), "recording: no");
				Path t = r.tmp.resolve("live-" + j.pid + ".bin");
				Runner.Result start = jcal("start", j.pid, "--lib", r.agent, "-o", t);
				r.check(start != null && start.rc == 0, w + "start: " + (start == null ? "" : start.rc + " " + start.err));
				Runner.Result st = jcal("status", j.pid);
				r.check(st != null && st.rc == 0 && st.out.startsWith("recording: yes"),
						w + "status: " + (st == null ? "" : st.out + st.err));
				Runner.Result again = jcal("start", j.pid, "-o", r.tmp.resolve("other.bin"));
				r.check(again != null && again.rc == 8, w + "second start: exit 8: " + (again == null ? "" : again.rc + " " + again.err));
				Runner.Result stop = jcal("stop", j.pid);
				r.check(stop != null && stop.rc == 0, w + "stop: " + (stop == null ? "" : stop.rc + " " + stop.err));
				Runner.Result after = jcal("status", j.pid);
				r.check(after != null && after.out.startsWith("recording: no"), w + "status after stop: " + (after == null ? "" : after.out));
				Runner.Result stop2 = jcal("stop", j.pid);
				r.check(stop2 != null && stop2.rc == 9, w + "stop when stopped: exit 9: " + (stop2 == null ? "" : stop2.rc + " " + stop2.err));
				r.check(Files.exists(t), w + "the trace file exists: " + t);
				/* record: the agent ends it at its duration, jcal-post reads the file */
				Path rec = r.tmp.resolve("rec-" + j.pid + ".bin");
				Runner.Result res = jcal("record", j.pid, "-d", "1s", "-o", rec);
				r.check(res != null && res.rc == 0 && res.out.contains("recording: no")
						&& res.out.endsWith("written to " + rec + "\n"), w + "record: " + (res == null ? "" : res.rc + " " + res.out + res.err));
				Runner.Result sum = r.post(rec, "--report", "summary");
				r.check(sum.rc == 0, w + "jcal-post reads the recording: " + sum.err);
				r.check(j.p.isAlive(), w + "the JVM is still alive");
			}
		return true;
	}

	/** The suite's tests, in the order jcaltest.Main runs them. */
	static Runner.Tests tests(Runner r) {
		LauncherTests s;
		try {
			s = new LauncherTests(r);
		} catch (Exception e) {
			throw new IllegalStateException(e);
		}
		return new Runner.Tests()
				.add("launcher-help", s::testHelp)
				.add("launcher-no-process", s::testNoProcess)
				.add("launcher-not-jvm", s::testNotJvm)
				.add("launcher-attach-disabled", s::testAttachDisabled)
				.add("launcher-attach-timeout", s::testAttachTimeout)
				.add("launcher-missing-library", s::testMissingLibrary)
				.add("launcher-list", s::testList)
				.add("launcher-protocol", s::testProtocol)
				.add("launcher-record-interrupted", s::testRecordInterrupted)
				.add("launcher-record-jvm-exits", s::testRecordJvmExits)
				.addSkippable("launcher-other-user", s::testOtherUser)
				.addSkippable("launcher-real-agent", s::testRealAgent);
	}
}
