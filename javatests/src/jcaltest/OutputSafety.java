package jcaltest;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import jcaltest.work.Hold;

/**
 * The agent's trace file: a start that fails leaves existing files as they
 * were and creates none, two writers never share one file, and a second
 * load of the library in one JVM is refused. Uses Runner's helpers.
 * Run by jcaltest.Main (javatests/run.sh).
 */
public final class OutputSafety {
	private static final String W = "jcaltest.work.";
	private final Runner r;

	private OutputSafety(Runner r) {
		this.r = r;
	}

	/** The agent's lines of a run's stderr. */
	private static List<String> jcalLines(Runner.Result res) {
		List<String> l = new ArrayList<>();
		for (String s : res.errLines())
			if (s.startsWith("jcal"))
				l.add(s);
		return l;
	}

	private void expectOneError(String what, Runner.Result res, String naming) {
		List<String> l = jcalLines(res);
		r.check(res.rc == 1, what + ": JVM exit 1 expected, got " + res.rc + ": " + res.err);
		r.check(l.size() == 1 && l.get(0).startsWith("jcal: error: ") && l.get(0).contains(naming),
				what + ": one 'jcal: error:' line naming '" + naming + "' expected, got " + l);
	}

	/**
	 * A metric that cannot be opened fails the start after out= was
	 * checked: an existing file, a symbolic link's target and a new name
	 * are all left as they were.
	 */
	private void testFailedStart() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "failed-start");
		byte[] precious = "precious data, not a trace\n".getBytes(StandardCharsets.UTF_8);
		Path keep = dir.resolve("keep.bin"), victim = dir.resolve("victim.txt"), link = dir.resolve("link.bin");
		Files.write(keep, precious);
		Files.write(victim, precious);
		Files.createSymbolicLink(link, victim);
		for (Path out : List.of(keep, link, dir.resolve("new.bin"))) {
			Runner.Result res = r.run(dir.toFile(), List.of(r.java,
					"-agentpath:" + r.agent + "=trace,metric=pfm:NO_SUCH_EVENT_JCAL,out=" + out, "-cp",
					r.classes, W + "Basic"));
			expectOneError("out=" + out.getFileName() + " with a bad metric", res, "NO_SUCH_EVENT_JCAL");
		}
		r.check(Arrays.equals(Files.readAllBytes(keep), precious), "an existing out= file was changed");
		r.check(Arrays.equals(Files.readAllBytes(victim), precious), "a symbolic link's target was changed");
		r.check(Files.isSymbolicLink(link), "the symbolic link itself was replaced");
		r.check(!Files.exists(dir.resolve("new.bin")), "a failed start created new.bin");
	}

	/** Starts a JVM running Hold under the agent; returns once it printed "holding". */
	private Process startHolder(Path out, Path go, Path log) throws Exception {
		ProcessBuilder pb = new ProcessBuilder(r.java, "-agentpath:" + r.agent + "=trace,quiet,out=" + out, "-cp",
				r.classes, W + "Hold", go.toString()).redirectError(log.toFile());
		Process p = pb.start();
		BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
		String line = in.readLine();
		if (!"holding".equals(line)) {
			p.destroyForcibly();
			throw new IllegalStateException("holder JVM did not start: " + line + " " + Files.readString(log));
		}
		return p;
	}

	/**
	 * A second JVM given the out= of a running recording refuses with one
	 * error line; the first recording stays whole and reads exactly.
	 */
	private void testSameOutTwoJvms() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "same-out");
		Path out = dir.resolve("same.bin"), go = dir.resolve("go");
		Process first = startHolder(out, go, dir.resolve("first.err"));
		try {
			Runner.Result second = r.run(dir.toFile(), List.of(r.java, "-agentpath:" + r.agent
					+ "=trace,out=" + out, "-cp", r.classes, W + "Loop"));
			expectOneError("second JVM on the same out=", second, out.toString());
			r.check(!second.out.contains("loop"), "the second JVM ran its program: " + second.out);
		} finally {
			Files.createFile(go);
			if (!first.waitFor(60, TimeUnit.SECONDS))
				first.destroyForcibly();
		}
		r.check(first.exitValue() == 0, "first JVM: exit 0 expected, got " + first.exitValue());
		Runner.Result post = r.post(out, "--report", "summary");
		r.check(post.rc == 0, "first trace reads: exit " + post.rc + ": " + post.err);
		r.check(!post.err.contains("warning") && !post.err.contains("error"),
				"first trace: no warning expected, got: " + post.err);
		Map<String, Long> ticks = r.flatCalls(out, W + "Hold.tick");
		r.check(ticks.equals(Map.of(W + "Hold.tick", (long) Hold.TICKS)),
				"first trace: exact tick() calls expected, got " + ticks);
	}

	/**
	 * The library given twice: the second load refuses, the JVM exits 1 and
	 * neither trace exists (an existing one is left as it was).
	 */
	private void testLoadedTwice() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "twice");
		Path a = dir.resolve("a.bin"), b = dir.resolve("b.bin");
		byte[] old = "an older trace\n".getBytes(StandardCharsets.UTF_8);
		for (boolean existing : new boolean[] { false, true }) {
			if (existing)
				Files.write(a, old);
			Runner.Result res = r.run(dir.toFile(), List.of(r.java, "-agentpath:" + r.agent + "=trace,quiet,out=" + a,
					"-agentpath:" + r.agent + "=trace,out=" + b, "-cp", r.classes, W + "Basic"));
			expectOneError("agent loaded twice", res, "already loaded");
			r.check(!res.out.contains("basic"), "the program ran: " + res.out);
			r.check(!Files.exists(b), "b.bin written by the refused second load");
			if (existing)
				r.check(Files.exists(a) && Arrays.equals(Files.readAllBytes(a), old), "existing a.bin changed");
			else
				r.check(!Files.exists(a), "a.bin left behind by a JVM that did not start");
		}
	}

	/** The suite's tests, in the order jcaltest.Main runs them. */
	static Runner.Tests tests(Runner r) {
		OutputSafety s = new OutputSafety(r);
		return new Runner.Tests()
				.add("failed-start-keeps-files", s::testFailedStart)
				.add("same-out-two-jvms", s::testSameOutTwoJvms)
				.add("agent-loaded-twice", s::testLoadedTwice);
	}
}
