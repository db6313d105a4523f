package jcaltest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * jcal-post diff on real JVMs (docs/jcal-post.md, "Comparing two runs"):
 * the two builds of jcaltest.work.DiffApp (v2 calls parse three times as
 * often, adds newStep, removes oldStep) give their exact deltas in
 * mode=events and mode=bci, from traces, from output=tree snapshots and
 * from one of each; a trace and the snapshot of the same run compare equal
 * in every method; the gate exits 3 on v1 against v2 naming each grown
 * method and 0 on two runs of one build in the application's scope; the
 * worker pool's threads match by their normalised names; the folded export
 * adds up to the flat report; two runs a side give the same counts as one;
 * and a real program from Debian (xalan) passes the gate against itself in
 * both modes. Every count is asserted exactly.
 * Run by jcaltest.Main (javatests/run.sh).
 */
final class DiffTests {
	private static final String APP = "jcaltest.work.DiffApp";
	private static final String D = APP + ".";
	private static final boolean JDK21 = Runtime.version().feature() >= 21;
	/* DiffApp's lambdas as diff prints them: hidden classes, counter and address normalised */
	private static final String LAMBDA = APP + (JDK21 ? "$$Lambda.0x*." : "$$Lambda$*.0x*.");
	/* mode=bci names a hidden class by the name in its bytes, without the
	 * JVM's /0x... (docs/agent-internals.md, "Hidden classes in mode=bci") */
	private static final String BCI_LAMBDA = APP + (JDK21 ? "$$Lambda." : "$$Lambda$*.");
	private final Runner r;
	/* recordings shared by the tests, made when one first needs them */
	private final Map<String, Path> recorded = new HashMap<>();

	private DiffTests(Runner r) {
		this.r = r;
	}

	/* ---- recordings and jcal-post diff ---- */

	/**
	 * DiffApp ARGS under the agent with trace,quiet,OPTS, once per name:
	 * returns the output (the trace, or the snapshot with output=tree).
	 */
	private Path record(String name, String opts, String... args) throws Exception {
		Path have = recorded.get(name);
		if (have != null)
			return have;
		Path t = r.tmp.resolve(name + ".bin");
		List<String> cmd = new ArrayList<>(List.of(r.java, "-agentpath:" + r.agent + "=trace,quiet," + opts + ",out=" + t,
				"-cp", r.classes, APP));
		cmd.addAll(Arrays.asList(args));
		Runner.Result res = r.run(r.tmp.toFile(), cmd);
		r.check(res.rc == 0 && res.out.startsWith("diffapp " + args[0] + " "),
				name + ": DiffApp " + String.join(" ", args) + " exit " + res.rc + ": " + res.out + res.err);
		recorded.put(name, t);
		return t;
	}

	/** A run of DiffApp VERSION [pool] in a mode: "v1-bci", "v2-pool-events"... */
	private Path run(String version, String mode, boolean pool, int n) throws Exception {
		String name = version + (pool ? "-pool-" : "-") + mode + (n > 1 ? "-" + n : "");
		return pool ? record(name, "mode=" + mode, version, "pool") : record(name, "mode=" + mode, version);
	}

	/** jcal-post diff ARGS (paths and options), raw figures: calls do not depend on calibration. */
	private Runner.Result diff(Object... args) throws Exception {
		List<String> cmd = new ArrayList<>(List.of(r.post, "diff", "--raw"));
		for (Object a : args)
			cmd.add(a.toString());
		return r.run(r.tmp.toFile(), cmd);
	}

	private static final List<String> FLAT = List.of("method", "calls_base", "calls_new", "calls_delta", "base_base",
			"base_new", "base_delta", "cum_base", "cum_new", "cum_delta", "status");
	private static final List<String> SPREAD = List.of("calls_spread", "cost_spread", "cost_change");

	/** The flat CSV's rows of methods starting with prefix: method -> "calls_base,calls_new,calls_delta,status". */
	private Map<String, String> flat(String what, Runner.Result d, String prefix, boolean sets) {
		List<List<String>> rows = Runner.csv(d.out);
		List<String> header = new ArrayList<>(FLAT);
		if (sets)
			header.addAll(SPREAD);
		r.check(!rows.isEmpty() && rows.get(0).equals(header),
				what + ": flat CSV header " + (rows.isEmpty() ? "none: " + d.err : rows.get(0)));
		Map<String, String> m = new TreeMap<>();
		for (List<String> row : rows.subList(Math.min(1, rows.size()), rows.size()))
			if (row.get(0).startsWith(prefix) && row.size() == header.size())
				m.put(row.get(0), row.get(1) + "," + row.get(2) + "," + row.get(3) + "," + status(row, sets));
		return m;
	}

	/**
	 * A row's status; with sets, a method whose calls are equal is
	 * "changed" exactly when its cost changed beyond the runs' spread,
	 * checked here and reported as the calls alone make it ("same").
	 */
	private String status(List<String> row, boolean sets) {
		String st = row.get(10);
		if (!sets || !row.get(3).equals("0") || st.equals("added") || st.equals("removed"))
			return st;
		r.check(st.equals(row.get(13).equals("beyond") ? "changed" : "same"),
				row.get(0) + ": status " + st + " with cost_change " + row.get(13));
		return "same";
	}

	/** Pairs method, "calls_base,calls_new,calls_delta,status", ... as a sorted map. */
	private static Map<String, String> rows(String... kv) {
		Map<String, String> m = new TreeMap<>();
		for (int i = 0; i < kv.length; i += 2)
			m.put(kv[i], kv[i + 1]);
		return m;
	}

	private void expectRows(String what, Map<String, String> want, Map<String, String> got) {
		r.check(want.equals(got), what + ":\n      expected " + want + "\n      got      " + got);
	}

	/** The lines of the gate on stderr. */
	private static TreeSet<String> gateLines(Runner.Result d) {
		TreeSet<String> s = new TreeSet<>();
		for (String l : d.errLines())
			if (l.startsWith("jcal-post: fail-on "))
				s.add(l);
		return s;
	}

	/* v1 against v2: DiffApp's methods in both modes (the table in DiffApp.java). */
	private static Map<String, String> twoBuilds(boolean pool) {
		Map<String, String> m = rows(D + "main", "1,1,0,same", D + "run", "1,1,0,same", D + "repeat", "1,1,0,same",
				D + "same", "7,7,0,same", D + "leaf(long)", "7,7,0,same", D + "lambda$run$1", "10,30,20,changed",
				D + "parse", "10,30,20,changed", D + "oldStep", "10,0,-10,removed", D + "newStep", "0,10,10,added");
		m.put(D + "leaf(int)", pool ? "26,68,42,changed" : "20,50,30,changed");
		if (pool)
			m.putAll(rows(D + "pool", "1,1,0,same", D + "lambda$pool$0", "6,6,0,same", D + "task", "6,6,0,same",
					D + "work", "6,18,12,changed"));
		return m;
	}

	/* The lambdas' hidden classes, which both modes see, normalised; each mode names them its way. */
	private static Map<String, String> hiddenClasses(String mode, boolean pool) {
		String l = mode.equals("events") ? LAMBDA : BCI_LAMBDA;
		if (!pool)
			return rows(l + "accept", "10,30,20,changed", l + "<init>", "1,1,0,same");
		/* the two lambdas' classes normalise alike: their constructors become overloads */
		return rows(l + "accept", "10,30,20,changed", l + "run", "6,6,0,same", l + "<init>()", "1,1,0,same",
				l + "<init>(int, boolean)", "6,6,0,same");
	}

	private static Map<String, String> expected(String mode, boolean pool) {
		Map<String, String> m = twoBuilds(pool);
		m.putAll(hiddenClasses(mode, pool));
		return m;
	}

	/* ---- the tests ---- */

	/** Exact deltas of two traces, in one mode; the text says what was normalised. */
	private void twoTraces(String mode) throws Exception {
		Path a = run("v1", mode, false, 1), b = run("v2", mode, false, 1);
		Runner.Result d = diff(a, b, "--format", "csv");
		r.check(d.rc == 0, mode + ": diff exit " + d.rc + ": " + d.err);
		expectRows(mode + ": v1 -> v2", expected(mode, false), flat(mode, d, APP, false));
		Runner.Result t = diff(a, b);
		r.check(t.rc == 0 && t.out.contains("\n  base  " + a + ": ") && t.out.contains("\n  new   " + b + ": "),
				mode + ": the text names both inputs: " + t.out.substring(0, Math.min(600, t.out.length())));
		/* JDK 21+ names lambdas as hidden classes ($$Lambda/0x...), and so does the note */
		String kind = JDK21 ? "hidden class" : "lambda";
		/* bci's names of JDK 21's lambdas carry neither counter nor address */
		if (mode.equals("events") || !JDK21)
			r.check(t.out.matches("(?s).*\n  normalised: [0-9]+ method names \\([^)]*[0-9]+ " + kind + "[^)]*\\).*"),
					mode + ": the lambdas' names are said to be normalised: " + t.out.substring(0, 600));
		else
			r.check(t.out.contains("\n  normalised: nothing"), "bci: nothing to normalise: " + t.out);
	}

	private void testEvents() throws Exception {
		twoTraces("events");
	}

	private void testBci() throws Exception {
		twoTraces("bci");
	}

	/**
	 * output=tree snapshots: the same deltas as traces, snapshot against
	 * snapshot and trace against snapshot (output=both writes both of one
	 * run); a trace and its own run's snapshot are equal in every method.
	 */
	private void testSnapshots() throws Exception {
		for (String mode : List.of("events", "bci")) {
			Path a = record("v1-both-" + mode, "mode=" + mode + ",output=both", "v1");
			Path b = record("v2-both-" + mode, "mode=" + mode + ",output=both", "v2");
			Path as = Path.of(a + ".tree"), bs = Path.of(b + ".tree");
			r.check(Files.exists(as) && Files.exists(bs), mode + ": output=both wrote the snapshots");
			Map<String, String> want = expected(mode, false);
			Object[][] pairs = { { as, bs, "snapshot -> snapshot" }, { a, bs, "trace -> snapshot" },
					{ as, b, "snapshot -> trace" } };
			for (Object[] p : pairs) {
				Runner.Result d = diff(p[0], p[1], "--format", "csv");
				r.check(d.rc == 0, mode + ", " + p[2] + ": exit " + d.rc + ": " + d.err);
				expectRows(mode + ", " + p[2], want, flat(mode + ", " + p[2], d, APP, false));
			}
			Runner.Result own = diff(a, as, "--format", "csv", "--fail-on", "calls:0%");
			Map<String, String> every = flat(mode + ": own snapshot", own, "", false), notSame = new TreeMap<>();
			for (Map.Entry<String, String> e : every.entrySet())
				if (!e.getValue().endsWith(",0,same"))
					notSame.put(e.getKey(), e.getValue());
			r.check(own.rc == 0 && notSame.isEmpty() && every.keySet().containsAll(oneBuild(want).keySet()),
					mode + ": a trace and its own snapshot: every method the same (exit " + own.rc + "): " + notSame
							+ " in " + every.keySet() + own.err);
		}
	}

	/**
	 * The gate: v1 -> v2 exits 3 naming each method that grew (an added one
	 * too, never one that shrank or stayed), the report still written;
	 * thresholds are "more than PCT"; two runs of one build exit 0 in the
	 * application's scope, in both modes, with and without the pool.
	 */
	private void testGate() throws Exception {
		String g = "jcal-post: fail-on calls:0%: " + D;
		Runner.Result d = diff(run("v1", "events", false, 1), run("v2", "events", false, 1), "--include", "jcaltest.*",
				"--fail-on", "calls:0%", "--format", "csv");
		TreeSet<String> want = new TreeSet<>(List.of(g + "leaf(int) calls 20 -> 50 (+150.0%)",
				g + "lambda$run$1 calls 10 -> 30 (+200.0%)", g + "parse calls 10 -> 30 (+200.0%)",
				g + "newStep calls 0 -> 10 (added)",
				"jcal-post: fail-on calls:0%: " + LAMBDA + "accept calls 10 -> 30 (+200.0%)"));
		r.check(d.rc == 3, "v1 -> v2, calls:0%: exit " + d.rc + ", expected 3: " + d.err);
		r.check(want.equals(gateLines(d)), "v1 -> v2, calls:0%: the grown methods:\n      expected " + want
				+ "\n      got      " + gateLines(d));
		expectRows("the report is still written", expected("events", false), flat("gate", d, APP, false));

		Path a = run("v1", "bci", false, 1), b = run("v2", "bci", false, 1);
		String[][] thresholds = { { "150%", "lambda$run$1 calls 10 -> 30 (+200.0%)", "parse calls 10 -> 30 (+200.0%)",
				"newStep calls 0 -> 10 (added)" }, { "200", "newStep calls 0 -> 10 (added)" } };
		for (String[] t : thresholds) {
			Runner.Result e = diff(a, b, "--fail-on", "calls:" + t[0]);
			TreeSet<String> w = new TreeSet<>();
			String said = "jcal-post: fail-on calls:" + t[0].replace("%", "") + "%: "; /* said with % */
			for (int i = 1; i < t.length; i++)
				w.add(said + D + t[i]);
			if (t[0].equals("150%")) /* the lambda's proxy grew as its target did */
				w.add(said + BCI_LAMBDA + "accept calls 10 -> 30 (+200.0%)");
			r.check(e.rc == 3 && w.equals(gateLines(e)), "bci, calls:" + t[0] + ": exit " + e.rc + ", lines "
					+ gateLines(e) + ", expected " + w);
		}
		Runner.Result narrow = diff(a, b, "--include", D + "same", "--include", D + "oldStep", "--fail-on", "calls:0%");
		r.check(narrow.rc == 0 && gateLines(narrow).isEmpty(),
				"only unchanged and removed methods in scope: exit " + narrow.rc + ": " + narrow.err);

		for (String mode : List.of("events", "bci"))
			for (boolean pool : List.of(false, true)) {
				String what = mode + (pool ? ", pool" : "") + ": two runs of v1";
				Path x = run("v1", mode, pool, 1), y = run("v1", mode, pool, 2);
				Runner.Result s = diff(x, y, "--include", "jcaltest.*", "--fail-on", "calls:0%", "--format", "csv");
				r.check(s.rc == 0 && gateLines(s).isEmpty(), what + ": exit " + s.rc + ": " + s.err);
				expectRows(what, oneBuild(expected(mode, pool)), flat(what, s, APP, false));
			}
	}

	/** The rows of v1 against itself: v1's calls on both sides, every method the same. */
	private static Map<String, String> oneBuild(Map<String, String> v1v2) {
		Map<String, String> m = new TreeMap<>();
		for (Map.Entry<String, String> e : v1v2.entrySet()) {
			String calls = e.getValue().split(",")[0];
			if (!calls.equals("0"))
				m.put(e.getKey(), calls + "," + calls + ",0,same");
		}
		return m;
	}

	/**
	 * The worker pool: its threads (pool-1-thread-1..3 in each run, which
	 * of them ran what is the scheduler's choice) are one thread group
	 * pool-*-thread-* whose contexts add up exactly; the flat report has
	 * the pool's deltas.
	 */
	private void testPool() throws Exception {
		for (String mode : List.of("events", "bci")) {
			Path a = run("v1", mode, true, 1), b = run("v2", mode, true, 1);
			Runner.Result f = diff(a, b, "--format", "csv");
			r.check(f.rc == 0, mode + ", pool: exit " + f.rc + ": " + f.err);
			expectRows(mode + ", pool: v1 -> v2", expected(mode, true), flat(mode + ", pool", f, APP, false));
			Runner.Result t = diff(a, b, "--report", "tree", "--format", "csv");
			List<List<String>> rows = Runner.csv(t.out);
			r.check(t.rc == 0 && !rows.isEmpty() && rows.get(0).equals(List.of("thread", "level", "path", "calls_base",
					"calls_new", "calls_delta", "base_base", "base_new", "base_delta", "cum_base", "cum_new", "cum_delta",
					"status")), mode + ", pool: tree CSV header: " + (rows.isEmpty() ? t.err : rows.get(0)));
			Map<String, Long> got = new TreeMap<>();
			for (List<String> row : rows.subList(Math.min(1, rows.size()), rows.size())) {
				if (!row.get(0).startsWith("pool"))
					continue;
				String path = row.get(2), last = path.substring(path.lastIndexOf(';') + 1);
				String key = row.get(0) + (row.get(1).equals("0") ? " root" : " " + last);
				if (row.get(1).equals("0") || last.startsWith(D)) {
					got.merge(key + " base", Long.parseLong(row.get(3)), Long::sum);
					got.merge(key + " new", Long.parseLong(row.get(4)), Long::sum);
				}
			}
			String p = "pool-*-thread-* ";
			Map<String, Long> want = Runner.map(p + "root base", 3, p + "root new", 3, p + D + "lambda$pool$0 base", 6,
					p + D + "lambda$pool$0 new", 6, p + D + "task base", 6, p + D + "task new", 6, p + D + "work base",
					6, p + D + "work new", 18, p + D + "leaf(int) base", 6, p + D + "leaf(int) new", 18);
			r.expectExact(mode + ": the pool's thread group, calls by method (both runs)", want, got);
			Runner.Result text = diff(a, b);
			r.check(text.out.matches("(?s).*\n  normalised: [^\n]*3 thread names \\(pool and thread numbers\\).*"),
					mode + ": the three pool threads' names normalised: " + text.out.substring(0, 700));
			/* jcal-post's own tree of each run: the pool is one tree by default */
			for (Path run : List.of(a, b)) {
				long n = run == b ? 18 : 6;
				String g = "pool-1-thread-* (3 threads) ";
				r.expectExact(mode + ", " + run.getFileName() + ": the pool's tree", Runner.map(g + D + "lambda$pool$0", 6,
						g + D + "task", 6, g + D + "work", n, g + D + "leaf(int)", n), poolCalls(run, false));
				Map<String, Long> split = poolCalls(run, true), sum = new TreeMap<>();
				for (Map.Entry<String, Long> e : split.entrySet())
					sum.merge(g + e.getKey().substring(e.getKey().indexOf(' ') + 1), e.getValue(), Long::sum);
				r.expectExact(mode + ", " + run.getFileName() + ": --split-pools, the threads' own trees added up",
						poolCalls(run, false), sum);
				r.check(split.keySet().stream().allMatch(k -> k.matches("pool-1-thread-[123] .*")),
						mode + ": --split-pools shows the pool's threads apart: " + split.keySet());
			}
		}
	}

	/** Calls of DiffApp's methods in the tree of the pool's threads: "thread method" -> calls, summed. */
	private Map<String, Long> poolCalls(Path t, boolean split) throws Exception {
		Runner.Result res = split ? r.post(t, "--report", "tree", "--format", "csv", "--split-pools")
				: r.post(t, "--report", "tree", "--format", "csv");
		r.check(res.rc == 0, "tree of " + t + ": exit " + res.rc + ": " + res.err);
		Map<String, Long> m = new TreeMap<>();
		List<List<String>> rows = Runner.csv(res.out);
		for (List<String> row : rows.subList(Math.min(1, rows.size()), rows.size())) {
			String path = row.get(8), last = path.substring(path.lastIndexOf(';') + 1);
			if (row.get(0).startsWith("pool-") && last.startsWith(D))
				m.merge(row.get(0).replaceAll("#[0-9]+$", "") + " " + last, Long.parseLong(row.get(3)), Long::sum);
		}
		return m;
	}

	/** Sums of a collapsed diff's two columns and its number of lines. */
	private long[] folded(String what, Runner.Result c) {
		long[] s = new long[3];
		r.check(c.rc == 0, what + ": collapsed: exit " + c.rc + ": " + c.err);
		for (String line : c.out.split("\n")) {
			if (line.isEmpty())
				continue;
			String[] f = line.split(" ");
			s[0] += Long.parseLong(f[f.length - 2]);
			s[1] += Long.parseLong(f[f.length - 1]);
			s[2]++;
		}
		return s;
	}

	/**
	 * The folded export (FlameGraph's difffolded): in mode=bci exactly
	 * DiffApp's stacks and its lambda's proxy; in mode=events (every JDK method too) one line per
	 * calling context of the tree report, and in both each column adds up
	 * to the flat report's total, of calls and of self cost.
	 */
	private void testCollapsed() throws Exception {
		Path a = run("v1", "bci", false, 1), b = run("v2", "bci", false, 1);
		Runner.Result c = diff(a, b, "--report", "collapsed", "--value", "calls");
		String m = "main;" + D + "main;" + D + "run;";
		String acc = m + D + "repeat;" + BCI_LAMBDA + "accept";
		String rep = acc + ";" + D + "lambda$run$1;" + D + "parse";
		List<String> want = new ArrayList<>(List.of("main;" + D + "main 1 1", "main;" + D + "main;" + D + "run 1 1",
				m + D + "same 7 7", m + D + "same;" + D + "leaf(long) 7 7", m + BCI_LAMBDA + "<init> 1 1",
				m + D + "repeat 1 1", acc + " 10 30", acc + ";" + D + "lambda$run$1 10 30", rep + " 10 30",
				rep + ";" + D + "leaf(int) 10 30", m + D + "oldStep 10 0", m + D + "oldStep;" + D + "leaf(int) 10 0",
				m + D + "newStep 0 10", m + D + "newStep;" + D + "leaf(int) 0 20"));
		List<String> got = new ArrayList<>(Arrays.asList(c.out.split("\n")));
		r.check(c.rc == 0 && new TreeSet<>(want).equals(new TreeSet<>(got)) && got.size() == want.size(),
				"bci: the folded lines:\n      expected " + new TreeSet<>(want) + "\n      got      " + got + c.err);
		for (String mode : List.of("bci", "events")) {
			a = run("v1", mode, true, 1);
			b = run("v2", mode, true, 1);
			long[] tot = new long[4];
			for (List<String> row : Runner.csv(diff(a, b, "--format", "csv").out))
				if (!row.get(0).equals("method")) {
					tot[0] += Long.parseLong(row.get(1));
					tot[1] += Long.parseLong(row.get(2));
					tot[2] += Long.parseLong(row.get(4));
					tot[3] += Long.parseLong(row.get(5));
				}
			long contexts = 0;
			for (List<String> row : Runner.csv(diff(a, b, "--report", "tree", "--format", "csv").out))
				if (!row.get(0).equals("thread") && !row.get(1).equals("0"))
					contexts++;
			long[] calls = folded(mode + " calls", diff(a, b, "--report", "collapsed", "--value", "calls"));
			long[] base = folded(mode + " base", diff(a, b, "--report", "collapsed"));
			r.check(calls[0] == tot[0] && calls[1] == tot[1], mode + ": folded calls add up to " + calls[0] + " "
					+ calls[1] + ", the flat report's to " + tot[0] + " " + tot[1]);
			r.check(base[0] == tot[2] && base[1] == tot[3], mode + ": folded self costs add up to " + base[0] + " "
					+ base[1] + ", the flat report's to " + tot[2] + " " + tot[3]);
			r.check(calls[2] == contexts && contexts > 10, mode + ": " + calls[2] + " folded lines, "
					+ contexts + " calling contexts in the tree report");
		}
	}

	/**
	 * Two runs a side: the medians are the counts of one run, the calls'
	 * spread is 0 in every method of the program, each cost judged beyond
	 * or within the runs' spread; two runs of v1 a side pass the gate.
	 */
	private void testSets() throws Exception {
		for (String mode : List.of("bci", "events")) {
			Path a1 = run("v1", mode, false, 1), a2 = run("v1", mode, false, 2);
			Path b1 = run("v2", mode, false, 1), b2 = run("v2", mode, false, 2);
			Runner.Result d = diff(a1, a2, "--", b1, b2, "--format", "csv");
			r.check(d.rc == 0, mode + ", sets: exit " + d.rc + ": " + d.err);
			expectRows(mode + ", two runs a side: medians", expected(mode, false), flat(mode + ", sets", d, APP, true));
			for (List<String> row : Runner.csv(d.out))
				if (row.get(0).startsWith(APP))
					r.check(row.size() == 14 && row.get(11).equals("0") && row.get(13).matches("beyond|within"),
							mode + ", sets: " + row.get(0) + ": calls_spread 0, cost_change beyond|within: " + row);
			Runner.Result text = diff(a1, a2, "--", b1, b2);
			r.check(text.out.contains("medians of 2 base and 2 new runs"), mode + ", sets: the text says medians: "
					+ text.out.substring(0, Math.min(300, text.out.length())));
			Runner.Result g = diff(a1, a2, "--", a2, a1, "--include", "jcaltest.*", "--fail-on", "calls:0%");
			r.check(g.rc == 0 && gateLines(g).isEmpty(), mode + ": two runs of v1 a side pass: exit " + g.rc + g.err);
		}
	}

	/* A real program from Debian (libxalan2-java): an XSLT report over generated orders. */
	private static final String XALAN_JAR = "/usr/share/java/xalan2.jar";
	private static final String XSL = "<xsl:stylesheet version=\"1.0\" xmlns:xsl=\"http://www.w3.org/1999/XSL/Transform\">\n"
			+ "<xsl:output method=\"html\"/>\n<xsl:key name=\"by-customer\" match=\"order\" use=\"@customer\"/>\n"
			+ "<xsl:template match=\"/\"><html><body>\n"
			+ "<xsl:for-each select=\"orders/order[generate-id() = generate-id(key('by-customer', @customer)[1])]\">"
			+ "<xsl:sort select=\"@customer\"/><xsl:variable name=\"mine\" select=\"key('by-customer', @customer)\"/>\n"
			+ "<h2><xsl:value-of select=\"concat(@customer, ' in ', translate(@region, 'r', 'R'))\"/></h2>\n"
			+ "<p><xsl:value-of select=\"count($mine)\"/>, <xsl:value-of select=\"format-number(sum($mine/item/@price), '#,##0.00')\"/></p>\n"
			+ "<xsl:for-each select=\"$mine\"><xsl:sort select=\"item/@price\" data-type=\"number\"/>"
			+ "<i><xsl:value-of select=\"substring-before(note, ' for')\"/></i></xsl:for-each>\n"
			+ "</xsl:for-each></body></html></xsl:template></xsl:stylesheet>\n";

	/** Orders whose every byte is fixed (a linear congruential generator). */
	private static String orders(int n) {
		StringBuilder b = new StringBuilder("<orders>\n");
		long s = 12345;
		for (int i = 1; i <= n; i++) {
			s = (s * 69069 + 1) % 4294967296L;
			int c = (int) (s / 65536 % 60);
			b.append("<order id=\"").append(i).append("\" customer=\"c").append(c).append("\" region=\"r")
					.append(c % 7).append("\"><item price=\"").append(s % 500).append(".").append(s % 100)
					.append("\"/><note>order ").append(i).append(" for c").append(c).append("</note></order>\n");
		}
		return b.append("</orders>\n").toString();
	}

	/**
	 * xalan traced twice in each mode, in one directory (xalan sees its
	 * paths): the gate passes on its own packages both ways, and every one
	 * of their methods has the same calls in both runs.
	 */
	private boolean testXalan() throws Exception {
		if (!Files.isReadable(Path.of(XALAN_JAR))) {
			System.out.println("      SKIP: " + XALAN_JAR + " not installed (scripts/install-deps.sh --tests installs it)");
			return false;
		}
		Path dir = Files.createDirectories(r.tmp.resolve("xalan"));
		Files.writeString(dir.resolve("in.xml"), orders(300));
		Files.writeString(dir.resolve("t.xsl"), XSL);
		List<String> scope = List.of("--include", "org.apache.xalan.*", "--include", "org.apache.xml.*", "--include",
				"org.apache.xpath.*");
		for (String mode : List.of("events", "bci")) {
			Path[] t = new Path[2];
			for (int i = 0; i < 2; i++) {
				t[i] = r.tmp.resolve("xalan-" + mode + "-" + i + ".bin");
				Runner.Result x = r.runFor(dir.toFile(), List.of(r.java, "-agentpath:" + r.agent + "=trace,quiet,mode="
						+ mode + ",out=" + t[i], "-cp", XALAN_JAR, "org.apache.xalan.xslt.Process", "-IN", "in.xml",
						"-XSL", "t.xsl", "-OUT", "out.html"), Map.of(), null, 300);
				r.check(x != null && x.rc == 0, "xalan, " + mode + ": " + (x == null ? "timeout" : x.rc + " " + x.err));
			}
			for (int i = 0; i < 2; i++) {
				List<Object> args = new ArrayList<>(List.of(t[i], t[1 - i], "--format", "csv", "--fail-on", "calls:0%"));
				args.addAll(scope);
				Runner.Result d = diff(args.toArray());
				r.check(d.rc == 0 && gateLines(d).isEmpty(), "xalan, " + mode + ": the gate on its own packages: exit "
						+ d.rc + ": " + d.err.substring(0, Math.min(2000, d.err.length())));
				int n = 0;
				for (List<String> row : Runner.csv(d.out))
					if (row.get(0).matches("org\\.apache\\.(xalan|xml|xpath)\\..*")) {
						n++;
						r.check(row.get(3).equals("0") && row.get(10).equals("same"), "xalan, " + mode + ": " + row);
					}
				r.check(n > 500, "xalan, " + mode + ": " + n + " of xalan's methods compared");
			}
		}
		return true;
	}

	static Runner.Tests tests(Runner r) {
		DiffTests s = new DiffTests(r);
		return new Runner.Tests().add("diff-events", s::testEvents).add("diff-bci", s::testBci)
				.add("diff-snapshots", s::testSnapshots).add("diff-gate", s::testGate).add("diff-pool", s::testPool)
				.add("diff-collapsed", s::testCollapsed).add("diff-sets", s::testSets)
				.addSkippable("diff-xalan", s::testXalan);
	}
}
