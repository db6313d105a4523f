package jcaltest;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.concurrent.TimeUnit;

/**
 * output=tree|both: the agent builds each thread's calling-context tree and
 * writes a tree snapshot. With output=both one run writes a trace and a
 * snapshot of the same events, and every report of jcal-post must be the
 * same on both, byte for byte, compensated (the same table, found in the
 * calibration directory or given with --calib) and raw, in mode=events and
 * mode=bci; call counts exact. maxcontexts= folds cold contexts and loses no
 * metric and no call; bad option values and options that need events are
 * refused. Every process runs under a timeout.
 * Run by jcaltest.Main (javatests/run.sh).
 */
public final class TreeOutput {
	private static final String W = "jcaltest.work.";
	private final Runner r;
	private final Path calibDir;

	private TreeOutput(Runner r) {
		this.r = r;
		this.calibDir = r.tmp.resolve("calib");
	}

	/** Runs cmd in the test directory with JCAL_CALIB_DIR set; fails the test on a timeout. */
	private Runner.Result run(List<String> cmd) throws Exception {
		return run(cmd, calibDir);
	}

	/** The same with JCAL_CALIB_DIR = calib. */
	private Runner.Result run(List<String> cmd, Path calib) throws Exception {
		ProcessBuilder pb = new ProcessBuilder(cmd).directory(r.tmp.toFile());
		pb.environment().put("JCAL_CALIB_DIR", calib.toString());
		Path out = Files.createTempFile(r.tmp, "out", ".txt"), err = Files.createTempFile(r.tmp, "err", ".txt");
		pb.redirectOutput(out.toFile()).redirectError(err.toFile());
		Process p = pb.start();
		if (!p.waitFor(120, TimeUnit.SECONDS)) {
			p.destroyForcibly();
			p.waitFor(10, TimeUnit.SECONDS);
			throw new Exception("timed out: " + cmd);
		}
		Runner.Result res = new Runner.Result();
		res.rc = p.exitValue();
		res.out = Files.readString(out, StandardCharsets.UTF_8);
		res.err = Files.readString(err, StandardCharsets.UTF_8);
		Files.delete(out);
		Files.delete(err);
		return res;
	}

	private Runner.Result post(Path file, String... args) throws Exception {
		List<String> cmd = new ArrayList<>(List.of(r.post, file.toString()));
		cmd.addAll(Arrays.asList(args));
		return run(cmd);
	}

	/** The table of mode in the calibration directory (made once per mode). */
	private Path calibrate(String mode) throws Exception {
		Files.createDirectories(calibDir);
		Path table = calibDir.resolve("table-" + mode + ".txt");
		if (Files.exists(table))
			return table;
		Runner.Result c = run(List.of(r.java, "-agentpath:" + r.agent + "=calibrate,metric=cputime,mode=" + mode
				+ ",table=" + table + ",out=" + calibDir.resolve("calib-" + mode + ".bin")));
		r.check(c.rc == 0 && Files.exists(table), "calibrate mode=" + mode + ": exit " + c.rc + ": " + c.err);
		return table;
	}

	/** A run of mainClass under the agent with opts; the agent's messages are checked by the caller. */
	private Runner.Result traced(String opts, String mainClass) throws Exception {
		return run(List.of(r.java, "-agentpath:" + r.agent + "=" + opts, "-cp", r.classes, mainClass));
	}

	/** Every report and export that prints exact figures: the same on the trace and on the snapshot. */
	private void sameReports(String what, Path trace, Path snap, String... extra) throws Exception {
		String[][] reports = {{"tree"}, {"tree", "--format", "csv"}, {"tree", "--format", "json"}, {"flat", "--format", "csv"},
				{"callers"}, {"arcs"}, {"collapsed"}};
		for (String[] rep : reports)
			for (boolean raw : extra.length > 0 ? new boolean[] {false} : new boolean[] {false, true}) {
				List<String> args = new ArrayList<>(List.of("--report"));
				args.addAll(Arrays.asList(rep));
				args.addAll(Arrays.asList(extra));
				if (raw)
					args.add("--raw");
				String[] a = args.toArray(new String[0]);
				Runner.Result x = post(trace, a), y = post(snap, a);
				r.check(x.rc == 0 && y.rc == 0, what + " " + args + ": exit " + x.rc + "/" + y.rc + ": " + x.err + y.err);
				r.check(!x.out.isEmpty() && x.out.equals(y.out), what + " " + args
						+ ": the snapshot's report differs from the trace's (" + x.out.length() + " vs "
						+ y.out.length() + " bytes)");
			}
	}

	/** Flat CSV: calls per method of the test workloads. */
	private Map<String, Long> calls(Path file) throws Exception {
		Runner.Result f = post(file, "--report", "flat", "--format", "csv");
		r.check(f.rc == 0, "flat of " + file + ": " + f.err);
		Map<String, Long> m = new TreeMap<>();
		for (List<String> row : Runner.csv(f.out))
			if (row.get(0).startsWith(W))
				m.merge(row.get(0), Long.parseLong(row.get(1)), Long::sum);
		return m;
	}

	/** One run with output=both: trace and snapshot agree on every report. */
	private void both(String mode, String mainClass, Map<String, Long> expected) throws Exception {
		Path table = calibrate(mode);
		Path t = r.tmp.resolve("both-" + mode + ".bin"), s = r.tmp.resolve("both-" + mode + ".bin.tree");
		Runner.Result a = traced("trace,metric=cputime,mode=" + mode + ",output=both,out=" + t, W + mainClass);
		r.check(a.rc == 0, "output=both mode=" + mode + ": exit " + a.rc + ": " + a.err);
		r.check(a.err.contains("jcal: wrote " + s + ": tree snapshot of ") && a.err.contains(", compensated, "),
				"the agent says it wrote the compensated snapshot: " + a.err);
		r.check(Files.exists(t) && Files.exists(s), "trace and snapshot written");
		r.check(Files.list(r.tmp).noneMatch(p -> p.getFileName().toString().contains(".tmp.")),
				"no temporary snapshot left behind");
		sameReports("mode=" + mode + " (table of the calibration directory)", t, s);
		sameReports("mode=" + mode + " (--calib)", t, s, "--calib", table.toString());
		r.expectExact("mode=" + mode + ": calls in the snapshot", expected, calls(s));
		r.expectExact("mode=" + mode + ": calls in the trace", expected, calls(t));
		Runner.Result sum = post(s, "--report", "summary");
		r.check(sum.rc == 0 && sum.out.contains("(applied in the agent), estimator cond")
				&& sum.out.contains("format:                3.2,"),
				"the snapshot's summary names the agent's compensation: " + sum.out + sum.err);
	}

	private void testBothEvents() throws Exception {
		String B = W + "Basic.";
		both("events", "Basic", Runner.map(B + "main", 1, B + "<init>", 1, B + "a", 3, B + "b", 6, B + "leaf", 12));
	}

	private void testBothBci() throws Exception {
		String R = W + "Recursion.";
		both("bci", "Recursion", Runner.map(R + "main", 1, R + "fib", 465, R + "down", 3001, R + "even", 6,
				R + "odd", 5));
	}

	/** A value of the summary CSV. */
	private static long summary(Runner.Result csv, String key) {
		for (List<String> row : Runner.csv(csv.out))
			if (row.size() == 2 && row.get(0).equals(key))
				return Long.parseLong(row.get(1));
		return -1;
	}

	/** Sum of the calls of every context but the roots (and, when given, the pseudo-frame named skip). */
	private long contextCalls(Path file, String skip, String... extra) throws Exception {
		List<String> args = new ArrayList<>(List.of("--report", "tree", "--format", "csv"));
		args.addAll(Arrays.asList(extra));
		Runner.Result tr = post(file, args.toArray(new String[0]));
		r.check(tr.rc == 0, "tree of " + file + ": " + tr.err);
		long n = 0;
		List<List<String>> rows = Runner.csv(tr.out);
		for (List<String> row : rows.subList(Math.min(1, rows.size()), rows.size())) {
			String path = row.get(8);
			if (!row.get(1).equals("0") && (skip == null || !path.endsWith(skip)))
				n += Long.parseLong(row.get(3));
		}
		return n;
	}

	/** maxcontexts=1000 folds the JDK's start-up contexts: totals and calls are kept. */
	private void testMaxContexts() throws Exception {
		calibrate("events");
		Path t = r.tmp.resolve("fold.bin"), s = r.tmp.resolve("fold.bin.tree");
		Runner.Result a = traced("trace,metric=cputime,output=both,maxcontexts=1000,out=" + t, W + "Basic");
		r.check(a.rc == 0, "maxcontexts=1000: exit " + a.rc + ": " + a.err);
		for (String raw : new String[] {"", "--raw"}) {
			String[] args = raw.isEmpty() ? new String[] {"--report", "summary", "--format", "csv"}
					: new String[] {"--report", "summary", "--format", "csv", raw};
			Runner.Result x = post(t, args), y = post(s, args);
			r.check(x.rc == 0 && y.rc == 0, "summaries: " + x.err + y.err);
			long total = summary(x, "metric.0.total");
			r.check(total > 0 && total == summary(y, "metric.0.total"),
					"folding keeps the total " + raw + ": trace " + total + ", snapshot " + summary(y, "metric.0.total"));
			long contexts = summary(y, "contexts"), folded = summary(y, "folded_contexts");
			r.check(folded > 0 && contexts + folded >= summary(x, "contexts"),
					"contexts folded: " + folded + ", left " + contexts + ", unfolded " + summary(x, "contexts"));
			/* the bound: 1000, plus what cannot fold (open frames, roots, pseudo-frames) */
			r.check(contexts < 2000, "maxcontexts=1000 keeps the trees small: " + contexts + " contexts");
			long foldedCalls = summary(y, "folded_calls");
			r.check(foldedCalls > 0 && contextCalls(t, null, raw.isEmpty() ? new String[0] : new String[] {raw})
					== contextCalls(s, "<cold contexts>") + foldedCalls,
					"calls in the trace = calls left in the snapshot + calls folded (" + foldedCalls + ")");
		}
		Runner.Result txt = post(s, "--report", "summary");
		r.check(txt.out.matches("(?s).*maxcontexts: +1000; [1-9][0-9]* contexts folded into \"<cold contexts>\".*"),
				"the summary says what was folded: " + txt.out);
		Runner.Result tree = post(s, "--report", "tree");
		r.check(tree.out.contains("<cold contexts>"), "the tree shows the folded contexts");
	}

	/** output=tree: only the snapshot, at out=; what needs events is refused. */
	private void testTreeOnly() throws Exception {
		calibrate("events");
		Path bci = calibrate("bci");
		Path s = r.tmp.resolve("only.tree");
		Runner.Result a = traced("trace,metric=cputime,output=tree,out=" + s, W + "Basic");
		r.check(a.rc == 0 && a.err.contains("jcal: wrote " + s + ": tree snapshot of "), "output=tree: " + a.err);
		r.check(Files.list(r.tmp).noneMatch(p -> p.getFileName().toString().startsWith("only.tree.")),
				"nothing but the snapshot");
		String B = W + "Basic.";
		r.expectExact("output=tree: calls", Runner.map(B + "main", 1, B + "<init>", 1, B + "a", 3, B + "b", 6, B + "leaf",
				12), calls(s));
		expectError("--estimator min", post(s, "--estimator", "min"), "--estimator min");
		expectError("--calib inrun", post(s, "--calib", "inrun"), "--calib inrun");
		expectError("--calib of another table", post(s, "--calib", bci.toString()), "--calib " + bci);
		Runner.Result raw = post(s, "--raw", "--report", "tree");
		r.check(raw.rc == 0 && !raw.out.contains("RawBase"), "--raw shows the raw figures only: " + raw.err);
		for (String exp : new String[] {"chrome", "speedscope", "html", "pprof"}) {
			Path o = r.tmp.resolve("only." + exp);
			List<String> args = new ArrayList<>(List.of("--report", exp, "-o", o.toString()));
			if (exp.equals("speedscope"))
				args.add("--speedscope-evented");
			Runner.Result e = post(s, args.toArray(new String[0]));
			r.check(e.rc == 0 && Files.size(o) > 0, "--report " + exp + " of a snapshot: " + e.err);
		}
		String chrome = Files.readString(r.tmp.resolve("only.chrome"));
		r.check(chrome.contains("\"name\":\"" + B + "leaf\""), "chrome spans from the snapshot's tree");
	}

	/**
	 * Thread churn: but for the 256 threads that ended last (main among
	 * them), the agent merges the trees of ended threads into one "<ended
	 * threads>" tree, so memory follows contexts, not threads started;
	 * every call stays counted, in output=both and output=tree.
	 */
	private void testThreadChurn() throws Exception {
		Path t = r.tmp.resolve("churn.bin"), s = r.tmp.resolve("churn.bin.tree");
		Runner.Result a = traced("trace,metric=cputime,output=both,out=" + t, W + "ThreadChurn");
		r.check(a.rc == 0 && a.out.contains("churn "), "thread churn: exit " + a.rc + ": " + a.err);
		String C = W + "ThreadChurn.", K = W + "ThreadChurn$Worker.";
		Map<String, Long> want = Runner.map(C + "main", 1, K + "<init>", 600, K + "run", 600, C + "work", 600,
				C + "leaf", 3000);
		r.expectExact("thread churn: calls in the trace", want, calls(t));
		r.expectExact("thread churn: calls in the snapshot", want, calls(s));
		Runner.Result sum = post(s, "--report", "summary");
		Matcher m = Pattern.compile("ended threads merged: +(\\d+)").matcher(sum.out);
		Matcher n = Pattern.compile("(?m)^  threads: +(\\d+)").matcher(sum.out);
		r.check(m.find() && Long.parseLong(m.group(1)) >= 600 - 256 && n.find() && Long.parseLong(n.group(1)) < 300
				&& sum.out.contains("<ended threads>") && sum.out.matches("(?s).*\\n  #1 +main .*"),
				"thread churn: at most 256 ended threads of their own (main one of them), the rest merged: " + sum.out);
		Path only = r.tmp.resolve("churn-only.tree");
		Runner.Result b = traced("trace,metric=cputime,output=tree,out=" + only, W + "ThreadChurn");
		r.check(b.rc == 0, "thread churn, output=tree: exit " + b.rc + ": " + b.err);
		r.expectExact("thread churn: calls in the output=tree snapshot", want, calls(only));
		Runner.Result so = post(only, "--report", "summary");
		Matcher k = Pattern.compile("(?m)^  threads: +(\\d+)").matcher(so.out);
		r.check(k.find() && Long.parseLong(k.group(1)) < 300 && so.out.matches("(?s).*\\n  #1 +main .*"),
				"thread churn, output=tree: the snapshot defines only the threads it has trees for: " + so.out);
	}

	private void expectError(String what, Runner.Result res, String names) {
		List<String> lines = res.errLines();
		r.check(res.rc != 0 && lines.size() == 1 && lines.get(0).startsWith("jcal-post: error: ")
				&& lines.get(0).contains(names), what + ": one error naming " + names + " expected, got " + lines);
	}

	/** Bad values: one "jcal: error:" line naming the token, the JVM does not start. */
	private void testBadOptions() throws Exception {
		String[][] cases = {{"trace,output=forest", "output=forest"}, {"trace,output=tree,maxcontexts=10", "maxcontexts=10"},
				{"trace,output=tree,maxcontexts=lots", "maxcontexts=lots"},
				{"trace,maxcontexts=5000", "maxcontexts=5000"},
				{"trace,output=tree,recalibrate=start", "output=tree"},
				{"trace,output=tree,out=" + r.tmp.resolve("no-such-dir/t.tree"), "no-such-dir/t.tree"}};
		for (String[] c : cases) {
			Runner.Result a = traced(c[0], W + "Basic");
			List<String> lines = new ArrayList<>();
			for (String l : a.errLines())
				if (l.startsWith("jcal:"))
					lines.add(l);
			r.check(a.rc != 0 && lines.size() == 1 && lines.get(0).startsWith("jcal: error: ")
					&& lines.get(0).contains(c[1]), c[0] + ": one 'jcal: error:' naming " + c[1] + ", got " + lines);
			r.check(!a.out.contains("basic "), c[0] + ": the program must not run");
		}
	}

	/** mainAndArgs under the agent with opts, in the background; its output goes to NAME.out and NAME.err. */
	private Process background(String name, String opts, String... mainAndArgs) throws Exception {
		List<String> cmd = new ArrayList<>(List.of(r.java, "-agentpath:" + r.agent + "=" + opts, "-cp", r.classes));
		cmd.addAll(Arrays.asList(mainAndArgs));
		ProcessBuilder pb = new ProcessBuilder(cmd).directory(r.tmp.toFile());
		pb.environment().put("JCAL_CALIB_DIR", calibDir.toString());
		pb.redirectOutput(r.tmp.resolve(name + ".out").toFile()).redirectError(r.tmp.resolve(name + ".err").toFile());
		return pb.start();
	}

	/** p's trees dumped to d by a later load of the library (jcmd); the test fails when the dump does. */
	private void dump(Process p, Path d, String what) throws Exception {
		Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
		Runner.Result j = run(List.of(jcmd.toString(), Long.toString(p.pid()), "JVMTI.agent_load", r.agent,
				"'dump,out=" + d + "'"));
		r.check(j.rc == 0 && j.out.contains("return code: 0"), what + ": " + j.out + j.err);
	}

	/** The calls of tick() in a snapshot, or -1 when it cannot be read. */
	private long ticks(Path snap) throws Exception {
		Long n = calls(snap).get(W + "TimedSpin.tick");
		return n == null ? -1 : n;
	}

	/**
	 * dump while the program runs (a later load of the library, through
	 * jcmd): each dump is a complete snapshot, taken from running trees, and
	 * the final one at the end has at least as many calls; the latency report
	 * of a dump counts every call of tick() from its histograms.
	 */
	private void testDumpWhileRunning() throws Exception {
		Path s = r.tmp.resolve("spin.tree");
		calibrate("events");
		Process p = background("spin", "trace,metric=cputime,output=tree,out=" + s, W + "TimedSpin", "6");
		try {
			long last = 0;
			for (int k = 1; k <= 2; k++) {
				Thread.sleep(1500);
				Path d = r.tmp.resolve("spin.dump" + k);
				dump(p, d, "dump " + k);
				Runner.Result sum = post(d, "--report", "summary");
				r.check(sum.rc == 0 && sum.out.matches("(?s).*tree snapshot: +taken .* \\(dump\\).*"),
						"dump " + k + " reads as a snapshot taken while running: " + sum.out + sum.err);
				long n = ticks(d);
				r.check(n > last, "dump " + k + ": tick() calls " + n + " after " + last);
				last = n;
				/* the latency of a live dump, from its histograms: every call of tick(), an open
				 * one ending at the dump (docs/jcal-post.md, latency) */
				Runner.Result lat = post(d, "--report", "latency", "--include", W + "TimedSpin.tick",
						"--format", "csv");
				Long lc = null;
				for (List<String> row : Runner.csv(lat.out))
					if (row.size() > 1 && row.get(0).equals(W + "TimedSpin.tick"))
						lc = Long.parseLong(row.get(1));
				r.check(lat.rc == 0 && lc != null && lc == n,
						"dump " + k + ": latency from the histograms counts tick()'s " + n + " calls: " + lc + " "
								+ lat.err);
			}
			r.check(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "the program ends normally");
			long end = ticks(s);
			r.check(end >= last && end % 10000 == 0, "the final snapshot: tick() calls " + end + " (dumps " + last + ")");
		} finally {
			p.destroyForcibly();
			p.waitFor(10, TimeUnit.SECONDS);
		}
	}

	/**
	 * Snapshots taken while four threads' trees grow as fast as mode=bci's
	 * probes go (their own events take no lock where membarrier(2) is
	 * available, docs/agent-internals.md "output=tree"): every dump reads,
	 * shows each thread's tree between two events (leaf() at most three
	 * calls behind 3 x mid() per thread), and the final snapshot has every
	 * call.
	 */
	private void testDumpUnderLoad() throws Exception {
		Path s = r.tmp.resolve("stress.tree"), stop = r.tmp.resolve("stress.stop");
		int threads = 4;
		calibrate("bci");
		Process p = background("stress", "trace,mode=bci,metric=cputime,output=tree,out=" + s, W + "TreeStress",
				stop.toString(), Integer.toString(threads));
		String S = W + "TreeStress.";
		try {
			long lastMid = 0;
			for (int k = 1; k <= 4; k++) {
				Thread.sleep(300);
				Path d = r.tmp.resolve("stress.dump" + k);
				dump(p, d, "dump " + k + " under load");
				Map<String, Long> c = calls(d);
				long mid = c.getOrDefault(S + "mid", 0L), leaf = c.getOrDefault(S + "leaf", 0L);
				r.check(mid > lastMid && leaf <= 3 * mid && leaf >= 3 * mid - 3 * threads,
						"dump " + k + " under load: mid() " + mid + " (after " + lastMid + "), leaf() " + leaf);
				lastMid = mid;
			}
			Files.createFile(stop);
			r.check(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "the stressed program ends normally");
			Matcher m = Pattern.compile("rounds (\\d+)").matcher(Files.readString(r.tmp.resolve("stress.out")));
			r.check(m.find(), "the program prints its rounds");
			long rounds = Long.parseLong(m.group(1));
			r.expectExact("dumps under load: calls in the final snapshot",
					Runner.map(S + "main", 1, W + "TreeStress$Worker.<init>", threads, W + "TreeStress$Worker.run", threads,
							S + "round", rounds, S + "mid", 1000 * rounds, S + "leaf", 3000 * rounds),
					calls(s));
		} finally {
			p.destroyForcibly();
			p.waitFor(10, TimeUnit.SECONDS);
		}
	}

	/**
	 * The numbers of the compensation lines of a summary: keys seen and found,
	 * deltas, clamped, fallbacks without and with static-ness (the trace's
	 * line has their sum first, the snapshot's not: left out).
	 */
	private List<Long> compCounts(Path file, Path calib) throws Exception {
		Runner.Result sum = run(List.of(r.post, file.toString(), "--report", "summary"), calib);
		r.check(sum.rc == 0, "summary of " + file + ": " + sum.err);
		List<Long> n = new ArrayList<>();
		for (String l : sum.out.split("\n"))
			if (l.matches(" *(key coverage|compensated deltas|clamped deltas|fallback deltas):.*")) {
				List<Long> line = new ArrayList<>();
				Matcher m = Pattern.compile("\\d+").matcher(l.replaceAll("metric 0|\\(.*ns.*\\)", ""));
				while (m.find())
					line.add(Long.parseLong(m.group()));
				n.addAll(l.contains("fallback") ? line.subList(Math.max(0, line.size() - 2), line.size()) : line);
			}
		return n;
	}

	/**
	 * The snapshot counts the deltas it compensated (keys seen and found,
	 * deltas, clamped, fallbacks) as jcal-post does on the trace of the same
	 * run: the agent's trees compensate their common steps from the table
	 * themselves, counted by key, and the others through their hook. The
	 * table lacks every other key, so that both fallbacks happen.
	 */
	private void testCompCounts() throws Exception {
		Path full = calibrate("events"), dir = r.tmp.resolve("calib-thin"), table = dir.resolve("thin.txt");
		List<String> head = new ArrayList<>(), keys = new ArrayList<>();
		long missing = 0;
		boolean drop = false;
		for (String l : Files.readAllLines(full))
			if (!l.matches("\\S:\\S:\\S:\\S:\\S .*"))
				head.add(l);
			else if (!(drop = !drop)) {
				keys.add(l);
				missing += l.contains(" env=0 ") ? 1 : 0;
			}
		final long envMissing = missing;
		head.replaceAll(l -> l.startsWith("keys ") ? "keys " + keys.size()
				: l.startsWith("env.missing ") ? "env.missing " + envMissing : l);
		head.addAll(keys);
		Files.createDirectories(dir);
		Files.write(table, head);
		Path t = r.tmp.resolve("thin.bin"), s = r.tmp.resolve("thin.bin.tree");
		Runner.Result a = run(List.of(r.java, "-agentpath:" + r.agent + "=trace,metric=cputime,output=both,out=" + t, "-cp",
				r.classes, W + "Exceptions"), dir);
		r.check(a.rc == 0 && a.err.contains(", compensated, "), "output=both with a thin table: " + a.rc + ": " + a.err);
		List<Long> fromTrace = compCounts(t, dir), fromSnap = compCounts(s, dir);
		r.check(fromTrace.size() == 6 && fromTrace.get(2) > 0 && fromTrace.get(4) > 0 && fromTrace.get(5) > 0,
				"the trace's summary counts compensated deltas and fallbacks: " + fromTrace);
		r.check(fromTrace.equals(fromSnap), "the snapshot counts its compensation as jcal-post counts the trace's: trace "
				+ fromTrace + ", snapshot " + fromSnap);
	}

	/** The suite's tests, in the order jcaltest.Main runs them. */
	static Runner.Tests tests(Runner r) {
		TreeOutput t = new TreeOutput(r);
		return new Runner.Tests()
				.add("tree-both-events", t::testBothEvents)
				.add("tree-both-bci", t::testBothBci)
				.add("tree-maxcontexts", t::testMaxContexts)
				.add("tree-only", t::testTreeOnly)
				.add("tree-comp-counts", t::testCompCounts)
				.add("tree-dump-while-running", t::testDumpWhileRunning)
				.add("tree-dump-under-load", t::testDumpUnderLoad)
				.add("tree-thread-churn", t::testThreadChurn)
				.add("tree-bad-options", t::testBadOptions);
	}
}
