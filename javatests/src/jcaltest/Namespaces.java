package jcaltest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * jcal against JVMs that do not share jcal's files or users: a JVM with a
 * private /tmp (systemd's PrivateTmp=, made here with unshare --mount and
 * a tmpfs), one in a container (unshare --mount --pid: its own /tmp and
 * pids, the JVM pid 1 of its namespace), each on every JDK at hand, and a
 * JVM of another user recorded from a directory only root can write.
 * jcal list shows them, start/stop and record reach them, and the
 * recording appears at the path named, in jcal's namespace, with the
 * handler's calls exact. Skipped with the reason where unshare or useradd
 * is not permitted. Run by jcaltest.Main (javatests/run.sh).
 */
public final class Namespaces {
	private static final String W = "jcaltest.work.";
	private static final String HANDLE = W + "LiveServer$Work.handle";
	private final Runner r;
	private final LauncherKit k;

	private Namespaces(Runner r) throws Exception {
		this.r = r;
		this.k = new LauncherKit(r);
	}

	private long calls(Path t, String method) throws Exception {
		Long n = r.flatCalls(t, "").get(method);
		return n == null ? 0 : n;
	}

	/** null when unshare can make these namespaces here, else why not. */
	private String unshareRefused(List<String> unshare) throws Exception {
		List<String> cmd = new ArrayList<>(unshare);
		cmd.addAll(List.of("sh", "-c", "mount -t tmpfs tmpfs /tmp"));
		Runner.Result res = r.runFor(r.tmp.toFile(), cmd, Map.of(), null, 30);
		if (res == null)
			return String.join(" ", unshare) + " did not finish";
		return res.rc == 0 ? null : String.join(" ", unshare) + " is not permitted here: " + res.err.trim();
	}

	/*
	 * What the JVM behind unshare loads, at paths its tmpfs /tmp does not
	 * hide: the test classes and the agent (libjcal.so and its jars) as they
	 * are, or copies under /var/tmp when the build lies in /tmp (a clone
	 * made there): [classes, library].
	 */
	private String[] seen;

	private String[] visibleBuild() throws Exception {
		if (seen != null)
			return seen;
		Path lib = Path.of(k.jcal).resolveSibling("libjcal.so");
		if (!r.classes.startsWith("/tmp/") && !lib.toString().startsWith("/tmp/"))
			return seen = new String[] { r.classes, lib.toString() };
		Path dir = Files.createTempDirectory(Path.of("/var/tmp"), "jcalns");
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			try (Stream<Path> all = Files.walk(dir)) {
				for (Path q : all.sorted(java.util.Comparator.reverseOrder()).toList())
					Files.deleteIfExists(q);
			} catch (java.io.IOException e) {
				System.err.println("could not remove " + dir + ": " + e);
			}
		}));
		Path classes = dir.resolve("classes");
		try (Stream<Path> all = Files.walk(Path.of(r.classes))) {
			for (Path from : all.toList()) {
				Path to = classes.resolve(Path.of(r.classes).relativize(from).toString());
				if (Files.isDirectory(from))
					Files.createDirectories(to);
				else
					Files.copy(from, to);
			}
		}
		for (String f : List.of("libjcal.so", "jcal-agent.jar", "jcal-calibrator.jar"))
			Files.copy(lib.resolveSibling(f), dir.resolve(f));
		System.out.println("      (the build is in /tmp, which the namespace hides: its classes and agent copied to " + dir + ")");
		return seen = new String[] { classes.toString(), dir.resolve("libjcal.so").toString() };
	}

	/** A LiveServer run by java behind unshare, with a tmpfs of its own on /tmp. */
	private static List<String> inNamespace(List<String> unshare, String java, String classes) {
		List<String> cmd = new ArrayList<>(unshare);
		cmd.addAll(List.of("sh", "-c", "mount -t tmpfs tmpfs /tmp && exec \"$0\" \"$@\""));
		cmd.addAll(Live.Server.command(java, classes));
		return cmd;
	}

	/** The JVM a server process runs: itself, or unshare's child when it forked. */
	private static long jvmPid(Live.Server s) throws Exception {
		long end = System.nanoTime() + 10_000_000_000L;
		while (System.nanoTime() < end) {
			String exe = Files.readSymbolicLink(Path.of("/proc/" + s.pid + "/exe")).toString();
			if (exe.endsWith("/java"))
				return s.pid;
			List<ProcessHandle> kids = s.p.children().toList();
			for (ProcessHandle h : kids)
				if (h.info().command().orElse("").endsWith("/java"))
					return h.pid();
			Thread.sleep(50);
		}
		throw new IllegalStateException("no JVM under process " + s.pid);
	}

	private Runner.Result jcal(Object... args) throws Exception {
		return k.jcal(args);
	}

	/** What the JVM's own /tmp holds of jcal's: stage and reply directories. */
	private static List<String> leftInTmp(long pid) throws Exception {
		try (Stream<Path> s = Files.list(Path.of("/proc/" + pid + "/root/tmp"))) {
			return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("jcal-")).toList();
		}
	}

	/**
	 * One JVM behind unshare per JDK: listed (with its own pid when it has
	 * one), a start/stop of exactly k requests and a record -d, each file
	 * at the path named.
	 */
	private void recordInNamespace(List<String> unshare, String nsNote) throws Exception {
		for (String java : k.javas) {
			String w = java + ": ";
			Path dir = Files.createTempDirectory(r.tmp, "ns");
			String[] b = visibleBuild();
			try (Live.Server s = new Live.Server(dir.resolve("server.log"), inNamespace(unshare, java, b[0]),
					Map.of())) {
				long pid = jvmPid(s);
				Runner.Result list = jcal("list");
				String line = list == null ? "" : list.out.lines().filter(l -> l.startsWith(pid + " ")).findFirst().orElse("");
				r.check(line.contains(W + "LiveServer") && (nsNote == null || line.endsWith(nsNote)),
						w + "list shows pid " + pid + (nsNote == null ? "" : " with '" + nsNote + "'") + ": "
								+ (list == null ? "" : list.out));
				s.work(300);
				Path out = dir.resolve("ns.bin");
				long t0 = System.nanoTime();
				Runner.Result st = jcal("start", pid, "-o", out, "--lib", b[1]);
				double attach = (System.nanoTime() - t0) / 1e9;
				r.check(st != null && st.rc == 0 && st.out.contains("another mount namespace"),
						w + "start: " + (st == null ? "" : st.rc + " " + st.out + st.err));
				int n = 200;
				s.work(n);
				Runner.Result status = jcal("status", pid);
				r.check(status != null && status.out.startsWith("recording: yes")
						&& status.out.contains(" goes to " + out + " when it is complete"), w + "status: " + (status == null ? "" : status.out));
				Path snap = dir.resolve("snap.bin");
				Runner.Result dump = jcal("dump", pid, "-o", snap);
				r.check(dump != null && dump.rc == 0 && dump.out.endsWith("written to " + snap + "\n") && Files.isRegularFile(snap),
						w + "dump: " + (dump == null ? "" : dump.rc + " " + dump.out + dump.err));
				if (Files.isRegularFile(snap))
					r.check(r.post(snap, "--report", "summary").rc == 0, w + "jcal-post reads the dump");
				Runner.Result stop = jcal("stop", pid);
				r.check(stop != null && stop.rc == 0 && stop.out.endsWith("written to " + out + "\n"),
						w + "stop: " + (stop == null ? "" : stop.rc + " " + stop.out + stop.err));
				r.check(Files.isRegularFile(out), w + "the recording is at " + out);
				if (Files.isRegularFile(out)) {
					r.check(calls(out, HANDLE) == n, w + "handle() calls " + calls(out, HANDLE) + ", sent " + n);
					r.check(calls(out, W + "LiveServer.leaf") == 50L * n, w + "leaf() calls " + calls(out, W + "LiveServer.leaf"));
				}
				Path rec = dir.resolve("rec-%p.bin");
				Runner.Result res = jcal("record", pid, "-d", "1s", "-o", rec, "--lib", b[1]);
				String nspid = nsNote == null ? "" + pid : "1";
				Path recOut = dir.resolve("rec-" + nspid + ".bin");
				r.check(res != null && res.rc == 0 && res.out.endsWith("written to " + recOut + "\n") && Files.isRegularFile(recOut),
						w + "record: " + (res == null ? "" : res.rc + " " + res.out + res.err));
				r.check(leftInTmp(pid).isEmpty(), w + "nothing of jcal's left in the JVM's /tmp: " + leftInTmp(pid));
				System.out.printf("      %s: jcal start took %.2f s%n", java, attach);
			}
		}
	}

	/** systemd's PrivateTmp=: the same files but /tmp. */
	private boolean testPrivateTmp() throws Exception {
		List<String> unshare = List.of("unshare", "--mount");
		String why = unshareRefused(unshare);
		if (why != null) {
			System.out.println("     SKIP: " + why);
			return false;
		}
		recordInNamespace(unshare, null);
		return true;
	}

	/** A container: its own mounts, /tmp and pids; the JVM is pid 1 there. */
	private boolean testContainer() throws Exception {
		List<String> unshare = List.of("unshare", "--mount", "--pid", "--fork", "--mount-proc");
		String why = unshareRefused(unshare);
		if (why != null) {
			System.out.println("     SKIP: " + why);
			return false;
		}
		recordInNamespace(unshare, "(pid 1 in its namespace)");
		return true;
	}

	/**
	 * root records another user's JVM into a directory only root can
	 * write: the recording is there, root's, with exact counts; a first
	 * attach that fails leaves the JVM as it was (no class-sharing warning
	 * from the agent's jar), and the next one works.
	 */
	private boolean testOtherUser() throws Exception {
		try (LauncherKit.Users u = LauncherKit.Users.create()) {
			if (u == null)
				return false;
			Path dir = Files.createTempDirectory(r.tmp, "rootonly");
			Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
			Path pub = Files.createTempDirectory(Path.of("/tmp"), "jcalnspub");
			Files.setPosixFilePermissions(pub, PosixFilePermissions.fromString("rwxrwxrwx"));
			Files.createDirectory(pub.resolve("taken.bin"));
			List<String> cmd = new ArrayList<>(LauncherKit.Users.as(u.alice));
			cmd.addAll(Live.Server.command(r.java, r.classes));
			try (Live.Server s = new Live.Server(dir.resolve("server.log"), cmd, Map.of())) {
				s.work(300);
				Runner.Result bad = jcal("start", s.pid, "-o", pub.resolve("taken.bin"));
				r.check(bad != null && bad.rc != 0 && bad.err.contains("Is a directory"),
						"a start that cannot write fails: " + (bad == null ? "" : bad.rc + " " + bad.err));
				String log = Files.readString(dir.resolve("server.log"));
				r.check(!log.contains("Sharing is only supported"), "the failed attach left the JVM as it was: " + log);
				Runner.Result st0 = jcal("status", s.pid);
				r.check(st0 != null && st0.rc == 0 && st0.out.startsWith("recording: no\nagent: not running in this JVM (its start failed: ")
						&& st0.out.contains("Is a directory"), "status after it says why: " + (st0 == null ? "" : st0.out));

				Path out = dir.resolve("alice.bin");
				Runner.Result st = jcal("start", s.pid, "-o", out);
				r.check(st != null && st.rc == 0 && st.out.contains("runs as " + u.alice + ", which cannot write " + dir),
						"start says why the file is staged: " + (st == null ? "" : st.rc + " " + st.out + st.err));
				Runner.Result on = jcal("status", s.pid);
				r.check(on != null && on.out.startsWith("recording: yes"), "status: " + (on == null ? "" : on.out));
				int n = 150;
				s.work(n);
				Runner.Result stop = jcal("stop", s.pid);
				r.check(stop != null && stop.rc == 0 && stop.out.endsWith("written to " + out + "\n"),
						"stop: " + (stop == null ? "" : stop.rc + " " + stop.out + stop.err));
				r.check(Files.isRegularFile(out) && Files.getOwner(out).getName().equals("root"),
						"the recording is root's file in root's directory: " + out);
				if (Files.isRegularFile(out))
					r.check(calls(out, HANDLE) == n, "handle() calls " + calls(out, HANDLE) + ", sent " + n);

				/* record from root's directory, with its default name */
				Runner.Result rec = r.runFor(dir.toFile(), List.of(k.jcal, "record", "" + s.pid, "-d", "1s"), Map.of(), null, 60);
				Path def = dir.resolve("jcal-" + s.pid + ".bin");
				r.check(rec != null && rec.rc == 0 && Files.isRegularFile(def),
						"record -d 1s from root's directory: " + (rec == null ? "" : rec.rc + " " + rec.out + rec.err));
				try (Stream<Path> left = Files.list(Path.of("/tmp"))) {
					List<Path> stages = left.filter(p -> p.getFileName().toString().startsWith("jcal-out-"))
							.filter(p -> ownedBy(p, u.alice)).toList();
					r.check(stages.isEmpty(), "no stage directory left: " + stages);
				}
			} finally {
				Runner.deleteTree(pub.toFile());
			}
		}
		return true;
	}

	private static boolean ownedBy(Path p, String user) {
		try {
			return Files.getOwner(p).getName().equals(user);
		} catch (Exception e) {
			return false;
		}
	}

	/** The suite's tests, in the order jcaltest.Main runs them. */
	static Runner.Tests tests(Runner r) {
		Namespaces s;
		try {
			s = new Namespaces(r);
		} catch (Exception e) {
			throw new IllegalStateException(e);
		}
		return new Runner.Tests()
				.addSkippable("ns-private-tmp", s::testPrivateTmp)
				.addSkippable("ns-container", s::testContainer)
				.addSkippable("ns-other-user", s::testOtherUser);
	}
}
