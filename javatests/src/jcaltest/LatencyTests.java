package jcaltest;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The reports of single calls end to end (docs/jcal-post.md, latency, slow,
 * "Off the CPU") on jcaltest.work.Latency recorded with metric=cputime+tsc:
 * the calls of each method exactly; request's p50 a spin and its p90 a nap
 * (a sleep of 20 ms, so at least 20 ms of wall time: the only timing bound,
 * and a generous one); the durations of a method's calls adding up to its cum
 * in the flat report; a snapshot's figures from its histograms within their bound of the trace's. Run by jcaltest.Main
 * (javatests/run.sh).
 */
final class LatencyTests {
	private static final String W = "jcaltest.work.Latency";
	private static final String REQ = W + ".request", SPIN = W + ".spin", NAP = W + ".nap";
	private static final long SLEEP_NS = 20_000_000L;
	private final Runner r;
	private Path trace;
	/* the wall clock (ns since the epoch) before and after the recorded run */
	private long before, after;

	private LatencyTests(Runner r) {
		this.r = r;
	}

	/** The workload, recorded once with both metrics. */
	private Path trace() throws Exception {
		if (trace != null)
			return trace;
		trace = r.tmp.resolve("latency.bin");
		before = System.currentTimeMillis() * 1_000_000L;
		Runner.Result j = r.run(r.tmp.toFile(), List.of(r.java,
				"-agentpath:" + r.agent + "=trace,quiet,metric=cputime+tsc,out=" + trace, "-cp", r.classes, W));
		after = (System.currentTimeMillis() + 1) * 1_000_000L;
		r.check(j.rc == 0, "latency workload: exit " + j.rc + ": " + j.err);
		return trace;
	}

	/** The rows of a CSV report by their first column (the method), each a map of column to value. */
	private Map<String, Map<String, String>> rows(Runner.Result res, String what) {
		return rowsBy(res, what, "method"); /* flat's and latency's first column */
	}

	private long num(Map<String, Map<String, String>> rows, String method, String col) {
		Map<String, String> row = rows.get(method);
		if (row == null || row.get(col) == null) {
			r.check(false, method + ": no column " + col + " in " + rows.keySet());
			return -1;
		}
		return Long.parseLong(row.get(col));
	}

	/** Calls exact; request: p50 a spin, p90 and p99 a nap of at least 20 ms of wall time. */
	private void testLatency() throws Exception {
		Path t = trace();
		Map<String, Map<String, String>> wall = rows(
				r.post(t, "--report", "latency", "--metric", "tsc", "--format", "csv"), "latency tsc");
		r.expectExact("latency calls", Map.of(REQ, 100L, SPIN, 87L, NAP, 13L),
				Map.of(REQ, num(wall, REQ, "calls"), SPIN, num(wall, SPIN, "calls"), NAP, num(wall, NAP, "calls")));
		long p50 = num(wall, REQ, "p50"), p90 = num(wall, REQ, "p90"), p99 = num(wall, REQ, "p99");
		r.check(p90 >= SLEEP_NS && p99 >= SLEEP_NS, "request: p90 " + p90 + " and p99 " + p99 + " ns are naps of 20 ms");
		r.check(p50 < p90, "request: p50 " + p50 + " (a spin) below p90 " + p90 + " (a nap)");
		r.check(num(wall, NAP, "min") >= SLEEP_NS, "nap: every call at least 20 ms: min " + num(wall, NAP, "min"));
		r.check(num(wall, SPIN, "max") <= num(wall, REQ, "max"), "spin: no call longer than request's longest");
		/* the metric's calls add up to the flat report's cum (no recursion here) */
		for (String metric : List.of("cputime", "tsc")) {
			Map<String, Map<String, String>> lat = rows(
					r.post(t, "--report", "latency", "--metric", metric, "--format", "csv"), "latency " + metric);
			Map<String, Map<String, String>> flat = rows(
					r.post(t, "--report", "flat", "--metric", metric, "--format", "csv"), "flat " + metric);
			Map<String, Long> want = new HashMap<>(), got = new HashMap<>();
			for (String m : List.of(REQ, SPIN, NAP)) {
				want.put(m, num(flat, m, "cum"));
				got.put(m, num(lat, m, "total"));
			}
			r.expectExact("latency totals = flat cum (" + metric + ")", want, got);
		}
	}

	/**
	 * Compensated by this JVM's own calibration table: per calling context, its calls' durations add up
	 * to its cum in the tree report exactly, in every context of the threads main and worker, both
	 * metrics of the trace.
	 */
	private void testCalibratedContexts() throws Exception {
		Path t = trace(), dir = r.tmp.resolve("calib");
		Runner.Result c = r.runFor(r.tmp.toFile(),
				List.of(r.java, "-agentpath:" + r.agent + "=calibrate,metric=cputime+tsc,quiet", "-version"),
				Map.of("JCAL_CALIB_DIR", dir.toString()), null, 300);
		r.check(c != null && c.rc == 0, "calibrate: " + (c == null ? "timed out" : c.rc + ": " + c.err));
		/* thread by thread: a figure of TSC ticks is converted to ns once, so a sum over threads
		 * of converted figures may differ from the converted sum by under 1 ns a thread */
		for (String metric : List.of("cputime", "tsc"))
			for (String thread : List.of("main", "worker")) {
				String what = "calibrated " + metric + ", thread " + thread;
				Runner.Result tree = r.post(t, "--report", "tree", "--format", "csv", "--all", "--calib",
						dir.toString(), "--metric", metric, "--thread", thread);
				Runner.Result lat = r.post(t, "--report", "latency", "--by", "context", "--format", "csv", "--calib",
						dir.toString(), "--metric", metric, "--thread", thread);
				r.check(tree.rc == 0 && lat.rc == 0 && !tree.err.contains("no calibration table"),
						what + ": tree and latency: " + tree.err + lat.err);
				Map<String, Long> want = new HashMap<>(), got = new HashMap<>();
				List<List<String>> rows = Runner.csv(tree.out);
				int path = rows.isEmpty() ? -1 : rows.get(0).indexOf("path");
				int cum = rows.isEmpty() ? -1 : rows.get(0).indexOf("cum");
				for (List<String> row : rows.subList(Math.min(1, rows.size()), rows.size()))
					if (!row.get(path).isEmpty())
						want.merge(row.get(path), Long.parseLong(row.get(cum)), Long::sum);
				rows = Runner.csv(lat.out);
				for (List<String> row : rows.subList(Math.min(1, rows.size()), rows.size()))
					got.put(row.get(1), Long.parseLong(row.get(rows.get(0).indexOf("total"))));
				r.check(want.size() > 3, what + ": the tree's contexts: " + want.size());
				r.expectExact(what + ": each context's calls add up to its cum", want, got);
			}
	}

	/** --by context: request's one context under the lambda; --thread and --include select. */
	private void testContexts() throws Exception {
		Path t = trace();
		Runner.Result res = r.post(t, "--report", "latency", "--by", "context", "--thread", "worker", "--include",
				REQ, "--format", "csv");
		r.check(res.rc == 0, "latency --by context: exit " + res.rc + ": " + res.err);
		Map<String, Long> calls = new HashMap<>();
		List<String> outside = new ArrayList<>();
		for (List<String> row : Runner.csv(res.out)) {
			if (row.size() < 3 || row.get(0).equals("method"))
				continue;
			String ctx = row.get(1);
			if (!ctx.contains(REQ))
				outside.add(ctx);
			if (ctx.endsWith(";" + REQ) || ctx.endsWith(";" + REQ + ";" + SPIN) || ctx.endsWith(";" + REQ + ";" + NAP))
				calls.put(row.get(0), Long.parseLong(row.get(2)));
		}
		r.expectExact("latency --by context: calls under request", Map.of(REQ, 100L, SPIN, 87L, NAP, 13L), calls);
		r.check(outside.isEmpty(), "--include request: every context has it on its path: " + outside);
	}

	/**
	 * The slowest calls below nap: its 13 calls, each at least 20 ms, on the thread worker, under
	 * request, started within the run, with Thread.sleep their largest callee.
	 */
	private void testSlow() throws Exception {
		Path t = trace();
		Runner.Result res = r.post(t, "--report", "slow", "--metric", "tsc", "--include", NAP, "--top", "1000",
				"--format", "csv");
		r.check(res.rc == 0, "slow: exit " + res.rc + ": " + res.err);
		List<List<String>> rows = Runner.csv(res.out);
		r.check(!rows.isEmpty() && rows.get(0).equals(
				List.of("rank", "method", "duration", "thread", "start", "start_ns", "path", "self", "callees")),
				"slow: the CSV header: " + (rows.isEmpty() ? "none" : rows.get(0)));
		int naps = 0;
		long last = Long.MAX_VALUE;
		for (List<String> row : rows.subList(Math.min(1, rows.size()), rows.size())) {
			long d = Long.parseLong(row.get(2));
			r.check(d <= last, "slow: longest first: " + d + " after " + last);
			last = d;
			if (!row.get(1).equals(NAP))
				continue;
			naps++;
			long start = Long.parseLong(row.get(5));
			r.check(d >= SLEEP_NS, "slow: a nap of at least 20 ms: " + row);
			r.check(row.get(3).startsWith("worker#"), "slow: nap on the thread worker: " + row);
			r.check(row.get(6).endsWith(";" + REQ + ";" + NAP), "slow: nap's path ends request;nap: " + row);
			r.check(start >= before && start <= after, "slow: nap started within the run [" + before + ", " + after
					+ "]: " + row);
			r.check(row.get(4).endsWith("Z") && row.get(4).contains("T"), "slow: start as UTC time: " + row);
			r.check(row.get(8).startsWith("java.lang.Thread.sleep"), "slow: nap's largest callee Thread.sleep: " + row);
		}
		r.check(naps == 13, "slow: every nap listed: " + naps + " of 13");
	}

	/**
	 * --metric offcpu on a recording of output=both: nap off the CPU at least 90 % of its wall time;
	 * the trace and its snapshot give the same off-CPU figures exactly; the summary's worker off the
	 * CPU at least the 13 sleeps' 90 % and at most its wall time; a trace of cputime alone refused in
	 * one line.
	 */
	private void testOffCpu() throws Exception {
		Path t = r.tmp.resolve("offcpu.bin"), snap = r.tmp.resolve("offcpu.bin.tree");
		Runner.Result j = r.run(r.tmp.toFile(), List.of(r.java,
				"-agentpath:" + r.agent + "=trace,quiet,output=both,metric=cputime+tsc,out=" + t, "-cp", r.classes,
				W));
		r.check(j.rc == 0, "offcpu workload: exit " + j.rc + ": " + j.err);
		Map<String, Map<String, String>> off = rows(
				r.post(t, "--report", "flat", "--metric", "offcpu", "--format", "csv"), "flat offcpu");
		Map<String, Map<String, String>> wall = rows(
				r.post(t, "--report", "flat", "--metric", "tsc", "--format", "csv"), "flat tsc");
		long napOff = num(off, NAP, "cum"), napWall = num(wall, NAP, "cum");
		r.check(napOff * 10 >= napWall * 9, "nap: off the CPU " + napOff + " of " + napWall + " ns, >= 90 %");
		r.check(napOff <= napWall, "nap: off the CPU no more than its wall time");
		Map<String, Map<String, String>> offSnap = rows(
				r.post(snap, "--report", "flat", "--metric", "offcpu", "--format", "csv"), "flat offcpu snapshot");
		for (String m : List.of(REQ, SPIN, NAP))
			r.check(off.get(m) != null && off.get(m).equals(offSnap.get(m)),
					m + ": the same off-CPU row from the trace and the snapshot: " + off.get(m) + " vs " + offSnap.get(m));
		Runner.Result sum = r.post(t, "--report", "summary", "--format", "json");
		Matcher w = Pattern.compile("\"name\":\"worker\"[^}]*\"wall\":(\\d+),\"offcpu\":(\\d+)").matcher(sum.out);
		boolean found = sum.rc == 0 && w.find();
		r.check(found, "summary: the worker's wall and offcpu: " + sum.rc + " " + sum.err);
		if (found) {
			long tw = Long.parseLong(w.group(1)), to = Long.parseLong(w.group(2));
			r.check(to * 10 >= 13 * SLEEP_NS * 9 && to <= tw,
					"summary: worker off the CPU " + to + " ns of " + tw + ": at least 90 % of 13 sleeps of 20 ms");
		}
		Path cpu = r.tmp.resolve("cputime.bin");
		j = r.run(r.tmp.toFile(), List.of(r.java, "-agentpath:" + r.agent + "=trace,quiet,metric=cputime,out=" + cpu,
				"-cp", r.classes, W));
		r.check(j.rc == 0, "cputime workload: exit " + j.rc + ": " + j.err);
		Runner.Result res = r.post(cpu, "--report", "flat", "--metric", "offcpu");
		List<String> errors = new ArrayList<>();
		for (String line : res.errLines())
			if (line.startsWith("jcal-post: error: "))
				errors.add(line);
		r.check(res.rc == 1 && res.out.isEmpty() && errors.size() == 1 && errors.get(0).contains("metric=cputime+tsc"),
				"--metric offcpu of a cputime trace: one error line, exit 1: " + res.rc + " " + res.err);
	}

	/**
	 * Two runs at once (jcal-post FILE FILE): each trace read again with its own calibration, the calls
	 * of both counted, the slow calls' threads named with their input.
	 */
	private void testTwoRuns() throws Exception {
		Path t = trace(), t2 = r.tmp.resolve("latency2.bin");
		Runner.Result j = r.run(r.tmp.toFile(), List.of(r.java,
				"-agentpath:" + r.agent + "=trace,quiet,metric=cputime+tsc,out=" + t2, "-cp", r.classes, W));
		r.check(j.rc == 0, "second run: exit " + j.rc + ": " + j.err);
		List<String> both = List.of(t.toString(), t2.toString());
		List<String> cmd = new ArrayList<>(List.of(r.post));
		cmd.addAll(both);
		cmd.addAll(List.of("--report", "latency", "--metric", "tsc", "--format", "csv"));
		Map<String, Map<String, String>> rows = rows(r.run(r.tmp.toFile(), cmd), "latency of two runs");
		r.expectExact("latency of two runs: calls", Map.of(REQ, 200L, SPIN, 174L, NAP, 26L),
				Map.of(REQ, num(rows, REQ, "calls"), SPIN, num(rows, SPIN, "calls"), NAP, num(rows, NAP, "calls")));
		r.check(num(rows, NAP, "min") >= SLEEP_NS, "two runs: every nap at least 20 ms: " + rows.get(NAP));
		cmd = new ArrayList<>(List.of(r.post));
		cmd.addAll(both);
		cmd.addAll(List.of("--report", "slow", "--metric", "tsc", "--include", NAP, "--top", "1000", "--format", "csv"));
		Runner.Result res = r.run(r.tmp.toFile(), cmd);
		Map<String, Integer> naps = new HashMap<>();
		for (List<String> row : Runner.csv(res.out))
			if (row.size() > 3 && row.get(1).equals(NAP))
				naps.merge(row.get(3).replaceAll(":[0-9]+\\]#[0-9]+$", "]"), 1, Integer::sum);
		r.check(res.rc == 0 && naps.size() == 2 && naps.values().stream().allMatch(n -> n == 13),
				"two runs: 13 naps on each run's worker, named with its input: " + naps + " " + res.err);
	}

	/**
	 * output=both: the snapshot's histograms against the trace of the same run. Calls exact for request,
	 * spin and nap (100, 87, 13), min, max and total equal to the trace's, each percentile within 1/32
	 * (the histograms' bound, docs/jcal-post.md, latency) of the trace's exact one, per method and per
	 * context; the report says so in its header. slow, which needs single calls, refuses the snapshot in
	 * one line, exit 2.
	 */
	private void testSnapshotHistograms() throws Exception {
		Path t = r.tmp.resolve("hist.bin"), s = r.tmp.resolve("hist.bin.tree");
		Runner.Result j = r.run(r.tmp.toFile(), List.of(r.java,
				"-agentpath:" + r.agent + "=trace,quiet,output=both,metric=tsc,out=" + t, "-cp", r.classes, W));
		r.check(j.rc == 0, "output=both: exit " + j.rc + ": " + j.err);
		for (String by : List.of("method", "context")) {
			Map<String, Map<String, String>> exact = rowsBy(
					r.post(t, "--report", "latency", "--by", by, "--format", "csv"), "latency of the trace", by);
			Map<String, Map<String, String>> hist = rowsBy(
					r.post(s, "--report", "latency", "--by", by, "--format", "csv"), "latency of the snapshot", by);
			r.check(exact.keySet().equals(hist.keySet()), "snapshot by " + by + ": the trace's rows: "
					+ exact.keySet() + " vs " + hist.keySet());
			for (String key : exact.keySet()) {
				Map<String, String> a = exact.get(key), b = hist.get(key);
				if (b == null)
					continue;
				for (String col : List.of("calls", "min", "max", "total"))
					r.check(a.get(col).equals(b.get(col)),
							"snapshot by " + by + ", " + key + ": " + col + " " + b.get(col) + ", trace " + a.get(col));
				for (String col : List.of("p50", "p90", "p99", "p99_9")) {
					long want = Long.parseLong(a.get(col)), got = Long.parseLong(b.get(col));
					/* 1 ns more for the conversion of ticks to ns, rounded once each way */
					r.check(Math.abs(got - want) * 32 <= want + 32, "snapshot by " + by + ", " + key + ": " + col
							+ " " + got + " not within 1/32 of the trace's " + want);
				}
			}
		}
		Map<String, Map<String, String>> hist = rows(r.post(s, "--report", "latency", "--format", "csv"),
				"latency of the snapshot");
		r.expectExact("latency of the snapshot: calls", Map.of(REQ, 100L, SPIN, 87L, NAP, 13L),
				Map.of(REQ, num(hist, REQ, "calls"), SPIN, num(hist, SPIN, "calls"), NAP, num(hist, NAP, "calls")));
		r.check(num(hist, REQ, "p90") >= SLEEP_NS - SLEEP_NS / 32, "snapshot: request's p90 a nap: " + hist.get(REQ));
		Runner.Result text = r.post(s, "--report", "latency");
		r.check(text.rc == 0 && text.out.contains("from histograms, within 3.2%"),
				"latency of a snapshot: the header says where the figures come from: " + text.out + text.err);
		Runner.Result res = r.post(s, "--report", "slow");
		List<String> errs = res.errLines().stream().filter(l -> l.startsWith("jcal-post: error: ")).toList();
		r.check(res.rc == 1 && res.out.isEmpty() && errs.size() == 1
				&& errs.get(0).startsWith("jcal-post: error: --report slow: ") && res.err.contains("need a trace")
				&& res.err.contains("slow="),
				"slow of a snapshot without slow=: one error line that names slow=: " + res.rc + " " + res.err);
	}

	/** The rows of the slow report as CSV records, with what a snapshot cannot match left out (start). */
	private List<Map<String, String>> slowRows(Path f, String what, String... more) throws Exception {
		List<String> args = new ArrayList<>(List.of("--report", "slow", "--metric", "tsc", "--format", "csv"));
		args.addAll(List.of(more));
		Runner.Result res = r.post(f, args.toArray(new String[0]));
		r.check(res.rc == 0, what + ": exit " + res.rc + ": " + res.err);
		List<Map<String, String>> rows = Runner.csvRecords(res.out);
		for (Map<String, String> row : rows) {
			row.remove("start");
			row.remove("start_ns");
		}
		return rows;
	}

	/**
	 * slow=10ms with output=both: the snapshot holds exactly the calls of at least 10 ms the trace of the
	 * same run has, in the same order, each with the same duration, thread, path, self and callees (the
	 * agent's trees charge every delta as jcal-post does); the 13 naps among them under request; the
	 * JSON says what the agent kept and how many calls were that long; the same in mode=bci. With
	 * slow=10ms:5, the 5 longest.
	 * --include and --thread select from the kept calls as from a trace's.
	 */
	private void testSnapshotSlow() throws Exception {
		Path t = r.tmp.resolve("slow.bin"), s = r.tmp.resolve("slow.bin.tree");
		Runner.Result j = r.run(r.tmp.toFile(), List.of(r.java,
				"-agentpath:" + r.agent + "=trace,quiet,output=both,metric=tsc,slow=10ms:1000,out=" + t, "-cp",
				r.classes, W));
		r.check(j.rc == 0, "slow=10ms:1000: exit " + j.rc + ": " + j.err);
		List<Map<String, String>> all = slowRows(t, "slow of the trace", "--top", "100000"), want = new ArrayList<>();
		for (Map<String, String> row : all)
			if (Long.parseLong(row.get("duration")) >= 10_000_000L)
				want.add(row);
		List<Map<String, String>> got = slowRows(s, "slow of the snapshot", "--top", "1000");
		r.check(want.size() >= 13 + 13 && want.equals(got), "slow=10ms:1000: the snapshot's calls are the trace's "
				+ want.size() + " of at least 10 ms: " + firstDifference(want, got));
		long naps = got.stream().filter(row -> row.get("method").equals(NAP)
				&& row.get("path").endsWith(";" + REQ + ";" + NAP) && row.get("thread").startsWith("worker#")).count();
		r.check(naps == 13, "slow=10ms: 13 naps under request on worker: " + naps);
		Runner.Result json = r.post(s, "--report", "slow", "--format", "json");
		r.check(json.rc == 0 && json.out.contains("\"kept\":{\"min_ns\":10000000,\"max\":1000,\"over\":" + want.size() + "}"),
				"slow=10ms:1000: the JSON says what was kept: " + json.out.substring(0, Math.min(400, json.out.length())) + json.err);
		/* --include nap: nap and Thread.sleep under it, 13 each, all on worker */
		List<Map<String, String>> naps2 = slowRows(s, "slow --include nap", "--include", NAP, "--thread", "worker",
				"--top", "1000");
		r.check(naps2.size() == 26 && naps2.stream().filter(row -> row.get("method").equals(NAP)).count() == 13
				&& naps2.stream().allMatch(row -> row.get("path").contains(";" + NAP)),
				"slow=10ms:1000 --include nap --thread worker: 13 naps and their 13 sleeps: " + naps2.size());

		/* mode=bci: the same from its probes (the application's classes only) */
		Path tb = r.tmp.resolve("slowbci.bin"), sb = r.tmp.resolve("slowbci.bin.tree");
		j = r.run(r.tmp.toFile(), List.of(r.java, "-agentpath:" + r.agent
				+ "=trace,quiet,mode=bci,output=both,metric=tsc,slow=10ms:1000,out=" + tb, "-cp", r.classes, W));
		r.check(j.rc == 0, "mode=bci,slow=10ms:1000: exit " + j.rc + ": " + j.err);
		List<Map<String, String>> wantBci = new ArrayList<>();
		for (Map<String, String> row : slowRows(tb, "slow of the bci trace", "--top", "100000"))
			if (Long.parseLong(row.get("duration")) >= 10_000_000L)
				wantBci.add(row);
		List<Map<String, String>> gotBci = slowRows(sb, "slow of the bci snapshot", "--top", "1000");
		r.check(wantBci.size() >= 13 + 13 && wantBci.equals(gotBci),
				"mode=bci,slow=10ms:1000: the snapshot's calls are the trace's: " + firstDifference(wantBci, gotBci));

		Path t5 = r.tmp.resolve("slow5.bin"), s5 = r.tmp.resolve("slow5.bin.tree");
		j = r.run(r.tmp.toFile(), List.of(r.java,
				"-agentpath:" + r.agent + "=trace,quiet,output=both,metric=tsc,slow=10ms:5,out=" + t5, "-cp",
				r.classes, W));
		r.check(j.rc == 0, "slow=10ms:5: exit " + j.rc + ": " + j.err);
		want = slowRows(t5, "slow of the trace", "--top", "5");
		got = slowRows(s5, "slow of the snapshot");
		r.check(want.size() == 5 && want.equals(got),
				"slow=10ms:5: the trace's 5 longest calls: " + firstDifference(want, got));
		Runner.Result sum5 = r.post(s5, "--report", "summary");
		r.check(sum5.rc == 0 && sum5.out.matches("(?s).*\n  slow calls: +5 kept of the \\d+ calls of at least 10000000 ns \\(tsc; slow= keeps at most 5; --report slow\\)\n.*"),
				"slow=10ms:5: the summary's slow calls row: " + sum5.out + sum5.err);
		Runner.Result text = r.post(s5, "--report", "slow", "--metric", "tsc");
		r.check(text.rc == 0 && text.out.contains("Kept by the agent (slow=): the 5 longest calls of at least 10000000 ns"),
				"slow=10ms:5: the text says what was kept: " + text.out + text.err);
		/* the two snapshots as one profile: every call of each, longest first, named with its input */
		Runner.Result merged = r.run(r.tmp.toFile(), List.of(r.post, s.toString(), s5.toString(), "--report", "slow",
				"--top", "100000", "--format", "csv"));
		List<Map<String, String>> both = Runner.csvRecords(merged.out);
		long first = both.stream().filter(row -> row.get("thread").contains(" [1 ")).count();
		long second = both.stream().filter(row -> row.get("thread").contains(" [2 ")).count();
		boolean sorted = true;
		for (int i = 1; i < both.size(); i++)
			sorted &= Long.parseLong(both.get(i - 1).get("duration")) >= Long.parseLong(both.get(i).get("duration"));
		r.check(merged.rc == 0 && first == all.stream().filter(row -> Long.parseLong(row.get("duration")) >= 10_000_000L).count()
				&& second == 5 && sorted, "two snapshots of slow= merged: each one's calls, longest first: " + first + " + "
				+ second + ", sorted " + sorted + ": " + merged.err);
		Runner.Result mixed = r.run(r.tmp.toFile(), List.of(r.post, t.toString(), s5.toString(), "--report", "slow"));
		r.check(mixed.rc == 1 && mixed.err.contains("each a trace, or each a snapshot of slow="),
				"a trace and a snapshot: refused in one line: " + mixed.rc + " " + mixed.err);
	}

	/** Where two lists of rows part: their sizes and the first rows that differ. */
	private static String firstDifference(List<Map<String, String>> a, List<Map<String, String>> b) {
		for (int i = 0; i < Math.min(a.size(), b.size()); i++)
			if (!a.get(i).equals(b.get(i)))
				return a.size() + " and " + b.size() + " rows; row " + i + ":\n  trace    " + a.get(i)
						+ "\n  snapshot " + b.get(i);
		return a.size() + " and " + b.size() + " rows" + (a.size() == b.size() ? ", equal" : "");
	}

	/** slow= refused in one jcal: error line naming it when it cannot be kept: a trace, no unit, MAX 0. */
	private void testSlowOptionErrors() throws Exception {
		String[][] cases = {{"slow=10ms", "needs output=tree"}, {"output=tree,slow=10", "'slow=10'"},
				{"output=tree,slow=10ms:0", "'slow=10ms:0'"}, {"output=tree,slow=2h", "'slow=2h'"}};
		for (String[] c : cases) {
			Path out = r.tmp.resolve("slowerr.bin");
			Runner.Result j = r.run(r.tmp.toFile(), List.of(r.java,
					"-agentpath:" + r.agent + "=trace,quiet," + c[0] + ",out=" + out, "-cp", r.classes, W));
			List<String> lines = j.errLines().stream().filter(l -> l.startsWith("jcal: error:")).toList();
			r.check(j.rc == 1 && lines.size() == 1 && lines.get(0).contains(c[1]) && !out.toFile().exists(),
					c[0] + ": exit 1, one jcal: error: line naming " + c[1] + ", nothing written: " + j.rc + " "
							+ j.err);
		}
	}

	/**
	 * output=tree,hists=off: the trees keep no histograms, the calls exactly as with them (100, 87, 13);
	 * latency refuses the snapshot in one error line, exit 1, that names hists=off (not the format of a
	 * snapshot older than histograms); the summary says so.
	 */
	private void testSnapshotHistsOff() throws Exception {
		Path s = r.tmp.resolve("nohists.bin");
		Runner.Result j = r.run(r.tmp.toFile(), List.of(r.java,
				"-agentpath:" + r.agent + "=trace,quiet,output=tree,hists=off,metric=tsc,out=" + s, "-cp", r.classes,
				W));
		r.check(j.rc == 0, "output=tree,hists=off: exit " + j.rc + ": " + j.err);
		Map<String, Map<String, String>> flat = rows(r.post(s, "--report", "flat", "--format", "csv"),
				"flat of a hists=off snapshot");
		r.expectExact("hists=off: calls", Map.of(REQ, 100L, SPIN, 87L, NAP, 13L),
				Map.of(REQ, num(flat, REQ, "calls"), SPIN, num(flat, SPIN, "calls"), NAP, num(flat, NAP, "calls")));
		Runner.Result res = r.post(s, "--report", "latency");
		List<String> errors = new ArrayList<>();
		for (String line : res.errLines())
			if (line.startsWith("jcal-post: error: "))
				errors.add(line);
		r.check(res.rc == 1 && res.out.isEmpty() && errors.size() == 1
				&& errors.get(0).equals("jcal-post: error: " + s + ": this snapshot was recorded with hists=off, so it "
						+ "keeps no durations of single calls: record again without hists=off, or a trace "
						+ "(output=trace or both)"),
				"latency of a hists=off snapshot: one error line naming hists=off, exit 1: " + res.rc + " " + res.err);
		Runner.Result sum = r.post(s, "--report", "summary");
		r.check(sum.rc == 0 && sum.out.contains("none (the agent ran with hists=off: no --report latency)"),
				"summary of a hists=off snapshot: its histograms row: " + sum.rc + " " + sum.err);
	}

	/** rows(), keyed by the method or, by context, by the context column. */
	private Map<String, Map<String, String>> rowsBy(Runner.Result res, String what, String by) {
		Map<String, Map<String, String>> m = new HashMap<>();
		r.check(res.rc == 0, what + ": exit " + res.rc + ": " + res.err);
		for (Map<String, String> v : Runner.csvRecords(res.out))
			m.put(v.get(by), v);
		return m;
	}

	static Runner.Tests tests(Runner r) {
		LatencyTests s = new LatencyTests(r);
		return new Runner.Tests().add("latency-percentiles", s::testLatency)
				.add("latency-contexts", s::testContexts)
				.add("latency-calibrated-contexts", s::testCalibratedContexts)
				.add("slow-calls", s::testSlow)
				.add("offcpu", s::testOffCpu)
				.add("latency-two-runs", s::testTwoRuns)
				.add("latency-snapshot-histograms", s::testSnapshotHistograms)
				.add("latency-snapshot-hists-off", s::testSnapshotHistsOff)
				.add("slow-snapshot", s::testSnapshotSlow)
				.add("slow-option-errors", s::testSlowOptionErrors);
	}
}
