package jcaltest;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jcaltest.work.Hold;

/**
 * Two users on one machine: what one user (bob) puts in a sticky directory
 * that everyone may write to must neither hang the other user's (alice's)
 * JVM, nor receive her data, nor make her recording write through his link
 * into her files, nor lose her output (docs/live-profiling.md, "Safe
 * outputs"; common/safe_open.h). The test creates the two users and a
 * directory of mode 1777 of its own (the real /tmp is not used for the
 * outputs), runs bob's commands and alice's JVMs as them (setpriv), and
 * removes the users at the end of each test, also when it fails. Every
 * command has a timeout: a regression that blocks fails the test.
 *
 * Needs root, useradd, userdel and setpriv: SKIP otherwise.
 * Run by jcaltest.Main (javatests/run.sh).
 */
public final class SharedMachine {
	private static final String W = "jcaltest.work.";
	private static final String ALICE = "jcalfiles-alice", BOB = "jcalfiles-bob";
	/** Seconds any JVM or command may take before the test calls it hung. */
	private static final int TIMEOUT = 60;
	private final Runner r;
	/* the build's files the two users run, copied where they can read them */
	private Path bin, classes, lib, jcal;
	/* the current test's directory, its sticky directory and alice's home */
	private Path dir, shared, home;
	private final Map<String, String[]> ids = new HashMap<>();
	private final List<Process> started = new ArrayList<>();

	private SharedMachine(Runner r) {
		this.r = r;
	}

	/* ---- users, directories, commands ---- */

	private static boolean onPath(String cmd) {
		List<String> dirs = new ArrayList<>(Arrays.asList(System.getenv().getOrDefault("PATH", "").split(":")));
		dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
		for (String d : dirs)
			if (!d.isEmpty() && Files.isExecutable(Path.of(d, cmd)))
				return true;
		return false;
	}

	/** Why the tests cannot run here, or null. */
	private String missing() throws Exception {
		Runner.Result id = r.runFor(r.tmp.toFile(), List.of("id", "-u"), Map.of(), null, TIMEOUT);
		if (id == null || !id.out.trim().equals("0"))
			return "not root";
		for (String c : List.of("useradd", "userdel", "setpriv"))
			if (!onPath(c))
				return c + " not found";
		return null;
	}

	/** cmd as root, in the test's directory; its result (checked to have ended). */
	private Runner.Result sh(List<String> cmd) throws Exception {
		Runner.Result res = r.runFor(dir != null ? dir.toFile() : r.tmp.toFile(), cmd, Map.of(), null, TIMEOUT);
		r.check(res != null, "did not end within " + TIMEOUT + " s: " + cmd);
		return res;
	}

	private void must(String... cmd) throws Exception {
		Runner.Result res = sh(List.of(cmd));
		if (res == null || res.rc != 0)
			throw new IllegalStateException(String.join(" ", cmd) + ": " + (res == null ? "hung" : res.err));
	}

	/** cmd run as user (setpriv: the same process, so a timeout kills the command itself). */
	private List<String> as(String user, List<String> cmd) {
		String[] ug = ids.get(user);
		List<String> l = new ArrayList<>(List.of("setpriv", "--reuid=" + ug[0], "--regid=" + ug[1], "--clear-groups",
				"--reset-env", "--"));
		l.addAll(cmd);
		return l;
	}

	private void bob(String... cmd) throws Exception {
		Runner.Result res = sh(as(BOB, List.of(cmd)));
		if (res == null || res.rc != 0)
			throw new IllegalStateException("as " + BOB + ": " + String.join(" ", cmd) + ": "
					+ (res == null ? "hung" : res.err));
	}

	private void createUsers() throws Exception {
		for (String u : List.of(ALICE, BOB)) {
			sh(List.of("userdel", "-f", u)); /* a run that was killed */
			must("useradd", "-M", "-U", "-s", "/usr/sbin/nologin", u);
			String uid = sh(List.of("id", "-u", u)).out.trim(), gid = sh(List.of("id", "-g", u)).out.trim();
			ids.put(u, new String[] { uid, gid });
		}
	}

	private void deleteUsers() throws Exception {
		for (String u : List.of(ALICE, BOB)) {
			Runner.Result res = r.runFor(r.tmp.toFile(), List.of("userdel", "-f", u), Map.of(), null, TIMEOUT);
			if (res == null || res.rc != 0)
				System.out.println("    warning: userdel " + u + ": " + (res == null ? "hung" : res.err.trim()));
		}
	}

	/** Copies what the users run (the agent with its jars and jcal, the work classes) into a 0755 directory. */
	private void copyBuild() throws Exception {
		if (bin != null)
			return;
		must("chmod", "755", r.tmp.toString());
		bin = r.tmp.resolve("bin");
		Files.createDirectories(bin);
		Path build = Path.of(r.agent).getParent();
		for (String f : List.of("libjcal.so", "jcal-agent.jar", "jcal-calibrator.jar"))
			Files.copy(build.resolve(f), bin.resolve(f), StandardCopyOption.REPLACE_EXISTING);
		Files.copy(Path.of(System.getProperty("jcal.build", "build"), "jcal"), bin.resolve("jcal"),
				StandardCopyOption.REPLACE_EXISTING);
		classes = r.tmp.resolve("classes");
		Path work = classes.resolve("jcaltest/work");
		Files.createDirectories(work);
		try (var s = Files.list(Path.of(r.classes, "jcaltest", "work"))) {
			for (Path p : (Iterable<Path>) s::iterator)
				Files.copy(p, work.resolve(p.getFileName()), StandardCopyOption.REPLACE_EXISTING);
		}
		must("chmod", "-R", "a+rX", bin.toString(), classes.toString());
		lib = bin.resolve("libjcal.so");
		jcal = bin.resolve("jcal");
	}

	/** A fresh directory for a test: DIR (0755), DIR/shared (1777), DIR/alice-home (alice's, 0700). */
	private void makeDirs(String name) throws Exception {
		dir = Files.createTempDirectory(r.tmp, name);
		must("chmod", "755", dir.toString());
		shared = dir.resolve("shared");
		home = dir.resolve("alice-home");
		Files.createDirectory(shared);
		Files.createDirectory(home);
		must("chmod", "1777", shared.toString());
		must("chown", ALICE + ":" + ALICE, home.toString());
		must("chmod", "700", home.toString());
	}

	/** Runs a test with the two users, removed afterwards whatever happens. */
	private boolean withUsers(String name, Runner.Test t) throws Exception {
		String why = missing();
		if (why != null) {
			System.out.println("SKIP " + name + ": " + why + " (two users are created for it)");
			return false;
		}
		copyBuild();
		createUsers();
		try {
			makeDirs(name);
			t.run();
		} finally {
			for (Process p : started)
				if (p.isAlive()) {
					p.destroyForcibly();
					p.waitFor(10, TimeUnit.SECONDS);
				}
			started.clear();
			deleteUsers();
		}
		return true;
	}

	/** A file of alice's with text, mode 0600. */
	private Path aliceFile(Path p, String text) throws Exception {
		Files.writeString(p, text);
		must("chown", ALICE + ":" + ALICE, p.toString());
		must("chmod", "600", p.toString());
		return p;
	}

	private static boolean isFifo(Path p) throws Exception {
		int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
		return (mode & 0170000) == 0010000;
	}

	/* ---- alice's JVMs ---- */

	private List<String> java(String agentOptions, String main, String... args) {
		List<String> cmd = new ArrayList<>(List.of(r.java, "-agentpath:" + lib + "=" + agentOptions, "-cp",
				classes.toString(), W + main));
		cmd.addAll(Arrays.asList(args));
		return cmd;
	}

	/** A JVM of alice's run to its end (null when it did not end within TIMEOUT: a failure already). */
	private Runner.Result alice(String agentOptions, String main, String... args) throws Exception {
		return sh(as(ALICE, java(agentOptions, main, args)));
	}

	/** A JVM of alice's running Hold, which exits with status 4 once told to. */
	private final class Jvm {
		final Process p;
		final long pid;
		final Path go, out, err;

		Jvm(String agentOptions) throws Exception {
			Path d = Files.createTempDirectory(dir, "jvm");
			must("chmod", "755", d.toString());
			go = d.resolve("go");
			out = d.resolve("stdout.txt");
			err = d.resolve("stderr.txt");
			p = new ProcessBuilder(as(ALICE, java(agentOptions, "Hold", go.toString(), "4"))).directory(d.toFile())
					.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
			started.add(p);
			pid = p.pid();
			long end = System.nanoTime() + TIMEOUT * 1_000_000_000L;
			while (!Files.readString(out).contains("holding") && p.isAlive() && System.nanoTime() < end)
				Thread.sleep(20);
			if (!Files.readString(out).contains("holding"))
				throw new IllegalStateException("alice's JVM did not start: " + Files.readString(err));
		}

		/** Tells it to exit; its exit status, or -1 when it did not end in time (a failure). */
		int finish() throws Exception {
			Files.writeString(go, "");
			if (p.waitFor(TIMEOUT, TimeUnit.SECONDS))
				return p.exitValue();
			r.check(false, "alice's JVM did not exit within " + TIMEOUT + " s of being told to");
			return -1;
		}

		String stderr() throws Exception {
			return Files.readString(err, StandardCharsets.UTF_8);
		}
	}

	/** The agent's lines of a stderr. */
	private static List<String> jcalLines(String err) {
		List<String> l = new ArrayList<>();
		for (String s : err.split("\n"))
			if (s.startsWith("jcal"))
				l.add(s);
		return l;
	}

	/** The JVM ended at once with exit 1 and one "jcal: error:" line naming path and why. */
	private void expectRefused(String what, Runner.Result res, Path path, String why) {
		if (res == null)
			return; /* hung: said by sh() */
		List<String> l = jcalLines(res.err);
		r.check(res.rc == 1, what + ": JVM exit 1 expected, got " + res.rc + ": " + res.err);
		r.check(l.size() == 1 && l.get(0).startsWith("jcal: error: ") && l.get(0).contains(path.toString())
				&& l.get(0).contains(why), what + ": one 'jcal: error:' line naming " + path + " and '" + why
						+ "' expected, got " + l);
		r.check(!res.out.contains("loop"), what + ": the program ran: " + res.out);
	}

	private void expectTicks(Path trace, String what) throws Exception {
		Map<String, Long> ticks = r.flatCalls(trace, W + "Hold.tick");
		r.check(ticks.equals(Map.of(W + "Hold.tick", (long) Hold.TICKS)),
				what + ": exact tick() calls expected in " + trace + ", got " + ticks);
	}

	/* ---- the tests ---- */

	/** bob's FIFO at OUT.part: refused at once; alice's JVM never blocks on it. */
	private void testFifoAtPart() throws Exception {
		Path out = shared.resolve("x.bin"), part = shared.resolve("x.bin.part");
		bob("mkfifo", "-m", "666", part.toString());
		Runner.Result res = alice("trace,out=" + out, "Loop");
		expectRefused("a FIFO at OUT.part", res, part, "it is a FIFO, not a regular file");
		r.check(isFifo(part), "bob's FIFO is left as it was");
		r.check(!Files.exists(out), "nothing at out=");
	}

	/**
	 * bob's FIFO at the dump's temporary name: the dump is refused at once
	 * with one line, the attach listener answers the next command, and the
	 * JVM exits with the program's own status, its trace complete.
	 */
	private void testFifoAtDumpPart() throws Exception {
		Path out = shared.resolve("x.bin"), fifo = shared.resolve("x.bin.dump1.part");
		bob("mkfifo", "-m", "666", fifo.toString());
		Jvm j = new Jvm("trace,out=" + out + ",include=NoSuch");
		Runner.Result dump = sh(List.of(jcal.toString(), "dump", Long.toString(j.pid)));
		if (dump != null) {
			List<String> l = jcalLines(dump.err);
			r.check(dump.rc == 1, "jcal dump: exit 1 (the agent refused) expected, got " + dump.rc + ": " + dump.err);
			r.check(l.size() == 1 && l.get(0).startsWith("jcal: error: ") && l.get(0).contains(fifo.toString())
					&& l.get(0).contains("a FIFO"), "jcal dump: one error line naming the FIFO: " + l);
		}
		Runner.Result status = sh(List.of(jcal.toString(), "status", Long.toString(j.pid)));
		r.check(status != null && status.rc == 0 && status.out.startsWith("recording: yes"),
				"the next command is answered: " + (status == null ? "hung" : status.rc + " " + status.out + status.err));
		int rc = j.finish();
		r.check(rc == 4, "alice's JVM exits with its program's status 4, got " + rc + ": " + j.stderr());
		r.check(isFifo(fifo), "bob's FIFO is left as it was");
		Runner.Result sum = r.post(out, "--report", "summary");
		r.check(sum.rc == 0, "alice's trace reads: " + sum.err);
	}

	/**
	 * In the sticky directory, bob's symbolic link, FIFO and file at out=
	 * (and his link at log=) are refused, as the kernel's protected_symlinks,
	 * protected_fifos and protected_regular would; alice's file behind the
	 * link is untouched. Her own link there, and a link of bob's in a
	 * directory that is not sticky, are followed as documented.
	 */
	private void testSymlinkAtOut() throws Exception {
		String precious = "alice's precious data\n";
		Path victim = aliceFile(home.resolve("precious.txt"), precious);
		Path link = shared.resolve("x.bin");
		bob("ln", "-s", victim.toString(), link.toString());
		expectRefused("bob's symlink at out=", alice("trace,out=" + link, "Loop"), link,
				"a symbolic link of user " + BOB);
		Path fifo = shared.resolve("y.bin");
		bob("mkfifo", "-m", "666", fifo.toString());
		expectRefused("bob's FIFO at out=", alice("trace,out=" + fifo, "Loop"), fifo, "a FIFO of user " + BOB);
		Path file = shared.resolve("z.bin");
		bob("touch", file.toString());
		bob("chmod", "666", file.toString());
		expectRefused("bob's file at out=", alice("trace,out=" + file, "Loop"), file,
				"a regular file of user " + BOB);
		r.check(Files.size(file) == 0, "bob's file received nothing: " + Files.size(file) + " bytes");
		Path log = shared.resolve("jcal.log");
		bob("ln", "-s", victim.toString(), log.toString());
		expectRefused("bob's symlink at log=", alice("trace,out=" + home.resolve("l.bin") + ",log=" + log, "Loop"),
				log, "a symbolic link of user " + BOB);
		r.check(Arrays.equals(Files.readAllBytes(victim), precious.getBytes(StandardCharsets.UTF_8)),
				"alice's file behind the links is unchanged: " + Files.size(victim) + " bytes");
		r.check(Files.isSymbolicLink(link), "bob's link is left as it was");

		Path mine = home.resolve("mine.bin"), own = shared.resolve("own-link.bin");
		sh(as(ALICE, List.of("ln", "-s", mine.toString(), own.toString())));
		Path plain = dir.resolve("plain"), other = home.resolve("other.bin"), bobs = plain.resolve("bob-link.bin");
		Files.createDirectory(plain);
		Files.createSymbolicLink(bobs, other);
		must("chown", "-h", BOB + ":" + BOB, bobs.toString());
		for (Path[] p : new Path[][] { { own, mine }, { bobs, other } }) {
			Runner.Result res = alice("trace,quiet,out=" + p[0], "Loop", "1000");
			r.check(res != null && res.rc == 0, "out=" + p[0] + " written through: " + (res == null ? "" : res.err));
			Map<String, Long> calls = r.flatCalls(p[1], W + "Loop.tick");
			r.check(calls.equals(Map.of(W + "Loop.tick", 1000L)), "the trace behind " + p[0] + ": " + calls);
		}
	}

	/**
	 * bob's file at OUT.part is refused (he receives nothing); a file bob
	 * puts at out= while alice records keeps her trace at OUT.part, and the
	 * agent says so instead of "wrote OUT".
	 */
	private void testOtherFileAtOut() throws Exception {
		Path out = shared.resolve("x.bin"), part = shared.resolve("x.bin.part");
		bob("touch", part.toString());
		bob("chmod", "666", part.toString());
		expectRefused("bob's file at OUT.part", alice("trace,out=" + out, "Loop"), part,
				"it belongs to user " + BOB);
		r.check(Files.size(part) == 0, "bob's file received nothing: " + Files.size(part) + " bytes");
		r.check(!Files.exists(out), "nothing at out=");

		Path y = shared.resolve("y.bin"), ypart = shared.resolve("y.bin.part");
		Jvm j = new Jvm("trace,out=" + y);
		bob("touch", y.toString());
		int rc = j.finish();
		String err = j.stderr();
		r.check(rc == 4, "alice's JVM exits with its program's status 4, got " + rc + ": " + err);
		r.check(err.contains("cannot rename " + ypart + " to " + y) && err.contains("the trace stays at " + ypart),
				"the failed rename is said, with where the trace is: " + err);
		r.check(err.contains("wrote " + ypart + ": ") && !err.contains("wrote " + y + ":"),
				"the summary names " + ypart + ", not " + y + ": " + err);
		r.check(Files.size(y) == 0, "bob's file is unchanged");
		expectTicks(ypart, "the trace at OUT.part");
	}

	/**
	 * output=tree: bob's file at out= is refused at the start; one he puts
	 * there while alice records leaves her snapshot under its temporary
	 * name, which the agent names.
	 */
	private void testTreeOut() throws Exception {
		Path t = shared.resolve("t.bin");
		bob("touch", t.toString());
		expectRefused("bob's file at the snapshot's out=", alice("trace,output=tree,out=" + t, "Loop"), t,
				"a regular file of user " + BOB);

		Path u = shared.resolve("u.bin");
		Jvm j = new Jvm("trace,output=tree,out=" + u);
		bob("touch", u.toString());
		int rc = j.finish();
		String err = j.stderr();
		r.check(rc == 4, "alice's JVM exits with its program's status 4, got " + rc + ": " + err);
		Matcher m = Pattern.compile("it stays at (" + Pattern.quote(u.toString()) + "\\.tmp\\.\\S+)").matcher(err);
		r.check(m.find(), "the agent says where the snapshot is: " + err);
		if (m.find(0)) {
			Path kept = Path.of(m.group(1));
			r.check(Files.exists(kept), "the snapshot is kept at " + kept);
			r.check(err.contains("wrote " + kept + ": tree snapshot"), "the summary names " + kept + ": " + err);
			if (Files.exists(kept))
				expectTicks(kept, "the kept snapshot");
		}
		r.check(Files.size(u) == 0, "bob's file is unchanged");
	}

	/**
	 * reply=: the agent writes only a file made for the answer (an empty
	 * 0600 file in a jcal-reply-* directory of the JVM's user): alice's
	 * notes, or any empty file of hers elsewhere, are refused (code 4) and
	 * left as they were; the launcher's own reply file works.
	 */
	private void testReply() throws Exception {
		Jvm j = new Jvm("trace,quiet,out=" + home.resolve("r.bin"));
		String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
		String notes = "alice's notes\n";
		Path n = aliceFile(home.resolve("notes.txt"), notes), empty = aliceFile(home.resolve("empty.txt"), "");
		Path rd = home.resolve("jcal-reply-test"), rf = rd.resolve("reply");
		Files.createDirectory(rd);
		aliceFile(rf, "");
		must("chown", ALICE + ":" + ALICE, rd.toString());
		must("chmod", "700", rd.toString());
		for (Path f : List.of(n, empty, rf)) {
			Runner.Result res = sh(as(ALICE, List.of(jcmd, Long.toString(j.pid), "JVMTI.agent_load", lib.toString(),
					"'status,reply=" + f + "'")));
			if (res == null)
				continue;
			String got = Files.readString(f);
			if (f == rf) {
				r.check(res.out.contains("return code: 0") && got.startsWith("recording: yes"),
						"the reply file made for it is written: " + res.out + got);
			} else {
				r.check(res.out.contains("return code: 4"), "reply=" + f + " refused with code 4: " + res.out);
				r.check(got.equals(f == n ? notes : ""), "reply=" + f + " left as it was: '" + got + "'");
			}
		}
		Runner.Result st = sh(List.of(jcal.toString(), "status", Long.toString(j.pid)));
		r.check(st != null && st.rc == 0 && st.out.startsWith("recording: yes"),
				"jcal's own reply file works: " + (st == null ? "hung" : st.rc + " " + st.out + st.err));
		int rc = j.finish();
		r.check(rc == 4, "alice's JVM exits with its program's status 4, got " + rc);
		r.check(j.stderr().contains("jcal: error: reply=" + n + ": not written: "),
				"the JVM's stderr says why the reply was refused: " + j.stderr());
	}

	/** The suite's tests, in the order jcaltest.Main runs them. */
	static Runner.Tests tests(Runner r) {
		SharedMachine s = new SharedMachine(r);
		return new Runner.Tests()
				.addSkippable("shared-fifo-at-part", () -> s.withUsers("fifo-at-part", s::testFifoAtPart))
				.addSkippable("shared-fifo-at-dump-part",
						() -> s.withUsers("fifo-at-dump-part", s::testFifoAtDumpPart))
				.addSkippable("shared-symlink-at-out", () -> s.withUsers("symlink-at-out", s::testSymlinkAtOut))
				.addSkippable("shared-other-file-at-out",
						() -> s.withUsers("other-file-at-out", s::testOtherFileAtOut))
				.addSkippable("shared-tree-out", () -> s.withUsers("tree-out", s::testTreeOut))
				.addSkippable("shared-reply-file", () -> s.withUsers("reply-file", s::testReply));
	}
}
