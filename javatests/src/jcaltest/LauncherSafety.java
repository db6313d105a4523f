package jcaltest;

import java.nio.charset.StandardCharsets;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * The jcal launcher on a shared machine (docs/live-profiling.md, "On a
 * shared machine"): no SIGQUIT to a process that maps libjvm.so but does
 * not catch it, nor to whoever gets the pid of a JVM that ended (a pid
 * reused inside a private pid namespace); PerfData files that are not the
 * JVM's user's are not believed (two users made for the test); control
 * characters from the target are escaped in what jcal prints; options
 * longer than HotSpot takes are refused in one line; the .attach_pid file
 * is removed when the JVM ends during the attach; a failed first start
 * puts jcal-agent.jar on the boot class path once; another user's socket
 * at the JVM's /tmp/.java_pidN is refused, or removed by root when nothing
 * listens on it.
 * Run by jcaltest.Main (javatests/run.sh).
 */
public final class LauncherSafety {
	private final Runner r;
	private final LauncherKit k;

	private LauncherSafety(Runner r) throws Exception {
		this.r = r;
		k = new LauncherKit(r);
	}

	/** The first control character of s, described, or null when there is none but newlines. */
	private static String control(String s) {
		for (int i = 0; i < s.length(); i++) {
			char c = s.charAt(i);
			if ((c < 0x20 && c != '\n') || (c >= 0x7f && c <= 0x9f))
				return String.format("U+%04X at %d in: %s", (int) c, i, s);
		}
		return null;
	}

	private static void waitFor(Process p, int seconds) throws Exception {
		if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
			p.destroyForcibly();
			p.waitFor(10, TimeUnit.SECONDS);
		}
	}

	/** A process that maps a file named libjvm.so and does not catch SIGQUIT survives start and record. */
	private void testFakeJvm() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "fakejvm");
		Files.copy(Path.of(k.echoLib), dir.resolve("libjvm.so"));
		ProcessBuilder pb = new ProcessBuilder("env", "--default-signal=QUIT", "sleep", "120");
		pb.environment().put("LD_PRELOAD", dir.resolve("libjvm.so").toString());
		Process p = pb.start();
		try {
			Path maps = Path.of("/proc/" + p.pid() + "/maps");
			long end = System.nanoTime() + 20_000_000_000L;
			while (p.isAlive() && !Files.readString(maps).contains("/libjvm.so") && System.nanoTime() < end)
				Thread.sleep(20);
			r.check(Files.readString(maps).contains("/libjvm.so"), "the process maps libjvm.so");
			String sigcgt = Files.readString(Path.of("/proc/" + p.pid() + "/status")).replaceAll("(?s).*SigCgt:\\s*(\\S+).*", "$1");
			r.check((Long.parseLong(sigcgt, 16) & 4) == 0, "sleep does not catch SIGQUIT: SigCgt " + sigcgt);
			k.expectError("start", k.jcal("start", p.pid(), "--lib", k.echoLib, "--timeout", "1"), 4,
					"process " + p.pid() + " (sleep) maps libjvm.so but does not catch SIGQUIT");
			r.check(p.isAlive(), "start: the process is still alive (no SIGQUIT sent)");
			k.expectError("record", k.jcal("record", p.pid(), "-d", "1", "--lib", k.echoLib, "--timeout", "1"), 4,
					"does not catch SIGQUIT");
			r.check(p.isAlive(), "record: the process is still alive (no SIGQUIT sent)");
		} finally {
			p.destroyForcibly();
			p.waitFor(10, TimeUnit.SECONDS);
		}
	}

	/**
	 * record of a JVM that ends, its pid taken by a process that does not
	 * catch SIGQUIT (native-tests/launcher/pid-reuse.sh in a new pid
	 * namespace): jcal exits 3 and the impostor lives.
	 */
	private boolean testPidReuse() throws Exception {
		Path script = Path.of(System.getProperty("user.dir"), "native-tests", "launcher", "pid-reuse.sh");
		if (!System.getProperty("user.name").equals("root") || !Files.isExecutable(Path.of("/usr/bin/unshare"))) {
			System.out.println("     SKIP: needs root and unshare (util-linux) for a private pid namespace");
			return false;
		}
		Path dir = Files.createTempDirectory(r.tmp, "pidreuse");
		Runner.Result res = k.run(List.of("unshare", "--pid", "--fork", "--mount-proc", "sh", script.toString(), r.java,
				r.classes, k.jcal, k.echoLib, dir.toString()), 120);
		r.check(res != null, "pid-reuse.sh did not finish within 120 s");
		if (res == null)
			return true;
		if (res.rc != 0 && res.err.contains("unshare:")) {
			System.out.println("     SKIP: " + res.err.trim());
			return false;
		}
		if (res.out.startsWith("SKIP")) {
			System.out.println("     " + res.out.trim());
			return false;
		}
		r.check(res.out.contains("impostor: alive\n"), "the process that got the JVM's pid got no SIGQUIT: " + res.out + res.err);
		r.check(res.out.contains("record rc=3\n"), "record: exit 3: " + res.out);
		r.check(res.out.matches("(?s).*stderr:\njcal: error: process \\d+ exited during the recording [^\n]*\n"),
				"record: one line saying the JVM exited: " + res.out);
		return true;
	}

	/** Bob's PerfData file for Alice's pid, in a directory of his: not believed by jcal list nor start. */
	private boolean testSpoofedPerfData() throws Exception {
		LauncherKit.Users u = LauncherKit.Users.create();
		if (u == null)
			return false;
		Path fake = Path.of(System.getProperty("user.dir"), "native-tests", "launcher", "hsperfdata-jdk25-noattach");
		Path spoof = Path.of("/tmp", "hsperfdata_" + u.bob + "admin");
		try (u) {
			r.check(k.run(concat(LauncherKit.Users.as(u.bob), "mkdir", "-m", "755", spoof.toString()), 30).rc == 0,
					"bob makes " + spoof);
			try (LauncherKit.Jvm j = k.jvm(r.java, LauncherKit.Users.as(u.alice))) {
				copyAs(u.bob, fake, spoof.resolve("" + j.pid));
				Runner.Result list = k.jcal("list");
				List<String> lines = new ArrayList<>();
				for (String line : list == null ? new String[0] : list.out.split("\n"))
					if (line.startsWith(j.pid + " "))
						lines.add(line);
				r.check(lines.size() == 1 && lines.get(0).matches(j.pid + " +" + u.alice + " .*" + LauncherKit.HOLD),
						"root's list: one line for alice's JVM, as hers: " + lines);
				r.check(!lines.isEmpty() && !lines.get(0).contains("attach disabled"),
						"root's list: alice's JVM is not marked (attach disabled): " + lines);
			}
			try (LauncherKit.Jvm j = k.jvm(r.java, LauncherKit.Users.as(u.alice), "-XX:-UsePerfData")) {
				copyAs(u.bob, fake, spoof.resolve("" + j.pid));
				k.expectOk("start on alice's JVM with bob's PerfData beside", k.jcal("start", j.pid, "--lib", k.echoLib), "started");
				k.expectOk("stop", k.jcal("stop", j.pid), "stopped");
			}
		} finally {
			Runner.deleteTree(spoof.toFile());
		}
		return true;
	}

	private static List<String> concat(List<String> prefix, String... rest) {
		List<String> l = new ArrayList<>(prefix);
		l.addAll(List.of(rest));
		return l;
	}

	private void copyAs(String user, Path from, Path to) throws Exception {
		Runner.Result cp = k.run(concat(LauncherKit.Users.as(user), "cp", from.toString(), to.toString()), 30);
		r.check(cp != null && cp.rc == 0, user + " copies " + from + " to " + to + ": " + (cp == null ? "" : cp.err));
		k.run(concat(LauncherKit.Users.as(user), "chmod", "644", to.toString()), 30);
	}

	/** A jar whose name holds ESC and BEL, a process name with ESC, an -o with ESC: printed escaped. */
	private void testEscapes() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "escapes");
		Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
		Path jar = dir.resolve("evil\u001b]0;owned\u0007\u001b[31m.jar");
		Manifest mf = new Manifest();
		mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
		mf.getMainAttributes().put(Attributes.Name.MAIN_CLASS, LauncherKit.HOLD);
		try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), mf)) {
			out.putNextEntry(new JarEntry("jcaltest/work/Hold.class"));
			out.write(Files.readAllBytes(Path.of(r.classes, "jcaltest", "work", "Hold.class")));
		}
		try (LauncherKit.Jvm j = k.jvm(r.java, List.of(), "-jar", jar.toString())) {
			Runner.Result list = k.jcal("list");
			r.check(list != null && control(list.out) == null, "list: no control character: " + (list == null ? "" : control(list.out)));
			r.check(list != null && list.out.contains("\n" + j.pid + " ") && list.out.contains("evil\\x1b]0;owned\\x07\\x1b[31m.jar"),
					"list: the jar's name, escaped: " + (list == null ? "" : list.out));
			Runner.Result start = k.jcal("start", j.pid, "--lib", k.echoLib, "-o", "x\u001b[2Jy.bin");
			r.check(start != null && start.rc == 0 && control(start.out) == null && start.out.contains("x\\x1b[2Jy.bin"),
					"the agent's reply, escaped: " + (start == null ? "" : start.out + start.err));
			k.expectOk("stop", k.jcal("stop", j.pid), "stopped");
		}
		Path sleep = dir.resolve("sl\u001b[2J");
		Files.copy(Path.of("/bin/sleep").toRealPath(), sleep);
		Files.setPosixFilePermissions(sleep, PosixFilePermissions.fromString("rwxr-xr-x"));
		Process p = new ProcessBuilder(sleep.toString(), "60").start();
		try {
			Runner.Result st = k.jcal("status", p.pid(), "--lib", k.echoLib);
			k.expectError("status of a process named with ESC", st, 4, "process " + p.pid() + " (sl\\x1b[2J) is not a JVM");
			r.check(st != null && control(st.err) == null, "the error line: no control character: " + (st == null ? "" : control(st.err)));
		} finally {
			p.destroyForcibly();
			p.waitFor(10, TimeUnit.SECONDS);
		}
	}

	/**
	 * HotSpot takes at most 1,024 bytes per attach argument: options of
	 * exactly that pass whole, one byte more is refused in one line before
	 * anything is sent, and so is a library path that long.
	 */
	private void testLongOptions() throws Exception {
		/* "start" ",include=" N ",reply=/tmp/jcal-reply-XXXXXX/reply" */
		int fits = 1024 - 5 - 9 - 35;
		try (LauncherKit.Jvm j = k.jvm(r.java, List.of())) {
			Runner.Result ok = k.jcal("start", j.pid, "--lib", k.echoLib, "include=" + "a".repeat(fits));
			k.expectOk("1,024 bytes of options", ok, "started");
			String echoed = ok == null ? "" : ok.out.replaceAll("(?s).*options: ([^\n]*)\n.*", "$1");
			r.check(echoed.length() == 1024 && echoed.startsWith("start,include=aaa"),
					"the agent got all 1,024 bytes: " + echoed.length() + " " + echoed);
			k.expectOk("stop", k.jcal("stop", j.pid), "stopped");
			k.expectError("1,025 bytes of options", k.jcal("start", j.pid, "include=" + "a".repeat(fits + 1)), 2,
					"the agent options are 1025 bytes");
			k.expectError("1,259 bytes of include=", k.jcal("start", j.pid, "include=" + "b".repeat(1259)), 2,
					"HotSpot's attach protocol takes at most 1024 bytes");
			k.expectOk("nothing was sent", k.jcal("status", j.pid), "recording: no\nended: stopped by stop");
		}
		try (LauncherKit.Jvm j = k.jvm(r.java, List.of())) {
			Path deep = r.tmp;
			while (deep.toString().length() <= 1024)
				deep = deep.resolve("d".repeat(200));
			Files.createDirectories(deep);
			for (String f : List.of("libjcal.so", "jcal-agent.jar", "jcal-calibrator.jar"))
				Files.copy(Path.of(k.echoLib).resolveSibling(f), deep.resolve(f));
			k.expectError("a library path over 1,024 bytes", k.jcal("start", j.pid, "--lib", deep.resolve("libjcal.so")), 10,
					"HotSpot's attach protocol takes at most 1024 bytes");
		}
	}

	/** The JVM ends while jcal waits for its socket: the .attach_pid file is removed all the same. */
	private void testTriggerRemoved() throws Exception {
		try (LauncherKit.Jvm j = k.jvm(r.java, List.of(), "-XX:+DisableAttachMechanism", "-XX:-UsePerfData")) {
			Path err = r.tmp.resolve("trigger.err");
			Process jc = new ProcessBuilder(k.jcal, "start", "" + j.pid, "--lib", k.echoLib, "--timeout", "60")
					.redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile()).start();
			long end = System.nanoTime() + 30_000_000_000L;
			while (!j.stdout().contains("Full thread dump") && jc.isAlive() && System.nanoTime() < end)
				Thread.sleep(20);
			Path trigger = j.dir.resolve(".attach_pid" + j.pid);
			r.check(Files.exists(trigger), "the trigger file is there while jcal waits: " + trigger);
			Files.writeString(j.go, "");
			r.check(j.p.waitFor(20, TimeUnit.SECONDS), "the JVM ended");
			waitFor(jc, 30);
			String text = Files.readString(err, StandardCharsets.UTF_8);
			r.check(jc.exitValue() == 3 && text.matches("jcal: error: process " + j.pid + " exited[^\n]*\n"),
					"jcal: exit 3 and one line: " + jc.exitValue() + " " + text);
			r.check(!Files.exists(trigger) && !Files.exists(Path.of("/tmp/.attach_pid" + j.pid)),
					"no .attach_pid" + j.pid + " left behind");
		}
	}

	/**
	 * A socket of another user at the JVM's /tmp/.java_pidN: a listening one is refused; one nothing
	 * listens on (a killed process with the same pid left it, and the JVM, running as another user,
	 * cannot replace it) is removed by root, and the attach works; a non-root jcal says what to do.
	 */
	private boolean testStaleSocket() throws Exception {
		if (!System.getProperty("user.name").equals("root") || !Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
			System.out.println("     SKIP: needs root and setpriv (util-linux) to run a JVM as nobody");
			return false;
		}
		List<String> asNobody = List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups");
		try (LauncherKit.Jvm j = k.jvm(r.java, asNobody)) {
			Path sock = Path.of("/tmp/.java_pid" + j.pid);
			r.check(!Files.exists(sock, LinkOption.NOFOLLOW_LINKS), "no socket before the test: " + sock);
			try {
				try (ServerSocketChannel live = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
					live.bind(UnixDomainSocketAddress.of(sock));
					k.expectError("root's listening socket", k.jcal("start", j.pid, "--lib", k.echoLib, "--timeout", "5"),
							11, sock + " is a socket of uid 0, not of the JVM's user");
				}
				r.check(Files.exists(sock, LinkOption.NOFOLLOW_LINKS), "closing the listener leaves its file: " + sock);
				k.expectError("nobody's jcal, root's stale socket",
						k.jcal(asNobody, "start", j.pid, "--lib", k.echoLib, "--timeout", "5"), 11,
						"remove it as root or as its owner");
				k.expectOk("root: start over the stale socket", k.jcal("start", j.pid, "--lib", k.echoLib), "started");
				Object owner = Files.getAttribute(sock, "unix:uid", LinkOption.NOFOLLOW_LINKS);
				r.check(!owner.equals(0), "the socket is the JVM's now, not root's: uid " + owner);
				k.expectOk("root: stop", k.jcal("stop", j.pid), "stopped");
			} finally {
				if (Files.exists(sock, LinkOption.NOFOLLOW_LINKS)
						&& Files.getAttribute(sock, "unix:uid", LinkOption.NOFOLLOW_LINKS).equals(0))
					Files.delete(sock);
			}
		}
		return true;
	}

	/** A first start that fails puts jcal-agent.jar on the boot class path once, not at each try. */
	private boolean testBootJarOnce() throws Exception {
		byte[] so = Files.readAllBytes(Path.of(r.agent));
		if (!new String(so, StandardCharsets.ISO_8859_1).contains("Agent_OnAttach")) {
			System.out.println("     SKIP: " + r.agent + " has no Agent_OnAttach yet");
			return false;
		}
		for (String java : k.javas) {
			Path log = r.tmp.resolve("classload-" + System.nanoTime() + ".log");
			try (LauncherKit.Jvm j = k.jvm(java, List.of(), "-XX:+EnableDynamicAgentLoading",
					"-Xlog:class+load=info:file=" + log)) {
				for (int i = 0; i < 3; i++) {
					Runner.Result bad = k.jcal("start", j.pid, "--lib", r.agent, "-o", "/nonexistent/dir/x.bin");
					r.check(bad != null && bad.rc == 1, java + ": a start that cannot write its file: exit 1: "
							+ (bad == null ? "" : bad.rc + " " + bad.err));
				}
				Runner.Result ok = k.jcal("start", j.pid, "-o", r.tmp.resolve("once-" + j.pid + ".bin"));
				r.check(ok != null && ok.rc == 0, java + ": then a start that works: " + (ok == null ? "" : ok.rc + " " + ok.err));
				k.jcal("stop", j.pid);
				long opened = Files.readAllLines(log).stream().filter(l -> l.contains("opened:") && l.contains("jcal-agent.jar")).count();
				r.check(opened == 1, java + ": jcal-agent.jar put on the boot class path once, not " + opened + " times");
				long warned = j.stderr().lines().filter(l -> l.contains("bootstrap classpath has been appended")).count();
				r.check(warned <= 1, java + ": at most one class-sharing warning, not " + warned);
			}
		}
		return true;
	}

	/** The suite's tests, in the order jcaltest.Main runs them. */
	static Runner.Tests tests(Runner r) {
		LauncherSafety s;
		try {
			s = new LauncherSafety(r);
		} catch (Exception e) {
			throw new IllegalStateException(e);
		}
		return new Runner.Tests()
				.add("launcher-fake-jvm", s::testFakeJvm)
				.addSkippable("launcher-pid-reuse", s::testPidReuse)
				.addSkippable("launcher-spoofed-perfdata", s::testSpoofedPerfData)
				.add("launcher-escapes", s::testEscapes)
				.add("launcher-long-options", s::testLongOptions)
				.add("launcher-trigger-removed", s::testTriggerRemoved)
				.addSkippable("launcher-stale-socket", s::testStaleSocket)
				.addSkippable("launcher-boot-jar-once", s::testBootJarOnce);
	}
}
