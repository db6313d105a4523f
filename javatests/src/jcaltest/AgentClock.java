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
 * clock=agentfree|raw (docs/accuracy.md, "The agent-free clock"): the call
 * counts are the same under both clocks in mode=events and mode=bci (the
 * JNI probes, and on a JDK >= 22 the critical downcalls), output=trace and
 * output=tree, and on virtual threads; the trace says its clock in the
 * meta records; the recorded
 * values of every thread never go backwards; and jcal-post does not apply a
 * calibration table of another clock than the trace's. No timing figure
 * decides a test. Run by jcaltest.Main (javatests/run.sh).
 */
public final class AgentClock {
	private static final String W = "jcaltest.work.";
	private static final String R = W + "Recursion.";
	private static final Path BUILD = Path.of(System.getProperty("jcal.build", "build")).toAbsolutePath();
	/* Recursion: fib(12) 465 calls, down(3000) 3001, even/odd 6/5 */
	private static final Map<String, Long> CALLS = new TreeMap<>(Map.of(R + "main", 1L, R + "fib", 465L,
			R + "down", 3001L, R + "even", 6L, R + "odd", 5L));
	private final Runner r;

	private AgentClock(Runner r) {
		this.r = r;
	}

	/** Runs mainClass under the agent with opts (after "trace,quiet,"); returns the output file. */
	private Path trace(String name, String java, String opts, String mainClass, String... args) throws Exception {
		Path t = r.tmp.resolve(name + ".bin");
		List<String> cmd = new ArrayList<>(List.of(java, "-agentpath:" + r.agent + "=trace,quiet," + opts + ",out=" + t,
				"-cp", r.classes, mainClass));
		cmd.addAll(Arrays.asList(args));
		Runner.Result res = r.runFor(r.tmp.toFile(), cmd, Map.of(), null, 120);
		r.check(res != null, name + ": the JVM finished within 120 s");
		if (res == null)
			return t;
		r.check(res.rc == 0, name + ": JVM exit " + res.rc + ": " + res.err);
		r.check(Files.exists(t), name + ": no output written");
		return t;
	}

	private String summaryJson(Path t) throws Exception {
		Runner.Result s = r.post(t, "--raw", "--report", "summary", "--format", "json");
		r.check(s.rc == 0, "summary of " + t + ": " + s.err);
		return s.out;
	}

	/** The trace's clock meta record, no deltas that went backwards, the exact calls. */
	private void expectTrace(String what, Path t, String clock) throws Exception {
		String json = summaryJson(t);
		r.check(json.contains("\"clock\":\"" + clock + "\""), what + ": meta clock " + clock + " expected: "
				+ json.substring(0, Math.min(600, json.length())));
		Matcher b = Pattern.compile("\"backwards_deltas\":(\\d+)").matcher(json);
		r.check(b.find() && b.group(1).equals("0"),
				what + ": every thread's values non-decreasing (backwards_deltas 0): " + (b.find(0) ? b.group() : json));
		r.expectExact(what + ": calls", CALLS, r.flatCalls(t, R));
	}

	/* ---- the tests ---- */

	/** mode=events, output=trace: both clocks, one and two metrics. */
	private void testEvents() throws Exception {
		for (String clock : List.of("raw", "agentfree")) {
			expectTrace("events clock=" + clock, trace("ev-" + clock, r.java, "clock=" + clock, W + "Recursion"), clock);
			expectTrace("events clock=" + clock + " tsc+cputime",
					trace("ev2-" + clock, r.java, "clock=" + clock + ",metric=tsc+cputime", W + "Recursion"), clock);
		}
		/* the default is agentfree */
		expectTrace("events default clock", trace("ev-default", r.java, "metric=cputime", W + "Recursion"), "agentfree");
	}

	/** output=tree: the snapshot holds the same calls and the clock. */
	private void testTree() throws Exception {
		for (String clock : List.of("raw", "agentfree"))
			expectTrace("tree clock=" + clock, trace("tree-" + clock, r.java, "output=tree,clock=" + clock, W + "Recursion"),
					clock);
	}

	/** mode=bci through the JNI probes (the build's JDK 17, or JCAL_PROBE_CALL=jni elsewhere). */
	private void testBci() throws Exception {
		for (String clock : List.of("raw", "agentfree"))
			expectTrace("bci clock=" + clock, trace("bci-" + clock, r.java, "mode=bci,clock=" + clock, W + "Recursion"),
					clock);
	}

	/** mode=bci on the JDK >= 21 of the build: on JDK 22+ the probes are critical downcalls. */
	private boolean testBciNewJdk() throws Exception {
		Path home = BUILD.resolve("javatests21/JAVA_HOME");
		if (!Files.exists(home)) {
			System.out.println("SKIP clock-bci-new-jdk: no JDK >= 21 found (set JAVA21_HOME)");
			return false;
		}
		String j = Path.of(Files.readString(home).trim(), "bin", "java").toString();
		for (String clock : List.of("raw", "agentfree"))
			expectTrace("bci " + j + " clock=" + clock,
					trace("bci21-" + clock, j, "mode=bci,clock=" + clock, W + "Recursion"), clock);
		return true;
	}

	/**
	 * Virtual threads on a JDK >= 21 (mode=events): each keeps its own exact
	 * tree under both clocks, and no thread's values go backwards although
	 * the metric pauses and resumes with every mount.
	 */
	private boolean testVirtualThreads() throws Exception {
		Path home = BUILD.resolve("javatests21/JAVA_HOME");
		if (!Files.exists(home)) {
			System.out.println("SKIP clock-virtual-threads: no JDK >= 21 found (set JAVA21_HOME)");
			return false;
		}
		String j = Path.of(Files.readString(home).trim(), "bin", "java").toString();
		int n = 100;
		for (String clock : List.of("raw", "agentfree")) {
			Path t = r.tmp.resolve("vt-" + clock + ".bin");
			Runner.Result res = r.runFor(r.tmp.toFile(), List.of(j, "-Djdk.virtualThreadScheduler.parallelism=2",
					"-Djdk.virtualThreadScheduler.maxPoolSize=2",
					"-agentpath:" + r.agent + "=trace,quiet,clock=" + clock + ",out=" + t, "-cp",
					BUILD.resolve("javatests21").toString(), "jcaltest21.VThreads", String.valueOf(n)), Map.of(), null, 120);
			r.check(res != null && res.rc == 0, "vthreads clock=" + clock + ": " + (res == null ? "timeout" : res.err));
			if (res == null || res.rc != 0)
				continue;
			r.checkVirtualThreadTrees(t, n);
			String json = summaryJson(t);
			r.check(json.contains("\"clock\":\"" + clock + "\"") && json.contains("\"backwards_deltas\":0,"),
					"vthreads clock=" + clock + ": meta clock and no backwards delta: " + json.substring(0, Math.min(2000, json.length())));
		}
		return true;
	}

	/** A bad value names the option. */
	private void testBadValue() throws Exception {
		Runner.Result res = r.runFor(r.tmp.toFile(), List.of(r.java, "-agentpath:" + r.agent + "=trace,clock=fast",
				"-cp", r.classes, W + "Recursion"), Map.of(), null, 60);
		r.check(res != null && res.rc != 0 && res.err.contains("clock=fast")
				&& res.err.contains("expected agentfree or raw"), "clock=fast refused: " + (res == null ? "timeout" : res.err));
	}

	/**
	 * A table calibrated with clock=raw: applied to a raw trace (it matches),
	 * not applied to an agentfree one (a note, raw figures), named by the
	 * note when the calibration directory has no table of the trace's clock,
	 * and an error for a trace from stdin, whose clock is known too late.
	 */
	private void testCalibMismatch() throws Exception {
		Path dir = Files.createDirectories(r.tmp.resolve("calib-raw"));
		Path table = dir.resolve("raw-table.txt");
		Runner.Result c = r.runFor(r.tmp.toFile(), List.of(r.java, "-agentpath:" + r.agent
				+ "=calibrate,metric=cputime,clock=raw,table=" + table + ",out=" + r.tmp.resolve("calib-raw.bin")),
				Map.of(), null, 400);
		r.check(c != null && c.rc == 0, "calibrate clock=raw: " + (c == null ? "timeout" : c.err));
		if (c == null || c.rc != 0)
			return;
		r.check(!Files.readString(table).contains("\nclock "), "a raw table has no clock line");

		Path raw = trace("cal-raw", r.java, "metric=cputime,clock=raw", W + "Recursion");
		Path af = trace("cal-af", r.java, "metric=cputime", W + "Recursion");
		Runner.Result ok = r.post(raw, "--calib", table.toString(), "--report", "summary");
		r.check(ok.rc == 0 && ok.out.contains("fingerprint matches"), "raw table, raw trace: applied: " + ok.out + ok.err);

		Runner.Result no = r.post(af, "--calib", table.toString(), "--report", "summary");
		r.check(no.rc == 0, "raw table, agentfree trace: exit 0: " + no.err);
		r.check(no.err.contains("jcal-post: note: calibration table " + table
				+ " was measured with clock=raw, the trace with clock=agentfree: not applied"),
				"the note says the clocks differ: " + no.err);
		r.check(no.err.contains("figures are raw") && no.out.contains("none (raw figures)"),
				"raw figures: " + no.out + no.err);
		r.expectExact("calls with the note", CALLS, r.flatCalls(af, R));

		Runner.Result inDir = r.runFor(r.tmp.toFile(), List.of(r.post, af.toString(), "--report", "summary"),
				Map.of("JCAL_CALIB_DIR", dir.toString()), null, 60);
		r.check(inDir != null && inDir.rc == 0 && inDir.err.contains("and clock=agentfree in " + dir)
				&& inDir.err.contains(table + " was measured with clock=raw: not applied"),
				"directory search names the table of the other clock: " + (inDir == null ? "timeout" : inDir.err));
		Runner.Result rawInDir = r.runFor(r.tmp.toFile(), List.of(r.post, raw.toString(), "--report", "summary"),
				Map.of("JCAL_CALIB_DIR", dir.toString()), null, 60);
		r.check(rawInDir != null && rawInDir.rc == 0 && rawInDir.out.contains("fingerprint matches"),
				"directory search finds the raw table for a raw trace: " + (rawInDir == null ? "timeout" : rawInDir.out));

		Runner.Result stdin = r.runFor(r.tmp.toFile(), List.of(r.post, "-", "--calib", table.toString()), Map.of(), af,
				60);
		r.check(stdin != null && stdin.rc == 1
				&& stdin.err.contains("jcal-post: error: calibration table " + table + " was measured with clock=raw"),
				"stdin trace of another clock: an error: " + (stdin == null ? "timeout" : stdin.err));
	}

	/**
	 * mode=bci: the agent's work on a class that a traced thread loads (its
	 * rewriting in the ClassFileLoadHook) is taken out of that thread's
	 * figures with clock=agentfree, and the summary says how many classes
	 * and how much. StressClassLoading defines StressPayload from its bytes
	 * in 60 class loaders on the main thread, which also loads it once from
	 * the class path: 61 classes rewritten with include= of StressPayload.
	 * With clock=raw nothing is taken out and the row is not there.
	 */
	private void testClassWork() throws Exception {
		String sc = W + "StressClassLoading";
		Map<String, Long> calls = new TreeMap<>(Map.of(W + "StressPayload.work", 60L, W + "StressPayload.step", 1500L));
		Path af = trace("classwork-af", r.java, "mode=bci,include=" + W + "StressPayload", sc);
		Runner.Result s = r.post(af, "--report", "summary");
		Matcher m = Pattern.compile("class work: +(\\d+) classes rewritten on the traced threads; the agent's ([0-9.]+) ms on classes taken out").matcher(s.out);
		r.check(s.rc == 0 && m.find() && m.group(1).equals("61"),
				"agentfree: 61 classes rewritten on the traced threads, in the summary: " + s.out + s.err);
		Map<String, Long> got = new TreeMap<>(r.flatCalls(af, W + "StressPayload."));
		got.keySet().retainAll(calls.keySet());
		r.expectExact("agentfree: calls", calls, got);

		Path raw = trace("classwork-raw", r.java, "mode=bci,clock=raw,include=" + W + "StressPayload", sc);
		Runner.Result sr = r.post(raw, "--report", "summary");
		r.check(sr.rc == 0 && !sr.out.contains("class work:"), "clock=raw: no class work taken out: " + sr.out + sr.err);
		got = new TreeMap<>(r.flatCalls(raw, W + "StressPayload."));
		got.keySet().retainAll(calls.keySet());
		r.expectExact("clock=raw: calls", calls, got);
	}

	static Runner.Tests tests(Runner r) {
		AgentClock a = new AgentClock(r);
		return new Runner.Tests()
				.add("clock-events", a::testEvents)
				.add("clock-tree", a::testTree)
				.add("clock-bci", a::testBci)
				.addSkippable("clock-bci-new-jdk", a::testBciNewJdk)
				.addSkippable("clock-virtual-threads", a::testVirtualThreads)
				.add("clock-class-work", a::testClassWork)
				.add("clock-bad-value", a::testBadValue)
				.add("clock-calib-mismatch", a::testCalibMismatch);
	}
}
