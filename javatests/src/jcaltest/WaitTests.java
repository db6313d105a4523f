package jcaltest;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The JVM's monitor events end to end (docs/jcal-post.md, waits and "Off the
 * CPU") on jcaltest.work.Contend recorded with metric=cputime+tsc, in
 * mode=events and mode=bci: the contended class named, its contended enters
 * exactly 5 (in Contend.take, the taker thread's), each blocked while the
 * holder sleeps 50 ms (so at least 5 x 40 ms in all: the only timing bound,
 * and a generous one), the one Object.wait(20) on a Contend$Box exactly, timed
 * out; the summary's Waiting part of the taker thread and the timeline's
 * spans the same; and an agent
 * attached later by jcal start, stopped and started again, recording exactly
 * the rounds run while each recording ran; with monitors=off, none. Run by
 * jcaltest.Main (javatests/run.sh).
 */
final class WaitTests {
	private static final String W = "jcaltest.work.Contend";
	private static final String LOCK = W + "$Lock", BOX = W + "$Box";
	private static final long ROUNDS = 5, BLOCKED_MIN_NS = ROUNDS * 40_000_000L;
	private final Runner r;

	private WaitTests(Runner r) {
		this.r = r;
	}

	private Path trace(String mode) throws Exception {
		Path t = r.tmp.resolve("contend-" + mode + ".bin");
		Runner.Result j = r.run(r.tmp.toFile(), List.of(r.java, "-agentpath:" + r.agent
				+ "=trace,quiet,mode=" + mode + ",metric=cputime+tsc,out=" + t, "-cp", r.classes, W));
		r.check(j.rc == 0, "contend workload (" + mode + "): exit " + j.rc + ": " + j.err);
		return t;
	}

	/** The rows of --report waits --format csv by "kind method class". */
	private Map<String, Map<String, String>> waits(Path t) throws Exception {
		Runner.Result res = r.post(t, "--report", "waits", "--format", "csv");
		Map<String, Map<String, String>> m = new HashMap<>();
		r.check(res.rc == 0, "waits report: exit " + res.rc + ": " + res.err);
		List<List<String>> csv = Runner.csv(res.out);
		r.check(!csv.isEmpty() && csv.get(0).equals(
				List.of("kind", "method", "class", "count", "total", "max", "timeouts")), "waits header: " + res.out);
		for (Map<String, String> v : Runner.csvRecords(res.out))
			m.put(v.get("kind") + " " + v.get("method") + " " + v.get("class"), v);
		return m;
	}

	private long num(Map<String, Map<String, String>> rows, String key, String col) {
		Map<String, String> row = rows.get(key);
		if (row == null) {
			r.check(false, "no row '" + key + "' in " + rows.keySet());
			return -1;
		}
		return Long.parseLong(row.get(col));
	}

	private void check(String mode) throws Exception {
		Path t = trace(mode);
		Map<String, Map<String, String>> w = waits(t);
		String take = "monitor " + W + ".take " + LOCK, pause = "wait " + W + ".pause " + BOX;
		long locks = 0;
		for (Map.Entry<String, Map<String, String>> e : w.entrySet())
			if (e.getKey().endsWith(" " + LOCK))
				locks += Long.parseLong(e.getValue().get("count"));
		r.expectExact(mode + ": contended enters and waits",
				Map.of("take", ROUNDS, "all of Lock", ROUNDS, "pause", 1L, "pause timeouts", 1L),
				Map.of("take", num(w, take, "count"), "all of Lock", locks, "pause", num(w, pause, "count"),
						"pause timeouts", num(w, pause, "timeouts")));
		long total = num(w, take, "total");
		r.check(total >= BLOCKED_MIN_NS, mode + ": blocked " + total + " ns on " + LOCK + ", less than 5 x 40 ms");
		r.check(num(w, pause, "total") >= 15_000_000L, mode + ": Object.wait(20) lasted " + num(w, pause, "total"));
		/* the summary: the taker's waits split by class */
		Map<String, String> kv = r.summaryCsv(t);
		String serial = null;
		for (String k : kv.keySet())
			if (k.startsWith("thread.") && k.endsWith(".blocked." + LOCK))
				serial = k.substring("thread.".length(), k.length() - (".blocked." + LOCK).length());
		r.check(serial != null, mode + ": the summary names no thread blocked on " + LOCK + ": " + kv);
		if (serial == null)
			return;
		/* (the thread may also wait for other monitors: the JDK's own, at its end) */
		String count = kv.get("thread." + serial + ".blocked_count." + LOCK);
		r.check(("" + ROUNDS).equals(count), mode + ": the summary's count of blocked enters of " + LOCK + ": " + count);
		long off = Long.parseLong(kv.get("thread." + serial + ".blocked." + LOCK));
		r.check(off >= BLOCKED_MIN_NS, mode + ": the summary's blocked time off the CPU " + off + " ns");
		r.check(kv.containsKey("thread." + serial + ".other"), mode + ": no other off-CPU time of the taker");
		/* the timeline: each contended enter a span of its own */
		Runner.Result ch = r.post(t, "--report", "chrome", "--metric", "tsc");
		r.check(ch.rc == 0, mode + ": chrome: exit " + ch.rc + ": " + ch.err);
		int spans = 0;
		for (int i = ch.out.indexOf("{\"name\":\"blocked on " + LOCK + "\""); i >= 0; i = ch.out.indexOf(
				"{\"name\":\"blocked on " + LOCK + "\"", i + 1))
			spans++;
		r.check(spans == ROUNDS, mode + ": chrome: " + spans + " spans blocked on " + LOCK + ", expected " + ROUNDS);
		Runner.Result text = r.post(t, "--report", "summary");
		r.check(text.out.contains("Waiting (the JVM's monitor events; off the CPU, raw, ns")
				&& text.out.contains("  " + LOCK + "\n"), mode + ": the summary's Waiting part: " + text.out);
	}

	/** The contended enters of Lock in the waits report of t, all of them in take. */
	private long lockEnters(Path t, String what) throws Exception {
		Map<String, Map<String, String>> w = waits(t);
		long n = 0;
		for (Map.Entry<String, Map<String, String>> e : w.entrySet())
			if (e.getKey().endsWith(" " + LOCK)) {
				r.check(e.getKey().equals("monitor " + W + ".take " + LOCK), what + ": a wait on " + LOCK
						+ " elsewhere than in take: " + e.getKey());
				n += Long.parseLong(e.getValue().get("count"));
			}
		return n;
	}

	private Runner.Result jcal(String... args) throws Exception {
		List<String> cmd = new ArrayList<>(List.of(new File(new File(r.post).getParentFile(), "jcal").getPath()));
		cmd.addAll(List.of(args));
		Runner.Result res = r.runFor(r.tmp.toFile(), cmd, Map.of(), null, 60);
		if (res == null)
			throw new IllegalStateException("jcal did not end within 60 s: " + cmd);
		r.check(res.rc == 0, "jcal " + String.join(" ", args) + ": exit " + res.rc + ": " + res.out + res.err);
		return res;
	}

	/** Sends "n" to the workload and waits for its "done". */
	private void rounds(BufferedWriter out, BufferedReader in, int n) throws Exception {
		out.write(n + "\n");
		out.flush();
		String line = in.readLine();
		r.check("done".equals(line), "the workload after " + n + " rounds: " + line);
	}

	/**
	 * An agent attached by jcal start (mode=bci), stopped and started again:
	 * each recording holds exactly the rounds run while it ran (3, then 2),
	 * none of the 4 run between them.
	 */
	private void testLaterStart() throws Exception {
		Process p = new ProcessBuilder(r.java, "-cp", r.classes, W, "stdin")
				.redirectError(r.tmp.resolve("later.log").toFile()).start();
		Thread guard = new Thread(() -> {
			try {
				if (!p.waitFor(120, TimeUnit.SECONDS))
					p.destroyForcibly();
			} catch (InterruptedException e) {
				p.destroyForcibly();
			}
		});
		guard.setDaemon(true);
		guard.start();
		try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
				BufferedWriter out = new BufferedWriter(new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8))) {
			r.check("ready".equals(in.readLine()), "the workload did not start");
			String pid = Long.toString(p.pid());
			Path first = r.tmp.resolve("later-1.bin"), second = r.tmp.resolve("later-2.bin");
			jcal("start", pid, "-o", first.toString(), "metric=cputime+tsc");
			rounds(out, in, 3);
			jcal("stop", pid);
			rounds(out, in, 4);
			jcal("start", pid, "-o", second.toString(), "metric=cputime+tsc");
			rounds(out, in, 2);
			jcal("stop", pid);
			r.expectExact("contended enters of " + LOCK + " per recording", Map.of("first", 3L, "second", 2L),
					Map.of("first", lockEnters(first, "first"), "second", lockEnters(second, "second")));
		} finally {
			p.destroy();
			if (!p.waitFor(30, TimeUnit.SECONDS))
				p.destroyForcibly();
		}
	}

	/** monitors=off: no MONITOR record, so no waits and no Waiting part; the calls as ever. */
	private void testOff() throws Exception {
		Path t = r.tmp.resolve("contend-off.bin");
		Runner.Result j = r.run(r.tmp.toFile(), List.of(r.java, "-agentpath:" + r.agent
				+ "=trace,quiet,monitors=off,metric=cputime+tsc,out=" + t, "-cp", r.classes, W));
		r.check(j.rc == 0, "contend workload (monitors=off): exit " + j.rc + ": " + j.err);
		r.check(waits(t).isEmpty(), "monitors=off: waits recorded");
		Runner.Result text = r.post(t, "--report", "waits");
		r.check(text.out.contains("\nNo monitor events in this trace.\n"), "monitors=off: " + text.out);
		r.check(!r.post(t, "--report", "summary").out.contains("Waiting"), "monitors=off: the summary's Waiting part");
		r.expectExact("monitors=off: calls", Map.of(W + ".take", ROUNDS, W + ".pause", 1L),
				Map.of(W + ".take", r.flatCalls(t, W + ".take").getOrDefault(W + ".take", -1L), W + ".pause",
						r.flatCalls(t, W + ".pause").getOrDefault(W + ".pause", -1L)));
	}

	private void testEvents() throws Exception {
		check("events");
	}

	private void testBci() throws Exception {
		check("bci");
	}

	static Runner.Tests tests(Runner r) {
		WaitTests s = new WaitTests(r);
		return new Runner.Tests().add("waits-events", s::testEvents).add("waits-bci", s::testBci)
				.add("waits-later-start", s::testLaterStart).add("waits-off", s::testOff);
	}
}
