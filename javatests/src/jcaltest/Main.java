package jcaltest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The one entry point of the Java tests, and the one place that counts
 * them: runs the suites (one class per area, each with its list of tests)
 * against the agent and jcal-post, prints each test's outcome, and ends
 * with one line "java: N passed, N failed[, N skipped]"; exits 1 when a
 * test failed.
 *
 * Usage: java -Djcal.build=BUILD [-Djcal.suites="Runner Stress ..."]
 *        -cp BUILD/javatests jcaltest.Main AGENT JCAL_POST [TEST...]
 * jcal.suites picks suites by class name (default: all, in the order
 * below); TEST names pick tests among them (a name no suite has fails).
 */
public final class Main {
	private static final class Suite {
		final String name; /* the class, as SUITES= names it */
		final String tmpPrefix;
		final Function<Runner, Runner.Tests> tests;

		Suite(String name, String tmpPrefix, Function<Runner, Runner.Tests> tests) {
			this.name = name;
			this.tmpPrefix = tmpPrefix;
			this.tests = tests;
		}
	}

	private static final List<Suite> ALL = List.of(
			new Suite("Runner", "jcaltest", Runner::tests), /* end to end */
			new Suite("Stress", "jcalstress", Stress::tests),
			new Suite("BciTests", "jcalbci", BciTests::tests),
			new Suite("BciSees", "jcalbcisees", BciSees::tests),
			new Suite("OutputSafety", "jcaloutput", OutputSafety::tests),
			new Suite("SharedMachine", "jcalshared", SharedMachine::tests),
			new Suite("CalibrationSafety", "jcalcalibsafety", CalibrationSafety::tests),
			new Suite("PostSafety", "jcalpostsafety", PostSafety::tests),
			new Suite("TraceIntegrity", "jcaltraceintegrity", TraceIntegrity::tests),
			new Suite("Live", "jcallive", Live::tests),
			new Suite("LaterStart", "jcallaterstart", LaterStart::tests),
			new Suite("LiveLoop", "jcalliveloop", LiveLoop::tests),
			new Suite("LauncherTests", "jcallauncher", LauncherTests::tests),
			new Suite("LauncherSafety", "jcallaunchersafety", LauncherSafety::tests),
			new Suite("Namespaces", "jcalns", Namespaces::tests),
			new Suite("TreeOutput", "jcaltreeoutput", TreeOutput::tests),
			new Suite("OtherAgents", "jcalotheragents", OtherAgents::tests),
			new Suite("RealDefaults", "jcalrealdefaults", RealDefaults::tests),
			new Suite("Throttle", "jcalthrottle", Throttle::tests),
			new Suite("AgentClock", "jcalagentclock", AgentClock::tests),
			new Suite("SoftwareCounters", "jcalswcounters", SoftwareCounters::tests),
			new Suite("WorkFit", "jcalworkfit", WorkFit::tests),
			new Suite("DiffTests", "jcaldiff", DiffTests::tests),
			new Suite("MergeTests", "jcalmerge", MergeTests::tests),
			new Suite("LatencyTests", "jcallatency", LatencyTests::tests),
			new Suite("WaitTests", "jcalwaits", WaitTests::tests));

	private int passed, failed, skipped;
	/* Processes a suite left running, "suite: pid command" each. */
	private final List<String> leftovers = new ArrayList<>();

	/**
	 * A suite's tests must not leave processes behind (a helper blocked
	 * on a FIFO outlives make test): any still running a few seconds after
	 * the suite is noted, then killed.
	 */
	private void leftBehind(String suite) throws InterruptedException {
		long until = System.nanoTime() + 5_000_000_000L;
		List<ProcessHandle> left;
		while (!(left = ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList()).isEmpty()
				&& System.nanoTime() < until)
			Thread.sleep(100);
		for (ProcessHandle h : left) {
			leftovers.add(suite + ": pid " + h.pid() + " " + h.info().commandLine().orElse("?"));
			h.destroyForcibly();
		}
	}

	private static List<Suite> selected(String names) {
		if (names.isBlank())
			return ALL;
		List<Suite> out = new ArrayList<>();
		for (String n : names.trim().split("[\\s,]+")) {
			Suite s = ALL.stream().filter(x -> x.name.equals(n)).findFirst().orElse(null);
			if (s == null) {
				System.err.println("jcaltest: unknown suite '" + n + "' (known: "
						+ String.join(" ", ALL.stream().map(x -> x.name).toArray(String[]::new)) + ")");
				System.exit(2);
			}
			out.add(s);
		}
		return out;
	}

	/** Runs the tests of one suite that only names (all when empty). */
	private void runSuite(Suite suite, String agent, String post, List<String> only, Set<String> found)
			throws Exception {
		Path tmp = Files.createTempDirectory(suite.tmpPrefix);
		Runner r = new Runner(agent, post, tmp);
		int failedBefore = failed;
		boolean header = false;
		for (Map.Entry<String, Runner.SkippableTest> e : suite.tests.apply(r).entrySet()) {
			String name = e.getKey();
			if (!only.isEmpty() && !only.contains(name))
				continue;
			found.add(name);
			if (!header) {
				System.out.println("-- jcaltest." + suite.name);
				header = true;
			}
			long t0 = System.nanoTime();
			List<String> problems = r.runOne(e.getValue());
			String time = String.format(" (%.1f s)", (System.nanoTime() - t0) / 1e9);
			if (problems == null) {
				skipped++;
				System.out.println("skip " + name + time);
			} else if (problems.isEmpty()) {
				passed++;
				System.out.println("ok   " + name + time);
			} else {
				failed++;
				System.out.println("FAIL " + name + time);
				for (String p : problems)
					System.out.println("    " + p);
			}
		}
		leftBehind(suite.name);
		if (failed == failedBefore)
			Runner.deleteTree(tmp.toFile());
		else
			System.out.println("(test files of jcaltest." + suite.name + " kept in " + tmp + ")");
	}

	public static void main(String[] args) throws Exception {
		if (args.length < 2) {
			System.err.println("usage: jcaltest.Main AGENT JCAL_POST [TEST...]");
			System.exit(2);
		}
		List<String> only = Arrays.asList(args).subList(2, args.length);
		Set<String> found = new LinkedHashSet<>();
		Main m = new Main();
		for (Suite s : selected(System.getProperty("jcal.suites", "")))
			m.runSuite(s, args[0], args[1], only, found);
		if (m.leftovers.isEmpty()) {
			m.passed++;
			System.out.println("ok   no-process-left-behind");
		} else {
			m.failed++;
			System.out.println("FAIL no-process-left-behind (killed now)");
			for (String l : m.leftovers)
				System.out.println("    " + l);
		}
		for (String name : only)
			if (!found.contains(name)) {
				m.failed++;
				System.out.println("FAIL " + name + ": no such test in the suites run");
			}
		System.out.println("java: " + m.passed + " passed, " + m.failed + " failed"
				+ (m.skipped > 0 ? ", " + m.skipped + " skipped" : ""));
		System.exit(m.failed == 0 ? 0 : 1);
	}
}
