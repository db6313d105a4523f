package jcaltest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import jcaltest.work.StressClassLoading;
import jcaltest.work.StressDeep;
import jcaltest.work.StressExit;
import jcaltest.work.StressShortThreads;

/**
 * Stress tests, bounded in time: many threads with deep recursion
 * and exceptions, thousands of short-lived threads, class unloading, SIGKILL
 * mid-trace, System.exit from a non-main thread, a file size limit. Uses
 * Runner's process and report helpers.
 * Run by jcaltest.Main (javatests/run.sh).
 */
public final class Stress {
	private static final String W = "jcaltest.work.";
	private final Runner r;

	private Stress(Runner r) {
		this.r = r;
	}

	/**
	 * Tree CSV of a trace -> thread name (serial cut) -> method (last path
	 * element, in package W) -> {calls summed over its contexts, highest RL}.
	 */
	private Map<String, Map<String, long[]>> perThread(Path t) throws Exception {
		/* each thread its own tree: short-0 .. short-2999 are one pool */
		Runner.Result res = r.post(t, "--report", "tree", "--format", "csv", "--split-pools");
		r.check(res.rc == 0, "tree report of " + t + ": exit " + res.rc + ": " + res.err);
		Map<String, Map<String, long[]>> m = new TreeMap<>();
		List<List<String>> rows = Runner.csv(res.out);
		for (List<String> row : rows.subList(Math.min(1, rows.size()), rows.size())) {
			String path = row.get(8), method = path.substring(path.lastIndexOf(';') + 1);
			if (!method.startsWith(W))
				continue;
			String thread = row.get(0).replaceAll("#[0-9]+$", "");
			long[] v = m.computeIfAbsent(thread, k -> new TreeMap<>()).computeIfAbsent(method, k -> new long[2]);
			v[0] += Long.parseLong(row.get(3));
			v[1] = Math.max(v[1], Long.parseLong(row.get(2)));
		}
		return m;
	}

	private static Map<String, Long> calls(Map<String, long[]> byMethod) {
		Map<String, Long> m = new TreeMap<>();
		if (byMethod != null)
			for (Map.Entry<String, long[]> e : byMethod.entrySet())
				m.put(e.getKey(), e.getValue()[0]);
		return m;
	}

	private static long count(Runner.Result res, String prefix) {
		long n = 0;
		for (String l : res.errLines())
			if (l.startsWith(prefix))
				n++;
		return n;
	}

	/* ---- the tests ---- */

	/** Flat CSV of the threads selected by --thread sel: method (in W) -> calls. */
	private Map<String, Long> flatOf(Path t, String sel) throws Exception {
		return r.flatCalls(t, "--thread", sel);
	}

	/**
	 * 64 threads at once, recursion past the shadow stack, exceptions. Per
	 * thread flat reports (tree CSV paths grow with depth squared); the tree
	 * of the deepest thread for its recursion level.
	 */
	private void testDeepThreads() throws Exception {
		Path t = r.trace("stress-deep", W + "StressDeep");
		String D = W + "StressDeep.";
		int good = 0;
		for (int k = 0; k < StressDeep.THREADS; k++) {
			int rounds = StressDeep.rounds(k), depth = StressDeep.depth(k);
			Map<String, Long> want = Runner.map(W + "StressDeep$Worker.run", 1, D + "rounds", 1, D + "depth", 1,
					D + "round", rounds, D + "recurse", (long) rounds * (depth + 1), W + "StressDeep$Boom.<init>",
					rounds);
			Map<String, Long> got = flatOf(t, "deep-" + k);
			if (want.equals(got))
				good++;
			else if (good >= k - 2) /* report the first few only */
				r.expectExact("deep-" + k, want, got);
		}
		r.check(good == StressDeep.THREADS, "threads with exact counts: " + good + " of " + StressDeep.THREADS);
		int last = StressDeep.THREADS - 1, maxRl = 0;
		long nodes = 0;
		Runner.Result res = r.post(t, "--report", "tree", "--format", "csv", "--thread", "deep-" + last);
		for (List<String> row : Runner.csv(res.out))
			if (row.get(8).endsWith(";" + D + "recurse")) {
				nodes++;
				maxRl = Math.max(maxRl, Integer.parseInt(row.get(2)));
			}
		r.check(res.rc == 0 && maxRl == StressDeep.depth(last) + 1 && nodes == StressDeep.depth(last) + 1,
				"deep-" + last + ": recursion level and contexts " + (StressDeep.depth(last) + 1) + " expected, got RL "
						+ maxRl + " in " + nodes + " contexts: " + res.err);
	}

	/** 3000 short-lived threads: each its own tree with its own counts. */
	private void testShortThreads() throws Exception {
		Path t = r.trace("stress-short", W + "StressShortThreads");
		Map<String, Map<String, long[]>> m = perThread(t);
		String S = W + "StressShortThreads";
		int threads = 0, good = 0;
		for (String name : m.keySet())
			if (name.startsWith("short-"))
				threads++;
		for (int i = 0; i < StressShortThreads.THREADS; i++) {
			Map<String, Long> want = Runner.map(S + "$Worker.run", 1, S + ".calls", 1, S + ".leaf",
					StressShortThreads.calls(i));
			Map<String, Long> got = calls(m.get("short-" + i));
			if (want.equals(got))
				good++;
			else if (good >= i - 2)
				r.check(false, "short-" + i + ": expected " + want + ", got " + got);
		}
		r.check(threads == StressShortThreads.THREADS, "threads named short-*: " + threads);
		r.check(good == StressShortThreads.THREADS, "threads with exact counts: " + good);
		Runner.Result s = r.post(t, "--report", "summary", "--format", "json");
		java.util.regex.Matcher mt = java.util.regex.Pattern.compile("\"threads\"\\s*:\\s*([0-9]+)").matcher(s.out);
		r.check(s.rc == 0 && mt.find() && Long.parseLong(mt.group(1)) >= StressShortThreads.THREADS,
				"summary counts at least " + StressShortThreads.THREADS + " threads: " + s.out);
	}

	/** Classes defined by throw-away loaders and unloaded while tracing. */
	private void testClassUnloading() throws Exception {
		Path t = tmp("stress-classes.bin");
		Runner.Result res = r.run(r.tmp.toFile(), List.of(r.java, "-Xlog:class+unload=info:stdout",
				"-agentpath:" + r.agent + "=trace,quiet,out=" + t, "-cp", r.classes, W + "StressClassLoading"));
		r.check(res.rc == 0, "JVM exit " + res.rc + ": " + res.err);
		int n = StressClassLoading.LOADERS;
		r.check(res.out.contains("unloaded "), "workload finished: " + res.out);
		r.check(res.out.contains("unloading class " + W + "StressPayload"),
				"some StressPayload classes were unloaded during the trace (-Xlog:class+unload)");
		Map<String, Long> flat = r.flatCalls(t, W + "StressPayload");
		r.expectExact("calls of every loaded copy, summed", Runner.map(W + "StressPayload.<init>", n,
				W + "StressPayload.work", n, W + "StressPayload.step", (long) n * StressClassLoading.WORK), flat);
		r.expectExact("loader driver", Runner.map(W + "StressClassLoading.once", n),
				r.flatCalls(t, W + "StressClassLoading.once"));
		/* The copies of one method (one per class loader) are one row, as in mode=bci. */
		Runner.Result csv = r.post(t, "--report", "flat", "--format", "csv");
		long rows = Runner.csv(csv.out).stream().filter(row -> row.get(0).equals(W + "StressPayload.work")).count();
		r.check(rows == 1, "StressPayload.work: one flat row for all " + n + " class loaders, got " + rows);
	}

	/**
	 * SIGKILL mid-trace: the trace never appears under its name (only a
	 * complete one does); its OUT.part reads up to the last complete chunk,
	 * exit 0.
	 */
	private void testSigkill() throws Exception {
		Path out = tmp("stress-kill.bin"), t = tmp("stress-kill.bin.part");
		Process p = new ProcessBuilder(r.java, "-agentpath:" + r.agent + "=trace,quiet,metric=tsc,out=" + out, "-cp",
				r.classes, W + "StressSpin").redirectOutput(tmp("kill.out").toFile())
				.redirectError(tmp("kill.err").toFile()).start();
		/* Six chunks written after the workload started spinning (how much
		 * the JVM's start-up writes differs between JDKs). */
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30), start = -1;
		while (System.nanoTime() < deadline && p.isAlive()) {
			if (start < 0 && Files.readString(tmp("kill.out")).contains("spinning"))
				start = Files.exists(t) ? Files.size(t) : 0;
			if (start >= 0 && Files.exists(t) && Files.size(t) >= start + 6 * 65536)
				break;
			Thread.sleep(20);
		}
		long before = Files.exists(t) ? Files.size(t) - Math.max(start, 0) : 0;
		r.check(p.isAlive(), "the workload died by itself: " + Files.readString(tmp("kill.err")));
		p.destroyForcibly();
		r.check(p.waitFor(30, TimeUnit.SECONDS), "JVM gone after SIGKILL");
		r.check(p.exitValue() == 137, "killed JVM exit status 137 expected, got " + p.exitValue());
		r.check(!Files.exists(out), "a killed recording left a file under its final name");
		r.check(start >= 0 && before >= 6 * 65536,
				"trace had several chunks of the spinning workload before the kill: " + before + " bytes");
		Runner.Result res = r.post(t, "--report", "flat", "--format", "csv");
		r.check(res.rc == 0, "jcal-post on the killed trace: exit 0 expected, got " + res.rc + ": " + res.err);
		r.check(res.err.contains("warning") && (res.err.contains("END") || res.err.contains("cut off")),
				"a truncation or no-END warning expected, got: " + res.err);
		long ticks = 0;
		for (List<String> row : Runner.csv(res.out))
			if (row.get(0).equals(W + "StressSpin.tick"))
				ticks = Long.parseLong(row.get(1));
		r.check(ticks > 10000, "ticks read from the killed trace: " + ticks);
		Runner.Result s = r.post(t, "--report", "summary");
		r.check(s.rc == 0, "summary of the killed trace: " + s.err);
	}

	/** System.exit from a non-main thread while others are in deep calls. */
	private void testExitFromThread() throws Exception {
		Path t = r.trace("stress-exit", W + "StressExit");
		Runner.Result res = r.post(t, "--report", "summary");
		r.check(res.rc == 0 && !res.err.contains("warning"), "complete trace (END, no warning): " + res.err);
		Map<String, Map<String, long[]>> m = perThread(t);
		String E = W + "StressExit.";
		Map<String, Long> got = calls(m.get("exiter"));
		got.keySet().removeIf(k -> k.contains("$$Lambda") || k.contains("lambda$")); /* JDK 17 $$Lambda$N, 21+ $$Lambda.0x */
		r.expectExact("exiter's counts", Runner.map(E + "step", StressExit.STEPS, E + "leaf",
				(long) StressExit.STEPS * StressExit.LEAVES, E + "exitNow", 1), got);
		for (int k = 0; k < 2; k++) {
			Map<String, long[]> b = m.get("blocked-" + k);
			r.check(b != null && b.containsKey(E + "block") && b.get(E + "block")[0] == StressExit.DEPTH + 1,
					"blocked-" + k + ": " + (StressExit.DEPTH + 1) + " open block() frames, got " + calls(b));
		}
	}

	/** A file size limit: one warning, the application goes on, the file reads. */
	private void testDiskFull() throws Exception {
		Path t = tmp("stress-full.bin");
		/* ulimit -f units of sh (dash): 512 bytes. 1 MB: above what the JVM's
		 * start-up writes (~0.6 MB on JDK 17 and 25), far below the ~10 MB of
		 * the whole run. */
		int blocks = 2000;
		List<String> cmd = new ArrayList<>(List.of("sh", "-c", "ulimit -f " + blocks + " && exec \"$@\"", "sh",
				r.java, "-agentpath:" + r.agent + "=trace,metric=tsc,out=" + t, "-cp", r.classes,
				W + "StressDiskFull"));
		Runner.Result res = r.run(r.tmp.toFile(), cmd);
		r.check(res.rc == 0, "JVM exit 0 expected under the file size limit, got " + res.rc + ": " + res.err);
		r.check(res.out.contains("diskfull done"), "the application finished: " + res.out);
		r.check(count(res, "jcal: warning") == 1, "exactly one agent warning expected, got: " + res.err);
		long size = Files.exists(t) ? Files.size(t) : -1;
		r.check(size > 0 && size <= blocks * 512L, "trace within the limit: " + size + " bytes");
		Runner.Result f = r.post(t, "--report", "flat", "--format", "csv");
		r.check(f.rc == 0, "jcal-post on the cut trace: exit 0 expected, got " + f.rc + ": " + f.err);
		long ticks = 0;
		for (List<String> row : Runner.csv(f.out))
			if (row.get(0).equals(W + "StressDiskFull.tick"))
				ticks = Long.parseLong(row.get(1));
		r.check(ticks > 0 && ticks < 3_000_000, "part of the ticks read: " + ticks);
	}

	private Path tmp(String name) {
		return r.tmp.resolve(name);
	}

	/** The suite's tests, in the order jcaltest.Main runs them. */
	static Runner.Tests tests(Runner r) {
		Stress s = new Stress(r);
		return new Runner.Tests()
				.add("stress-deep-threads", s::testDeepThreads)
				.add("stress-short-threads", s::testShortThreads)
				.add("stress-class-unloading", s::testClassUnloading)
				.add("stress-sigkill", s::testSigkill)
				.add("stress-exit-from-thread", s::testExitFromThread)
				.add("stress-disk-full", s::testDiskFull);
	}
}
