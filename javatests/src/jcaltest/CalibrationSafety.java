package jcaltest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The calibrate command and in-run recalibration under hostile conditions
 * (docs/agent-internals.md, "Calibrate mode"): the agent in JAVA_TOOL_OPTIONS
 * (the env-timer child JVM must not load it again), the env-timer child's
 * marker, a symlink planted in the calibration directory, two calibrations
 * at once into one directory, a file size limit (no table from an
 * incomplete calibration), an over-long JCAL_CALIB_DIR.
 *
 * Every JVM started here carries JCALTEST_TAG=<unique> in its environment,
 * so the suite counts the JVMs a command started (its own descendants
 * included) by scanning /proc, and kills them all at the end of each test.
 * Run by jcaltest.Main (javatests/run.sh).
 */
public final class CalibrationSafety {
	private static final String TAG_VAR = "JCALTEST_TAG";
	private static final String MARKER = "JCAL_CALIBRATION_CHILD";
	private static final Pattern TABLE_LINE = Pattern.compile("calibration table written to (\\S+) \\(trace (\\S+)\\)");

	private final Runner r;
	private final String tag = "calibsafety-" + ProcessHandle.current().pid() + "-" + System.nanoTime();

	private CalibrationSafety(Runner r) {
		this.r = r;
	}

	/** What a bounded run saw. */
	private static final class Run {
		Runner.Result res = new Runner.Result();
		boolean timedOut;
		/* pid -> environment, of every tagged JVM seen while it ran */
		Map<Long, Map<String, String>> jvms = new TreeMap<>();
	}

	private Path tmp(String name) {
		return r.tmp.resolve(name);
	}

	/* ---- processes carrying the tag ---- */

	private static Map<String, String> environ(long pid) {
		Map<String, String> env = new TreeMap<>();
		try {
			byte[] b = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
			for (String kv : new String(b, StandardCharsets.UTF_8).split("\0")) {
				int eq = kv.indexOf('=');
				if (eq > 0)
					env.put(kv.substring(0, eq), kv.substring(eq + 1));
			}
		} catch (IOException e) {
			/* gone, or not ours */
		}
		return env;
	}

	private static String exe(long pid) {
		try {
			byte[] b = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
			int end = 0;
			while (end < b.length && b[end] != 0)
				end++;
			return new String(b, 0, end, StandardCharsets.UTF_8);
		} catch (IOException e) {
			return "";
		}
	}

	/** Live processes whose environment carries this suite's tag. */
	private Set<Long> tagged() {
		Set<Long> pids = new TreeSet<>();
		long self = ProcessHandle.current().pid();
		try (DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of("/proc"))) {
			for (Path p : ds) {
				String n = p.getFileName().toString();
				if (!n.matches("[0-9]+") || Long.parseLong(n) == self)
					continue;
				if (tag.equals(environ(Long.parseLong(n)).get(TAG_VAR)))
					pids.add(Long.parseLong(n));
			}
		} catch (IOException e) {
			r.check(false, "cannot list /proc: " + e);
		}
		return pids;
	}

	/** Kills every process this suite started (all carry the tag). */
	private void killTagged() throws InterruptedException {
		int quiet = 0;
		for (int i = 0; i < 100 && quiet < 3; i++) {
			Set<Long> pids = tagged();
			quiet = pids.isEmpty() ? quiet + 1 : 0;
			for (long pid : pids)
				ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
			Thread.sleep(50);
		}
		r.check(quiet >= 3, "processes started by the test still alive: " + tagged());
	}

	private Process start(List<String> cmd, Map<String, String> env, String name) throws IOException {
		ProcessBuilder pb = new ProcessBuilder(cmd).directory(r.tmp.toFile());
		Map<String, String> e = pb.environment();
		e.remove("JAVA_TOOL_OPTIONS");
		e.remove("JDK_JAVA_OPTIONS");
		e.remove("_JAVA_OPTIONS");
		e.remove(MARKER);
		e.put(TAG_VAR, tag);
		for (Map.Entry<String, String> kv : env.entrySet())
			if (kv.getValue() == null)
				e.remove(kv.getKey());
			else
				e.put(kv.getKey(), kv.getValue());
		pb.redirectOutput(tmp(name + ".out").toFile()).redirectError(tmp(name + ".err").toFile());
		return pb.start();
	}

	private static void finish(Process p, Run run, Path dir, String name) throws IOException {
		run.res.rc = p.isAlive() ? -1 : p.exitValue();
		run.res.out = Files.readString(dir.resolve(name + ".out"), StandardCharsets.UTF_8);
		run.res.err = Files.readString(dir.resolve(name + ".err"), StandardCharsets.UTF_8);
	}

	/**
	 * Runs the commands at once, bounded by limitS seconds, recording every
	 * tagged java process seen (and its environment) while they run; stops
	 * early when more than maxJvms were seen. Kills everything it started.
	 */
	private List<Run> runAll(List<List<String>> cmds, Map<String, String> env, int limitS, int maxJvms)
			throws Exception {
		List<Process> ps = new ArrayList<>();
		List<Run> runs = new ArrayList<>();
		Map<Long, Map<String, String>> jvms = new TreeMap<>();
		try {
			for (int i = 0; i < cmds.size(); i++) {
				ps.add(start(cmds.get(i), env, "run" + i));
				runs.add(new Run());
			}
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(limitS);
			for (;;) {
				/* Read again at every round: between fork and exec a child
				 * still shows its parent's command line and environment. */
				for (long pid : tagged())
					if (exe(pid).endsWith("/java")) {
						Map<String, String> e = environ(pid);
						if (!e.isEmpty())
							jvms.put(pid, e);
					}
				boolean alive = false;
				for (Process p : ps)
					alive |= p.isAlive();
				if (!alive || jvms.size() > maxJvms || System.nanoTime() > deadline)
					break;
				Thread.sleep(40);
			}
			for (int i = 0; i < ps.size(); i++) {
				runs.get(i).timedOut = ps.get(i).isAlive();
				runs.get(i).jvms = jvms;
			}
		} finally {
			killTagged();
			for (int i = 0; i < ps.size(); i++) {
				ps.get(i).waitFor(10, TimeUnit.SECONDS);
				finish(ps.get(i), runs.get(i), r.tmp, "run" + i);
			}
		}
		return runs;
	}

	private Run runOne(List<String> cmd, Map<String, String> env, int limitS, int maxJvms) throws Exception {
		return runAll(List.of(cmd), env, limitS, maxJvms).get(0);
	}

	private List<String> java(String... args) {
		List<String> cmd = new ArrayList<>(List.of(r.java));
		cmd.addAll(Arrays.asList(args));
		return cmd;
	}

	private static long count(Runner.Result res, String prefix) {
		long n = 0;
		for (String l : res.errLines())
			if (l.startsWith(prefix))
				n++;
		return n;
	}

	private static String tablePath(Runner.Result res) {
		Matcher m = TABLE_LINE.matcher(res.err);
		return m.find() ? m.group(1) : null;
	}

	private Path calibDir(String name) throws IOException {
		Path d = tmp(name);
		Files.createDirectories(d);
		return d;
	}

	/** Tables (calib-*.txt) of a directory. */
	private static List<Path> tables(Path dir) throws IOException {
		List<Path> l = new ArrayList<>();
		try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "calib-*.txt")) {
			for (Path p : ds)
				l.add(p);
		}
		return l;
	}

	/** Files of a directory whose names start with prefix. */
	private static List<String> named(Path dir, String prefix) throws IOException {
		List<String> l = new ArrayList<>();
		try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, prefix + "*")) {
			for (Path p : ds)
				l.add(p.getFileName().toString());
		}
		return l;
	}

	private void expectTableOk(Path table, String what) throws Exception {
		Runner.Result c = r.run(r.tmp.toFile(), List.of(r.post, "calib", "check", table.toString()));
		r.check(c.rc == 0, what + ": jcal-post calib check " + table + ": exit " + c.rc + ": " + c.out + c.err);
	}

	/** The agent in JAVA_TOOL_OPTIONS; returns the JVMs seen. */
	private Run toolOptionsRun(String agentOptions, String extra, Path dir) throws Exception {
		Map<String, String> env = new TreeMap<>();
		env.put("JAVA_TOOL_OPTIONS", "-Xss2m -agentpath:" + r.agent + "=" + agentOptions + extra);
		env.put("JCAL_CALIB_DIR", dir.toString());
		return runOne(java("-version"), env, 60, 2);
	}

	/* ---- the tests ---- */

	/**
	 * calibrate from JAVA_TOOL_OPTIONS: one env-timer child, which runs with
	 * the other options of JAVA_TOOL_OPTIONS but not the agent, and with the
	 * marker naming its parent; the calibration ends with a table.
	 */
	private void testToolOptionsCalibrate() throws Exception {
		Path dir = calibDir("tool-calibrate");
		Run run = toolOptionsRun("calibrate", "", dir);
		checkChain(run, "JAVA_TOOL_OPTIONS calibrate");
		r.check(!run.timedOut && run.res.rc == 0, "exit 0 expected, got " + run.res.rc + ": " + run.res.err);
		r.check(tables(dir).size() == 1, "one table in " + dir + ": " + named(dir, ""));
	}

	/** trace,recalibrate=start from JAVA_TOOL_OPTIONS: the same, one child. */
	private void testToolOptionsRecalibrate() throws Exception {
		Path dir = calibDir("tool-recalibrate");
		Path t = tmp("tool-recalibrate.bin");
		Run run = toolOptionsRun("trace,quiet,recalibrate=start,out=" + t, "", dir);
		checkChain(run, "JAVA_TOOL_OPTIONS trace,recalibrate=start");
		r.check(!run.timedOut && run.res.rc == 0, "exit 0 expected, got " + run.res.rc + ": " + run.res.err);
		Runner.Result s = r.post(t, "--report", "summary");
		r.check(s.rc == 0 && s.out.contains("in-run calibration of"), "the trace has its in-run calibration: " + s.out + s.err);
	}

	/** At most 2 JVMs; the child's environment: no agent, the rest kept, the marker. */
	private void checkChain(Run run, String what) {
		r.check(run.jvms.size() <= 2, what + ": at most 2 JVMs (the calibrating one and its env-timer child) expected, "
				+ run.jvms.size() + " started: " + run.jvms.keySet());
		r.check(!run.jvms.isEmpty(), what + ": no JVM seen");
		long parent = -1;
		for (Map.Entry<Long, Map<String, String>> e : run.jvms.entrySet())
			if (!e.getValue().containsKey(MARKER))
				parent = e.getKey();
		for (Map.Entry<Long, Map<String, String>> e : run.jvms.entrySet()) {
			Map<String, String> env = e.getValue();
			if (e.getKey() == parent)
				continue;
			r.check(Long.toString(parent).equals(env.get(MARKER)),
					what + ": the child's " + MARKER + " names its parent " + parent + ": " + env.get(MARKER));
			r.check("-Xss2m".equals(env.get("JAVA_TOOL_OPTIONS")),
					what + ": the child's JAVA_TOOL_OPTIONS keeps -Xss2m without the agent: " + env.get("JAVA_TOOL_OPTIONS"));
		}
	}

	/** With the marker set, every agent command refuses with one error line. */
	private void testMarkerRefuses() throws Exception {
		Path dir = calibDir("marker");
		Path t = tmp("marker.bin");
		String[] opts = { "calibrate", "trace,recalibrate=start,out=" + t, "trace,out=" + t };
		for (String o : opts) {
			Map<String, String> env = new TreeMap<>();
			env.put(MARKER, "12345");
			env.put("JCAL_CALIB_DIR", dir.toString());
			Run run = runOne(java("-agentpath:" + r.agent + "=" + o, "-version"), env, 30, 1);
			List<String> errs = new ArrayList<>();
			for (String l : run.res.errLines())
				if (l.startsWith("jcal: error:"))
					errs.add(l);
			r.check(run.res.rc != 0, o + ": non-zero exit expected, got " + run.res.rc);
			r.check(errs.size() == 1 && errs.get(0).contains(MARKER) && errs.get(0).contains("12345"),
					o + ": one 'jcal: error:' line naming " + MARKER + " and its value expected: " + run.res.err);
			r.check(run.jvms.size() <= 1, o + ": no child JVM expected: " + run.jvms.keySet());
			r.check(!Files.exists(t), o + ": no trace written");
		}
		r.check(named(dir, "").isEmpty(), "nothing written to the calibration directory: " + named(dir, ""));
	}

	/** A symlink planted at last-calibration.bin: its target is left alone. */
	private void testSymlink() throws Exception {
		Path dir = calibDir("symlink");
		Path victim = tmp("victim.txt");
		Files.writeString(victim, "precious\n");
		Path link = dir.resolve("last-calibration.bin");
		Files.createSymbolicLink(link, victim);
		Run run = runOne(java("-agentpath:" + r.agent + "=calibrate", "-version"),
				Map.of("JCAL_CALIB_DIR", dir.toString()), 60, 2);
		r.check(!run.timedOut && run.res.rc == 0, "exit 0 expected, got " + run.res.rc + ": " + run.res.err);
		r.check(Arrays.equals(Files.readAllBytes(victim), "precious\n".getBytes(StandardCharsets.UTF_8)),
				"the symlink's target is unchanged: " + Files.size(victim) + " bytes");
		r.check(Files.isSymbolicLink(link), "the planted symlink is left as it was");
		r.check(tables(dir).size() == 1, "a table was written: " + named(dir, ""));
		List<String> kept = named(dir, "calibration-");
		r.check(kept.size() == 1 && run.res.err.contains("not a regular file"),
				"the run's trace stays under its own name, with a warning: " + kept + ": " + run.res.err);
		Matcher m = TABLE_LINE.matcher(run.res.err);
		r.check(m.find() && m.group(2).startsWith(dir.toString() + "/calibration-"),
				"the table line names the kept trace: " + run.res.err);

		/* Without the symlink: the trace becomes last-calibration.bin. */
		Files.delete(link);
		for (String k : kept)
			Files.delete(dir.resolve(k));
		Run again = runOne(java("-agentpath:" + r.agent + "=calibrate", "-version"),
				Map.of("JCAL_CALIB_DIR", dir.toString()), 60, 2);
		r.check(again.res.rc == 0, "second run: exit 0 expected, got " + again.res.rc + ": " + again.res.err);
		r.check(Files.isRegularFile(link, LinkOption.NOFOLLOW_LINKS) && Files.size(link) > 0,
				"last-calibration.bin is the last run's trace");
		r.check(named(dir, "calibration-").isEmpty(), "no per-run trace left: " + named(dir, ""));
		r.check(again.res.err.contains("(trace " + link + ")"), "the table line names last-calibration.bin: " + again.res.err);
	}

	/** Two calibrations at once into one directory: both succeed. */
	private void testConcurrent() throws Exception {
		Path dir = calibDir("concurrent");
		List<String> cmd = java("-agentpath:" + r.agent + "=calibrate", "-version");
		List<Run> runs = runAll(List.of(cmd, cmd), Map.of("JCAL_CALIB_DIR", dir.toString()), 120, 4);
		for (int i = 0; i < runs.size(); i++) {
			Run run = runs.get(i);
			r.check(!run.timedOut && run.res.rc == 0,
					"calibration " + i + ": exit 0 expected, got " + run.res.rc + ": " + run.res.err);
			r.check(tablePath(run.res) != null, "calibration " + i + " wrote a table: " + run.res.err);
		}
		List<Path> t = tables(dir);
		r.check(t.size() == 1, "one table: " + named(dir, ""));
		for (Path p : t)
			expectTableOk(p, "the table");
		r.check(named(dir, "calibration-").isEmpty(), "no per-run trace left: " + named(dir, ""));
	}

	/**
	 * A file size limit cuts the calibration trace: no table is written, the
	 * good table from before is left byte for byte, the exit is non-zero.
	 */
	private void testFileLimit() throws Exception {
		Path dir = calibDir("file-limit");
		Run good = runOne(java("-agentpath:" + r.agent + "=calibrate", "-version"),
				Map.of("JCAL_CALIB_DIR", dir.toString()), 60, 2);
		String tp = tablePath(good.res);
		r.check(good.res.rc == 0 && tp != null, "first calibration: exit 0 and a table: " + good.res.err);
		if (tp == null)
			return;
		byte[] before = Files.readAllBytes(Path.of(tp));
		/* ulimit -f units of sh (dash): 512 bytes. 1 MB: above what the JVM's
		 * start-up writes, far below the ~5 MB of the calibration trace. */
		List<String> cmd = new ArrayList<>(List.of("sh", "-c", "ulimit -f 2000 && exec \"$@\"", "sh"));
		cmd.addAll(java("-agentpath:" + r.agent + "=calibrate", "-version"));
		Run cut = runOne(cmd, Map.of("JCAL_CALIB_DIR", dir.toString()), 60, 2);
		r.check(!cut.timedOut && cut.res.rc != 0, "non-zero exit expected, got " + cut.res.rc + ": " + cut.res.err);
		r.check(count(cut.res, "jcal: error:") == 1 && cut.res.err.contains("incomplete")
				&& cut.res.err.contains("no table written"),
				"one error line saying the calibration is incomplete and no table was written: " + cut.res.err);
		r.check(tablePath(cut.res) == null, "no 'table written' line: " + cut.res.err);
		r.check(Arrays.equals(before, Files.readAllBytes(Path.of(tp))), "the good table is byte-identical");
		r.check(tables(dir).size() == 1, "no other table: " + named(dir, ""));
		expectTableOk(Path.of(tp), "the good table");
	}

	/** An over-long JCAL_CALIB_DIR: one error line naming it and the limit. */
	private void testLongDir() throws Exception {
		String longDir = r.tmp + "/" + "d".repeat(1100);
		Run run = runOne(java("-agentpath:" + r.agent + "=calibrate", "-version"), Map.of("JCAL_CALIB_DIR", longDir),
				30, 1);
		List<String> errs = new ArrayList<>();
		for (String l : run.res.errLines())
			if (l.startsWith("jcal: error:"))
				errs.add(l);
		r.check(run.res.rc != 0, "non-zero exit expected, got " + run.res.rc);
		r.check(errs.size() == 1 && errs.get(0).contains("JCAL_CALIB_DIR") && errs.get(0).matches(".*at most [0-9]+ bytes.*"),
				"one error line naming JCAL_CALIB_DIR and its limit: " + run.res.err);
	}

	/** The suite's tests, in the order jcaltest.Main runs them. */
	static Runner.Tests tests(Runner r) {
		CalibrationSafety s = new CalibrationSafety(r);
		return new Runner.Tests()
				.add("calib-tool-options-calibrate", s::testToolOptionsCalibrate)
				.add("calib-tool-options-recalibrate", s::testToolOptionsRecalibrate)
				.add("calib-marker-refuses", s::testMarkerRefuses)
				.add("calib-symlink", s::testSymlink)
				.add("calib-concurrent", s::testConcurrent)
				.add("calib-file-limit", s::testFileLimit)
				.add("calib-long-dir", s::testLongDir);
	}
}
