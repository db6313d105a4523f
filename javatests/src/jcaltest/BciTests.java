package jcaltest;

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
 * End-to-end tests of mode=bci: the workloads of Runner traced
 * with bytecode instrumentation must give the same exact call counts as
 * mode=events; a warmed-up loop shows jitted (J/j) method types; exceptions
 * through instrumented frames, lambdas (with their proxies) and the other shapes of
 * jcaltest.work.BciMix; -Xverify:all; the include=/exclude= filters; JDK 25
 * and virtual threads when a JDK >= 21 is there; calibrate,mode=bci and its
 * table applied to a bci trace. Uses Runner's process and
 * report helpers.
 * Run by jcaltest.Main (javatests/run.sh).
 */
public final class BciTests {
	private static final String W = "jcaltest.work.";
	private static final Path BUILD = Path.of(System.getProperty("jcal.build", "build")).toAbsolutePath();
	private final Runner r;

	private BciTests(Runner r) {
		this.r = r;
	}

	/** Runs mainClass under the agent in mode=bci (java: the launcher, jvmArgs first). */
	private Path trace(String name, String java, List<String> jvmArgs, String opts, String mainClass, String... args)
			throws Exception {
		Path t = r.tmp.resolve(name + ".bin");
		List<String> cmd = new ArrayList<>(List.of(java));
		cmd.addAll(jvmArgs);
		cmd.addAll(List.of("-agentpath:" + r.agent + "=trace,quiet,mode=bci" + opts + ",out=" + t, "-cp", r.classes,
				mainClass));
		cmd.addAll(Arrays.asList(args));
		Runner.Result res = r.run(r.tmp.toFile(), cmd);
		r.check(res.rc == 0, name + ": JVM exit " + res.rc + ": " + res.err);
		r.check(res.err.isEmpty(), name + ": nothing on stderr expected with quiet: " + res.err);
		r.check(Files.exists(t), name + ": no trace written");
		return t;
	}

	private Path trace(String name, String mainClass, String... args) throws Exception {
		return trace(name, r.java, List.of(), "", mainClass, args);
	}

	private String summary(Path t) throws Exception {
		Runner.Result s = r.post(t, "--report", "summary", "--format", "json");
		r.check(s.rc == 0, "summary of " + t + ": " + s.err);
		return s.out;
	}

	/** A count of the summary JSON: "key":N inside the object named group ("types", "transitions"). */
	private static long count(String json, String group, String key) {
		Matcher m = Pattern.compile("\"" + group + "\":\\{[^}]*\"" + key + "\":(\\d+)").matcher(json);
		return m.find() ? Long.parseLong(m.group(1)) : -1;
	}

	/** Tree CSV of one thread: path from the first element in pkg -> calls (summed). */
	private Map<String, Long> treeCalls(Path t, String thread, String pkg) throws Exception {
		/* each thread its own tree: worker-1 .. worker-4 are one pool */
		Runner.Result res = r.post(t, "--report", "tree", "--format", "csv", "--split-pools");
		r.check(res.rc == 0, "tree report: " + res.err);
		Map<String, Long> m = new TreeMap<>();
		List<List<String>> rows = Runner.csv(res.out);
		for (List<String> row : rows.subList(Math.min(1, rows.size()), rows.size())) {
			if (!row.get(0).replaceAll("#[0-9]+$", "").equals(thread))
				continue;
			List<String> path = Arrays.asList(row.get(8).split(";"));
			int first = -1;
			for (int i = 0; i < path.size() && first < 0; i++)
				if (path.get(i).startsWith(pkg))
					first = i;
			if (first >= 0)
				m.merge(String.join(";", path.subList(first, path.size())), Long.parseLong(row.get(3)), Long::sum);
		}
		return m;
	}

	/* ---- the workloads of Runner, same exact counts ---- */

	private void testWorkloads() throws Exception {
		String B = W + "Basic.";
		r.expectExact("basic", Runner.map(B + "main", 1, B + "<init>", 1, B + "a", 3, B + "b", 6, B + "leaf", 12),
				r.flatCalls(trace("basic", W + "Basic"), W));
		String R = W + "Recursion.";
		Path rec = trace("recursion", W + "Recursion");
		r.expectExact("recursion", Runner.map(R + "main", 1, R + "fib", 465, R + "down", 3001, R + "even", 6, R + "odd", 5),
				r.flatCalls(rec, W));
		long deepest = 0;
		for (List<String> row : Runner.csv(r.post(rec, "--report", "tree", "--format", "csv").out))
			if (row.get(8).endsWith(";" + R + "down"))
				deepest = Math.max(deepest, Long.parseLong(row.get(2)));
		r.check(deepest == 3001, "down: deepest recursion level 3001 expected, got " + deepest);
		String T = W + "Threads.", run = W + "Threads$Worker.run";
		Path th = trace("threads", W + "Threads");
		r.expectExact("threads", Runner.map(T + "main", 1, T + "step", 4, T + "leaf", 1000, W + "Threads$Worker.<init>", 4,
				run, 4), r.flatCalls(th, W));
		for (int k = 1; k <= 4; k++)
			r.expectExact("tree of worker-" + k,
					Runner.map(run, 1, run + ";" + T + "step", 1, run + ";" + T + "step;" + T + "leaf", 100 * k),
					treeCalls(th, "worker-" + k, W));
		r.expectExact("loop", Runner.map(W + "Loop.main", 1, W + "Loop.tick", 200000), r.flatCalls(trace("loop", W + "Loop"), W));
	}

	/** Exceptions thrown three instrumented frames deep: T exits, after() back in outer(). */
	private void testExceptions() throws Exception {
		Path t = trace("exceptions", W + "Exceptions");
		String E = W + "Exceptions.";
		r.expectExact("flat calls", Runner.map(E + "main", 1, E + "outer", 5, E + "inner", 5, E + "middle", 5,
				E + "thrower", 5, E + "after", 5), r.flatCalls(t, W));
		String o = E + "main;" + E + "outer";
		r.expectExact("tree of main", Runner.map(E + "main", 1, o, 5, o + ";" + E + "inner", 5,
				o + ";" + E + "inner;" + E + "middle", 5, o + ";" + E + "inner;" + E + "middle;" + E + "thrower", 5,
				o + ";" + E + "after", 5), treeCalls(t, "main", W));
		String s = summary(t);
		r.check(count(s, "transitions", "T") == 15, "thrower, middle, inner: 15 exits by exception: " + s);
		r.check(s.contains("\"unmatched_exits\":0,\"mismatched_exits\":0"), "balanced trees: " + s);
	}

	static final Map<String, Long> MIX = mix(); /* also jcaltest.OtherAgents */
	/*
	 * BciMix's lambda proxies, hidden classes that mode=bci instruments
	 * through its hook of hidden classes: the lambda's and the method
	 * reference's, one name once mixCalls() took the proxy numbers out (JDK
	 * 21 and later name them alike already).
	 */
	private static final Map<String, Long> MIX_PROXIES = Runner.map(W + "BciMix$$Lambda.<init>", 2,
			W + "BciMix$$Lambda.applyAsInt", 20);

	private static Map<String, Long> withProxies(Map<String, Long> m) {
		Map<String, Long> all = new TreeMap<>(m);
		all.putAll(MIX_PROXIES);
		return all;
	}

	/** Flat calls of the workload's classes, lambda proxies without their numbers. */
	private Map<String, Long> mixCalls(Path t) throws Exception {
		Map<String, Long> m = new TreeMap<>();
		for (Map.Entry<String, Long> e : r.flatCalls(t, W).entrySet())
			m.merge(e.getKey().replaceAll("\\$\\$Lambda\\$\\d+", "\\$\\$Lambda"), e.getValue(), Long::sum);
		return m;
	}

	private static Map<String, Long> mix() {
		String M = W + "BciMix.";
		/* overloads print apart: the constructors by their parameters, the bridge get by its return type */
		return Runner.map(M + "main", 1, M + "<clinit>", 1, M + "<init>()", 1, M + "<init>(int)", 2,
				M + "lambda$main$0", 10, M + "twice", 10, W + "BciMix$1.<init>", 1,
				W + "BciMix$1.get(): Integer", 5, W + "BciMix$1.get(): Object", 5, M + "sync", 7,
				M + "pick", 12, M + "recover", 4, M + "guarded", 4, M + "fail", 4);
	}

	/** Lambdas, method references, anonymous classes, bridges, synchronized, switch, finally. */
	private void testLambdasAndShapes() throws Exception {
		Path t = trace("mix", W + "BciMix");
		r.expectExact("flat calls", withProxies(MIX), mixCalls(t));
		String s = summary(t);
		r.check(count(s, "transitions", "T") == 8, "guarded and fail: 8 exits by exception: " + s);
		r.check(s.contains("\"unmatched_exits\":0,\"mismatched_exits\":0"), "balanced trees: " + s);
	}

	/** Every instrumented class passes the verifier. */
	private void testVerifyAll() throws Exception {
		Path t = trace("verify-mix", r.java, List.of("-Xverify:all"), "", W + "BciMix");
		r.expectExact("BciMix under -Xverify:all", withProxies(MIX), mixCalls(t));
		String E = W + "Exceptions.";
		r.expectExact("Exceptions under -Xverify:all", Runner.map(E + "main", 1, E + "outer", 5, E + "inner", 5,
				E + "middle", 5, E + "thrower", 5, E + "after", 5),
				r.flatCalls(trace("verify-exc", r.java, List.of("-Xverify:all"), "", W + "Exceptions"), W));
	}

	/** After warm-up the loop runs jitted: J events, and the count stays exact. */
	private void warm(String name, String java) throws Exception {
		int n = 3_000_000;
		Path t = trace(name, java, List.of(), ",metric=tsc", W + "Loop", String.valueOf(n));
		r.expectExact("flat calls", Runner.map(W + "Loop.main", 1, W + "Loop.tick", n), r.flatCalls(t, W));
		String s = summary(t);
		long jit = count(s, "types", "J") + count(s, "types", "j");
		r.check(jit > n, "most of " + 2 * n + " events jitted (J/j) after warm-up: " + s.replaceAll("(?s)\"thread_list.*", ""));
		r.check(s.contains("\"mode\":\"bci\""), "mode bci in the meta");
	}

	private void testWarm() throws Exception {
		warm("warm", r.java);
	}

	/**
	 * HotSpot 17 with -XX:+CriticalJNINatives: compiled code calls the
	 * probes' JavaCritical_ entry points (no thread-state transition), which
	 * leave the uncommon events to the JNI ones: the same exact counts, in
	 * warmed-up code, several threads and exceptions.
	 */
	private void testCriticalNatives() throws Exception {
		if (Runtime.version().feature() >= 18) {
			System.out.println("SKIP bci-critical-natives: HotSpot " + Runtime.version().feature()
					+ " has no critical natives (before 18 only)");
			return;
		}
		// warnings off first: the flag is deprecated since 16
		List<String> jvm = List.of("-XX:-PrintWarnings", "-XX:+CriticalJNINatives");
		int n = 3_000_000;
		Path t = trace("critical-loop", r.java, jvm, ",metric=tsc", W + "Loop", String.valueOf(n));
		r.expectExact("loop", Runner.map(W + "Loop.main", 1, W + "Loop.tick", n), r.flatCalls(t, W));
		String s = summary(t);
		r.check(count(s, "types", "J") + count(s, "types", "j") > n, "most events jitted (J/j) after warm-up");
		String T = W + "Threads.", run = W + "Threads$Worker.run";
		r.expectExact("threads", Runner.map(T + "main", 1, T + "step", 4, T + "leaf", 1000, W + "Threads$Worker.<init>", 4,
				run, 4), r.flatCalls(trace("critical-threads", r.java, jvm, "", W + "Threads"), W));
		String E = W + "Exceptions.";
		r.expectExact("exceptions", Runner.map(E + "main", 1, E + "outer", 5, E + "inner", 5, E + "middle", 5,
				E + "thrower", 5, E + "after", 5), r.flatCalls(trace("critical-exceptions", r.java, jvm, "", W + "Exceptions"), W));
	}

	/**
	 * calibrate,mode=bci: a table with mode bci and jitted (J/j) keys, which
	 * jcal-post applies to a warmed-up bci trace: counts stay exact,
	 * calibrated figures stay within the raw ones.
	 */
	private void testCalibrate() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "bcicalib");
		Path table = dir.resolve("table.txt");
		Runner.Result c = r.run(dir.toFile(), List.of(r.java, "-agentpath:" + r.agent
				+ "=calibrate,mode=bci,metric=cputime,table=" + table + ",out=" + dir.resolve("calib.bin")));
		r.check(c.rc == 0, "calibrate,mode=bci: exit " + c.rc + ": " + c.err);
		r.check(c.err.contains("key coverage:") && c.err.contains("mode=bci"), "coverage line: " + c.err);
		String text = Files.exists(table) ? Files.readString(table) : "";
		r.check(text.startsWith("jcal-calibration 3") && text.contains("\nmode bci\n"), "table with mode bci");
		r.check(Pattern.compile("(?m)^[IiJjO]:[EXT]:[Jj]:[EXT]:[IiJjO] ").matcher(text).find(), "table has J/j keys");
		/* Keys mixing interpreted and jitted types, from the measured rounds:
		 * compiled Workload.I/i calling the never-compiled H/h and back. */
		Matcher key = Pattern.compile("(?m)^([IiJjO]):[EXT]:([IiJjO]):[EXT]:([IiJjO]) ").matcher(text);
		int mixed = 0;
		while (key.find()) {
			String types = key.group(1) + key.group(2) + key.group(3);
			mixed += types.matches(".*[Ii].*") && types.matches(".*[Jj].*") ? 1 : 0;
		}
		r.check(text.contains("\nJ:E:I:X:J ") && text.contains("\nI:E:J:X:I ") && text.contains("\nj:X:i:E:J "),
				"table has keys mixing interpreted and jitted types (J:E:I:X:J, I:E:J:X:I, j:X:i:E:J)");
		r.check(mixed == 408, "408 keys mixing I/i with J/j in the table: " + mixed);
		r.check(c.err.contains("key coverage: 600 of 600 keys reachable in mode=bci"), "coverage 600 of 600: " + c.err);

		int n = 300_000;
		Path t = trace("bci-calibrated", r.java, List.of(), ",metric=cputime", W + "Loop", String.valueOf(n));
		Runner.Result f = r.post(t, "--calib", table.toString(), "--report", "flat", "--format", "csv");
		r.check(f.rc == 0, "calibrated flat report: " + f.err);
		Map<String, Long> calls = new TreeMap<>();
		List<List<String>> rows = Runner.csv(f.out);
		for (List<String> row : rows.subList(Math.min(1, rows.size()), rows.size())) {
			long base = Long.parseLong(row.get(2)), cum = Long.parseLong(row.get(3));
			if (base < 0 || base > cum || base > Long.parseLong(row.get(4)) || cum > Long.parseLong(row.get(5))) {
				r.check(false, "calibrated <= raw, 0 <= base <= cum: " + row);
				break;
			}
			if (row.get(0).startsWith(W))
				calls.merge(row.get(0), Long.parseLong(row.get(1)), Long::sum);
		}
		r.expectExact("calibrated counts", Runner.map(W + "Loop.main", 1, W + "Loop.tick", n), calls);
		Runner.Result s = r.post(t, "--calib", table.toString(), "--report", "summary");
		r.check(s.rc == 0 && s.out.contains("fingerprint matches"), "the bci table matches the bci trace: " + s.out + s.err);
		Matcher cov = Pattern.compile("key coverage: +(\\d+) distinct keys in the trace, (\\d+) of them in the table")
				.matcher(s.out);
		r.check(cov.find() && cov.group(1).equals(cov.group(2)), "every key of the bci trace in the table: " + s.out);
		r.check(Pattern.compile("(?m)^ *fallback deltas: +0 ").matcher(s.out).find(), "no fallback delta: " + s.out);
	}

	/**
	 * A recording that ends (duration=) while the program recurses without
	 * pause: its switchable probes are switched off in place, no class is
	 * retransformed (docs/agent-internals.md, "Switchable probes"), the
	 * program runs on to its end, and the trace is balanced (the calls under
	 * way at the stop are closed at their thread's last event).
	 */
	void testStopSwitches() throws Exception {
		Path log = r.tmp.resolve("stop-switch.log");
		Path t = r.tmp.resolve("stop-switch.bin");
		Runner.Result res = r.runFor(r.tmp.toFile(), List.of(r.java, "-agentpath:" + r.agent
				+ "=trace,mode=bci,metric=cputime,duration=1s,loglevel=debug,log=" + log + ",out=" + t, "-cp",
				r.classes, "jcaltest.work.ThrottleInflight", "-", "1000", "40", "2500"), Map.of(), null, 120);
		r.check(res != null && res.rc == 0, "stop: the JVM ran to its end: " + (res == null ? "timeout" : res.err));
		String l = Files.exists(log) ? Files.readString(log) : "";
		java.util.regex.Matcher m = java.util.regex.Pattern.compile("switchable probes off: (\\d+) call sites changed")
				.matcher(l);
		r.check(m.find() && Long.parseLong(m.group(1)) >= 2, "stop: the probes were switched off: " + l);
		r.check(!l.contains("retransformed (probes off)"), "stop: no class retransformed: " + l);
		Map<String, String> s = r.summaryCsv(t);
		r.check("0".equals(s.get("unmatched_exits")) && "0".equals(s.get("mismatched_exits")),
				"stop: balanced: unmatched " + s.get("unmatched_exits") + ", mismatched " + s.get("mismatched_exits"));
	}

	/** JDK >= 21 ($BUILD/javatests21/JAVA_HOME): null when there is none. */
	private static String java21() throws Exception {
		Path home = BUILD.resolve("javatests21/JAVA_HOME");
		return Files.exists(home) ? Path.of(Files.readString(home).trim(), "bin", "java").toString() : null;
	}

	/** The JDK >= 21 of the build (Temurin 25 here): warm loop and exact counts. */
	private boolean testNewJdk() throws Exception {
		String j = java21();
		if (j == null) {
			System.out.println("SKIP bci-new-jdk: no JDK >= 21 found (set JAVA21_HOME)");
			return false;
		}
		warm("warm-21", j);
		r.expectExact("BciMix on " + j, withProxies(MIX),
				mixCalls(trace("mix-21", j, List.of("-Xverify:all"), "", W + "BciMix")));
		return true;
	}

	/** Virtual threads: each keeps its own exact tree; nothing on the carriers. */
	private boolean testVirtualThreads() throws Exception {
		String j = java21();
		if (j == null) {
			System.out.println("SKIP bci-virtual-threads: no JDK >= 21 found (set JAVA21_HOME)");
			return false;
		}
		int n = 100;
		Path t = r.tmp.resolve("bci-vthreads.bin");
		Runner.Result res = r.run(r.tmp.toFile(), List.of(j, "-Djdk.virtualThreadScheduler.parallelism=2",
				"-Djdk.virtualThreadScheduler.maxPoolSize=2", "-agentpath:" + r.agent + "=trace,quiet,mode=bci,out=" + t,
				"-cp", BUILD.resolve("javatests21").toString(), "jcaltest21.VThreads", String.valueOf(n)));
		r.check(res.rc == 0, "vthreads: exit " + res.rc + ": " + res.err);
		r.checkVirtualThreadTrees(t, n);
		return true;
	}

	/**
	 * Virtual threads and the counting probe: 3000 of them call leaf() 1 ..
	 * 3000 times; leaf() is throttled early (throttle=100:1000000) and keeps
	 * the probe that counts, which counts per thread, virtual ones too (each
	 * its own array, those of ended threads folded): the flat report gives
	 * exactly the calls made, recorded plus counted.
	 */
	private boolean testVirtualThreadsCounted() throws Exception {
		String j = java21();
		if (j == null) {
			System.out.println("SKIP bci-virtual-threads-counted: no JDK >= 21 found (set JAVA21_HOME)");
			return false;
		}
		int n = 3000;
		Path t = r.tmp.resolve("bci-vthreads-counted.bin");
		Runner.Result res = r.run(r.tmp.toFile(), List.of(j, "-Djdk.virtualThreadScheduler.parallelism=2",
				"-Djdk.virtualThreadScheduler.maxPoolSize=2",
				"-agentpath:" + r.agent + "=trace,quiet,mode=bci,throttle=100:1000000,out=" + t, "-cp",
				BUILD.resolve("javatests21").toString(), "jcaltest21.VThreads", String.valueOf(n)));
		r.check(res.rc == 0, "vthreads counted: exit " + res.rc + ": " + res.err);
		long made = (long) n * (n + 1) / 2;
		Long leaf = r.flatCalls(t, "jcaltest21.").get("jcaltest21.VThreads.leaf");
		r.check(leaf != null && leaf == made, "vthreads counted: leaf() " + leaf + ", made " + made);
		String s = summary(t);
		r.check(s.contains("\"method\":\"jcaltest21.VThreads.leaf\"") && s.contains("\"counted_calls\":"),
				"vthreads counted: leaf() throttled and counted: " + s);
		return true;
	}

	/** include=/exclude=: what is instrumented, and the lists in the trace meta. */
	private void testFilters() throws Exception {
		Path t = trace("exclude", r.java, List.of(), ",exclude=jcaltest.work.BciMix$1;*.Nothing", W + "BciMix");
		Map<String, Long> want = withProxies(MIX);
		want.remove(W + "BciMix$1.<init>");
		want.remove(W + "BciMix$1.get(): Integer");
		want.remove(W + "BciMix$1.get(): Object");
		r.expectExact("BciMix$1 excluded", want, mixCalls(t));
		String s = summary(t);
		r.check(s.contains("\"bci.exclude\":\"java.*;javax.*;jdk.*;sun.*;com.sun.*;jcal.*;jcaltest.work.BciMix$1;*.Nothing\""),
				"bci.exclude in the meta: " + s);
		/* An outer-class pattern covers its nested classes. */
		t = trace("exclude-outer", r.java, List.of(), ",exclude=jcaltest.work.BciMix", W + "BciMix");
		r.expectExact("BciMix and BciMix$1 excluded", Map.of(), r.flatCalls(t, W));
		/* include= selects; the default excludes no longer apply. */
		t = trace("include", r.java, List.of(), ",include=jcaltest.work.Basic;java.util.ArrayList", W + "Recursion");
		r.expectExact("Recursion not included", Map.of(), r.flatCalls(t, W));
		s = summary(t);
		r.check(s.contains("\"bci.include\":\"jcaltest.work.Basic;java.util.ArrayList\"") && s.contains("\"bci.exclude\":\"\""),
				"bci.include/exclude in the meta: " + s);
		Map<String, Long> all = r.flatCalls(t, "java.util.ArrayList.");
		r.check(!all.isEmpty(), "java.util.ArrayList included (retransformed if loaded before VMInit): " + all);
		/* Bad patterns are refused; filters go with trace only. */
		for (String opts : List.of("calibrate,include=a.*", "trace,mode=bci,exclude=a/b", "trace,mode=bci,include=a;;b")) {
			Runner.Result res = r.run(r.tmp.toFile(), List.of(r.java, "-agentpath:" + r.agent + "=" + opts, "-version"));
			r.check(res.rc == 1 && res.err.startsWith("jcal: error:"), opts + ": exit 1 with an error: " + res.rc + " " + res.err);
		}
	}

	/** The suite's tests, in the order jcaltest.Main runs them. */
	static Runner.Tests tests(Runner r) {
		BciTests b = new BciTests(r);
		return new Runner.Tests()
				.add("bci-workloads", b::testWorkloads)
				.add("bci-exceptions", b::testExceptions)
				.add("bci-lambdas", b::testLambdasAndShapes)
				.add("bci-verify-all", b::testVerifyAll)
				.add("bci-warm", b::testWarm)
				.add("bci-critical-natives", b::testCriticalNatives)
				.add("bci-filters", b::testFilters)
				.add("bci-calibrate", b::testCalibrate)
				.add("bci-stop-switches", b::testStopSwitches)
				.addSkippable("bci-new-jdk", b::testNewJdk)
				.addSkippable("bci-virtual-threads", b::testVirtualThreads)
				.addSkippable("bci-virtual-threads-counted", b::testVirtualThreadsCounted);
	}
}
