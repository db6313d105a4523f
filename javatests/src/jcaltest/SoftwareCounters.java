package jcaltest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import jcaltest.work.SwCounters;

/**
 * The libpfm4 counter path end to end without a PMU (docs/metrics.md,
 * "Which events work where"): the kernel's software events through
 * metric=pfm:perf::..., read per thread at every event, checked per method
 * of jcaltest.work.SwCounters in mode=events and mode=bci: context switches
 * at least one per sleep in the sleeping method, page faults at least one
 * per 64 KiB of the fresh direct buffers the allocating one writes, the
 * task clock within 10 % of metric=cputime in the CPU-bound one; with one,
 * two and four metrics at once. Also: :u/:k honoured, a context switch counted user mode only
 * refused with its reason, an event that cannot move for the thread warned
 * about once, the modes said in the summary's metric line, and what an
 * unprivileged user gets (capabilities dropped with setpriv). Where
 * perf_event_open is not permitted at all, every test says SKIP. Run by
 * jcaltest.Main (javatests/run.sh).
 */
public final class SoftwareCounters {
	private static final String W = "jcaltest.work.SwCounters.";
	private static final String CS = "pfm:perf::CONTEXT-SWITCHES";
	private static final String PF = "pfm:perf::PAGE-FAULTS";
	private static final String TC = "pfm:perf::TASK-CLOCK";
	/* task clock / cputime of the CPU-bound method: the same CPU time read two ways */
	private static final double RATIO_LOW = 0.9, RATIO_HIGH = 1.1;
	private static final String SW_DEFAULT = "requested; user+kernel (software default); check: ";
	private final Runner r;
	/* null: perf_event_open works here; else why every test skips */
	private String noPerf;
	private boolean probed;

	private SoftwareCounters(Runner r) {
		this.r = r;
	}

	/* ---- the machine ---- */

	private static int paranoid() {
		try {
			return Integer.parseInt(Files.readString(Path.of("/proc/sys/kernel/perf_event_paranoid")).trim());
		} catch (Exception e) {
			return -100;
		}
	}

	/** CAP_PERFMON or CAP_SYS_ADMIN in this process's effective set (the JVMs it starts inherit it). */
	private static boolean perfCapable() {
		try {
			for (String line : Files.readAllLines(Path.of("/proc/self/status")))
				if (line.startsWith("CapEff:")) {
					long eff = Long.parseUnsignedLong(line.substring(7).trim(), 16);
					return (eff & (1L << 38)) != 0 || (eff & (1L << 21)) != 0;
				}
		} catch (Exception e) {
			/* unknown: not capable */
		}
		return false;
	}

	private static boolean kernelPermitted() {
		return perfCapable() || paranoid() <= 1;
	}

	/** Whether a software counter opens here at all: one JVM with the task clock. */
	private boolean perfWorks(String test) throws Exception {
		if (!probed) {
			probed = true;
			Path t = r.tmp.resolve("probe.bin");
			Runner.Result p = r.run(r.tmp.toFile(), List.of(r.java,
					"-agentpath:" + r.agent + "=trace,quiet,metric=" + TC + ",out=" + t, "-cp", r.classes,
					"jcaltest.work.Basic"));
			if (p.rc != 0 && p.err.contains("cannot open metric '" + TC + "': perf_event_open: "))
				noPerf = p.err.trim();
			else
				r.check(p.rc == 0, "probe: metric=" + TC + ": exit " + p.rc + ": " + p.err);
		}
		if (noPerf != null)
			System.out.println("SKIP " + test + ": perf_event_open is not permitted here: " + noPerf);
		return noPerf == null;
	}

	/* ---- runs ---- */

	/** Runs SwCounters under the agent with opts (after "trace,"), behind prefix (a command, or none). */
	private Runner.Result jvm(String name, List<String> prefix, String opts) throws Exception {
		Path t = r.tmp.resolve(name + ".bin");
		List<String> cmd = new ArrayList<>(prefix);
		cmd.addAll(List.of(r.java, "-agentpath:" + r.agent + "=trace," + opts + ",out=" + t, "-cp", r.classes,
				"jcaltest.work.SwCounters"));
		Runner.Result res = r.runFor(r.tmp.toFile(), cmd, Map.of(), null, 120);
		r.check(res != null, name + ": the JVM finished within 120 s");
		return res;
	}

	/** A run that must work: its trace. */
	private Path trace(String name, String mode, String metrics) throws Exception {
		Runner.Result res = jvm(name, List.of(), "quiet,mode=" + mode + ",metric=" + metrics);
		Path t = r.tmp.resolve(name + ".bin");
		if (res != null)
			r.check(res.rc == 0 && Files.exists(t), name + ": exit " + res.rc + ": " + res.err);
		return t;
	}

	/** Raw inclusive values of metric per method of SwCounters; also checks one call each. */
	private Map<String, Long> cum(Path t, String metric) throws Exception {
		Runner.Result f = r.post(t, "--raw", "--metric", metric, "--report", "flat", "--format", "csv");
		r.check(f.rc == 0, t + ": flat of " + metric + ": exit " + f.rc + ": " + f.err);
		Map<String, Long> cum = new TreeMap<>(), calls = new TreeMap<>();
		for (List<String> row : Runner.csv(f.out))
			if (row.get(0).startsWith(W)) {
				cum.put(row.get(0), Long.parseLong(row.get(3)));
				calls.put(row.get(0), Long.parseLong(row.get(1)));
			}
		r.expectExact(t.getFileName() + ": calls", Runner.map(W + "<clinit>", 1, W + "main", 1, W + "sleeper", 1,
				W + "toucher", 1, W + "spinner", 1), calls);
		return cum;
	}

	/** The metric's why as the trace records it (the summary CSV's meta row). */
	private String why(Path t, int i) throws Exception {
		Runner.Result s = r.post(t, "--report", "summary", "--format", "csv");
		for (List<String> row : Runner.csv(s.out))
			if (row.get(0).equals("meta.metric." + i + ".why"))
				return row.get(1);
		return "";
	}

	/** The text summary's line of metric i: what a user reads. */
	private String summaryLine(Path t, int i) throws Exception {
		Runner.Result s = r.post(t, "--report", "summary");
		for (String line : s.out.split("\n"))
			if (line.trim().startsWith("metric " + i + ":"))
				return line;
		return "";
	}

	private void expectSwitches(String what, Path t) throws Exception {
		long n = cum(t, CS).getOrDefault(W + "sleeper", 0L);
		r.check(n >= SwCounters.SLEEPS,
				what + ": context switches in sleeper >= " + SwCounters.SLEEPS + " (one per sleep), got " + n);
	}

	/* A fault per 64 KiB written at least: 64 KiB is the largest base page of Linux (4 KiB here: 4096 + a few). */
	private static final long FAULTS_FLOOR = SwCounters.ALLOCS * (1L << 20) / (64 << 10);

	private void expectFaults(String what, Path t, String metric) throws Exception {
		long n = cum(t, metric).getOrDefault(W + "toucher", 0L);
		r.check(n >= FAULTS_FLOOR, what + ": page faults in toucher >= " + FAULTS_FLOOR + " (one per 64 KiB of "
				+ SwCounters.ALLOCS + " fresh MiB), got " + n);
	}

	private void expectClockRatio(String what, Path t) throws Exception {
		long task = cum(t, TC).getOrDefault(W + "spinner", 0L), cpu = cum(t, "cputime").getOrDefault(W + "spinner", 0L);
		double ratio = cpu > 0 ? (double) task / cpu : 0;
		r.check(cpu > 50_000_000L, what + ": spinner used at least 50 ms of CPU, got " + cpu + " ns");
		r.check(ratio >= RATIO_LOW && ratio <= RATIO_HIGH, what + ": task clock / cputime of spinner within ["
				+ RATIO_LOW + ", " + RATIO_HIGH + "], got " + task + " / " + cpu + " = " + ratio);
	}

	/* ---- the tests ---- */

	/** The command: context switches (+tsc), in both modes, with the modes said in the summary. */
	private boolean testContextSwitches() throws Exception {
		if (!perfWorks("sw-context-switches"))
			return false;
		for (String mode : List.of("events", "bci")) {
			if (!kernelPermitted()) {
				Runner.Result res = jvm("cs-denied-" + mode, List.of(), "quiet,mode=" + mode + ",metric=" + CS + "+tsc");
				r.check(res != null && res.rc == 1 && res.err.contains("jcal: error: metric '" + CS
						+ "' can never count: a context switch happens only in the kernel, and counting kernel "
						+ "mode is not permitted here"), mode + ": refused without kernel mode: " + res.err);
				continue;
			}
			Path t = trace("cs-" + mode, mode, CS + "+tsc");
			expectSwitches(mode + " " + CS + "+tsc", t);
			String w = why(t, 0), line = summaryLine(t, 0);
			r.check(w.startsWith(SW_DEFAULT + "1 sleep moved it by ") && w.endsWith("; perf group, read()"),
					mode + ": metric.0.why says the modes and the check: " + w);
			r.check(line.contains("(" + w + ")"), mode + ": the summary's metric line shows the whole why: " + line);
		}
		return true;
	}

	/** Two metrics at once: the task clock against cputime in the CPU-bound method. */
	private boolean testTwoMetrics() throws Exception {
		if (!perfWorks("sw-two-metrics"))
			return false;
		for (String mode : List.of("events", "bci")) {
			Path t = trace("two-" + mode, mode, TC + "+cputime");
			expectClockRatio(mode + " " + TC + "+cputime", t);
			r.check(why(t, 0).startsWith("requested; all CPU time (a clock; software default); check: "),
					mode + ": task clock's why: " + why(t, 0));
			r.check(summaryLine(t, 0).contains(TC + " (ns)"), mode + ": a clock counts ns: " + summaryLine(t, 0));
		}
		return true;
	}

	/** Four metrics at once: switches, faults, the task clock and cputime, each in its method. */
	private boolean testFourMetrics() throws Exception {
		if (!perfWorks("sw-four-metrics"))
			return false;
		if (!kernelPermitted()) {
			System.out.println("SKIP sw-four-metrics: kernel mode is not permitted here (perf_event_paranoid="
					+ paranoid() + ", no CAP_PERFMON): context switches are refused (sw-context-switches)");
			return false;
		}
		for (String mode : List.of("events", "bci")) {
			String what = mode + " four metrics";
			Path t = trace("four-" + mode, mode, CS + "+" + PF + "+" + TC + "+cputime");
			expectSwitches(what, t);
			expectFaults(what, t, PF);
			expectClockRatio(what, t);
			r.check(why(t, 1).startsWith(SW_DEFAULT + "1 page touch moved it by "), what + ": faults' why: " + why(t, 1));
		}
		return true;
	}

	/** :u and :k as given: a switch user mode only refused, kernel only counted, faults user only counted. */
	private boolean testModifiers() throws Exception {
		if (!perfWorks("sw-modifiers"))
			return false;
		Runner.Result u = jvm("cs-u", List.of(), "quiet,metric=" + CS + ":u");
		List<String> errors = new ArrayList<>();
		for (String line : u.errLines())
			if (line.startsWith("jcal: "))
				errors.add(line);
		r.check(u.rc == 1 && errors.equals(List.of("jcal: error: metric '" + CS + ":u' can never count: a context "
				+ "switch happens only in the kernel, and its modifiers exclude kernel mode (drop ':u', or write "
				+ "':u:k')")), ":u: exit 1 with one jcal: error line, got " + u.rc + ": " + u.err);
		r.check(!Files.exists(r.tmp.resolve("cs-u.bin")), ":u: no trace written");

		Path pu = trace("pf-u", "events", PF + ":u");
		expectFaults(PF + ":u", pu, PF + ":u");
		r.check(why(pu, 0).startsWith("requested; user only (as given); check: 1 page touch moved it by "),
				":u: why: " + why(pu, 0));
		if (kernelPermitted()) {
			Path k = trace("cs-k", "bci", CS + ":k");
			long n = cum(k, CS + ":k").getOrDefault(W + "sleeper", 0L);
			r.check(n >= SwCounters.SLEEPS, ":k: context switches in sleeper >= " + SwCounters.SLEEPS + ", got " + n);
			r.check(why(k, 0).startsWith("requested; kernel only (as given); check: 1 sleep"), ":k: why: " + why(k, 0));
		}
		return true;
	}

	/** On one CPU a migration cannot happen: one warning, said in the why, the run goes on. */
	private boolean testCannotMove() throws Exception {
		if (!perfWorks("sw-cannot-move"))
			return false;
		if (!Files.isExecutable(Path.of("/usr/bin/taskset"))) {
			System.out.println("SKIP sw-cannot-move: no /usr/bin/taskset (util-linux)");
			return false;
		}
		String m = "pfm:perf::CPU-MIGRATIONS";
		Runner.Result res = jvm("one-cpu", List.of("/usr/bin/taskset", "-c", "0"),
				"metric=" + m + ",loglevel=warn");
		Path t = r.tmp.resolve("one-cpu.bin");
		List<String> warnings = new ArrayList<>();
		for (String line : res.errLines())
			if (line.startsWith("jcal: warning:"))
				warnings.add(line);
		r.check(res.rc == 0, "one CPU: exit " + res.rc + ": " + res.err);
		r.check(warnings.equals(List.of("jcal: warning: metric '" + m + "' cannot move for this thread: its CPU "
				+ "affinity allows 1 CPU (it is recorded all the same and will read 0)")),
				"one CPU: one warning, got " + res.err);
		r.check(why(t, 0).contains("; not checked; 1 CPU allowed: cannot move;"), "one CPU: why: " + why(t, 0));
		return true;
	}

	/** An unprivileged user (CAP_PERFMON dropped) under perf_event_paranoid 2: what it gets, said. */
	private boolean testKernelDenied() throws Exception {
		if (!perfWorks("sw-kernel-denied"))
			return false;
		int par = paranoid();
		if (par != 2) {
			System.out.println("SKIP sw-kernel-denied: perf_event_paranoid=" + par
					+ " (2 denies kernel mode and allows user mode to the unprivileged)");
			return false;
		}
		List<String> prefix = List.of();
		if (perfCapable()) {
			if (!Files.isExecutable(Path.of("/usr/bin/setpriv"))) {
				System.out.println("SKIP sw-kernel-denied: no /usr/bin/setpriv to drop CAP_PERFMON");
				return false;
			}
			prefix = List.of("/usr/bin/setpriv", "--bounding-set", "-perfmon,-sys_admin");
		}
		Runner.Result cs = jvm("denied-cs", prefix, "quiet,metric=" + CS);
		r.check(cs.rc == 1 && cs.err.contains("jcal: error: metric '" + CS + "' can never count: a context switch "
				+ "happens only in the kernel, and counting kernel mode is not permitted here "
				+ "(kernel.perf_event_paranoid=2 without CAP_PERFMON: lower it to 1 or grant CAP_PERFMON)"),
				"denied: context switches refused with the reason, got " + cs.rc + ": " + cs.err);
		Runner.Result pf = jvm("denied-pf", prefix, "quiet,metric=" + PF);
		Path t = r.tmp.resolve("denied-pf.bin");
		r.check(pf.rc == 0, "denied: page faults: exit " + pf.rc + ": " + pf.err);
		expectFaults("denied " + PF, t, PF);
		r.check(why(t, 0).startsWith("requested; user only: kernel not permitted (paranoid=2); check: 1 page touch"),
				"denied: page faults' why: " + why(t, 0));
		return true;
	}

	static Runner.Tests tests(Runner r) {
		SoftwareCounters s = new SoftwareCounters(r);
		return new Runner.Tests().addSkippable("sw-context-switches", s::testContextSwitches)
				.addSkippable("sw-two-metrics", s::testTwoMetrics).addSkippable("sw-four-metrics", s::testFourMetrics)
				.addSkippable("sw-modifiers", s::testModifiers).addSkippable("sw-cannot-move", s::testCannotMove)
				.addSkippable("sw-kernel-denied", s::testKernelDenied);
	}
}
