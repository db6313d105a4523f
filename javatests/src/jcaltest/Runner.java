package jcaltest;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * End-to-end tests: start real JVMs with libjcal.so, run jcal-post on the
 * traces, and check the reports exactly (call counts are deterministic).
 * Run by jcaltest.Main (javatests/run.sh).
 */
public final class Runner {
	final String agent;
	final String post;
	final String java;
	final String classes;
	final Path tmp;
	private final List<String> problems = new ArrayList<>();

	Runner(String agent, String post, Path tmp) {
		this.agent = new File(agent).getAbsolutePath();
		this.post = new File(post).getAbsolutePath();
		this.java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		this.classes = new File(System.getProperty("java.class.path")).getAbsolutePath();
		this.tmp = tmp;
	}

	/* ---- processes ---- */

	static final class Result {
		int rc;
		String out, err;

		List<String> errLines() {
			List<String> l = new ArrayList<>();
			for (String s : err.split("\n"))
				if (!s.isEmpty())
					l.add(s);
			return l;
		}
	}

	Result run(File cwd, List<String> cmd) throws IOException, InterruptedException {
		Result r = runFor(cwd, cmd, Map.of(), null, 120);
		if (r == null)
			throw new IOException("timed out: " + cmd);
		return r;
	}

	/**
	 * Runs cmd in cwd with extra environment and stdin (may be null) under a
	 * timeout; null when it timed out (the process is killed).
	 */
	Result runFor(File cwd, List<String> cmd, Map<String, String> env, Path stdin, int seconds)
			throws IOException, InterruptedException {
		ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd);
		pb.environment().putAll(env);
		Path out = Files.createTempFile(tmp, "out", ".txt"), err = Files.createTempFile(tmp, "err", ".txt");
		pb.redirectOutput(out.toFile()).redirectError(err.toFile());
		if (stdin != null)
			pb.redirectInput(stdin.toFile());
		Process p = pb.start();
		if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
			p.destroyForcibly();
			p.waitFor(10, TimeUnit.SECONDS);
			return null;
		}
		Result r = new Result();
		r.rc = p.exitValue();
		r.out = Files.readString(out, StandardCharsets.UTF_8);
		r.err = Files.readString(err, StandardCharsets.UTF_8);
		return r;
	}

	/** Runs a workload class under the agent; returns the trace path. */
	Path trace(String name, String mainClass, String... args) throws Exception {
		Path t = tmp.resolve(name + ".bin");
		List<String> cmd = new ArrayList<>(List.of(java, "-agentpath:" + agent + "=trace,quiet,out=" + t,
				"-cp", classes, mainClass));
		cmd.addAll(Arrays.asList(args));
		Result r = run(tmp.toFile(), cmd);
		lastTraced = r;
		check(r.rc == 0, name + ": JVM exit " + r.rc + ": " + r.err);
		check(Files.exists(t), name + ": no trace written");
		return t;
	}

	/** What the last trace() run printed. */
	Result lastTraced;

	Result post(Path trace, String... opts) throws Exception {
		List<String> cmd = new ArrayList<>(List.of(post, trace.toString()));
		cmd.addAll(Arrays.asList(opts));
		return run(tmp.toFile(), cmd);
	}

	/* ---- CSV (RFC 4180) ---- */

	static List<List<String>> csv(String text) {
		List<List<String>> rows = new ArrayList<>();
		List<String> row = new ArrayList<>();
		StringBuilder f = new StringBuilder();
		boolean quoted = false, any = false;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (quoted) {
				if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
					f.append('"');
					i++;
				} else if (c == '"') {
					quoted = false;
				} else {
					f.append(c);
				}
			} else if (c == '"') {
				quoted = true;
				any = true;
			} else if (c == ',') {
				row.add(f.toString());
				f.setLength(0);
				any = true;
			} else if (c == '\n' || c == '\r') {
				if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n')
					i++;
				if (any || f.length() > 0) {
					row.add(f.toString());
					rows.add(row);
				}
				row = new ArrayList<>();
				f.setLength(0);
				any = false;
			} else {
				f.append(c);
				any = true;
			}
		}
		if (any || f.length() > 0) {
			row.add(f.toString());
			rows.add(row);
		}
		return rows;
	}

	/** The rows of a CSV report after its header, each a map of column to value. */
	static List<Map<String, String>> csvRecords(String text) {
		List<List<String>> csv = csv(text);
		List<Map<String, String>> out = new ArrayList<>();
		if (csv.isEmpty())
			return out;
		List<String> head = csv.get(0);
		for (List<String> row : csv.subList(1, csv.size())) {
			Map<String, String> v = new HashMap<>();
			for (int i = 0; i < head.size() && i < row.size(); i++)
				v.put(head.get(i), row.get(i));
			out.add(v);
		}
		return out;
	}

	/** The summary's CSV rows of t: key -> value. */
	Map<String, String> summaryCsv(Path t) throws Exception {
		Result res = post(t, "--report", "summary", "--format", "csv");
		check(res.rc == 0, "summary of " + t + ": exit " + res.rc + ": " + res.err);
		Map<String, String> m = new HashMap<>();
		for (List<String> row : csv(res.out))
			if (row.size() == 2)
				m.put(row.get(0), row.get(1));
		return m;
	}

	/** Flat CSV -> method -> calls, for methods starting with prefix. */
	Map<String, Long> flatCalls(Path t, String prefix) throws Exception {
		Result r = post(t, "--report", "flat", "--format", "csv");
		check(r.rc == 0, "flat report of " + t + ": exit " + r.rc + ": " + r.err);
		List<List<String>> rows = csv(r.out);
		/* a recording with throttle= (an attach's default) adds the columns throttled and estimated */
		List<String> head = List.of("method", "calls", "base", "cum", "raw_base", "raw_cum");
		check(!rows.isEmpty() && (rows.get(0).equals(head) || rows.get(0).equals(List.of("method", "calls", "base",
				"cum", "raw_base", "raw_cum", "throttled", "estimated"))), "flat CSV header: " + (rows.isEmpty() ? "none" : rows.get(0)));
		Map<String, Long> m = new TreeMap<>();
		for (List<String> row : rows.subList(Math.min(1, rows.size()), rows.size()))
			if (row.get(0).startsWith(prefix))
				m.merge(row.get(0), Long.parseLong(row.get(1)), Long::sum);
		return m;
	}

	/** Tree CSV rows of one thread (name prefix, serial ignored). */
	private List<List<String>> treeRows(Path t, String thread) throws Exception {
		/* each thread its own tree: worker-1 .. worker-4 are one pool */
		Result r = post(t, "--report", "tree", "--format", "csv", "--split-pools");
		check(r.rc == 0, "tree report of " + t + ": exit " + r.rc + ": " + r.err);
		List<List<String>> rows = csv(r.out);
		check(!rows.isEmpty() && rows.get(0).equals(
				List.of("thread", "level", "rl", "calls", "base", "cum", "raw_base", "raw_cum", "path")),
				"tree CSV header: " + (rows.isEmpty() ? "none" : rows.get(0)));
		List<List<String>> mine = new ArrayList<>();
		for (List<String> row : rows.subList(Math.min(1, rows.size()), rows.size()))
			if (row.get(0).replaceAll("#[0-9]+$", "").equals(thread))
				mine.add(row);
		return mine;
	}

	/**
	 * Calling contexts of one thread below its first frame in package pkg:
	 * path suffix from the first pkg element -> calls, summed. Rows whose
	 * path never enters pkg are dropped (JDK start-up, class loading).
	 */
	private Map<String, Long> treeCalls(Path t, String thread, String pkg) throws Exception {
		Map<String, Long> m = new TreeMap<>();
		for (List<String> row : treeRows(t, thread)) {
			String[] path = row.get(8).split(";");
			int first = -1;
			for (int i = 0; i < path.length && first < 0; i++)
				if (path[i].startsWith(pkg))
					first = i;
			if (first < 0)
				continue;
			String suffix = String.join(";", Arrays.asList(path).subList(first, path.length));
			m.merge(suffix, Long.parseLong(row.get(3)), Long::sum);
		}
		return m;
	}

	/* ---- checks ---- */

	void check(boolean ok, String what) {
		if (!ok)
			problems.add(what);
	}

	/** actual must equal expected exactly. */
	void expectExact(String what, Map<String, Long> expected, Map<String, Long> actual) {
		if (!expected.equals(actual))
			problems.add(what + ":\n      expected " + expected + "\n      got      " + actual);
	}

	/** Every expected entry present with its count; every actual entry ending in pkg is expected. */
	private void expectContexts(String what, Map<String, Long> expected, Map<String, Long> actual, String pkg) {
		Map<String, Long> got = new TreeMap<>();
		for (Map.Entry<String, Long> e : actual.entrySet()) {
			String last = e.getKey().substring(e.getKey().lastIndexOf(';') + 1);
			if (expected.containsKey(e.getKey()) || last.startsWith(pkg))
				got.put(e.getKey(), e.getValue());
		}
		expectExact(what, expected, got);
	}

	/** Flat CSV report (jcal-post ARGS... added): calls per method of the test workloads (W). */
	Map<String, Long> flatCalls(Path t, String... args) throws Exception {
		List<String> cmd = new ArrayList<>(List.of("--report", "flat", "--format", "csv"));
		cmd.addAll(List.of(args));
		Result f = post(t, cmd.toArray(new String[0]));
		check(f.rc == 0, "flat report " + cmd + ": exit " + f.rc + ": " + f.err);
		Map<String, Long> calls = new TreeMap<>();
		for (List<String> row : csv(f.out))
			if (row.get(0).startsWith(W))
				calls.merge(row.get(0), Long.parseLong(row.get(1)), Long::sum);
		return calls;
	}

	/** Threads named jcal-calibrator (one per recalibrate= burst) in a summary report. */
	static int calibratorThreads(Result summary) {
		int n = 0;
		for (String line : summary.out.split("\n"))
			if (line.contains(" jcal-calibrator "))
				n++;
		return n;
	}

	static Map<String, Long> map(Object... kv) {
		Map<String, Long> m = new LinkedHashMap<>();
		for (int i = 0; i < kv.length; i += 2)
			m.put((String) kv[i], ((Number) kv[i + 1]).longValue());
		return new TreeMap<>(m);
	}

	interface Test {
		void run() throws Exception;
	}

	interface SkippableTest {
		/** Returns false when it skipped (and said so). */
		boolean run() throws Exception;
	}

	/** A suite's tests by name, in the order they run. */
	static final class Tests extends LinkedHashMap<String, SkippableTest> {
		private static final long serialVersionUID = 1L;

		Tests add(String name, Test t) {
			put(name, () -> {
				t.run();
				return true;
			});
			return this;
		}

		Tests addSkippable(String name, SkippableTest t) {
			put(name, t);
			return this;
		}
	}

	/**
	 * Runs one test with a fresh list of problems: returns the problems its
	 * checks found (empty: it passed), or null when it skipped. jcaltest.Main
	 * prints and counts the outcome.
	 */
	List<String> runOne(SkippableTest t) {
		problems.clear();
		boolean ran = true;
		try {
			ran = t.run();
		} catch (Exception e) {
			problems.add("exception: " + e);
		}
		return !ran && problems.isEmpty() ? null : new ArrayList<>(problems);
	}

	/* ---- the tests ---- */

	private static final String W = "jcaltest.work.";

	private void testBasic() throws Exception {
		Path t = trace("basic", W + "Basic");
		String B = W + "Basic.";
		expectExact("flat calls", map(B + "main", 1, B + "<init>", 1, B + "a", 3, B + "b", 6, B + "leaf", 12),
				flatCalls(t, W));
		String m = B + "main";
		expectContexts("tree of main", map(m, 1, m + ";" + B + "<init>", 1, m + ";" + B + "a", 3,
				m + ";" + B + "a;" + B + "b", 6, m + ";" + B + "a;" + B + "b;" + B + "leaf", 12),
				treeCalls(t, "main", W), W);
	}

	/**
	 * include=/exclude= in mode=events: excluded methods' events are not
	 * recorded (their callees hang under their callers), counts of the rest
	 * stay exact, and the trace and the summary say what was left out.
	 */
	private void testEventsFilter() throws Exception {
		String B = W + "Basic.", m = B + "main";
		Path all = trace("filter-none", W + "Basic");
		check(!flatCalls(all, "java.").isEmpty(), "without a filter, java.* methods are recorded");
		Path t = tmp.resolve("filter-include.bin");
		Result r = run(tmp.toFile(), List.of(java, "-agentpath:" + agent + "=trace,include=jcaltest.work.*,out=" + t,
				"-cp", classes, W + "Basic"));
		check(r.rc == 0 && r.err.matches("(?s).*jcal: wrote .* - [1-9][0-9]* events of [1-9][0-9]* excluded methods "
				+ "not recorded\n.*"), "include=: exit 0 and the filter in the 'wrote' line: " + r.err);
		expectExact("include=: flat calls", map(m, 1, B + "<init>", 1, B + "a", 3, B + "b", 6, B + "leaf", 12),
				flatCalls(t, W));
		check(flatCalls(t, "java.").isEmpty(), "include=: no java.* method recorded");
		String s = post(t, "--report", "summary").out;
		check(s.matches("(?s).*filtered: +[1-9][0-9]* events of [1-9][0-9]* methods not recorded "
				+ "\\(include=jcaltest.work.\\* exclude=none\\).*"), "include=: summary says what was filtered: " + s);
		/* exclude= the JDK: the program's own counts and tree stay exact. */
		t = tmp.resolve("filter-exclude.bin");
		r = run(tmp.toFile(), List.of(java, "-agentpath:" + agent + "=trace,quiet,exclude=java.*;jdk.*;sun.*,out=" + t,
				"-cp", classes, W + "Basic"));
		check(r.rc == 0, "exclude=: exit " + r.rc + ": " + r.err);
		expectExact("exclude=: flat calls", map(m, 1, B + "<init>", 1, B + "a", 3, B + "b", 6, B + "leaf", 12),
				flatCalls(t, W));
		expectContexts("exclude=: tree of main", map(m, 1, m + ";" + B + "<init>", 1, m + ";" + B + "a", 3,
				m + ";" + B + "a;" + B + "b", 6, m + ";" + B + "a;" + B + "b;" + B + "leaf", 12),
				treeCalls(t, "main", W), W);
	}

	private void testRecursion() throws Exception {
		Path t = trace("recursion", W + "Recursion");
		String R = W + "Recursion.";
		expectExact("flat calls", map(R + "main", 1, R + "fib", 465, R + "down", 3001, R + "even", 6, R + "odd", 5),
				flatCalls(t, W));
		int maxRl = 0, downNodes = 0;
		for (List<String> row : treeRows(t, "main"))
			if (row.get(8).endsWith(";" + R + "down")) {
				downNodes++;
				check(row.get(3).equals("1"), "down node with calls " + row.get(3));
				maxRl = Math.max(maxRl, Integer.parseInt(row.get(2)));
			}
		check(downNodes == 3001, "down: 3001 nested contexts expected, got " + downNodes);
		check(maxRl == 3001, "down: deepest recursion level 3001 expected, got " + maxRl);
	}

	private void testExceptions() throws Exception {
		Path t = trace("exceptions", W + "Exceptions");
		String E = W + "Exceptions.";
		expectExact("flat calls", map(E + "main", 1, E + "outer", 5, E + "inner", 5, E + "middle", 5,
				E + "thrower", 5, E + "after", 5), flatCalls(t, W));
		String o = E + "main;" + E + "outer";
		expectContexts("tree of main: after() runs in outer(), not below thrower()",
				map(E + "main", 1, o, 5, o + ";" + E + "inner", 5, o + ";" + E + "inner;" + E + "middle", 5,
						o + ";" + E + "inner;" + E + "middle;" + E + "thrower", 5, o + ";" + E + "after", 5),
				treeCalls(t, "main", W), W);
	}

	private void testThreads() throws Exception {
		Path t = trace("threads", W + "Threads");
		String T = W + "Threads.";
		String run = W + "Threads$Worker.run";
		for (int k = 1; k <= 4; k++)
			expectContexts("tree of worker-" + k,
					map(run, 1, run + ";" + T + "step", 1, run + ";" + T + "step;" + T + "leaf", 100 * k),
					treeCalls(t, "worker-" + k, W), W);
		expectExact("flat calls", map(T + "main", 1, T + "step", 4, T + "leaf", 1000, W + "Threads$Worker.<init>", 4,
				run, 4), flatCalls(t, W));
		/* --thread keeps only the named thread. */
		Result r = post(t, "--report", "tree", "--format", "csv", "--thread", "worker-3");
		List<List<String>> rows = csv(r.out);
		boolean onlyW3 = rows.size() > 1;
		for (List<String> row : rows.subList(1, rows.size()))
			onlyW3 &= row.get(0).startsWith("worker-3#");
		check(r.rc == 0 && onlyW3, "--thread worker-3 must select exactly that thread: " + r.err);
		/* by default worker-1 .. worker-4 are one pool, one tree: their calls added up */
		Result g = post(t, "--report", "tree", "--format", "csv");
		Map<String, Long> pool = new TreeMap<>();
		Set<String> labels = new TreeSet<>();
		for (List<String> row : csv(g.out).subList(1, csv(g.out).size()))
			if (row.get(0).startsWith("worker-")) {
				labels.add(row.get(0).replaceAll("#[0-9]+$", ""));
				String[] path = row.get(8).split(";");
				String last = path[path.length - 1];
				if (last.startsWith(W))
					pool.merge(last, Long.parseLong(row.get(3)), Long::sum);
			}
		check(g.rc == 0 && labels.equals(Set.of("worker-* (4 threads)")), "one tree for the pool: " + labels + g.err);
		expectExact("the pool's tree", map(run, 4, T + "step", 4, T + "leaf", 1000), pool);
		Result c = post(t, "--report", "collapsed", "--thread", "worker-*");
		check(c.rc == 0 && c.out.lines().allMatch(l -> l.startsWith("worker-* (4 threads);") || l.startsWith("worker-* (4 threads) ")) && !c.out.isEmpty(),
				"the flame graph's stacks start with the pool: " + c.out + c.err);
	}

	private void testNatives() throws Exception {
		Path t = trace("natives", W + "Natives");
		String m = W + "Natives.main";
		expectContexts("tree of main", map(m, 1, m + ";java.lang.System.arraycopy", 7, m + ";java.lang.Object.hashCode", 6),
				treeCalls(t, "main", W), W);
		Result r = post(t, "--report", "summary", "--format", "json");
		check(r.rc == 0, "summary: " + r.err);
		check(r.out.matches("(?s).*\"N\"\\s*:\\s*[1-9].*"), "summary JSON counts native static (N) events: " + r.out);
	}

	private void testManyChunks() throws Exception {
		Path t = trace("loop", W + "Loop");
		expectExact("flat calls", map(W + "Loop.main", 1, W + "Loop.tick", 200000), flatCalls(t, W));
		long bytes = Files.size(t);
		check(bytes > 4 * 65536, "trace should span several chunks: " + bytes + " bytes");
	}

	private void testTextReport() throws Exception {
		Path t = trace("basic-text", W + "Basic");
		Result r = post(t, "--report", "tree");
		check(r.rc == 0, "text tree: " + r.err);
		check(r.out.contains("jcaltest.work.Basic.leaf"), "text tree names methods");
		check(r.out.contains("main"), "text tree has the main thread");
		Path o = tmp.resolve("flat.txt");
		r = post(t, "--report", "flat", "-o", o.toString());
		check(r.rc == 0 && r.out.isEmpty() && Files.readString(o).contains("jcaltest.work.Basic.b"),
				"-o writes the report to the file");
	}

	private static final String[][] BAD_OPTIONS = {
		{ "bogus", "bogus" },
		{ "trace,out=", "out=" },
		{ "trace,metric=foo", "foo" },
		{ "trace,mode=fast", "mode=fast" },
		{ "", "no mode" },
		{ "out=x.bin", "no mode" },
		{ "trace,,out=x.bin", "empty option" },
		{ "trace,calibrate", "calibrate" },
		{ "help=1", "help=1" },
		{ "trace,loglevel=loud", "loglevel=loud" },
		{ "trace,metric=instructions", "instructions" },
		{ "trace,out=/nonexistent-dir/t.bin", "/nonexistent-dir/t.bin" },
		{ "trace,out=t%q.bin", "%q" },
		{ "trace,metric=pfm:NO_SUCH_EVENT", "NO_SUCH_EVENT" },
		{ "trace,metric=cycles", "cycles" },
	};

	private void testBadOptions() throws Exception {
		for (String[] bad : BAD_OPTIONS) {
			Path dir = Files.createTempDirectory(tmp, "bad");
			String opt = bad[0].isEmpty() ? "" : "=" + bad[0];
			Result r = run(dir.toFile(), List.of(java, "-agentpath:" + agent + opt, "-cp", classes, W + "Basic"));
			List<String> jcalLines = new ArrayList<>();
			for (String l : r.errLines())
				if (l.startsWith("jcal"))
					jcalLines.add(l);
			check(r.rc == 1, "'" + bad[0] + "': exit 1 expected, got " + r.rc);
			check(jcalLines.size() == 1 && jcalLines.get(0).startsWith("jcal: error: ")
					&& jcalLines.get(0).contains(bad[1]),
					"'" + bad[0] + "': one 'jcal: error:' line naming '" + bad[1] + "', got " + jcalLines);
			check(!r.out.contains("basic"), "'" + bad[0] + "': the application must not run");
			String[] left = dir.toFile().list();
			check(left != null && left.length == 0, "'" + bad[0] + "': nothing may be written, found "
					+ Arrays.toString(left));
		}
	}

	/**
	 * metric=auto falls back in one line, once per process tree (a JVM started
	 * by a profiled JVM inherits JCAL_METRIC_NOTED and stays quiet); the
	 * details at loglevel=debug; the trace names the metric used and why.
	 */
	private void testMetricAuto() throws Exception {
		Path t = tmp.resolve("auto.bin");
		List<String> cmd = List.of(java, "-agentpath:" + agent + "=trace,out=" + t, "-cp", classes, W + "Basic");
		Result r = run(tmp.toFile(), cmd);
		check(r.rc == 0, "auto: exit " + r.rc + ": " + r.err);
		Result s = post(t, "--report", "summary", "--format", "json");
		if (!s.out.contains("\"metrics\":\"cputime\"")) {
			check(!r.err.contains("no hardware counters"), "auto: counters work here, no fallback line: " + r.err);
			return;
		}
		List<String> lines = new ArrayList<>();
		for (String l : r.err.split("\n"))
			if (l.startsWith("jcal: "))
				lines.add(l);
		check(lines.size() == 2 && lines.get(0).matches("jcal: metric cputime \\(no hardware counters here: "
				+ "[A-Z0-9]+; details: loglevel=debug\\)") && lines.get(1).startsWith("jcal: wrote "),
				"auto: one fallback line then 'wrote', got: " + lines);
		check(s.out.contains("\"metric.0.why\":\"auto"), "auto: trace must record why: " + s.out);
		String code = lines.get(0).replaceAll(".*here: ([A-Z0-9]+);.*", "$1");
		Result child = runFor(tmp.toFile(), cmd, Map.of("JCAL_METRIC_NOTED", "cputime:" + code), null, 120);
		check(child.rc == 0 && !child.err.contains("no hardware counters"),
				"auto: a JVM whose parent reported the fallback stays quiet, got: " + child.err);
		Result debug = run(tmp.toFile(), List.of(java, "-agentpath:" + agent + "=trace,loglevel=debug,out=" + t,
				"-cp", classes, W + "Basic"));
		check(debug.err.contains("jcal: debug: metric=auto: ") && debug.err.contains("perf_event_open"),
				"auto: loglevel=debug gives the details, got: " + debug.err);
	}

	/** Several metrics at once: every event carries both; counts stay exact. */
	private void testTwoMetrics() throws Exception {
		Path t = tmp.resolve("two.bin");
		Result r = run(tmp.toFile(), List.of(java, "-agentpath:" + agent + "=trace,quiet,metric=tsc+cputime,out=" + t,
				"-cp", classes, W + "Basic"));
		check(r.rc == 0, "tsc+cputime: exit " + r.rc + ": " + r.err);
		Result s = post(t, "--report", "summary", "--format", "json");
		check(s.out.contains("{\"name\":\"tsc\"") && s.out.contains("{\"name\":\"cputime\""),
				"both metrics in the summary: " + s.out);
		String B = W + "Basic.";
		for (String m : List.of("tsc", "cputime")) {
			expectExact("flat calls with --metric " + m, map(B + "main", 1, B + "<init>", 1, B + "a", 3, B + "b", 6,
					B + "leaf", 12), flatCalls(t, "--metric", m));
		}
	}

	/**
	 * calibrate: the built-in workload writes a table covering every key
	 * reachable in mode=events; jcal-post derives the same table from the
	 * calibration trace, applies it to a real trace with the call counts
	 * untouched, and the calibrated figures are consistent: 0 <= base <= cum,
	 * a parent's cum covers its children's, calibrated <= raw.
	 */
	private void testCalibrate() throws Exception {
		Path dir = Files.createTempDirectory(tmp, "calib");
		Path table = dir.resolve("table.txt"), ctrace = dir.resolve("calib.bin");
		Result r = run(dir.toFile(), List.of(java, "-agentpath:" + agent + "=calibrate,metric=cputime,table=" + table
				+ ",out=" + ctrace));
		check(r.rc == 0, "calibrate: exit " + r.rc + ": " + r.err);
		check(r.err.contains("calibration table written to " + table), "calibrate says where the table went: " + r.err);
		check(r.err.contains("key coverage: 600 of 600"), "calibrate covers all 600 reachable keys: " + r.err);
		check(Files.exists(table) && Files.readString(table).startsWith("jcal-calibration 3"), "table written");

		Path derived = dir.resolve("derived.txt");
		Result d = post(ctrace, "--report", "calib", "-o", derived.toString());
		check(d.rc == 0, "--report calib: " + d.err);
		Result diff = run(dir.toFile(), List.of(post, "calib", "diff", table.toString(), derived.toString()));
		check(diff.rc == 0, "the agent's table and jcal-post's derived table must be the same: " + diff.out + diff.err);
		Result chk = run(dir.toFile(), List.of(post, "calib", "check", table.toString()));
		check(chk.rc == 0, "calib check: " + chk.out + chk.err);

		Path t = tmp.resolve("calibrated.bin");
		Result tr = run(tmp.toFile(), List.of(java, "-agentpath:" + agent + "=trace,quiet,metric=cputime,out=" + t,
				"-cp", classes, W + "Recursion"));
		check(tr.rc == 0, "trace: " + tr.err);
		for (String est : List.of("min", "median", "cond", "fit", "cfit")) {
			/* --sig: overloads must not share a path here. */
			Result c = post(t, "--calib", table.toString(), "--estimator", est, "--report", "tree", "--format", "csv",
					"--sig");
			check(c.rc == 0, "calibrated tree (" + est + "): " + c.err);
			List<List<String>> rows = csv(c.out);
			Map<String, long[]> byPath = new LinkedHashMap<>();
			long fibCalls = 0;
			for (List<String> row : rows.subList(1, rows.size())) {
				long calls = Long.parseLong(row.get(3)), base = Long.parseLong(row.get(4)), cum = Long.parseLong(row.get(5));
				long rawBase = Long.parseLong(row.get(6)), rawCum = Long.parseLong(row.get(7));
				String key = row.get(0) + "|" + row.get(8);
				byPath.put(key, new long[] { cum, 0 });
				if (row.get(8).endsWith(W + "Recursion.fib(I)I"))
					fibCalls += calls;
				if (base < 0 || base > cum || base > rawBase || cum > rawCum) {
					check(false, est + ": inconsistent row " + row);
					break;
				}
			}
			/* A parent's cum covers its children's cum. */
			for (Map.Entry<String, long[]> e : byPath.entrySet()) {
				String k = e.getKey();
				int cut = k.lastIndexOf(';');
				String parent = cut > k.indexOf('|') ? k.substring(0, cut) : k.substring(0, k.indexOf('|') + 1);
				long[] p = parent.equals(k) ? null : byPath.get(parent);
				if (p != null)
					p[1] += e.getValue()[0];
			}
			for (Map.Entry<String, long[]> e : byPath.entrySet())
				if (e.getValue()[1] > e.getValue()[0]) {
					check(false, est + ": children's cum exceeds parent's at " + e.getKey());
					break;
				}
			check(fibCalls == 465, est + ": call counts stay exact under calibration: fib " + fibCalls);
			Result s = post(t, "--calib", table.toString(), "--estimator", est, "--report", "summary");
			check(s.out.contains("estimator " + est) && s.out.contains("fingerprint matches"),
					"summary names the table and estimator: " + s.out);
		}
		/* A version 1 table (before q=) still applies; cond says it falls back to the mean. */
		check(Files.readString(table).contains(" q="), "the table has quantiles");
		Path v1 = dir.resolve("v1.txt");
		Files.writeString(v1, Files.readString(table).replaceFirst("^jcal-calibration 3", "jcal-calibration 1")
				.replaceAll(" q=[0-9,]+", "").replaceAll(" a=[0-9.]+ b=[0-9.]+", ""));
		Result c1 = post(t, "--calib", v1.toString(), "--report", "summary");
		check(c1.rc == 0 && c1.err.contains("has no quantiles (a version 1 table): --estimator cond takes each key's mean"),
				"cond on a version 1 table warns: " + c1.err);
		Result m1 = post(t, "--calib", v1.toString(), "--estimator", "median", "--report", "summary");
		check(m1.rc == 0 && !m1.err.contains("quantiles"), "median on a version 1 table: no warning: " + m1.err);
	}

	private static final Path BUILD = Path.of(System.getProperty("jcal.build", "build")).toAbsolutePath();

	/** Root cum of every thread of a trace: name#serial -> cum (raw). */
	private Map<String, Long> rootCums(Path t) throws Exception {
		Map<String, Long> m = new LinkedHashMap<>();
		Result r = post(t, "--report", "tree", "--format", "csv", "--raw", "--split-pools"); /* reuse-1, -2 apart */
		for (List<String> row : csv(r.out))
			if (row.get(1).equals("0"))
				m.put(row.get(0), Long.parseLong(row.get(5)));
		return m;
	}

	/**
	 * docs/agent-internals.md (threads): a native thread attaches as reuse-1, detaches and
	 * attaches again as reuse-2 on the same kernel thread: two trees with
	 * exact counts, and reuse-2 is not charged the CPU time reuse-1 burnt.
	 */
	private void testReattach() throws Exception {
		/* clock=raw: reuse-1's spin is bounded by wall time and calls
		 * System.nanoTime tens of thousands of times, so the agent-free
		 * clock takes a share of its 20 ms out that depends on the load */
		Path t = tmp.resolve("reattach.bin");
		Result tr = run(tmp.toFile(), List.of(java, "-agentpath:" + agent + "=trace,quiet,clock=raw,out=" + t, "-cp",
				classes, W + "Reattach", BUILD.resolve("libjcaltest.so").toString()));
		check(tr.rc == 0, "reattach: JVM exit " + tr.rc + ": " + tr.err);
		String R = W + "Reattach.";
		expectContexts("tree of reuse-1", map(R + "work", 1, R + "work;" + R + "leaf", 10), treeCalls(t, "reuse-1", W), W);
		expectContexts("tree of reuse-2", map(R + "work", 1, R + "work;" + R + "leaf", 20), treeCalls(t, "reuse-2", W), W);
		Result s = post(t, "--report", "summary", "--format", "json");
		Matcher mt = Pattern.compile("\\{\"serial\":(\\d+),\"name\":\"(reuse-[12])\",\"java_tid\":\\d+,\"os_tid\":(\\d+)")
				.matcher(s.out);
		Map<String, String> serial = new TreeMap<>(), tid = new TreeMap<>();
		while (mt.find()) {
			serial.put(mt.group(2), mt.group(1));
			tid.put(mt.group(2), mt.group(3));
		}
		check(serial.size() == 2 && !serial.get("reuse-1").equals(serial.get("reuse-2")),
				"two Java threads with their own serials: " + serial);
		check(tid.size() == 2 && tid.get("reuse-1").equals(tid.get("reuse-2")), "both on one kernel thread: " + tid);
		Map<String, Long> cum = rootCums(t);
		long c1 = cum.getOrDefault("reuse-1#" + serial.get("reuse-1"), -1L);
		long c2 = cum.getOrDefault("reuse-2#" + serial.get("reuse-2"), -1L);
		/* reuse-1 spins 10 x 2 ms of wall time (on a loaded machine less
		 * of it is CPU time: 14.8 ms seen); reuse-2 does 20 empty calls. */
		check(c1 >= 5_000_000L && c2 >= 0 && c2 < c1 / 10,
				"reuse-2 must not be charged reuse-1's CPU time: reuse-1 " + c1 + " ns, reuse-2 " + c2 + " ns");
	}

	/** Calls of one method in the threads --thread sel selects (flat CSV). */
	private long threadCalls(Path t, String sel, String method) throws Exception {
		Result r = post(t, "--report", "flat", "--format", "csv", "--thread", sel);
		long calls = -1;
		for (List<String> row : csv(r.out))
			if (row.get(0).equals(method))
				calls = Long.parseLong(row.get(1));
		return calls;
	}

	/** Thread names needing CSV quoting and JSON escaping; a rename while running. */
	private void testThreadNames() throws Exception {
		Path t = trace("names", W + "Names");
		String odd = "naïve, \"quoted\" 名前";
		check(threadCalls(t, odd, W + "Names.leaf") == 3, "--thread selects the oddly named thread, leaf() 3 times");
		Result j = post(t, "--report", "summary", "--format", "json");
		check(j.out.contains("\"name\":\"naïve, \\\"quoted\\\" 名前\""), "JSON escapes the name: " + j.out);
		String mainTid = lastTraced.out.replaceAll("(?s).*main-tid ([0-9]+).*", "$1");
		check(j.out.contains("\"name\":\"main\",\"java_tid\":" + mainTid + ","),
				"the main thread, first seen before VMInit, gets its Java thread id " + mainTid + ": " + j.out);
		check(j.out.contains("\"name\":\"renamed-later\"") && !j.out.contains("\"name\":\"first-name\""),
				"the name a thread ends with is recorded: " + j.out);
		check(threadCalls(t, "renamed-later", W + "Names.leaf") == 2, "the renamed thread called leaf() twice");
	}

	/**
	 * jcaltest21.VThreads N traced to t: one tree per virtual thread, vt-k
	 * calling leaf() exactly k times, carriers' trees holding none of their
	 * methods. Shared with BciTests.
	 */
	void checkVirtualThreadTrees(Path t, int n) throws Exception {
		String V = "jcaltest21.VThreads.";
		/* each thread its own tree: vt-1 .. vt-N are one pool */
		Result tree = post(t, "--report", "tree", "--format", "csv", "--raw", "--thread", "virtual", "--split-pools");
		Map<String, Long> leafByThread = new TreeMap<>();
		int threads = 0;
		List<List<String>> rows = csv(tree.out);
		for (List<String> row : rows.subList(Math.min(1, rows.size()), rows.size())) {
			if (row.get(1).equals("0"))
				threads++;
			if (row.get(8).endsWith(V + "work;" + V + "leaf"))
				leafByThread.merge(row.get(0).replaceAll("#[0-9]+$", ""), Long.parseLong(row.get(3)), Long::sum);
		}
		check(threads == n, "one tree per virtual thread: " + threads);
		int wrong = 0;
		for (int k = 1; k <= n; k++)
			if (leafByThread.getOrDefault("vt-" + k, 0L) != k)
				wrong++;
		check(wrong == 0, wrong + " virtual threads with a wrong leaf() count, e.g. vt-7: " + leafByThread.get("vt-7"));
		/* by default the pool is one tree: every vt-k's leaf() calls added up */
		Result pool = post(t, "--report", "tree", "--format", "csv", "--raw", "--thread", "virtual");
		Map<String, Long> leafByPool = new TreeMap<>();
		List<List<String>> prow = csv(pool.out);
		for (List<String> row : prow.subList(Math.min(1, prow.size()), prow.size()))
			if (row.get(8).endsWith(V + "work;" + V + "leaf"))
				leafByPool.merge(row.get(0).replaceAll("#[0-9]+$", ""), Long.parseLong(row.get(3)), Long::sum);
		expectExact("the virtual threads' pool", map("vt-* (" + n + " threads)", (long) n * (n + 1) / 2), leafByPool);
		Result carriers = post(t, "--report", "flat", "--format", "csv", "--raw", "--thread", "ForkJoinPool-*");
		check(carriers.rc == 0 && !carriers.out.contains(V), "carrier trees must not hold virtual threads' methods");
	}

	/**
	 * Virtual threads on a JDK >= 21: 300 of them on two carriers, vt-k
	 * calling leaf() exactly k times with yields in between; each has its
	 * own tree, carriers' trees hold none of their methods, and the JDK's
	 * mount/unmount frames leave no unbalanced exits. The same run keeps
	 * the trees in the agent too (output=both), whose events move between
	 * carriers with their virtual thread: its snapshot has the same calls
	 * and figures per method.
	 */
	private boolean testVirtualThreads() throws Exception {
		Path home = BUILD.resolve("javatests21/JAVA_HOME");
		if (!Files.exists(home)) {
			System.out.println("SKIP virtual-threads: no JDK >= 21 found (set JAVA21_HOME)");
			return false;
		}
		String java21 = Path.of(Files.readString(home).trim(), "bin", "java").toString();
		Path t = tmp.resolve("vthreads.bin");
		int n = 300;
		Result r = run(tmp.toFile(), List.of(java21, "-Djdk.virtualThreadScheduler.parallelism=2",
				"-Djdk.virtualThreadScheduler.maxPoolSize=2", "-agentpath:" + agent + "=trace,quiet,output=both,out=" + t,
				"-cp", BUILD.resolve("javatests21").toString(), "jcaltest21.VThreads", String.valueOf(n)));
		check(r.rc == 0, "vthreads: exit " + r.rc + ": " + r.err);
		checkVirtualThreadTrees(t, n);
		// the snapshot keeps the trees of the 256 threads that ended last and
		// merges the others: per method, calls and figures are the trace's
		String[] flat = {"--report", "flat", "--format", "csv", "--raw"};
		Result fromTrace = post(t, flat), fromSnap = post(Path.of(t + ".tree"), flat);
		check(fromTrace.rc == 0 && fromTrace.out.contains("jcaltest21.VThreads.leaf,45150,")
				&& fromTrace.out.equals(fromSnap.out), "vthreads: the snapshot's flat profile is the trace's:\n"
						+ fromTrace.out + "\n---\n" + fromSnap.out);
		Result s = post(t, "--report", "summary", "--format", "json");
		check(s.out.contains("\"unmatched_exits\":0,\"mismatched_exits\":0"),
				"mount/unmount leave every tree balanced: " + s.out.replaceAll("(?s)\"thread_list.*", ""));
		return true;
	}

	/** jcal.Control: only regions are traced with start=manual; stop() pauses otherwise. */
	private void testRegions() throws Exception {
		String R = W + "Regions.";
		for (String mode : List.of("manual", "auto")) {
			Path t = tmp.resolve("regions-" + mode + ".bin");
			Result r = run(tmp.toFile(), List.of(java, "-agentpath:" + agent + "=trace,quiet,start=" + mode + ",out=" + t,
					"-cp", classes, W + "Regions"));
			check(r.rc == 0 && r.out.contains("regions"), mode + ": exit " + r.rc + ": " + r.err);
			Map<String, Long> want = mode.equals("manual") ? map(R + "work", 2, R + "leaf", 9)
					: map(R + "main", 1, R + "work", 4, R + "leaf", 114);
			expectExact("flat calls, start=" + mode, want, flatCalls(t, W));
			Result s = post(t, "--report", "summary", "--format", "json");
			check(s.out.contains("\"regions\":{\"starts\":" + (mode.equals("manual") ? 1 : 0)
					+ ",\"stops\":1,\"marks\":1}"), mode + ": one region, one mark: " + s.out);
			check(!s.out.contains("jcal.Control"), mode + ": jcal.Control's own calls are not recorded");
			Result tree = post(t, "--report", "flat", "--format", "csv");
			check(!tree.out.contains("jcal.Control"), mode + ": no jcal.Control frames in the reports");
		}
	}

	/** recalibrate=both: calibration bursts at start-up and in a shutdown hook; --calib inrun applies them. */
	private void testRecalibrate() throws Exception {
		Path t = tmp.resolve("recal.bin");
		Result r = run(tmp.toFile(), List.of(java, "-agentpath:" + agent + "=trace,recalibrate=both,metric=cputime,out=" + t,
				"-cp", classes, W + "Basic"));
		check(r.rc == 0 && r.out.contains("basic"), "recalibrate=start: exit " + r.rc + ": " + r.err);
		check(!r.err.contains("failed"), "the in-run burst must not fail: " + r.err);
		Result s = post(t, "--calib", "inrun", "--report", "summary");
		check(s.rc == 0 && s.out.contains("in-run calibration of") && s.out.contains("jcal-calibrator"),
				"--calib inrun applies the run's own samples: " + s.out + s.err);
		Result d = post(t, "--report", "summary");
		check(d.rc == 0 && d.out.contains("in-run calibration of"),
				"a trace made with recalibrate= applies its own samples by default: " + d.out + d.err);
		Path none = tmp.resolve("empty-calib-dir");
		Files.createDirectories(none);
		Result st = post(t, "--calib", none.toString(), "--report", "summary");
		check(st.rc == 0 && !st.out.contains("in-run calibration of"),
				"--calib DIR still names the stored tables: " + st.out + st.err);
		int bursts = calibratorThreads(s);
		check(bursts == 2, "one calibrator thread at start-up and one at the end: " + bursts);
		String B = W + "Basic.";
		expectExact("counts of main with --calib inrun", map(B + "main", 1, B + "<init>", 1, B + "a", 3, B + "b", 6,
				B + "leaf", 12), flatCalls(t, "--calib", "inrun", "--thread", "main"));
		Result bad = post(tmp.resolve("basic.bin").toFile().exists() ? tmp.resolve("basic.bin") : t, "--calib", "inrun");
		if (tmp.resolve("basic.bin").toFile().exists())
			check(bad.rc != 0 && bad.err.contains("no in-run calibration"), "a trace without a burst: clear error: " + bad.err);
	}

	/**
	 * recalibrate=10s: the timer thread runs one burst while main sleeps 15 s;
	 * it is in the trace, --calib inrun applies it, and main's counts stay exact.
	 */
	private void testRecalibratePeriodic() throws Exception {
		Path t = tmp.resolve("recal-period.bin");
		Result r = run(tmp.toFile(), List.of(java, "-agentpath:" + agent + "=trace,recalibrate=10s,metric=cputime,out=" + t,
				"-cp", classes, W + "Periodic", "15000", "burst"));
		check(r.rc == 0 && r.out.contains("periodic 32"), "recalibrate=10s: exit " + r.rc + ": " + r.out + r.err);
		check(!r.err.contains("failed"), "the periodic burst must not fail: " + r.err);
		check(r.err.contains("recalibrate: running the calibration workload"), "the burst ran: " + r.err);
		Result s = post(t, "--calib", "inrun", "--report", "summary");
		check(s.rc == 0 && s.out.contains("in-run calibration of"), "--calib inrun applies the periodic burst: " + s.out + s.err);
		int bursts = calibratorThreads(s);
		check(bursts == 1, "one periodic burst in 15 s with a 10 s period: " + bursts);
		String P = W + "Periodic.";
		Map<String, Long> counts = map(P + "main", 1, P + "work", 8, P + "leaf", 16);
		expectExact("counts of main with a periodic burst", counts, flatCalls(t, "--calib", "inrun", "--thread", "main"));
		// The program ends while the burst's env timer runs: no hang, no crash, said plainly.
		Path c = tmp.resolve("recal-cut.bin");
		Result cut = run(tmp.toFile(), List.of(java, "-agentpath:" + agent + "=trace,recalibrate=10s,metric=cputime,out=" + c,
				"-cp", classes, W + "Periodic", "10500"));
		check(cut.rc == 0 && cut.out.contains("periodic 32") && cut.err.contains("ended during a periodic burst"),
				"a burst cut short by the end of the run: exit " + cut.rc + ": " + cut.err);
		expectExact("the cut trace is complete for main", counts, flatCalls(c, "--thread", "main"));
		Result ci = post(c, "--calib", "inrun");
		check(ci.rc != 0 && ci.err.contains("cut short"), "--calib inrun on it: a clear error: " + ci.err);
		Result cd = post(c, "--report", "summary");
		check(cd.rc == 0 && cd.err.contains("holds no in-run calibration") && !cd.out.contains("in-run calibration of"),
				"by default on it: a warning, then the stored table (or none): " + cd.err + cd.out);
		Result bad = run(tmp.toFile(), List.of(java, "-agentpath:" + agent + "=trace,recalibrate=5s,out=" + tmp.resolve("no.bin"),
				"-cp", classes, W + "Basic"));
		check(bad.rc == 1 && bad.err.contains("jcal: error:") && bad.err.contains("recalibrate=5s")
				&& !bad.out.contains("basic") && !tmp.resolve("no.bin").toFile().exists(),
				"a period below 10 s is refused, naming the token: " + bad.err);
	}

	private void testHelp() throws Exception {
		Result r = run(tmp.toFile(), List.of(java, "-agentpath:" + agent + "=help", "-cp", classes, W + "Basic"));
		check(r.rc == 0, "help: exit 0 expected, got " + r.rc);
		check(r.out.contains("out=FILE") && r.out.contains("metric="), "help prints the option table");
		check(!r.out.contains("basic"), "help must not run the application");
	}

	private void expectPostError(String what, Result r) {
		List<String> lines = r.errLines();
		check(r.rc != 0, what + ": non-zero exit expected");
		check(lines.size() == 1 && lines.get(0).startsWith("jcal-post: error: "),
				what + ": one 'jcal-post: error:' line expected, got " + lines);
	}

	private void testBadFiles() throws Exception {
		expectPostError("missing file", post(tmp.resolve("no-such-file.bin")));
		Path empty = tmp.resolve("empty.bin");
		Files.write(empty, new byte[0]);
		expectPostError("empty file", post(empty));
		Path junk = tmp.resolve("junk.bin");
		Files.writeString(junk, "this is not a jcal trace, just some text\n".repeat(20));
		expectPostError("not a trace", post(junk));

		Path t = trace("cut-source", W + "Loop");
		byte[] all = Files.readAllBytes(t);
		Path cut = tmp.resolve("cut.bin");
		Files.write(cut, Arrays.copyOf(all, all.length * 3 / 5));
		Result r = post(cut, "--report", "flat", "--format", "csv");
		check(r.rc == 0, "cut file: exit 0 expected, got " + r.rc + ": " + r.err);
		check(r.err.contains("warning"), "cut file: a warning expected, got: " + r.err);
		long ticks = 0;
		for (List<String> row : csv(r.out))
			if (row.get(0).equals(W + "Loop.tick"))
				ticks = Long.parseLong(row.get(1));
		check(ticks > 0 && ticks < 200000, "cut file: part of the ticks expected, got " + ticks);

		byte[] bad = all.clone();
		bad[all.length / 2] ^= 0x55;
		Path corrupt = tmp.resolve("corrupt.bin");
		Files.write(corrupt, bad);
		expectPostError("corrupt file", post(corrupt));
	}

	/** The suite's tests, in the order jcaltest.Main runs them. */
	static Tests tests(Runner r) {
		return new Tests()
				.add("basic", r::testBasic)
				.add("events-filter", r::testEventsFilter)
				.add("recursion", r::testRecursion)
				.add("exceptions", r::testExceptions)
				.add("threads", r::testThreads)
				.add("natives", r::testNatives)
				.add("many-chunks", r::testManyChunks)
				.add("text-report", r::testTextReport)
				.add("bad-options", r::testBadOptions)
				.add("help", r::testHelp)
				.add("metric-auto", r::testMetricAuto)
				.add("two-metrics", r::testTwoMetrics)
				.add("calibrate", r::testCalibrate)
				.add("reattach", r::testReattach)
				.add("thread-names", r::testThreadNames)
				.add("regions", r::testRegions)
				.add("recalibrate", r::testRecalibrate)
				.add("recalibrate-periodic", r::testRecalibratePeriodic)
				.add("bad-files", r::testBadFiles)
				.addSkippable("virtual-threads", r::testVirtualThreads);
	}

	static void deleteTree(File f) {
		File[] kids = f.listFiles();
		if (kids != null)
			for (File k : kids)
				deleteTree(k);
		f.delete();
	}
}
