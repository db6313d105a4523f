package jcaltest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * mode=bci with throttle=CALLS:NS (docs/agent-internals.md, "Throttling"):
 * jcaltest.work.ThrottleWork calls tiny() from caller(), waits until the
 * agent has taken tiny()'s probes out, and calls it as often again. The
 * recorded calls of tiny() must be exactly those of the first phase, equal
 * to the count the trace reports for its throttling, in the trace and in
 * the agent's tree snapshot; caller() and heavy() (called more than CALLS
 * times, but slow) keep exact counts and their probes. A recursion of cheap
 * levels is throttled (the rule averages each call's own time). On xalan
 * (a real program from Debian) the methods the rule leaves alone keep
 * exactly the calls they have without throttle=. Without throttle=
 * nothing changes; bad values are refused with a message naming them.
 * Every count is deterministic; the only waits are bounded by timeouts.
 * Run by jcaltest.Main (javatests/run.sh).
 */
public final class Throttle {
	private static final String WORK = "jcaltest.work.ThrottleWork";
	/*
	 * A thread adds its counts of a method to the method's totals, where the
	 * rule is checked, every 128 calls (docs/agent-internals.md,
	 * "Throttling"). Phase 1 makes ROUNDS x K = 6400 = 50 x 128 calls of
	 * tiny() and the rule is CALLS = 6399, so the rule picks tiny() at the
	 * last call of phase 1, never earlier, however fast the probes and the
	 * throttle thread are: every count below is exact. heavy() is called
	 * more than CALLS times but runs ~20 us a call, far over NS.
	 */
	private static final int ROUNDS = 50, K = 128, HEAVY = 7000;
	private static final String RULE = "throttle=" + (ROUNDS * K - 1) + ":2000";
	private final Runner r;

	private Throttle(Runner r) {
		this.r = r;
	}

	/** Runs the workload under mode=bci with opts; the trace. */
	private Path run(String name, String opts, String log) throws Exception {
		return run(name, opts, log, false);
	}

	/** The same; region: phase 1 outside every region, phase 2 inside one (start=manual). */
	private Path run(String name, String opts, String log, boolean region) throws Exception {
		Path t = r.tmp.resolve(name + ".bin");
		List<String> cmd = new ArrayList<>(List.of(r.java,
				"-agentpath:" + r.agent + "=trace,mode=bci,metric=cputime,out=" + t + opts, "-cp", r.classes, WORK,
				log, "" + ROUNDS, "" + K, "" + HEAVY));
		if (region)
			cmd.add("region");
		Runner.Result res = r.runFor(r.tmp.toFile(), cmd, Map.of(), null, 180);
		r.check(res != null, name + ": the JVM did not finish within 180 s");
		if (res == null)
			return t;
		r.check(res.rc == 0, name + ": JVM exit " + res.rc + ": " + res.err);
		r.check(res.out.contains("tiny " + 2L * ROUNDS * K + " phase1 " + (long) ROUNDS * K + " caller " + 2 * ROUNDS
				+ " heavy " + (region ? 2 : 1) * HEAVY + " throttled " + !log.equals("-")),
				name + ": the workload's own counts: " + res.out);
		r.check(Files.exists(t), name + ": no trace written");
		return t;
	}

	/** Flat CSV: method -> its row (calls at index 1; "throttled" at 6 when there). */
	private Map<String, List<String>> flat(Path t) throws Exception {
		Runner.Result res = r.post(t, "--report", "flat", "--format", "csv");
		r.check(res.rc == 0, "flat of " + t + ": " + res.err);
		Map<String, List<String>> m = new HashMap<>();
		for (List<String> row : Runner.csv(res.out))
			m.put(row.get(0), row);
		return m;
	}

	/** Summary CSV: key -> value. */
	private Map<String, String> summary(Path t) throws Exception {
		return r.summaryCsv(t);
	}

	/** Recorded calls of method in a flat report: 0 when it has no row. */
	private long callsOrZero(Map<String, List<String>> flat, String method) {
		List<String> row = flat.get(WORK + "." + method);
		return row == null ? 0 : Long.parseLong(row.get(1));
	}

	private long calls(Map<String, List<String>> flat, String method) {
		List<String> row = flat.get(WORK + "." + method);
		r.check(row != null, method + " in the flat report");
		return row == null ? -1 : Long.parseLong(row.get(1));
	}

	/**
	 * The summary's throttle facts s: tiny() alone throttled, after calls
	 * counted since the agent loaded (also the count read at the
	 * throttling), recorded of them in the trace.
	 */
	private void checkTinyFacts(String what, Map<String, String> s, long calls, long recorded) {
		r.check("1".equals(s.get("throttled")), what + ": one method throttled: " + s.get("throttled"));
		r.check((WORK + ".tiny").equals(s.get("throttled.0.method")),
				what + ": tiny() is the throttled one: " + s.get("throttled.0.method"));
		r.check(("" + calls).equals(s.get("throttled.0.calls")),
				what + ": its calls since the agent loaded: " + s.get("throttled.0.calls"));
		r.check(("" + calls).equals(s.get("throttled.0.calls_at_throttling")),
				what + ": the count read at the throttling: " + s.get("throttled.0.calls_at_throttling"));
		r.check(("" + recorded).equals(s.get("throttled.0.recorded_calls")),
				what + ": the recorded ones: " + s.get("throttled.0.recorded_calls"));
	}

	/** The trace (or snapshot) t of a throttled run: exact counts, tiny() alone throttled. */
	private void checkThrottled(String what, Path t) throws Exception {
		Map<String, List<String>> f = flat(t);
		Map<String, String> s = summary(t);
		long phase1 = (long) ROUNDS * K;
		/* all its calls: the first phase's recorded, the second's counted by
		 * the one probe it kept */
		r.check(calls(f, "tiny") == 2 * phase1,
				what + ": tiny() has exactly its calls of both phases " + 2 * phase1 + ": " + calls(f, "tiny"));
		r.check(("" + phase1).equals(s.get("throttled.0.counted_calls")),
				what + ": the second phase's calls counted after the throttling: " + s.get("throttled.0.counted_calls"));
		Map<String, List<String>> mainOnly = new HashMap<>();
		for (List<String> row : Runner.csv(r.post(t, "--report", "flat", "--format", "csv", "--thread", "main").out))
			mainOnly.put(row.get(0), row);
		r.check(calls(mainOnly, "tiny") == phase1,
				what + ": with --thread, the recorded calls only (the counted ones are the JVM's): " + calls(mainOnly, "tiny"));
		r.check(calls(f, "caller") == 2 * ROUNDS, what + ": caller() keeps its probes: " + calls(f, "caller"));
		r.check(calls(f, "heavy") == HEAVY, what + ": heavy() keeps its probes: " + calls(f, "heavy"));
		/* every counted call was recorded; the workload was waiting when
		 * the probes went: nothing in flight */
		checkTinyFacts(what, s, phase1, phase1);
		List<String> tiny = f.get(WORK + ".tiny"), heavy = f.get(WORK + ".heavy");
		r.check(tiny != null && tiny.size() == 8 && tiny.get(6).equals("1"), what + ": tiny() marked throttled");
		/* no calibration table here: raw figures estimate no time for the counted calls */
		r.check(tiny != null && tiny.size() == 8 && tiny.get(7).equals("0"), what + ": raw: nothing estimated: " + tiny);
		r.check(heavy != null && heavy.size() == 8 && heavy.get(6).equals("0"), what + ": heavy() not marked");
		Runner.Result text = r.post(t, "--report", "flat");
		r.check(text.out.contains(WORK + ".tiny [throttled]") && !text.out.contains("heavy [throttled]"),
				what + ": the text mark: " + text.out);
		Runner.Result sum = r.post(t, "--report", "summary");
		r.check(sum.out.contains("throttled:")
				&& sum.out.contains("after " + phase1 + " calls, " + phase1 + " recorded, " + phase1 + " counted after"),
				what + ": the summary's throttled: section: " + sum.out);
		Runner.Result json = r.post(t, "--report", "summary", "--format", "json");
		r.check(json.out.contains("\"throttle\":{\"rule\":\"" + (ROUNDS * K - 1) + ":2000\""), what + ": JSON throttle rule");
		/* the tree: the entries stop, every exit still came */
		r.check("0".equals(s.get("unmatched_exits")) && "0".equals(s.get("mismatched_exits")),
				what + ": balanced: unmatched " + s.get("unmatched_exits") + ", mismatched " + s.get("mismatched_exits"));
	}

	void testThrottled() throws Exception {
		Path log = r.tmp.resolve("throttle.log");
		Path t = run("throttled", ",output=both," + RULE + ",log=" + log, log.toString());
		String l = Files.exists(log) ? Files.readString(log) : "";
		r.check(l.contains("jcal: throttle: Ljcaltest/work/ThrottleWork;tiny(I)I runs without probes after "
				+ (long) ROUNDS * K + " calls"), "the agent's line about tiny(): " + l);
		r.check(!l.contains("heavy") && !l.contains("caller"), "only tiny() throttled: " + l);
		checkThrottled("trace", t);
		checkThrottled("snapshot", Path.of(t + ".tree"));
	}

	/**
	 * start=manual: phase 1 runs outside every region (unrecorded) and still
	 * counts toward the rule, so tiny() loses its probes before the region;
	 * inside it, tiny() records nothing (its counting probe counts outside
	 * regions too, so its count is not reported), caller() and heavy() (not picked)
	 * keep their probes and record exactly their calls in the region.
	 */
	void testWarmup() throws Exception {
		Path log = r.tmp.resolve("throttle-warm.log");
		Path t = run("warmup", ",output=both,start=manual," + RULE + ",log=" + log, log.toString(), true);
		String l = Files.exists(log) ? Files.readString(log) : "";
		long phase1 = (long) ROUNDS * K;
		r.check(l.contains("jcal: throttle: Ljcaltest/work/ThrottleWork;tiny(I)I runs without probes after " + phase1
				+ " calls"), "warm-up: the agent's line about tiny(): " + l);
		r.check(!l.contains("heavy") && !l.contains("caller"), "warm-up: only tiny() throttled: " + l);
		for (Path p : List.of(t, Path.of(t + ".tree"))) {
			String what = "warm-up " + (p == t ? "trace" : "snapshot");
			Map<String, List<String>> f = flat(p);
			Map<String, String> s = summary(p);
			/* its counting probe counted outside the regions too: not reported */
			r.check(callsOrZero(f, "tiny") == 0, what + ": tiny() records nothing in the region: " + callsOrZero(f, "tiny"));
			r.check(!s.containsKey("throttled.0.counted_calls"),
					what + ": no counted calls with start=manual: " + s.get("throttled.0.counted_calls"));
			r.check(calls(f, "caller") == ROUNDS, what + ": caller() records its calls in the region: " + calls(f, "caller"));
			r.check(calls(f, "heavy") == HEAVY, what + ": heavy() records its calls in the region: " + calls(f, "heavy"));
			checkTinyFacts(what, s, phase1, 0);
			Runner.Result sum = r.post(p, "--report", "summary");
			r.check(sum.out.contains("after " + phase1 + " calls, 0 recorded"), what + ": the summary says so: " + sum.out);
			Runner.Result json = r.post(p, "--report", "summary", "--format", "json");
			r.check(json.out.contains("\"calls\":" + phase1 + ",\"calls_at_throttling\":" + phase1 + ",\"recorded_calls\":0,"),
					what + ": JSON: " + json.out);
			r.check("0".equals(s.get("unmatched_exits")) && "0".equals(s.get("mismatched_exits")),
					what + ": balanced: unmatched " + s.get("unmatched_exits") + ", mismatched " + s.get("mismatched_exits"));
		}
	}

	/**
	 * The same program without throttle=: probes stay, the region records
	 * exactly phase 2's calls, nothing is counted as throttled.
	 */
	void testWarmupOff() throws Exception {
		Path t = run("warmup-off", ",start=manual", "-", true);
		Map<String, List<String>> f = flat(t);
		Map<String, String> s = summary(t);
		r.check(calls(f, "tiny") == (long) ROUNDS * K, "warm-up off: tiny() in the region: " + calls(f, "tiny"));
		r.check(calls(f, "caller") == ROUNDS && calls(f, "heavy") == HEAVY, "warm-up off: caller() and heavy()");
		r.check(!s.containsKey("throttled"), "warm-up off: no throttle records");
	}

	void testOff() throws Exception {
		Path t = run("unthrottled", "", "-");
		Map<String, List<String>> f = flat(t);
		Map<String, String> s = summary(t);
		r.check(calls(f, "tiny") == 2L * ROUNDS * K, "off: every call of tiny() recorded: " + calls(f, "tiny"));
		r.check(calls(f, "caller") == 2 * ROUNDS && calls(f, "heavy") == HEAVY, "off: caller() and heavy()");
		List<String> tiny = f.get(WORK + ".tiny");
		r.check(tiny != null && tiny.size() == 6, "off: no throttled column in flat CSV");
		r.check(!s.containsKey("throttled") && !s.containsKey("meta.throttle"), "off: no throttle records");
	}

	/**
	 * A recursion of 200 levels, each doing almost nothing: the rule
	 * averages each call's own time (its callees' taken out), so down() is
	 * throttled like any tiny method, although each call's entry-to-exit
	 * time holds the recursion under it (some 100 levels on average). The
	 * rule is checked every 128 calls, and ROUNDS x DEPTH = 12800 = 100 x
	 * 128 with CALLS = 12799: down() is picked at the last entry of phase
	 * 1, and its recorded calls are exactly phase 1's, the exits of the
	 * recursion then under way recorded too.
	 */
	void testRecursion() throws Exception {
		final int rounds = 64, depth = 200;
		final long phase1 = (long) rounds * depth;
		Path log = r.tmp.resolve("throttle-rec.log");
		Path t = r.tmp.resolve("throttle-rec.bin");
		Runner.Result res = r.runFor(r.tmp.toFile(), List.of(r.java, "-agentpath:" + r.agent
				+ "=trace,mode=bci,metric=cputime,out=" + t + ",throttle=" + (phase1 - 1) + ":2000,log=" + log,
				"-Xss8m", "-cp", r.classes, "jcaltest.work.ThrottleRecursion", log.toString(), "" + rounds, "" + depth),
				Map.of(), null, 180);
		r.check(res != null, "recursion: the JVM did not finish within 180 s");
		if (res == null)
			return;
		r.check(res.rc == 0, "recursion: JVM exit " + res.rc + ": " + res.err);
		r.check(res.out.contains("down " + 2 * phase1 + " phase1 " + phase1 + " throttled true"),
				"recursion: the workload's own counts: " + res.out);
		String l = Files.exists(log) ? Files.readString(log) : "";
		r.check(l.contains("jcal: throttle: Ljcaltest/work/ThrottleRecursion;down(I)I runs without probes after "
				+ phase1 + " calls"), "recursion: the agent's line about down(): " + l);
		Map<String, List<String>> f = new HashMap<>();
		for (List<String> row : Runner.csv(r.post(t, "--report", "flat", "--format", "csv").out))
			f.put(row.get(0), row);
		List<String> down = f.get("jcaltest.work.ThrottleRecursion.down");
		r.check(down != null && down.get(1).equals("" + 2 * phase1) && down.get(6).equals("1"),
				"recursion: down() has exactly its calls, phase 1's recorded and phase 2's counted, marked throttled: "
						+ down);
		Map<String, String> s = summary(t);
		r.check("1".equals(s.get("throttled")) && "self".equals(s.get("throttled.time")),
				"recursion: one method throttled on its own time: " + s.get("throttled") + " " + s.get("throttled.time"));
		r.check(("" + phase1).equals(s.get("throttled.0.recorded_calls")),
				"recursion: recorded calls in the summary: " + s.get("throttled.0.recorded_calls"));
		long avg = Long.parseLong(s.getOrDefault("throttled.0.avg", "-1"));
		r.check(avg >= 0 && avg < 2000, "recursion: own time per call under NS: " + avg);
		r.check("0".equals(s.get("unmatched_exits")) && "0".equals(s.get("mismatched_exits")),
				"recursion: balanced: unmatched " + s.get("unmatched_exits") + ", mismatched " + s.get("mismatched_exits"));
		Runner.Result text = r.post(t, "--report", "summary");
		r.check(text.out.contains("after " + phase1 + " calls, " + phase1 + " recorded, " + phase1
				+ " counted after (own time avg "),
				"recursion: the summary's line: " + text.out);
	}

	/**
	 * The probes taken while calls are under way: jcaltest.work.ThrottleInflight
	 * recurses without pause, so down()'s probes go while recursions of it
	 * run, their entries recorded, their exits not yet. Every call is still
	 * counted exactly (recorded ones plus counted ones) and the trace stays
	 * balanced: each recorded entry meets its exit. With switchable probes
	 * (the class is never redefined: the log says the method was switched)
	 * and with static ones (probes=static: retransformed).
	 */
	void testInflight() throws Exception {
		for (boolean sites : new boolean[] { true, false }) {
			String what = sites ? "in flight, switched" : "in flight, retransformed";
			String name = sites ? "throttle-inflight" : "throttle-inflight-static";
			Path log = r.tmp.resolve(name + ".log");
			Path t = r.tmp.resolve(name + ".bin");
			Runner.Result res = r.runFor(r.tmp.toFile(), List.of(r.java, "-agentpath:" + r.agent
					+ "=trace,mode=bci,metric=cputime,out=" + t + ",throttle=5000:2000,loglevel=debug,log=" + log
					+ (sites ? "" : ",probes=static"),
					"-cp", r.classes, "jcaltest.work.ThrottleInflight", log.toString(), "2000", "40"),
					Map.of(), null, 180);
			r.check(res != null && res.rc == 0, what + ": the JVM ran: " + (res == null ? "timeout" : res.err));
			if (res == null)
				continue;
			java.util.regex.Matcher m = java.util.regex.Pattern.compile("down (\\d+) throttled true").matcher(res.out);
			r.check(m.find(), what + ": the workload saw down() throttled: " + res.out);
			String l = Files.exists(log) ? Files.readString(log) : "";
			r.check(sites ? l.contains("throttle: 1 method switched") && !l.contains("retransformed in")
					: l.contains("retransformed in") && !l.contains("method switched"),
					what + ": how the probes went: " + l);
			Map<String, List<String>> f = new HashMap<>();
			for (List<String> row : Runner.csv(r.post(t, "--report", "flat", "--format", "csv").out))
				f.put(row.get(0), row);
			List<String> down = f.get("jcaltest.work.ThrottleInflight.down");
			r.check(down != null && m.find(0) && down.get(1).equals(m.group(1)) && down.get(6).equals("1"),
					what + ": down() has exactly its calls, recorded and counted: " + down + " of " + res.out);
			Map<String, String> s = summary(t);
			r.check("0".equals(s.get("unmatched_exits")) && "0".equals(s.get("mismatched_exits")),
					what + ": balanced: unmatched " + s.get("unmatched_exits") + ", mismatched "
							+ s.get("mismatched_exits"));
		}
	}

	/**
	 * A switched method's exit probes close as soon as no thread's stack has a frame of it (the
	 * calls under way from before the switch have ended), not after the fixed 200 ms: the log says
	 * so, and the trace stays balanced with every call of down() counted. JDK 17: no virtual
	 * threads, so every call under way is on a stack the agent can read. The workload sleeps 1 ms
	 * after every 256 recursions, so that a scan finds the thread outside down() (a recursion without
	 * pause has a frame of down() on the stack at nearly every scan, and closes at 200 ms).
	 */
	void testCloseEarly() throws Exception {
		Path log = r.tmp.resolve("throttle-close.log");
		Path t = r.tmp.resolve("throttle-close.bin");
		Runner.Result res = r.runFor(r.tmp.toFile(), List.of(r.java, "-agentpath:" + r.agent
				+ "=trace,mode=bci,metric=cputime,out=" + t + ",throttle=5000:2000,loglevel=debug,log=" + log,
				"-cp", r.classes, "jcaltest.work.ThrottleInflight", "-", "0", "40", "1500", "pause"), Map.of(), null, 180);
		r.check(res != null && res.rc == 0, "the JVM ran: " + (res == null ? "timeout" : res.err));
		if (res == null)
			return;
		String l = Files.exists(log) ? Files.readString(log) : "";
		java.util.regex.Matcher c = java.util.regex.Pattern
				.compile("exit probes of 1 switched method closed after (\\d+) ms \\(no frame of them on any thread's stack\\)")
				.matcher(l);
		r.check(c.find() && Integer.parseInt(c.group(1)) < 200, "closed before the fixed wait, from the stacks: " + l);
		java.util.regex.Matcher m = java.util.regex.Pattern.compile("down (\\d+) throttled").matcher(res.out);
		Map<String, List<String>> f = new HashMap<>();
		for (List<String> row : Runner.csv(r.post(t, "--report", "flat", "--format", "csv").out))
			f.put(row.get(0), row);
		List<String> down = f.get("jcaltest.work.ThrottleInflight.down");
		r.check(m.find() && down != null && down.get(1).equals(m.group(1)),
				"down() has exactly its calls: " + down + " of " + res.out);
		Map<String, String> s = summary(t);
		r.check("0".equals(s.get("unmatched_exits")) && "0".equals(s.get("mismatched_exits")),
				"balanced: unmatched " + s.get("unmatched_exits") + ", mismatched " + s.get("mismatched_exits"));
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

	/** xalan's command line on the orders in dir, under agent options opts (none: no agent). */
	private Runner.Result xalan(Path dir, String opts) throws Exception {
		List<String> cmd = new ArrayList<>(List.of(r.java));
		if (opts != null)
			cmd.add("-agentpath:" + r.agent + "=" + opts);
		cmd.addAll(List.of("-cp", XALAN_JAR, "org.apache.xalan.xslt.Process", "-IN", "in.xml", "-XSL", "t.xsl", "-OUT",
				"out.html"));
		Runner.Result res = r.runFor(dir.toFile(), cmd, Map.of(), null, 300);
		r.check(res != null && res.rc == 0, "xalan in " + dir + ": " + (res == null ? "timeout" : res.rc + " " + res.err));
		return res;
	}

	/**
	 * The rule on a real program: xalan under mode=bci with throttle= and
	 * without. The output is the same as without the agent; the trace is
	 * balanced; the rule picked methods (xalan makes tens of thousands of
	 * calls of tiny methods), each of them marked and counted; and every
	 * method the rule left alone has exactly the calls it has in the trace
	 * without throttle=: taking probes out of some methods loses no call of
	 * the others. Which methods are picked depends on their timing; what is
	 * asserted does not.
	 */
	boolean testRealProgram() throws Exception {
		if (!Files.isReadable(Path.of(XALAN_JAR))) {
			System.out.println("      SKIP: " + XALAN_JAR + " not installed (scripts/install-deps.sh --tests installs it)");
			return false;
		}
		String in = orders(400);
		/* directories of names of one length: xalan sees their paths in its URIs */
		Map<String, Path> dirs = new HashMap<>();
		for (String d : List.of("plain", "all", "throttled")) {
			Path p = Files.createDirectories(r.tmp.resolve("xalan-" + d.charAt(0)));
			Files.writeString(p.resolve("in.xml"), in);
			Files.writeString(p.resolve("t.xsl"), XSL);
			dirs.put(d, p);
		}
		Path all = r.tmp.resolve("xalan-all.bin"), thr = r.tmp.resolve("xalan-thr.bin"), log = r.tmp.resolve("xalan.log");
		xalan(dirs.get("plain"), null);
		xalan(dirs.get("all"), "trace,quiet,mode=bci,out=" + all);
		xalan(dirs.get("throttled"), "trace,mode=bci,throttle=10000:500,out=" + thr + ",log=" + log);
		String out = Files.readString(dirs.get("plain").resolve("out.html"));
		r.check(out.contains("<h2>c0 in R0</h2>"), "xalan's report: " + out.substring(0, Math.min(200, out.length())));
		for (String d : List.of("all", "throttled"))
			r.check(out.equals(Files.readString(dirs.get(d).resolve("out.html"))), d + ": the same report as without agent");
		Map<String, String> s = summary(thr);
		long n = Long.parseLong(s.getOrDefault("throttled", "0"));
		r.check(n >= 1 && "self".equals(s.get("throttled.time")), "xalan: methods throttled on own time: " + n);
		String l = Files.exists(log) ? Files.readString(log) : "";
		/* a batch under way when the recording ends may log a method the trace does not list */
		r.check(l.split("runs without probes", -1).length - 1 >= n, "xalan: an agent line per throttled method: " + l);
		r.check("0".equals(s.get("unmatched_exits")) && "0".equals(s.get("mismatched_exits")),
				"xalan: balanced: unmatched " + s.get("unmatched_exits") + ", mismatched " + s.get("mismatched_exits"));
		Map<String, List<String>> f = new HashMap<>(), g = new HashMap<>();
		for (List<String> row : Runner.csv(r.post(thr, "--report", "flat", "--format", "csv", "--all").out))
			f.put(row.get(0), row);
		for (List<String> row : Runner.csv(r.post(all, "--report", "flat", "--format", "csv", "--all").out))
			g.put(row.get(0), row);
		long marked = 0, same = 0;
		for (Map.Entry<String, List<String>> e : f.entrySet()) {
			if (e.getKey().equals("method"))
				continue;
			List<String> row = e.getValue(), full = g.get(e.getKey());
			long calls = Long.parseLong(row.get(1)), fullCalls = full == null ? -1 : Long.parseLong(full.get(1));
			if (row.get(6).equals("1")) {
				marked++;
				r.check(calls <= fullCalls, "xalan: throttled " + e.getKey() + " recorded " + calls + " of " + fullCalls);
			} else if (calls == fullCalls) {
				same++;
			} else {
				r.check(false, "xalan: " + e.getKey() + " kept its probes but has " + calls + " calls, " + fullCalls
						+ " without throttle=");
			}
		}
		r.check(marked == n, "xalan: every throttled method marked in flat: " + marked + " of " + n);
		r.check(same > 1000, "xalan: the methods left alone compared: " + same);
		for (long i = 0; i < n; i++) {
			long rec = Long.parseLong(s.getOrDefault("throttled." + i + ".recorded_calls", "-1"));
			long calls = Long.parseLong(s.getOrDefault("throttled." + i + ".calls", "-1"));
			r.check(rec >= 0 && rec <= calls && calls > 10000, "xalan: throttled." + i + ": " + rec + " recorded of " + calls);
		}
		return true;
	}

	void testBadValues() throws Exception {
		String[][] bad = {{"mode=bci,throttle=0:200", "bad value in option 'throttle=0:200'"},
				{"mode=bci,throttle=100", "bad value in option 'throttle=100'"},
				{"mode=bci,throttle=1:2:3", "bad value in option 'throttle=1:2:3'"},
				{"mode=bci,throttle=x:5", "bad value in option 'throttle=x:5'"},
				{"mode=bci,throttle=", "bad value in option 'throttle='"},
				{"throttle=100:50", "option 'throttle=100:50' needs mode=bci"}};
		for (String[] b : bad) {
			Path t = r.tmp.resolve("bad.bin");
			Runner.Result res = r.runFor(r.tmp.toFile(), List.of(r.java,
					"-agentpath:" + r.agent + "=trace,out=" + t + "," + b[0], "-version"), Map.of(), null, 60);
			r.check(res != null && res.rc != 0, b[0] + ": the JVM must refuse to start");
			r.check(res != null && res.err.contains("jcal: error: " + b[1]), b[0] + ": message " + b[1] + ": "
					+ (res == null ? "timeout" : res.err));
			r.check(!Files.exists(t), b[0] + ": no trace left behind");
		}
	}

	/** The suite's tests, in the order jcaltest.Main runs them. */
	static Runner.Tests tests(Runner r) {
		Throttle s = new Throttle(r);
		return new Runner.Tests()
				.add("throttle-exact-counts", s::testThrottled)
				.add("throttle-warmup", s::testWarmup)
				.add("throttle-warmup-off", s::testWarmupOff)
				.add("throttle-off", s::testOff)
				.add("throttle-recursion", s::testRecursion)
				.add("throttle-inflight", s::testInflight)
				.add("throttle-close-early", s::testCloseEarly)
				.addSkippable("throttle-real-xalan", s::testRealProgram)
				.add("throttle-bad-values", s::testBadValues);
	}
}
