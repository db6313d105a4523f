package jcaltest;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A later start (docs/live-profiling.md, "A later start"): on a server JVM
 * started without the agent (attached by a first jcal start) and on one
 * started with -agentpath (its first recording stopped), jcal start with
 * each row of the agent's option table either applies it to the new
 * recording, as its file shows (output kind, filters, region mode, limits,
 * log file), or refuses it with exit != 0 and one "jcal: error:" line
 * naming it. output= switches trace -> tree -> both -> trace in one JVM with
 * exact call counts in each file. The calibration table is looked up at
 * each start; a JVM running as another user than jcal's caller gets the
 * caller's table handed over, and when it cannot read its own, the agent
 * and jcal-post say which file, why and what to do (two users, as
 * SharedMachine makes them: SKIP without root, useradd, userdel, setpriv).
 * Uses Live's server (jcaltest.work.LiveServer) and Runner's helpers. Run
 * by jcaltest.Main (javatests/run.sh).
 */
final class LaterStart {
	static final String W = "jcaltest.work.";
	static final String HANDLE = W + "LiveServer$Work.handle", COMPUTE = W + "LiveServer.compute",
			LEAF = W + "LiveServer.leaf";
	/** Seconds any jcal command may take. */
	static final int TIMEOUT = 60;
	private final Runner r;
	private final String jcal;

	private LaterStart(Runner r) {
		this.r = r;
		this.jcal = new File(new File(r.post).getParentFile(), "jcal").getPath();
	}

	/* ---- helpers ---- */

	private Runner.Result jcal(Map<String, String> env, String... args) throws Exception {
		List<String> cmd = new ArrayList<>(List.of(jcal));
		cmd.addAll(List.of(args));
		Runner.Result res = r.runFor(r.tmp.toFile(), cmd, env, null, TIMEOUT);
		if (res == null)
			throw new IllegalStateException("jcal did not end within " + TIMEOUT + " s: " + cmd);
		return res;
	}

	private Runner.Result jcal(String... args) throws Exception {
		return jcal(Map.of(), args);
	}

	private static String[] cat(String[] a, String... b) {
		String[] c = new String[a.length + b.length];
		System.arraycopy(a, 0, c, 0, a.length);
		System.arraycopy(b, 0, c, a.length, b.length);
		return c;
	}

	long calls(Path t, String method) throws Exception {
		Long n = r.flatCalls(t, "").get(method);
		return n == null ? 0 : n;
	}

	/** The meta records of a trace or snapshot (summary CSV rows meta.KEY,VALUE). */
	Map<String, String> meta(Path t) throws Exception {
		Runner.Result s = r.post(t, "--report", "summary", "--format", "csv");
		r.check(s.rc == 0, "summary of " + t + ": " + s.err);
		Map<String, String> m = new HashMap<>();
		for (List<String> row : Runner.csv(s.out))
			if (row.size() >= 2 && row.get(0).startsWith("meta."))
				m.put(row.get(0).substring(5), row.get(1));
		return m;
	}

	/** The text of a file, "" when there is none (yet). */
	private static String text(Path p) throws Exception {
		return Files.exists(p) ? Files.readString(p) : "";
	}

	/** "tree" for a snapshot (file format 3), "trace" for a trace (2). */
	static String kind(Path t) throws Exception {
		byte[] h = new byte[9];
		if (!Files.exists(t))
			return "missing";
		try (var in = Files.newInputStream(t)) {
			if (in.readNBytes(h, 0, 9) != 9)
				return "short";
		}
		return h[8] == 3 ? "tree" : h[8] == 2 ? "trace" : "format " + h[8];
	}

	private boolean recording(Live.Server s) throws Exception {
		return jcal("status", Long.toString(s.pid)).out.startsWith("recording: yes");
	}

	/** jcal start OPTS: accepted. */
	private Runner.Result start(Live.Server s, String what, Path out, String... opts) throws Exception {
		Runner.Result st = jcal(cat(new String[] {"start", Long.toString(s.pid), "-o", out.toString()}, opts));
		r.check(st.rc == 0, what + ": jcal start exit 0 expected, got " + st.rc + ": " + st.out + st.err);
		return st;
	}

	private void stop(Live.Server s, String what) throws Exception {
		Runner.Result st = jcal("stop", Long.toString(s.pid));
		r.check(st.rc == 0, what + ": jcal stop exit 0 expected, got " + st.rc + ": " + st.out + st.err);
	}

	/** A recording with opts during k requests to /work. */
	private Path record(Live.Server s, Path dir, String name, int k, String... opts) throws Exception {
		Path out = dir.resolve(name);
		start(s, name + " " + String.join(" ", opts), out, opts);
		s.work(k);
		stop(s, name);
		return out;
	}

	/** The handler's, compute()'s and leaf()'s calls are k, k and 50 k. */
	private void exact(Path t, String what, long handle, long compute) throws Exception {
		Map<String, Long> f = r.flatCalls(t, "");
		long h = f.getOrDefault(HANDLE, 0L), c = f.getOrDefault(COMPUTE, 0L), l = f.getOrDefault(LEAF, 0L);
		r.check(h == handle && c == compute && l == 50 * compute, what + ": calls of handle, compute, leaf: " + h
				+ ", " + c + ", " + l + "; expected " + handle + ", " + compute + ", " + 50 * compute);
	}

	/** jcal start OPTS: exit != 0, one "jcal: error:" line holding each of names, nothing recording. */
	private void refused(Live.Server s, Path dir, String what, String[] names, String... opts) throws Exception {
		Runner.Result st = jcal(cat(new String[] {"start", Long.toString(s.pid), "-o",
				dir.resolve("refused.bin").toString()}, opts));
		List<String> lines = st.errLines();
		boolean named = lines.size() == 1 && lines.get(0).startsWith("jcal: error: ");
		for (String n : names)
			named &= lines.size() == 1 && lines.get(0).contains(n);
		r.check(st.rc != 0, what + ": refused with exit != 0, got " + st.rc + ": " + st.out + st.err);
		r.check(named, what + ": one 'jcal: error:' line naming " + List.of(names) + ", got " + lines);
		r.check(!recording(s), what + ": nothing records after the refusal");
		r.check(!Files.exists(dir.resolve("refused.bin")), what + ": no file written");
	}

	private void refused(Live.Server s, Path dir, String what, String name, String... opts) throws Exception {
		refused(s, dir, what, new String[] {name}, opts);
	}

	/* ---- the two JVMs ---- */

	/** A server without the agent, attached by a first start and stop. */
	private Live.Server attached(Path dir) throws Exception {
		Live.Server s = new Live.Server(r, dir.resolve("server.log"));
		s.work(200); /* warm-up */
		/* every probe kept: the rows are checked on exact trees (the default
		 * throttle= and tiny= of an attach: Live's live-throttle-default and
		 * live-tiny-default) */
		exact(record(s, dir, "first.bin", 10, "throttle=off", "tiny=probe"), "the first (attaching) recording", 10,
				10);
		return s;
	}

	/** A server started with the agent (mode=events), its first recording stopped. */
	private Live.Server loaded(Path dir) throws Exception {
		Live.Server s = new Live.Server(r, dir.resolve("server.log"),
				"-agentpath:" + r.agent + "=trace,quiet,out=" + dir.resolve("first.bin"));
		s.work(10);
		stop(s, "the first recording (from JVM start)");
		exact(dir.resolve("first.bin"), "the first recording (from JVM start)", 10, 10);
		return s;
	}

	/* ---- the rows ---- */

	/** output= between recordings of one JVM: trace -> tree -> both -> trace, exact calls in each. */
	private void outputs(Live.Server s, Path dir, String jvm) throws Exception {
		int k = 30;
		Path a = record(s, dir, "a.bin", k), b = record(s, dir, "b.tree", k + 1, "output=tree"),
				c = record(s, dir, "c.bin", k + 2, "output=both"), d = record(s, dir, "d.bin", k + 3);
		Path ct = dir.resolve("c.bin.tree");
		r.check(kind(a).equals("trace") && kind(b).equals("tree") && kind(c).equals("trace") && kind(ct).equals("tree")
				&& kind(d).equals("trace"), jvm + ": output kinds trace, tree, both (trace + tree), trace: " + kind(a)
						+ ", " + kind(b) + ", " + kind(c) + " + " + kind(ct) + ", " + kind(d));
		r.check(!Files.exists(Path.of(b + ".tree")) && !Files.exists(Path.of(d + ".tree")),
				jvm + ": no snapshot beside the tree's and the last trace's outputs");
		exact(a, jvm + ": trace", k, k);
		exact(b, jvm + ": tree after trace", k + 1, k + 1);
		exact(c, jvm + ": both (trace)", k + 2, k + 2);
		exact(ct, jvm + ": both (snapshot)", k + 2, k + 2);
		exact(d, jvm + ": trace after both", k + 3, k + 3);
		/* and back to a tree: threads that gave their trees back get new ones */
		Path e = record(s, dir, "e.tree", k + 4, "output=tree", "maxcontexts=5000");
		exact(e, jvm + ": tree after trace", k + 4, k + 4);
		r.check("5000".equals(meta(e).get("snapshot.maxcontexts")),
				jvm + ": maxcontexts=5000 applies to the trees: " + meta(e).get("snapshot.maxcontexts"));
		refused(s, dir, jvm + ": maxsize= with output=tree", new String[] {"maxsize=", "output=tree"}, "output=tree",
				"maxsize=2M");
		refused(s, dir, jvm + ": maxcontexts= without trees", "maxcontexts=", "maxcontexts=5000");
		/* hists=off, passed on by jcal start, is that recording's own: the next one keeps histograms */
		Path f = record(s, dir, "f.tree", k + 5, "output=tree", "hists=off"),
				g = record(s, dir, "g.tree", k + 6, "output=tree");
		exact(f, jvm + ": tree with hists=off", k + 5, k + 5);
		exact(g, jvm + ": tree after hists=off", k + 6, k + 6);
		r.check("off".equals(meta(f).get("snapshot.hists")) && meta(g).get("snapshot.hists") == null,
				jvm + ": snapshot.hists off, then absent: " + meta(f).get("snapshot.hists") + ", "
						+ meta(g).get("snapshot.hists"));
		Runner.Result lf = r.post(f, "--report", "latency"), lg = r.post(g, "--report", "latency");
		r.check(lf.rc == 1 && lf.err.contains("recorded with hists=off") && lg.rc == 0,
				jvm + ": latency refuses the hists=off snapshot only: " + lf.rc + " " + lf.err + "; " + lg.rc + " "
						+ lg.err);
		refused(s, dir, jvm + ": hists=off without trees", "'hists=off' needs output=tree", "hists=off");
	}

	/** mode=, clock=, metric=, throttle=, tiny=, inlined=, probes=: the load's, refused unless the same. */
	private void fixed(Live.Server s, Path dir, String jvm, String mode) throws Exception {
		String status = jcal("status", Long.toString(s.pid)).out;
		Matcher m = Pattern.compile("(?m)^metric: (\\S+)").matcher(status);
		String metric = m.find() ? m.group(1) : "?";
		String other = metric.equals("tsc") ? "cputime" : "tsc";
		Path same = record(s, dir, "same.bin", 5, "mode=" + mode, "clock=agentfree", "metric=" + metric);
		exact(same, jvm + ": mode=, clock=, metric= as loaded", 5, 5);
		r.check(metric.equals(meta(same).get("metrics")), jvm + ": the recording reads " + metric);
		refused(s, dir, jvm + ": another mode=", new String[] {"mode=" + (mode.equals("bci") ? "events" : "bci"),
				"fixed when it was loaded"}, "mode=" + (mode.equals("bci") ? "events" : "bci"));
		refused(s, dir, jvm + ": another clock=", new String[] {"clock=raw", "fixed"}, "clock=raw");
		refused(s, dir, jvm + ": another metric=", new String[] {"metric=" + other, "reads " + metric}, "metric=" + other);
		refused(s, dir, jvm + ": throttle=", new String[] {"throttle=1000:100", "without throttle="},
				"throttle=1000:100");
		refused(s, dir, jvm + ": tiny=", new String[] {"tiny=count", "loaded with tiny=probe", "fixed"}, "tiny=count");
		refused(s, dir, jvm + ": a bad tiny=", new String[] {"tiny=maybe", "expected count or probe"}, "tiny=maybe");
		refused(s, dir, jvm + ": inlined=", new String[] {"inlined=count", "loaded with inlined=probe", "fixed"},
				"inlined=count");
		refused(s, dir, jvm + ": a bad inlined=", new String[] {"inlined=maybe", "expected count or probe"},
				"inlined=maybe");
		/* an attach's probes are static by default; an agent loaded in mode=events has none */
		String probes = mode.equals("bci") ? "switch" : "static", loaded = mode.equals("bci") ? "static" : "switch";
		refused(s, dir, jvm + ": probes=", new String[] {"probes=" + probes, "loaded with probes=" + loaded, "fixed"},
				"probes=" + probes);
		refused(s, dir, jvm + ": a bad probes=", new String[] {"probes=maybe", "expected switch or static"},
				"probes=maybe");
		refused(s, dir, jvm + ": recalibrate=", "recalibrate=", "recalibrate=start");
		refused(s, dir, jvm + ": table=", "table=", "table=" + dir.resolve("t.txt"));
		refused(s, dir, jvm + ": calib= without trees", "calib=", "calib=" + dir);
		refused(s, dir, jvm + ": calib= that is not there", "calib=" + dir.resolve("none"), "output=tree",
				"calib=" + dir.resolve("none"));
		for (String cmd : List.of("help", "trace", "calibrate", "stop", "dump", "status", "rotate"))
			refused(s, dir, jvm + ": the command " + cmd + " among the options", "'" + cmd + "'", cmd);
		Runner.Result reply = jcal("start", Long.toString(s.pid), "reply=" + dir.resolve("r"));
		r.check(reply.rc == 2 && reply.errLines().size() == 1 && reply.err.contains("reply="),
				jvm + ": reply= is the launcher's: exit 2, one line: " + reply.rc + " " + reply.err);
	}

	/** include=/exclude=: the agent's filters from then on. */
	private void filters(Live.Server s, Path dir, String jvm) throws Exception {
		exact(record(s, dir, "inc.bin", 12, "include=" + W + "LiveServer$Work"), jvm + ": include=", 12, 0);
		exact(record(s, dir, "kept.bin", 13), jvm + ": a start without filters keeps them", 13, 0);
		exact(record(s, dir, "exc.bin", 14, "exclude=" + W + "LiveServer$Work"), jvm + ": exclude= replaces them", 0,
				14);
		exact(record(s, dir, "all.bin", 15, "include=jcaltest.*"), jvm + ": include=jcaltest.*", 15, 15);
	}

	/** start=manual: only jcal.Control regions; start=auto: everything again. */
	private void regions(Live.Server s, Path dir, String jvm) throws Exception {
		Path m = dir.resolve("manual.bin");
		start(s, jvm + ": start=manual", m, "start=manual");
		s.work(11); /* outside every region: not recorded */
		for (int i = 0; i < 7; i++)
			r.check("ok".equals(s.get("/region")), "/region answers");
		stop(s, jvm + ": start=manual");
		exact(m, jvm + ": start=manual (7 regions of compute)", 0, 7);
		exact(record(s, dir, "auto.bin", 9), jvm + ": start=auto after manual", 9, 9);
	}

	/** duration= and maxsize=: the recording stops by itself and says why. */
	private void limits(Live.Server s, Path dir, String jvm) throws Exception {
		Path d = dir.resolve("duration.bin");
		start(s, jvm + ": duration=2s", d, "duration=2s");
		long end = System.nanoTime() + 30_000_000_000L;
		while (recording(s) && System.nanoTime() < end)
			Thread.sleep(200);
		r.check("duration=2s reached".equals(meta(d).get("stop.reason")),
				jvm + ": duration=2s ends the recording: " + meta(d).get("stop.reason"));
		Path m = dir.resolve("maxsize.bin");
		start(s, jvm + ": maxsize=1M", m, "maxsize=1M", "include=jcaltest.*");
		String status = jcal("status", Long.toString(s.pid)).out;
		r.check(status.contains("\nlimits: maxsize=1048576 "), jvm + ": status shows maxsize=1048576: " + status);
		for (int i = 0; i < 100 && recording(s); i++)
			s.work(200);
		r.check(!recording(s), jvm + ": maxsize=1M ends the recording");
		r.check(Files.size(m) <= 1 << 20 && "maxsize=1048576 bytes reached".equals(meta(m).get("stop.reason")),
				jvm + ": maxsize=1M: " + Files.size(m) + " bytes, " + meta(m).get("stop.reason"));
	}

	/** log=, loglevel=, quiet: the agent's messages from then on. */
	private void logs(Live.Server s, Path dir, String jvm, String mode) throws Exception {
		Path log = dir.resolve("agent.log");
		/* the JVM started with the agent said quiet: loglevel= is the agent's, kept until given */
		record(s, dir, "log0.bin", 3, "log=" + log);
		r.check(text(log).contains("log0.bin") == jvm.equals("attached"),
				jvm + ": log= with the loglevel the agent had: " + text(log));
		record(s, dir, "log1.bin", 3, "loglevel=info");
		String text = text(log);
		r.check(text.contains("jcal: recording in mode=" + mode + ", output=trace, to " + dir.resolve("log1.bin"))
				&& text.contains("jcal: wrote " + dir.resolve("log1.bin")), jvm + ": log= gets the messages: " + text);
		record(s, dir, "log2.bin", 3, "loglevel=warn");
		record(s, dir, "log3.bin", 3);
		text = text(log);
		r.check(!text.contains("log2.bin") && !text.contains("log3.bin"),
				jvm + ": loglevel=warn (kept by a start without it) leaves out the info lines: " + text);
		record(s, dir, "log4.bin", 3, "loglevel=debug");
		text = text(log);
		r.check(text.contains("jcal: wrote " + dir.resolve("log4.bin"))
				&& (!mode.equals("bci") || text.contains("jcal: debug: mode=bci: ")),
				jvm + ": loglevel=debug: " + text);
		record(s, dir, "log5.bin", 3, "quiet");
		r.check(!text(log).contains("log5.bin"), jvm + ": quiet");
		Path other = dir.resolve("other.log");
		record(s, dir, "log6.bin", 3, "loglevel=info", "log=" + other);
		r.check(text(other).contains("jcal: wrote " + dir.resolve("log6.bin"))
				&& !text(log).contains("log6.bin"), jvm + ": a second log= takes the messages over");
		refused(s, dir, jvm + ": log= that cannot be written", "log=" + dir.resolve("no/such.log"),
				"log=" + dir.resolve("no/such.log"));
		record(s, dir, "log7.bin", 3);
		r.check(text(other).contains("log7.bin"), jvm + ": the refused log= left the log as it was");
	}

	private void allRows(Live.Server s, Path dir, String jvm, String mode) throws Exception {
		outputs(s, dir, jvm);
		fixed(s, dir, jvm, mode);
		filters(s, dir, jvm);
		regions(s, dir, jvm);
		limits(s, dir, jvm);
		logs(s, dir, jvm, mode);
	}

	/** Every row on a JVM started without the agent (mode=bci after the attach). */
	private void testAttached() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "attached");
		try (Live.Server s = attached(dir)) {
			allRows(s, dir, "attached", "bci");
		}
	}

	/** Every row on a JVM started with -agentpath (mode=events). */
	private void testLoaded() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "loaded");
		try (Live.Server s = loaded(dir)) {
			allRows(s, dir, "loaded", "events");
		}
	}

	/**
	 * output= switched while the requests run on a pool of four threads
	 * that existed before the first tree recording, clients sending from
	 * four threads at once and snapshots dumped meanwhile: every recording
	 * counts its requests exactly, and every snapshot and trace reads
	 * complete (the trees made lazily by their threads, docs/agent-internals.md,
	 * "Switching output=").
	 */
	private void testSwitchUnderLoad() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "switchload");
		try (Live.Server s = new Live.Server(r, dir.resolve("server.log"), "-Djcaltest.threads=4")) {
			String pid = Long.toString(s.pid);
			s.work(200);
			int i = 0;
			for (String output : List.of("trace", "tree", "both", "tree", "trace", "both", "tree")) {
				Path out = dir.resolve((i++) + "-" + output + ".bin");
				start(s, "output=" + output, out, "output=" + output);
				List<Thread> clients = new ArrayList<>();
				List<Exception> failed = new ArrayList<>();
				for (int c = 0; c < 4; c++) {
					Thread t = new Thread(() -> {
						try {
							s.work(100);
						} catch (Exception e) {
							synchronized (failed) {
								failed.add(e);
							}
						}
					});
					t.start();
					clients.add(t);
				}
				for (int d = 0; d < 3; d++) {
					Path dump = dir.resolve(out.getFileName() + ".dump" + d);
					Runner.Result res = jcal("dump", pid, "-o", dump.toString());
					r.check(res.rc == 0, "dump during output=" + output + ": " + res.out + res.err);
					Path snap = output.equals("both") ? Path.of(dump + ".tree") : dump;
					Runner.Result sum = r.post(snap, "--report", "summary");
					r.check(sum.rc == 0 && sum.out.contains("status:                complete"),
							"the dump of output=" + output + " reads complete: " + sum.out + sum.err);
				}
				for (Thread t : clients)
					t.join(120_000);
				r.check(failed.isEmpty(), "requests failed: " + failed);
				stop(s, "output=" + output);
				r.check(kind(out).equals(output.equals("tree") ? "tree" : "trace")
						&& Files.exists(Path.of(out + ".tree")) == output.equals("both"),
						"output=" + output + " writes what it says: " + kind(out));
				exact(out, "output=" + output + " under load", 400, 400);
				if (output.equals("both"))
					exact(Path.of(out + ".tree"), "output=both's snapshot under load", 400, 400);
				for (Path f : output.equals("both") ? List.of(out, Path.of(out + ".tree")) : List.of(out)) {
					Runner.Result sum = r.post(f, "--report", "summary");
					r.check(sum.out.contains("status:                complete")
							&& sum.out.contains("lost events:           0\n"),
							f.getFileName() + ": complete, no event lost: " + sum.out);
				}
			}
		}
	}

	/** A table of mode made by the agent's calibrate command (a few seconds), metric cputime. */
	Path calibrate(Path table, String mode, Map<String, String> env) throws Exception {
		Files.createDirectories(table.getParent());
		Runner.Result c = r.runFor(r.tmp.toFile(), List.of(r.java, "-agentpath:" + r.agent
				+ "=calibrate,metric=cputime,mode=" + mode + ",table=" + table + ",out=" + table + ".bin"), env, null,
				120);
		r.check(c != null && c.rc == 0 && Files.exists(table),
				"calibrate mode=" + mode + ": " + (c == null ? "hung" : c.rc + " " + c.err));
		return table;
	}

	/**
	 * The calibration table is looked up at each start: a JVM started with
	 * output=tree and no table records raw trees; calibrated after the JVM
	 * started, the next start's trees are compensated with the new table
	 * (the launcher's caller has none to hand over: the agent's own
	 * calibration directory, the JVM's JCAL_CALIB_DIR).
	 */
	private void testTableAtEachStart() throws Exception {
		Path dir = Files.createTempDirectory(r.tmp, "eachstart"), calib = dir.resolve("calib");
		Map<String, String> callerNone = Map.of("JCAL_CALIB_DIR", dir.resolve("caller-has-none").toString());
		Path first = dir.resolve("first.tree"), second = dir.resolve("second.tree");
		try (Live.Server s = new Live.Server(r, dir.resolve("server.log"), Map.of("JCAL_CALIB_DIR", calib.toString()),
				"-agentpath:" + r.agent + "=trace,quiet,output=tree,metric=cputime,out=" + first)) {
			s.work(10);
			stop(s, "first");
			Map<String, String> m = meta(first);
			r.check(m.get("snapshot.calib.table") == null && m.getOrDefault("snapshot.calib.note", "")
					.equals("no calibration table for this host/JVM/metric in " + calib),
					"the first trees are raw, and say why: " + m.get("snapshot.calib.note"));
			Path table = calibrate(calib.resolve("events.txt"), "events", Map.of());
			Runner.Result st = jcal(callerNone, "start", Long.toString(s.pid), "-o", second.toString(), "output=tree");
			r.check(st.rc == 0 && st.out.contains("trees compensated with " + table) && !st.out.contains("handing"),
					"the next start finds the new table itself: " + st.out + st.err);
			s.work(12);
			stop(s, "second");
			exact(second, "the compensated trees", 12, 12);
			r.check(table.toString().equals(meta(second).get("snapshot.calib.table")),
					"the snapshot names the table: " + meta(second).get("snapshot.calib.table"));
		}
	}

	/* ---- another user's JVM ---- */

	private static final String USER = "jcallater-a";

	private static boolean onPath(String cmd) {
		for (String d : (System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin:/usr/bin:/bin").split(":"))
			if (!d.isEmpty() && Files.isExecutable(Path.of(d, cmd)))
				return true;
		return false;
	}

	/** Why the two-user tests cannot run here, or null. */
	private String noUsers() throws Exception {
		Runner.Result id = r.runFor(r.tmp.toFile(), List.of("id", "-u"), Map.of(), null, TIMEOUT);
		if (id == null || !id.out.trim().equals("0"))
			return "not root";
		for (String c : List.of("useradd", "userdel", "setpriv"))
			if (!onPath(c))
				return c + " not found";
		return null;
	}

	private String sh(String... cmd) throws Exception {
		Runner.Result res = r.runFor(r.tmp.toFile(), List.of(cmd), Map.of(), null, TIMEOUT);
		if (res == null || res.rc != 0)
			throw new IllegalStateException(String.join(" ", cmd) + ": " + (res == null ? "hung" : res.err));
		return res.out.trim();
	}

	/** cmd as USER (uid, gid), with a clean environment plus env. */
	private static List<String> as(String[] ug, Map<String, String> env, List<String> cmd) {
		List<String> l = new ArrayList<>(List.of("setpriv", "--reuid=" + ug[0], "--regid=" + ug[1], "--clear-groups",
				"--reset-env", "--", "env"));
		env.forEach((k, v) -> l.add(k + "=" + v));
		l.addAll(cmd);
		return l;
	}

	/**
	 * A server JVM running as another user (USER) than jcal's caller
	 * (root), its own JCAL_CALIB_DIR a directory of root's it cannot read;
	 * root has a table of bci there. A first start without a table to hand
	 * over: the agent says it cannot read the directory, why, as whom, and
	 * what to do, and so does jcal-post on the raw snapshot. A later start
	 * with root's JCAL_CALIB_DIR: jcal hands the table over and the trees
	 * are compensated with it (the snapshot names the copy, which is gone
	 * afterwards); the same with calib=FILE. jcal-post run as USER on a
	 * trace names the directory or table it cannot read.
	 */
	private boolean testOtherUser() throws Exception {
		String why = noUsers();
		if (why != null) {
			System.out.println("SKIP later-other-user: " + why + " (a user is created for it)");
			return false;
		}
		r.runFor(r.tmp.toFile(), List.of("userdel", "-f", USER), Map.of(), null, TIMEOUT); /* a killed run's */
		sh("useradd", "-M", "-U", "-s", "/usr/sbin/nologin", USER);
		try {
			otherUser(new String[] {sh("id", "-u", USER), sh("id", "-g", USER)});
		} finally {
			Runner.Result res = r.runFor(r.tmp.toFile(), List.of("userdel", "-f", USER), Map.of(), null, TIMEOUT);
			if (res == null || res.rc != 0)
				System.out.println("    warning: userdel " + USER + ": " + (res == null ? "hung" : res.err.trim()));
		}
		return true;
	}

	/** What USER runs (the agent, its jars, the work classes), in 0755 directories. */
	private Path[] copyBuild(Path dir) throws Exception {
		Path bin = dir.resolve("bin"), classes = dir.resolve("classes"), work = classes.resolve("jcaltest/work");
		Files.createDirectories(bin);
		Files.createDirectories(work);
		Path build = Path.of(r.agent).getParent();
		for (String f : List.of("libjcal.so", "jcal-agent.jar", "jcal-calibrator.jar"))
			Files.copy(build.resolve(f), bin.resolve(f));
		try (var l = Files.list(Path.of(r.classes, "jcaltest", "work"))) {
			for (Path p : (Iterable<Path>) l::iterator)
				Files.copy(p, work.resolve(p.getFileName()));
		}
		sh("chmod", "-R", "a+rX", bin.toString(), classes.toString());
		return new Path[] {bin.resolve("libjcal.so"), classes};
	}

	private void otherUser(String[] ug) throws Exception {
		sh("chmod", "755", r.tmp.toString());
		Path dir = Files.createTempDirectory(r.tmp, "otheruser"), out = dir.resolve("out"),
				rootCalib = dir.resolve("root-calib"), none = dir.resolve("caller-has-none");
		sh("chmod", "755", dir.toString());
		Path[] built = copyBuild(dir);
		String lib = built[0].toString();
		Files.createDirectories(out);
		sh("chown", USER + ":" + USER, out.toString());
		Path table = calibrate(rootCalib.resolve("bci.txt"), "bci", Map.of());
		sh("chmod", "700", rootCalib.toString());
		List<String> cmd = as(ug, Map.of("JCAL_CALIB_DIR", rootCalib.toString()),
				Live.Server.command(r.java, built[1].toString()));
		try (Live.Server s = new Live.Server(dir.resolve("server.log"), cmd, Map.of())) {
			String pid = Long.toString(s.pid);
			s.work(100);
			/* the agent's own directory, unreadable; nothing handed over */
			Path raw = out.resolve("raw.tree");
			Runner.Result st = jcal(Map.of("JCAL_CALIB_DIR", none.toString()), "start", pid, "--lib", lib, "-o",
					raw.toString(), "output=tree", "metric=cputime");
			String cause = "cannot read the calibration directory " + rootCalib
					+ ": Permission denied (the JVM runs as user " + USER + ", uid " + ug[0] + ", which may not read it: ";
			r.check(st.rc == 0 && st.out.contains("jcal: trees are not compensated: " + cause)
					&& st.out.contains("jcal start hands its caller's tables over") && !st.out.contains("handing"),
					"the agent names the directory it cannot read, why, as whom, and the fix: " + st.out + st.err);
			s.work(10);
			stop(s, "raw");
			Runner.Result note = r.post(raw, "--report", "flat");
			r.check(note.err.contains("is a tree snapshot with raw figures only: " + cause),
					"jcal-post on the raw snapshot says the same: " + note.err);
			/* root's table handed over */
			Path comp = out.resolve("comp.tree");
			st = jcal(Map.of("JCAL_CALIB_DIR", rootCalib.toString()), "start", pid, "--lib", lib, "-o",
					comp.toString(), "output=tree");
			Matcher m = Pattern.compile("trees compensated with (/tmp/jcal-calib-[^/]+)/bci\\.txt, ").matcher(st.out);
			r.check(st.rc == 0 && st.out.startsWith("jcal: handing 1 calibration table of " + rootCalib + " to process "
					+ pid + " (copies for user " + USER + ")\n") && m.find(),
					"jcal hands root's table over, the agent applies it: " + st.out + st.err);
			s.work(21);
			stop(s, "compensated");
			exact(comp, "the compensated trees of another user's JVM", 21, 21);
			Map<String, String> meta = meta(comp);
			String copy = meta.getOrDefault("snapshot.calib.table", "");
			r.check(copy.startsWith("/tmp/jcal-calib-") && copy.endsWith("/bci.txt") && !Files.exists(Path.of(copy))
					&& !Files.exists(Path.of(copy).getParent()), "the snapshot names the copy, removed since: " + copy);
			Runner.Result sum = r.post(comp, "--report", "summary");
			r.check(sum.out.contains("calibration:           " + copy + " (applied in the agent)"),
					"jcal-post's summary names the table: " + sum.out);
			/* one table named */
			Path named = out.resolve("named.tree");
			st = jcal(Map.of("JCAL_CALIB_DIR", none.toString()), "start", pid, "--lib", lib, "-o", named.toString(),
					"output=tree", "calib=" + table);
			r.check(st.rc == 0 && st.out.startsWith("jcal: handing the calibration table " + table),
					"calib=FILE is handed over: " + st.out + st.err);
			s.work(22);
			stop(s, "named");
			exact(named, "calib=FILE", 22, 22);
			r.check(meta(named).getOrDefault("snapshot.calib.table", "").endsWith("/bci.txt"),
					"the trees use the table named: " + meta(named));
			/* jcal-post as USER: the directory, then a table, it cannot read */
			Path trace = out.resolve("t.bin");
			start(s, "a trace", trace);
			s.work(5);
			stop(s, "a trace");
			Runner.Result post = r.runFor(r.tmp.toFile(), as(ug, Map.of("JCAL_CALIB_DIR", rootCalib.toString()),
					List.of(r.post, trace.toString(), "--report", "flat")), Map.of(), null, TIMEOUT);
			r.check(post != null && post.rc == 1 && post.errLines().size() == 1 && post.err.startsWith(
					"jcal-post: error: cannot read the calibration directory " + rootCalib + ": Permission denied (jcal-post runs as user "
							+ USER),
					"jcal-post as " + USER + ": " + (post == null ? "hung" : post.rc + " " + post.err));
			Path shared = dir.resolve("shared-calib");
			Files.createDirectories(shared);
			Files.copy(table, shared.resolve("bci.txt"));
			sh("chmod", "600", shared.resolve("bci.txt").toString());
			post = r.runFor(r.tmp.toFile(), as(ug, Map.of("JCAL_CALIB_DIR", shared.toString()),
					List.of(r.post, trace.toString(), "--report", "flat")), Map.of(), null, TIMEOUT);
			r.check(post != null && post.rc == 1 && post.err.contains("cannot read the calibration table "
					+ shared.resolve("bci.txt") + ": Permission denied"),
					"jcal-post names the table it cannot read: " + (post == null ? "hung" : post.err));
		}
	}

	static Runner.Tests tests(Runner r) {
		LaterStart l = new LaterStart(r);
		return new Runner.Tests().add("later-attached", l::testAttached).add("later-loaded", l::testLoaded)
				.add("later-table-each-start", l::testTableAtEachStart)
				.add("later-switch-under-load", l::testSwitchUnderLoad)
				.addSkippable("later-other-user", l::testOtherUser);
	}
}
