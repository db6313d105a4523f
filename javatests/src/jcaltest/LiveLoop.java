package jcaltest;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Continuous recordings (docs/live-profiling.md, "Continuous recordings"):
 * jcal record --loop on a JVM started without the agent writes one
 * complete file per period, and the calls of a steady workload summed over
 * the files equal the calls it made (none lost or counted twice at a
 * rotation, with a trace, with trees or both); the loop ends at the JVM's exit,
 * at -d, at jcal stop; --keep leaves the newest files only. Run by
 * jcaltest.Main.
 */
public final class LiveLoop {
	private static final String W = "jcaltest.work.";
	private static final String LEAF = W + "LoopCalls.leaf";
	private static final String BATCH = W + "LoopCalls.batch";
	private final Runner r;
	private final String jcal;

	private LiveLoop(Runner r) {
		this.r = r;
		this.jcal = new File(new File(r.post).getParentFile(), "jcal").getPath();
	}

	/** The LoopCalls workload, started without the agent, waiting for go. */
	private static final class App implements AutoCloseable {
		final Process p;
		final BufferedReader out;
		final Path go, stop;

		App(Runner r, Path dir) throws Exception {
			this(r, dir, List.of());
		}

		/** The same run after prefix (setpriv ... to run it as another user). */
		App(Runner r, Path dir, List<String> prefix) throws Exception {
			go = dir.resolve("go");
			stop = dir.resolve("stop");
			List<String> cmd = new ArrayList<>(prefix);
			cmd.addAll(List.of(r.java, "-cp", r.classes, W + "LoopCalls", go.toString(), stop.toString()));
			p = new ProcessBuilder(cmd).redirectError(dir.resolve("app.err").toFile()).start();
			out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
			String line = out.readLine();
			if (!"ready".equals(line))
				throw new IllegalStateException("LoopCalls did not start: " + line);
		}

		/** After stop: the calls it printed, "leaf N" then "batch M". */
		long[] made() throws Exception {
			Files.createFile(stop);
			long[] n = new long[2];
			for (int i = 0; i < 2; i++) {
				String line = out.readLine();
				if (line == null)
					throw new IllegalStateException("LoopCalls printed no count");
				n[i] = Long.parseLong(line.substring(line.indexOf(' ') + 1));
			}
			return n;
		}

		@Override
		public void close() throws Exception {
			if (!Files.exists(stop))
				Files.createFile(stop);
			if (!p.waitFor(30, TimeUnit.SECONDS))
				p.destroyForcibly();
		}
	}

	/** jcal record started in the background, its output in files. */
	private final class Record implements AutoCloseable {
		final Process p;
		final Path out, err;

		Record(Path dir, List<String> args) throws Exception {
			List<String> cmd = new ArrayList<>(List.of(jcal, "record"));
			cmd.addAll(args);
			out = dir.resolve("jcal.out");
			err = dir.resolve("jcal.err");
			p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(out.toFile())
					.redirectError(err.toFile()).start();
		}

		/** Its exit code once it ended by itself (-1: still running after 60 s). */
		int end() throws Exception {
			return p.waitFor(60, TimeUnit.SECONDS) ? p.exitValue() : -1;
		}

		String said() throws Exception {
			return Files.readString(out) + Files.readString(err);
		}

		@Override
		public void close() {
			if (p.isAlive())
				p.destroyForcibly();
		}
	}

	/** Waits (20 s at most) until jcal status says the JVM records. */
	private void awaitRecording(long pid) throws Exception {
		for (int i = 0; i < 100; i++) {
			Runner.Result s = r.run(r.tmp.toFile(), List.of(jcal, "status", Long.toString(pid)));
			if (s.out.startsWith("recording: yes"))
				return;
			Thread.sleep(200);
		}
		r.check(false, "the loop's recording did not start within 20 s");
	}

	/** The loop's files in dir (names app-N.EXT), by N. */
	private static List<Path> files(Path dir, String ext) throws Exception {
		Pattern name = Pattern.compile("app-(\\d+)\\." + Pattern.quote(ext));
		List<Path> l = new ArrayList<>();
		try (Stream<Path> s = Files.list(dir)) {
			s.filter(f -> name.matcher(f.getFileName().toString()).matches()).forEach(l::add);
		}
		l.sort((a, b) -> Integer.compare(number(a), number(b)));
		return l;
	}

	private static int number(Path f) {
		Matcher m = Pattern.compile("app-(\\d+)\\.").matcher(f.getFileName().toString());
		return m.find() ? Integer.parseInt(m.group(1)) : -1;
	}

	/** Every file complete, and read by jcal-post without a warning. */
	private void checkComplete(List<Path> files, String what) throws Exception {
		for (Path f : files) {
			Runner.Result s = r.post(f, "--report", "summary");
			r.check(s.rc == 0 && !s.err.contains("warning"), what + ": " + f + " read with a warning: " + s.err);
			if (f.toString().endsWith(".bin"))
				r.check(s.out.contains("status:                complete"),
						what + ": " + f + " is not complete: " + s.out);
		}
	}

	/** leaf and batch calls of the files summed, one flat report each. */
	private long[] summed(List<Path> files) throws Exception {
		long[] n = new long[2];
		for (Path f : files) {
			n[0] += r.flatCalls(f, LEAF).getOrDefault(LEAF, 0L);
			n[1] += r.flatCalls(f, BATCH).getOrDefault(BATCH, 0L);
		}
		return n;
	}

	/**
	 * A loop of 1 s periods over 4.5 s of calls, ended by the JVM's exit:
	 * at least 4 files, each complete, and leaf() and batch() (whose calls
	 * stay open across rotations) counted exactly over them, once from
	 * the files one by one and once from jcal-post merging them.
	 */
	private void exact(String output, String ext) throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "loop");
		try (App app = new App(r, dir);
				Record rec = new Record(dir, List.of(Long.toString(app.p.pid()), "--loop", "1s", "-o",
						"app-%n." + ext, "output=" + output))) {
			awaitRecording(app.p.pid());
			Files.createFile(app.go);
			Thread.sleep(4500);
			long[] made = app.made();
			int rc = rec.end();
			String said = rec.said();
			r.check(rc == 0, output + ": jcal record --loop ends with the JVM, exit 0 expected, got " + rc + ": "
					+ said);
			r.check(said.contains("exited"), output + ": jcal says the JVM exited: " + said);
			List<Path> files = files(dir, ext);
			r.check(files.size() >= 4, output + ": at least 4 files of 1 s expected, got " + files);
			r.check(!files.isEmpty() && number(files.get(files.size() - 1)) == files.size(),
					output + ": files numbered 1.." + files.size() + ": " + files);
			checkComplete(files, output);
			long[] got = summed(files);
			r.check(got[0] == made[0] && got[1] == made[1], output + ": calls over the files: leaf " + got[0]
					+ ", batch " + got[1] + "; the program made leaf " + made[0] + ", batch " + made[1]);
			List<String> merge = new ArrayList<>();
			for (Path f : files.subList(1, files.size()))
				merge.add(f.toString());
			long leaf = r.flatCalls(files.get(0), merge.toArray(new String[0])).getOrDefault(LEAF, 0L);
			r.check(leaf == made[0], output + ": jcal-post merging the files: leaf " + leaf + ", made " + made[0]);
			if (output.equals("both")) { /* the snapshots beside the traces: the same counts */
				List<Path> trees = files(dir, "bin.tree");
				r.check(trees.size() == files.size(), "both: a snapshot beside each trace: " + trees);
				checkComplete(trees, "both");
				long[] inTrees = summed(trees);
				r.check(inTrees[0] == made[0] && inTrees[1] == made[1], "both: calls over the snapshots: leaf "
						+ inTrees[0] + ", batch " + inTrees[1] + "; made " + made[0] + ", " + made[1]);
			}
		}
	}

	private void testExactTrace() throws Exception {
		exact("trace", "bin");
	}

	private void testExactTree() throws Exception {
		exact("tree", "tree");
	}

	private void testExactBoth() throws Exception {
		exact("both", "bin");
	}

	/** --keep 2: the two newest files stay, the others were removed as the loop went. */
	private void testKeep() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "loop");
		try (App app = new App(r, dir);
				Record rec = new Record(dir,
						List.of(Long.toString(app.p.pid()), "--loop", "1s", "--keep", "2", "-o", "app-%n.bin"))) {
			awaitRecording(app.p.pid());
			Files.createFile(app.go);
			Thread.sleep(4500);
			app.made();
			int rc = rec.end();
			List<Path> files = files(dir, "bin");
			String said = rec.said();
			r.check(rc == 0, "--keep: exit 0 expected, got " + rc + ": " + said);
			r.check(files.size() == 2, "--keep 2: 2 files expected, got " + files + ": " + said);
			int last = Pattern.compile("written to \\S*app-(\\d+)\\.bin").matcher(said).results()
					.mapToInt(m -> Integer.parseInt(m.group(1))).max().orElse(-1);
			r.check(files.size() == 2 && number(files.get(0)) == last - 1 && number(files.get(1)) == last,
					"--keep 2: the newest, " + (last - 1) + " and " + last + ", expected: " + files);
			r.check(said.contains("--keep: removed"), "--keep: jcal says what it removed: " + said);
			checkComplete(files, "--keep");
		}
	}

	/** -d 3s --loop 1s: three files, the last ended by duration=, jcal back by itself. */
	private void testDuration() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "loop");
		try (App app = new App(r, dir)) {
			Files.createFile(app.go);
			try (Record rec = new Record(dir,
					List.of(Long.toString(app.p.pid()), "--loop", "1s", "-d", "3s", "-o", "app-%n.bin"))) {
				int rc = rec.end();
				String said = rec.said();
				r.check(rc == 0, "-d: exit 0 expected, got " + rc + ": " + said);
				List<Path> files = files(dir, "bin");
				r.check(files.size() == 3, "-d 3s --loop 1s: 3 files expected, got " + files + ": " + said);
				checkComplete(files, "-d");
				Runner.Result s = r.post(files.get(files.size() - 1), "--report", "summary");
				r.check(s.out.contains("duration=3s reached"), "-d: the last file ended at duration=: " + s.out);
				try (Stream<Path> l = Files.list(dir)) {
					r.check(l.noneMatch(f -> f.toString().endsWith(".part")), "-d: no .part file left");
				}
			}
			app.made();
		}
	}

	/** jcal stop from elsewhere ends the loop: its last file complete, jcal back with exit 0. */
	private void testStop() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "loop");
		try (App app = new App(r, dir);
				Record rec = new Record(dir, List.of(Long.toString(app.p.pid()), "--loop", "1s", "-o", "app-%n.bin"))) {
			awaitRecording(app.p.pid());
			Files.createFile(app.go);
			Thread.sleep(2500);
			Runner.Result stop = r.run(r.tmp.toFile(), List.of(jcal, "stop", Long.toString(app.p.pid())));
			r.check(stop.rc == 0, "jcal stop: exit 0 expected: " + stop.out + stop.err);
			int rc = rec.end();
			String said = rec.said();
			r.check(rc == 0, "stop: jcal record --loop exit 0 expected, got " + rc + ": " + said);
			List<Path> files = files(dir, "bin");
			r.check(files.size() >= 2, "stop: at least 2 files expected, got " + files);
			checkComplete(files, "stop");
			r.check(app.p.isAlive(), "stop: the JVM runs on");
			app.made();
		}
	}

	/**
	 * The JVM runs as nobody, which cannot write the directory of -o (root's,
	 * mode 700): each file of the loop is written into a stage of the JVM's
	 * /tmp and copied into place once complete; the calls summed over the
	 * files are still exact, --keep removes root's copies, no stage is left.
	 */
	private boolean testStaged() throws Exception {
		Runner.Result id = r.run(r.tmp.toFile(), List.of("id", "-u"));
		Runner.Result nobody = r.run(r.tmp.toFile(), List.of("id", "-u", "nobody"));
		if (!id.out.trim().equals("0") || nobody.rc != 0 || !Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
			System.out.println("     SKIP: needs root, setpriv and the user nobody");
			return false;
		}
		/* the workload's go and stop files where nobody can see them */
		Path pub = Files.createTempDirectory(Path.of("/tmp"), "jcalloop",
				PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
		Path dir = Files.createTempDirectory(r.tmp, "loop"); /* root's, 700 */
		try (App app = new App(r, pub, List.of("setpriv", "--reuid=nobody", "--regid=" + nobody.out.trim(),
				"--clear-groups"));
				Record rec = new Record(dir, List.of(Long.toString(app.p.pid()), "--loop", "1s", "--keep", "3", "-o",
						"app-%n.bin"))) {
			awaitRecording(app.p.pid());
			Files.createFile(app.go);
			Thread.sleep(4500);
			long[] made = app.made();
			int rc = rec.end();
			String said = rec.said();
			r.check(rc == 0, "staged: exit 0 expected, got " + rc + ": " + said);
			r.check(said.contains("jcal copies the file"), "staged: jcal says it stages: " + said);
			List<Path> files = files(dir, "bin");
			r.check(files.size() == 3, "staged --keep 3: 3 files expected, got " + files + ": " + said);
			checkComplete(files, "staged");
			int last = files.isEmpty() ? 0 : number(files.get(files.size() - 1));
			r.check(last >= 4 && said.contains("--keep: removed"), "staged: older files removed: " + said);
			long[] got = summed(files);
			r.check(got[0] > 0 && got[0] < made[0], "staged: the kept files hold part of the calls: " + got[0]);
			try (Stream<Path> l = Files.list(Path.of("/tmp"))) {
				r.check(l.noneMatch(f -> f.getFileName().toString().startsWith("jcal-out-") && ownedByNobody(f)),
						"staged: no stage left in /tmp");
			}
		} finally {
			try (Stream<Path> l = Files.list(pub)) {
				for (Path f : (Iterable<Path>) l::iterator)
					Files.deleteIfExists(f);
			}
			Files.deleteIfExists(pub);
		}
		return true;
	}

	/** A stage directory of the JVM's user, nobody (only this test runs a JVM as nobody). */
	private static boolean ownedByNobody(Path f) {
		try {
			return Files.getOwner(f).getName().equals("nobody");
		} catch (Exception e) {
			return false;
		}
	}

	/** A pattern naming one file for all, or --keep without --loop: usage errors. */
	private void testUsage() throws Exception {
		Runner.Result same = r.run(r.tmp.toFile(), List.of(jcal, "record", "1", "--loop", "1s", "-o", "app.bin"));
		r.check(same.rc == 2 && same.err.contains("%n"), "-o without %n or %t: exit 2 naming %n: " + same.rc + " "
				+ same.err);
		Runner.Result keep = r.run(r.tmp.toFile(), List.of(jcal, "record", "1", "-d", "5s", "--keep", "3"));
		r.check(keep.rc == 2 && keep.err.contains("--keep goes with --loop"),
				"--keep without --loop: exit 2: " + keep.rc + " " + keep.err);
		Runner.Result longer = r.run(r.tmp.toFile(), List.of(jcal, "record", "1", "-d", "5s", "--loop", "5s"));
		r.check(longer.rc == 2, "--loop not shorter than -d: exit 2: " + longer.rc + " " + longer.err);
	}

	static Runner.Tests tests(Runner r) {
		LiveLoop l = new LiveLoop(r);
		return new Runner.Tests()
				.add("loop-exact-trace", l::testExactTrace)
				.add("loop-exact-tree", l::testExactTree)
				.add("loop-exact-both", l::testExactBoth)
				.add("loop-keep", l::testKeep)
				.add("loop-duration", l::testDuration)
				.add("loop-stop", l::testStop)
				.addSkippable("loop-staged", l::testStaged)
				.add("loop-usage", l::testUsage);
	}
}
