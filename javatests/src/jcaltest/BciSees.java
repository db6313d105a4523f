package jcaltest;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * mode=bci sees what mode=events sees (docs/agent-internals.md, "Natives in
 * mode=bci" and "Hidden classes in mode=bci"): jcaltest.work.BciSee, with
 * natives of its own (build/libjcaltest.so), lambdas, method references, an
 * anonymous class, dynamic proxies and hidden classes, traced in both modes
 * on JDK 17 and on the JDK >= 21 of the build: the flat call counts of the
 * program's classes are equal (exactly), so are its calling contexts among
 * its own frames, and the natives have their known counts; what differs in
 * JDK classes is listed. Then the natives' wrappers through a throttle=
 * retransformation and through a live attach, stop and start.
 * Run by jcaltest.Main (javatests/run.sh).
 */
public final class BciSees {
	private static final String W = "jcaltest.work.";
	private static final Path BUILD = Path.of(System.getProperty("jcal.build", "build")).toAbsolutePath();
	private static final String LIB = BUILD.resolve("libjcaltest.so").toString();
	private static final Map<String, Long> NATIVES = Runner.map(W + "BciSee.add", 9, W + "BciSee.mix", 3,
			W + "BciSee.locked", 4, W + "BciSee.callback", 1, W + "BciSee.back", 4, W + "BciSee.fail", 2,
			W + "BciSee.registerAll", 1, W + "BciSee.registered", 3);
	private final Runner r;

	private BciSees(Runner r) {
		this.r = r;
	}

	/** BciSee under java with the agent in mode (plus opts); the trace. */
	private Path trace(String name, String java, String mode, String opts) throws Exception {
		Path t = r.tmp.resolve(name + ".bin");
		List<String> cmd = new ArrayList<>(List.of(java));
		if (!java.equals(r.java)) /* JDK 22+ warns of System.load otherwise */
			cmd.add("--enable-native-access=ALL-UNNAMED");
		cmd.addAll(List.of("-agentpath:" + r.agent + "=trace,quiet,mode=" + mode + opts + ",out=" + t, "-cp", r.classes,
				W + "BciSee", LIB));
		Runner.Result res = r.run(r.tmp.toFile(), cmd);
		r.check(res.rc == 0, name + ": JVM exit " + res.rc + ": " + res.err);
		r.check(res.err.isEmpty(), name + ": nothing on stderr expected with quiet: " + res.err);
		r.check(res.out.startsWith("bcisee "), name + ": the program ran: " + res.out);
		return t;
	}

	/**
	 * A method's name without what differs between runs and modes: a hidden
	 * class's address (events names it, bci cannot), the numbers of lambda
	 * proxies and dynamic proxies, and an overload's parameters (bci names
	 * every lambda proxy of a host the same on JDK 21+, so overloads appear).
	 */
	static String normal(String m) {
		return m.replaceAll("\\.0x[0-9a-fA-F]+", "").replaceAll("\\$\\$Lambda\\$\\d+", "\\$\\$Lambda")
				.replaceAll("\\$Proxy\\d+", "\\$Proxy").replaceAll("^jdk\\.proxy\\d+", "jdk.proxy").replaceAll("\\(.*$", "");
	}

	/** Flat calls of every method, by normal name. */
	private Map<String, Long> flat(Path t) throws Exception {
		Map<String, Long> m = new TreeMap<>();
		for (Map.Entry<String, Long> e : r.flatCalls(t, "").entrySet())
			m.merge(normal(e.getKey()), e.getValue(), Long::sum);
		return m;
	}

	private static boolean app(String m) {
		return m.startsWith(W);
	}

	private static Map<String, Long> only(Map<String, Long> m, boolean app) {
		Map<String, Long> o = new TreeMap<>();
		m.forEach((k, v) -> {
			if (app(k) == app)
				o.put(k, v);
		});
		return o;
	}

	/**
	 * Calls per calling context of the main thread among the program's own
	 * frames: each node whose method is the program's, keyed by its path
	 * with every JDK frame left out (events has them, bci does not).
	 */
	private Map<String, Long> contexts(Path t) throws Exception {
		Runner.Result res = r.post(t, "--report", "tree", "--format", "csv");
		r.check(res.rc == 0, "tree report: " + res.err);
		Map<String, Long> m = new TreeMap<>();
		List<List<String>> rows = Runner.csv(res.out);
		for (List<String> row : rows.subList(Math.min(1, rows.size()), rows.size())) {
			if (!row.get(0).replaceAll("#[0-9]+$", "").equals("main") || row.get(8).isEmpty())
				continue;
			List<String> path = new ArrayList<>();
			for (String f : row.get(8).split(";"))
				if (app(normal(f)))
					path.add(normal(f));
			String last = normal(row.get(8).substring(row.get(8).lastIndexOf(';') + 1));
			if (app(last))
				m.merge(String.join(";", path), Long.parseLong(row.get(3)), Long::sum);
		}
		return m;
	}

	/**
	 * What differs in the JDK's classes, in a few lines: the methods events
	 * sees that bci does not, and those both see with other counts.
	 */
	private static void listJdk(String label, Map<String, Long> ev, Map<String, Long> bci) {
		List<String> onlyEvents = new ArrayList<>(), differ = new ArrayList<>();
		int same = 0;
		for (String k : ev.keySet()) {
			if (!bci.containsKey(k))
				onlyEvents.add(k);
			else if (bci.get(k).equals(ev.get(k)))
				same++;
			else
				differ.add(k);
		}
		long onlyBci = bci.keySet().stream().filter(k -> !ev.containsKey(k)).count();
		System.out.println("      " + label + ": JDK methods: events " + ev.size() + ", bci " + bci.size() + "; " + same
				+ " with the same calls, " + differ.size() + " with others, " + onlyEvents.size() + " events only, " + onlyBci
				+ " bci only");
		onlyEvents.sort((a, b) -> Long.compare(ev.get(b), ev.get(a)));
		differ.sort((a, b) -> Long.compare(Math.abs(ev.get(b) - bci.get(b)), Math.abs(ev.get(a) - bci.get(a))));
		StringBuilder sb = new StringBuilder();
		for (String k : onlyEvents.subList(0, Math.min(12, onlyEvents.size())))
			sb.append(sb.length() == 0 ? "" : ", ").append(k).append(' ').append(ev.get(k));
		if (sb.length() > 0)
			System.out.println("        events only, most calls: " + sb);
		sb.setLength(0);
		for (String k : differ.subList(0, Math.min(8, differ.size())))
			sb.append(sb.length() == 0 ? "" : ", ").append(k).append(' ').append(ev.get(k)).append('/').append(bci.get(k));
		if (sb.length() > 0)
			System.out.println("        other counts (events/bci): " + sb);
	}

	/**
	 * The two modes on one JDK: the program's classes agree exactly; with
	 * jdk, once more with the JDK's classes included in bci (on JDK 25 a
	 * JVM with include=java.* hangs at start-up, with or without these
	 * natives and hidden classes: JDK 17 only).
	 */
	private void compare(String label, String java, boolean jdk) throws Exception {
		Path ev = trace(label + "-events", java, "events", "");
		Path bci = trace(label + "-bci", java, "bci", "");
		Map<String, Long> fe = flat(ev), fb = flat(bci);
		Map<String, Long> ae = only(fe, true), ab = only(fb, true);
		r.expectExact(label + ": the program's classes, mode=bci against mode=events", ae, ab);
		for (Map.Entry<String, Long> e : NATIVES.entrySet())
			r.check(e.getValue().equals(ab.get(e.getKey())) && e.getValue().equals(ae.get(e.getKey())),
					label + ": " + e.getKey() + " " + e.getValue() + " calls in both modes: events " + ae.get(e.getKey())
							+ ", bci " + ab.get(e.getKey()));
		/* the lambdas, hidden classes and the proxy of this package, seen at all */
		for (String m : List.of("BciSee$$Lambda.applyAsInt", "BciSee$$Lambda.compare", "BciSeeHidden.twice",
				"BciSeeHidden.getAsInt", "$Proxy.area", "BciSee$1.getAsInt"))
			r.check(ab.getOrDefault(W + m, 0L) > 0, label + ": bci sees " + m + ": " + ab);
		r.check(ab.get(W + "BciSeeHidden.twice") == 4, label + ": BciSeeHidden.twice 4 calls: " + ab);
		r.expectExact(label + ": the program's calling contexts, mode=bci against mode=events", contexts(ev), contexts(bci));
		listJdk(label + " (default filters)", only(fe, false), only(fb, false));
		if (!jdk)
			return;
		/* The JDK's classes too: the same program's classes, and what bci misses there. */
		Path all = trace(label + "-bci-jdk", java, "bci", ",include=jcaltest.*;java.*;jdk.*;sun.*");
		Map<String, Long> fa = flat(all);
		r.expectExact(label + ": the program's classes with the JDK's included", ae, only(fa, true));
		listJdk(label + " (include=jcaltest.*;java.*;jdk.*;sun.*)", only(fe, false), only(fa, false));
	}

	private void testSees17() throws Exception {
		compare("jdk" + Runtime.version().feature(), r.java, Runtime.version().feature() < 21);
	}

	/** JDK >= 21 ($BUILD/javatests21/JAVA_HOME): null when there is none. */
	private static String java21() throws Exception {
		Path home = BUILD.resolve("javatests21/JAVA_HOME");
		return Files.exists(home) ? Path.of(Files.readString(home).trim(), "bin", "java").toString() : null;
	}

	private boolean testSeesNewJdk() throws Exception {
		String j = java21();
		if (j == null) {
			System.out.println("SKIP bci-sees-new-jdk: no JDK >= 21 found (set JAVA21_HOME)");
			return false;
		}
		compare("new-jdk", j, false);
		return true;
	}

	/**
	 * throttle= takes the probes out of a native's wrapper: the class is
	 * retransformed with its wrappers (a retransformation that dropped
	 * them would be refused: HotSpot lets no method be added or deleted),
	 * and the other natives keep their exact counts.
	 */
	private void testThrottleWrapped() throws Exception {
		Path t = r.tmp.resolve("see-throttle.bin"), log = r.tmp.resolve("see-throttle.log");
		Runner.Result res = r.run(r.tmp.toFile(), List.of(r.java, "-agentpath:" + r.agent
				+ "=trace,mode=bci,throttle=20000:1000000,log=" + log + ",out=" + t, "-cp", r.classes, W + "BciSee", LIB,
				"spin"));
		r.check(res.rc == 0 && res.out.startsWith("bcisee "), "throttled run: exit " + res.rc + ": " + res.out + res.err);
		String l = Files.exists(log) ? Files.readString(log) : "";
		r.check(l.contains("jcal: throttle: Ljcaltest/work/BciSee;add(II)I runs without probes after "),
				"add()'s wrapper throttled: " + l);
		r.check(!l.contains("keeps its probes") && !l.contains("could not be"), "no failed retransformation: " + l);
		Runner.Result fr = r.post(t, "--report", "flat", "--format", "csv");
		Map<String, Long> f = new TreeMap<>();
		for (List<String> row : Runner.csv(fr.out))
			if (row.get(0).startsWith(W))
				f.put(row.get(0), Long.parseLong(row.get(1)));
		Map<String, Long> want = new TreeMap<>(NATIVES);
		want.put(W + "BciSee.locked", 8L); /* 4 more after the spin */
		want.remove(W + "BciSee.add");
		f.keySet().retainAll(want.keySet());
		r.expectExact("the other natives keep their exact counts", want, f);
	}

	private static String line(BufferedReader in) throws Exception {
		String s = in.readLine();
		if (s == null)
			throw new IllegalStateException("the program ended");
		return s;
	}

	/**
	 * A live attach: the natives of a class loaded before the attach stay
	 * unseen (its wrappers would add methods, which a retransformation may
	 * not), those of a class loaded after are seen; stop and a second
	 * start retransform the wrapped class without its probes and back.
	 */
	private void testLiveAttach() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "seelive");
		Path one = dir.resolve("one.bin"), two = dir.resolve("two.bin"), log = dir.resolve("agent.log");
		Process p = new ProcessBuilder(r.java, "-cp", r.classes, W + "BciSee", LIB, "live")
				.redirectError(dir.resolve("stderr.txt").toFile()).start();
		try {
			BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
			PrintStream out = new PrintStream(p.getOutputStream(), true, StandardCharsets.UTF_8);
			r.check(line(in).equals("ready"), "the program is ready");
			String pid = Long.toString(p.pid());
			Runner.Result st = jcmd(dir, pid, "start,log=" + log + ",out=" + one);
			r.check(st.out.contains("return code: 0"), "start: " + st.out + st.err);
			out.println("early 5");
			out.println("late 6");
			r.check(line(in).equals("ok") && line(in).equals("ok"), "phase one ran");
			r.check(jcmd(dir, pid, "stop").out.contains("return code: 0"), "stop");
			st = jcmd(dir, pid, "start,log=" + log + ",out=" + two);
			r.check(st.out.contains("return code: 0"), "second start: " + st.out + st.err);
			out.println("early 2");
			out.println("late 7");
			r.check(line(in).equals("ok") && line(in).equals("ok"), "phase two ran");
			r.check(jcmd(dir, pid, "stop").out.contains("return code: 0"), "second stop");
			out.close();
			r.check(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, "the program exits 0");
		} finally {
			p.destroyForcibly();
		}
		String l = Files.exists(log) ? Files.readString(log) : "";
		r.check(!l.contains("could not be"), "every retransformation succeeded: " + l);
		/* add() (BciSee, loaded before the attach) unseen; mul() (BciSeeLate, after) seen */
		r.expectExact("first recording", Runner.map(W + "BciSeeLate.mul", 6, W + "BciSee.early", 1, W + "BciSee.late", 1),
				r.flatCalls(one, W + "BciSee"));
		r.expectExact("second recording",
				Runner.map(W + "BciSeeLate.mul", 7, W + "BciSee.early", 1, W + "BciSee.late", 1), r.flatCalls(two, W + "BciSee"));
	}

	private Runner.Result jcmd(Path dir, String pid, String options) throws Exception {
		String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
		return r.run(dir.toFile(), List.of(jcmd, pid, "JVMTI.agent_load", r.agent, "'" + options + "'"));
	}

	/** The suite's tests, in the order jcaltest.Main runs them. */
	static Runner.Tests tests(Runner r) {
		BciSees b = new BciSees(r);
		return new Runner.Tests()
				.add("bci-sees-events", b::testSees17)
				.addSkippable("bci-sees-new-jdk", b::testSeesNewJdk)
				.add("bci-sees-throttle", b::testThrottleWrapped)
				.add("bci-sees-live", b::testLiveAttach);
	}
}
