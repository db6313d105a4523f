package jcaltest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Several recordings, one profile (docs/jcal-post.md, "Several inputs, one
 * profile") on real JVMs: jcaltest.work.Basic recorded three times with
 * metric=cputime and a label run=a|b|c, two traces and one output=tree
 * snapshot, with a calibration table made here first, merged by jcal-post
 * a.bin b.bin c.tree. The merged calls are the sums, every method exactly
 * (Basic's: three times its known counts); the summary lists each input
 * (path, kind, pid, metric, events, the table of each trace found by its
 * fingerprint and the snapshot's applied in its agent, its label) and
 * names each thread with its input; the pprof export read by Go's pprof
 * (go tool pprof -tags, -raw) labels every sample with host, pid, jvm,
 * thread and the label, Basic.leaf's 36 calls split 12 per pid and per
 * run (SKIP without go, Debian package golang-go); a recording of another
 * metric is refused in one line naming both; jcal-post diff --merge a.bin
 * b.bin -- c.tree halves every count. Every process runs under a timeout.
 * Run by jcaltest.Main (javatests/run.sh).
 */
final class MergeTests {
	private static final String W = "jcaltest.work.";
	private static final String BASIC = W + "Basic";
	/* Basic's calls in one run (Basic.java) */
	private static final Map<String, Long> ONE = Runner.map(BASIC + ".main", 1, BASIC + ".<init>", 1, BASIC + ".a",
			3, BASIC + ".b", 6, BASIC + ".leaf", 12);
	private final Runner r;
	private final Path calibDir;
	private Path a, b, c;

	private MergeTests(Runner r) {
		this.r = r;
		this.calibDir = r.tmp.resolve("calib");
	}

	/** cmd in the test directory with JCAL_CALIB_DIR set, under a timeout. */
	private Runner.Result run(List<String> cmd) throws Exception {
		Runner.Result res = r.runFor(r.tmp.toFile(), cmd, Map.of("JCAL_CALIB_DIR", calibDir.toString()), null, 180);
		if (res == null)
			throw new IOException("timed out: " + cmd);
		return res;
	}

	private Runner.Result post(Object... args) throws Exception {
		List<String> cmd = new ArrayList<>(List.of(r.post));
		for (Object o : args)
			cmd.add(o.toString());
		return run(cmd);
	}

	/** Basic under the agent with trace,quiet,metric=cputime,OPTS; returns out. */
	private Path record(String out, String opts) throws Exception {
		Path f = r.tmp.resolve(out);
		Runner.Result res = run(List.of(r.java, "-agentpath:" + r.agent + "=trace,quiet,metric=cputime," + opts
				+ ",out=" + f, "-cp", r.classes, BASIC));
		r.check(res.rc == 0 && res.out.equals("basic 24\n") && Files.exists(f),
				out + ": exit " + res.rc + ": " + res.out + res.err);
		return f;
	}

	/** The table of this machine, then the three recordings (once). */
	private void recordings() throws Exception {
		if (a != null)
			return;
		Files.createDirectories(calibDir);
		Path table = calibDir.resolve("table.txt");
		Runner.Result cal = run(List.of(r.java, "-agentpath:" + r.agent + "=calibrate,metric=cputime,table=" + table
				+ ",out=" + r.tmp.resolve("calib.bin")));
		r.check(cal.rc == 0 && Files.exists(table), "calibrate: exit " + cal.rc + ": " + cal.err);
		a = record("a.bin", "label=run:a");
		b = record("b.bin", "label=run:b");
		c = record("c.tree", "output=tree,label=run:c");
	}

	/** Calls per method (every method) of jcal-post FILES... --report flat. */
	private Map<String, Long> calls(Object... files) throws Exception {
		List<Object> args = new ArrayList<>(Arrays.asList(files));
		args.addAll(List.of("--report", "flat", "--format", "csv"));
		Runner.Result f = post(args.toArray());
		r.check(f.rc == 0, "flat of " + Arrays.toString(files) + ": exit " + f.rc + ": " + f.err);
		List<List<String>> rows = Runner.csv(f.out);
		Map<String, Long> m = new TreeMap<>();
		for (List<String> row : rows.subList(Math.min(1, rows.size()), rows.size()))
			m.merge(row.get(0), Long.parseLong(row.get(1)), Long::sum);
		return m;
	}

	private static Map<String, Long> only(Map<String, Long> m, String prefix) {
		Map<String, Long> o = new TreeMap<>();
		m.forEach((k, v) -> {
			if (k.startsWith(prefix))
				o.put(k, v);
		});
		return o;
	}

	private static Map<String, Long> times(Map<String, Long> m, long n) {
		Map<String, Long> o = new TreeMap<>();
		m.forEach((k, v) -> o.put(k, v * n));
		return o;
	}

	/** Each input alone has Basic's counts; merged, every method's calls are the sum of the three. */
	private void testCounts() throws Exception {
		recordings();
		Map<String, Long> sum = new TreeMap<>();
		for (Path p : List.of(a, b, c)) {
			Map<String, Long> one = calls(p);
			r.expectExact(p.getFileName() + ": Basic's calls", ONE, only(one, BASIC));
			one.forEach((k, v) -> sum.merge(k, v, Long::sum));
		}
		Map<String, Long> merged = calls(a, b, c);
		r.expectExact("a.bin b.bin c.tree: Basic's calls", times(ONE, 3), only(merged, BASIC));
		r.expectExact("a.bin b.bin c.tree: every method's calls, the sum of the inputs'", sum, merged);
		r.expectExact("b.bin c.tree: Basic's calls", times(ONE, 2), only(calls(b, c), BASIC));
	}

	/** The pid of an input in the summary's Inputs stanza ("[N] path" then "... pid N ..."). */
	private static final Pattern INPUT = Pattern.compile(
			"\n  \\[([0-9]+)\\] ([^\n]*)\n      (trace|tree snapshot)  host (\\S+)  pid ([0-9]+)  jvm [^\n]*  metric cputime"
					+ "  ([0-9]+) events  ([0-9]+) threads\n      calibration: ([^\n]*)\n      labels: run=([a-c])(?=\n)");

	/** --report summary lists each input; the threads are named with their input. */
	private void testSummary() throws Exception {
		recordings();
		Runner.Result s = post(a, b, c, "--report", "summary");
		r.check(s.rc == 0 && s.out.startsWith("Profile of 3 inputs (counts added; each input compensated with its own "),
				"summary: exit " + s.rc + ": " + s.out + s.err);
		r.check(s.out.contains("\n  inputs:                2 traces, 1 tree snapshot, from 1 host\n"),
				"summary: the inputs' kinds and hosts: " + s.out);
		Matcher m = INPUT.matcher(s.out);
		List<String> seen = new ArrayList<>();
		String table = calibDir.resolve("table.txt").toString();
		while (m.find()) {
			String n = m.group(1), path = m.group(2), kind = m.group(3), cal = m.group(8), run = m.group(9);
			seen.add(n + " " + Path.of(path).getFileName() + " " + kind + " " + run);
			r.check(Long.parseLong(m.group(6)) > 0, path + ": events counted: " + m.group(0));
			String want = kind.equals("trace") ? table + " (fingerprint matches), estimator cond"
					: table + " (applied in the agent), estimator cond";
			r.check(cal.equals(want), path + ": calibration '" + cal + "', expected '" + want + "'");
			String thread = "main [" + n + " " + m.group(4) + ":" + m.group(5) + "]";
			r.check(s.out.contains(" " + thread + " "), "summary names input " + n + "'s main thread " + thread);
		}
		r.check(seen.equals(List.of("1 a.bin trace a", "2 b.bin trace b", "3 c.tree tree snapshot c")),
				"summary: the inputs listed " + seen + ":\n" + s.out);
		r.check(s.out.contains("\n  calibration:           each input with its own table (3 of 3 calibrated"),
				"summary: the profile's calibration: " + s.out);
	}

	/** Inputs of another metric: one error line naming both, exit 1, nothing written. */
	private void testOtherMetric() throws Exception {
		recordings();
		Path other = r.tmp.resolve("tsc.bin");
		Runner.Result res = run(List.of(r.java, "-agentpath:" + r.agent + "=trace,quiet,metric=tsc,out=" + other,
				"-cp", r.classes, BASIC));
		r.check(res.rc == 0, "metric=tsc: exit " + res.rc + ": " + res.err);
		Runner.Result m = post(a, other, "--raw", "--report", "flat");
		List<String> lines = m.errLines();
		r.check(m.rc == 1 && m.out.isEmpty() && lines.size() == 1
				&& lines.get(0).startsWith("jcal-post: error: " + a + " records cputime, " + other + " records ")
				&& lines.get(0).contains("cannot be added"), "another metric: exit " + m.rc + ": " + m.err);
	}

	/** diff --merge: BASE two runs summed against NEW one: every Basic count halves. */
	private void testDiffMerge() throws Exception {
		recordings();
		Runner.Result d = post("diff", "--merge", a, b, "--", c, "--format", "csv");
		r.check(d.rc == 0, "diff --merge: exit " + d.rc + ": " + d.err);
		Map<String, String> got = new TreeMap<>(), want = new TreeMap<>();
		for (List<String> row : Runner.csv(d.out))
			if (row.get(0).startsWith(BASIC))
				got.put(row.get(0), row.get(1) + "," + row.get(2) + "," + row.get(3) + "," + row.get(10));
		ONE.forEach((k, v) -> want.put(k, 2 * v + "," + v + "," + -v + ",changed"));
		r.check(want.equals(got), "diff --merge a b -- c:\n      expected " + want + "\n      got      " + got);
		Runner.Result t = post("diff", "--merge", a, b, "--", c);
		r.check(t.rc == 0 && t.out.contains("\n  base  " + a + " + " + b + ": ") && t.out.contains("\n  new   " + c + ": "),
				"diff --merge names the inputs of each side: " + t.out);
	}

	/** Whether go is on the PATH; false after the SKIP line. */
	private boolean haveGo(String test) {
		try {
			Process p = new ProcessBuilder("go", "version").redirectErrorStream(true).start();
			p.getInputStream().readAllBytes();
			if (p.waitFor() == 0)
				return true;
		} catch (IOException | InterruptedException e) {
			/* not installed */
		}
		System.out.println("SKIP " + test + ": go not installed (Debian package golang-go; "
				+ "scripts/install-deps.sh --tests installs it)");
		return false;
	}

	/** go tool pprof ARGS, with a cache and home of its own. */
	private Runner.Result pprof(String... args) throws Exception {
		Path home = r.tmp.resolve("gohome");
		Files.createDirectories(home);
		List<String> cmd = new ArrayList<>(List.of("go", "tool", "pprof"));
		cmd.addAll(Arrays.asList(args));
		Runner.Result res = r.runFor(r.tmp.toFile(), cmd, Map.of("HOME", home.toString(), "GOCACHE",
				home.resolve("cache").toString(), "GOPATH", home.resolve("gopath").toString()), null, 180);
		if (res == null)
			throw new IOException("timed out: " + cmd);
		r.check(res.rc == 0, "go tool pprof " + String.join(" ", args) + ": exit " + res.rc + ": " + res.err);
		return res;
	}

	/** A tag's values in go tool pprof -tags: "value" -> count (sample_index=calls). */
	private static Map<String, Long> tag(String out, String key) {
		Map<String, Long> m = new TreeMap<>();
		int at = out.indexOf(" " + key + ": Total ");
		if (at < 0)
			return m;
		Matcher v = Pattern.compile("\n +([0-9]+)(?:\\.0)? \\( *[0-9.]+%\\): ([^\n]*)").matcher(out);
		v.region(out.indexOf('\n', at), out.length());
		while (v.find() && v.start() == v.regionStart()) {
			m.put(v.group(2), Long.parseLong(v.group(1)));
			v.region(v.end(), out.length());
		}
		return m;
	}

	/** The merged pprof in Go's pprof: every sample labelled; Basic.leaf's calls by pid, run, host and thread. */
	private boolean testPprof() throws Exception {
		if (!haveGo("merge-pprof"))
			return false;
		recordings();
		Path pb = r.tmp.resolve("merged.pb.gz");
		Runner.Result e = post(a, b, c, "--report", "pprof", "-o", pb);
		r.check(e.rc == 0 && Files.size(pb) > 0, "pprof export: exit " + e.rc + ": " + e.err);
		Runner.Result s = post(a, b, c, "--report", "summary");
		Matcher m = INPUT.matcher(s.out);
		Map<String, Long> pids = new TreeMap<>();
		String host = null;
		while (m.find()) {
			pids.put(m.group(5), 12L);
			host = m.group(4);
		}
		r.check(pids.size() == 3, "three pids in the summary: " + pids);
		Runner.Result t = pprof("-sample_index=calls", "-tags", "-focus=^jcaltest\\.work\\.Basic\\.leaf$", pb.toString());
		r.expectExact("Basic.leaf's calls by pid", pids, tag(t.out, "pid"));
		r.expectExact("Basic.leaf's calls by run", Runner.map("a", 12, "b", 12, "c", 12), tag(t.out, "run"));
		r.expectExact("Basic.leaf's calls by host", Runner.map(host, 36), tag(t.out, "host"));
		r.expectExact("Basic.leaf's calls by thread", Runner.map("main#1", 36), tag(t.out, "thread"));
		r.check(tag(t.out, "jvm").size() == 1, "one jvm label: " + t.out);
		/* every sample carries host, pid, jvm, run and thread */
		Runner.Result raw = pprof("-raw", pb.toString());
		String[] lines = raw.out.split("\n");
		int samples = 0, labelled = 0, i = 0;
		while (i < lines.length && !lines[i].startsWith("Samples:"))
			i++;
		for (i += 2; i < lines.length && !lines[i].startsWith("Locations"); i++) {
			String l = lines[i].trim();
			if (l.matches("[0-9]+ +[0-9]+: [0-9 ]+"))
				samples++;
			else if (l.matches("host:\\[.+\\] jvm:\\[.+\\] pid:\\[[0-9]+\\] run:\\[[abc]\\] thread:\\[.+#[0-9]+\\]"))
				labelled++;
		}
		r.check(samples > 0 && samples == labelled, "pprof -raw: " + samples + " samples, " + labelled + " labelled");
		return true;
	}

	static Runner.Tests tests(Runner r) {
		MergeTests s = new MergeTests(r);
		return new Runner.Tests().add("merge-counts", s::testCounts).add("merge-summary", s::testSummary)
				.add("merge-other-metric", s::testOtherMetric).add("merge-diff", s::testDiffMerge)
				.addSkippable("merge-pprof", s::testPprof);
	}
}
