package jcaltest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * jcal-post with hostile inputs and outputs: a thread name with terminal
 * control characters in every text report, a FIFO or /dev/zero as a
 * calibration table (also a FIFO at the table's own name in the
 * calibration directory), an output that is one of the inputs, and a FIFO
 * as the output of a table. Every process runs under a short timeout, so a
 * hang is a failure, not a stuck test run.
 * Run by jcaltest.Main (javatests/run.sh).
 */
public final class PostSafety {
	private static final String W = "jcaltest.work.";
	private static final String ESC = "\u001b";
	private final Runner r;

	private PostSafety(Runner r) {
		this.r = r;
	}

	/** Runs cmd with extra environment and stdin (may be null) under a timeout; null when it timed out. */
	private Runner.Result run(List<String> cmd, Map<String, String> env, Path stdin, int seconds) throws Exception {
		return r.runFor(r.tmp.toFile(), cmd, env, stdin, seconds);
	}

	private Runner.Result post(Map<String, String> env, String... args) throws Exception {
		List<String> cmd = new ArrayList<>(List.of(r.post));
		cmd.addAll(Arrays.asList(args));
		return run(cmd, env, null, 20);
	}

	private Runner.Result post(String... args) throws Exception {
		return post(Map.of("JCAL_CALIB_DIR", r.tmp.resolve("no-calib-dir").toString()), args);
	}

	private void mkfifo(Path p) throws Exception {
		Runner.Result res = run(List.of("mkfifo", p.toString()), Map.of(), null, 10);
		r.check(res != null && res.rc == 0, "mkfifo " + p);
	}

	/** Exactly one line, a jcal-post error containing what. */
	private void expectError(String what, Runner.Result res, String contains) {
		if (res == null) {
			r.check(false, what + ": jcal-post did not finish within its timeout");
			return;
		}
		List<String> errors = new ArrayList<>();
		boolean allMessages = true;
		for (String l : res.errLines()) {
			allMessages &= l.startsWith("jcal-post: ");
			if (l.startsWith("jcal-post: error: "))
				errors.add(l);
		}
		r.check(res.rc == 1, what + ": exit 1 expected, got " + res.rc + ": " + res.err);
		r.check(allMessages && errors.size() == 1 && errors.get(0).contains(contains),
				what + ": one 'jcal-post: error: ...' line with '" + contains + "' expected, got: " + res.err);
	}

	/* ---- the tests ---- */

	/** Control characters of a thread name are escaped in every text report and in messages. */
	private void testEscapedNames() throws Exception {
		Path t = r.trace("evil", W + "EvilNames");
		String escaped = "evil\\x1b[2J\\r\\nname";
		for (String kind : List.of("tree", "summary", "flat", "arcs", "callers", "collapsed")) {
			Runner.Result res = post(t.toString(), "--report", kind);
			r.check(res != null && res.rc == 0, "--report " + kind + ": exit 0 expected: " + (res == null ? "timeout" : res.err));
			if (res == null)
				continue;
			r.check(!res.out.contains(ESC) && !res.out.contains("\r"),
					"--report " + kind + ": no raw ESC or CR in the text output");
			if (kind.equals("tree") || kind.equals("summary") || kind.equals("arcs"))
				r.check(res.out.contains(escaped), "--report " + kind + ": the name shown as " + escaped + ":\n" + res.out);
		}
		/* the thread alone, by a glob */
		Runner.Result tree = post(t.toString(), "--report", "tree", "--thread", "evil*");
		r.check(tree != null && tree.out.contains("Thread \"" + escaped + "\" #"),
				"tree header of the selected thread: " + (tree == null ? "timeout" : tree.out));
		/* a message that lists thread names */
		Runner.Result none = post(t.toString(), "--thread", "no-such-thread");
		expectError("--thread that matches nothing", none, escaped);
		r.check(none != null && !none.err.contains(ESC) && !none.err.contains("\r"), "no raw ESC or CR on stderr");
		/* CSV and JSON keep the name exactly (quoted / escaped) */
		Runner.Result json = post(t.toString(), "--report", "tree", "--format", "json");
		r.check(json != null && json.out.contains("\"evil\\u001b[2J\\r\\nname\""), "JSON escapes the name");
		Runner.Result csv = post(t.toString(), "--report", "tree", "--format", "csv");
		boolean found = false;
		if (csv != null)
			for (List<String> row : Runner.csv(csv.out))
				found |= row.get(0).startsWith(jcaltest.work.EvilNames.EVIL + "#");
		r.check(found, "CSV holds the exact name, quoted");
	}

	/** A FIFO or /dev/zero as a table: an error at once, never a hang. */
	private void testFifoTable() throws Exception {
		Path t = r.trace("fifo-loop", W + "Loop", "1000");
		Path fifo = r.tmp.resolve("table.fifo");
		mkfifo(fifo);
		expectError("--calib FIFO", post(t.toString(), "--calib", fifo.toString()), "a FIFO, not a regular file");
		expectError("--calib /dev/zero", post(t.toString(), "--calib", "/dev/zero"), "a character device");
		expectError("calib show FIFO", post("calib", "show", fifo.toString()), "a FIFO, not a regular file");
		expectError("calib check /dev/zero", post("calib", "check", "/dev/zero"), "a character device");

		/* a FIFO at the table's own name in the calibration directory */
		Path table = r.tmp.resolve("derived.txt");
		Runner.Result d = post(t.toString(), "--report", "calib", "-o", table.toString());
		r.check(d != null && d.rc == 0, "--report calib: " + (d == null ? "timeout" : d.err));
		Runner.Result show = post("calib", "show", table.toString());
		String name = null;
		if (show != null)
			for (String line : show.out.split("\n"))
				if (line.trim().startsWith("file name"))
					name = line.trim().replaceFirst("^file name\\s+", "");
		r.check(name != null && name.matches("calib-[0-9a-f]{16}\\.txt"), "calib show names the file: " + name);
		if (name == null)
			return;
		Path dir = r.tmp.resolve("calib-dir");
		Files.createDirectories(dir);
		mkfifo(dir.resolve(name));
		mkfifo(dir.resolve("other.txt"));
		Runner.Result res = post(Map.of("JCAL_CALIB_DIR", dir.toString()), t.toString(), "--report", "summary");
		r.check(res != null, "FIFOs in the calibration directory: jcal-post finished within 20 s");
		if (res == null)
			return;
		r.check(res.rc == 0, "exit 0 expected: " + res.err);
		r.check(res.err.contains("jcal-post: warning: calibration directory: skipped what is not a regular file (never opened): "
				+ name + " (a FIFO), other.txt (a FIFO)"), "warning naming the FIFOs: " + res.err);
		/* a real table beside them is still found */
		Files.copy(table, dir.resolve("z-copy.txt"));
		res = post(Map.of("JCAL_CALIB_DIR", dir.toString()), t.toString(), "--report", "summary");
		r.check(res != null && res.rc == 0 && res.out.contains("z-copy.txt (fingerprint matches)"),
				"the table under another name applies: " + (res == null ? "timeout" : res.out + res.err));
	}

	/** -o naming an input (also through a symlink or hard link, or stdin) is refused, the input untouched. */
	private void testOutputIsInput() throws Exception {
		Path t = r.trace("same-loop", W + "Loop", "1000");
		byte[] before = Files.readAllBytes(t);
		Path sym = r.tmp.resolve("same-link.bin"), hard = r.tmp.resolve("same-hard.bin");
		Files.createSymbolicLink(sym, t);
		Files.createLink(hard, t);
		expectError("-o the trace", post(t.toString(), "-o", t.toString()), "is the trace it reads");
		expectError("-o a symlink to the trace", post(t.toString(), "--report", "flat", "-o", sym.toString()),
				"is the trace it reads");
		expectError("-o a hard link of the trace", post(sym.toString(), "--report", "summary", "-o", hard.toString()),
				"is the trace it reads");
		expectError("--report calib -o the trace", post(t.toString(), "--report", "calib", "-o", t.toString()),
				"is the trace it reads");
		expectError("-o the trace read from stdin",
				run(List.of(r.post, "-", "-o", hard.toString()), Map.of(), t, 20), "is the trace it reads (stdin)");
		r.check(Arrays.equals(before, Files.readAllBytes(t)), "the trace is unchanged");

		Path a = r.tmp.resolve("same-a.txt"), b = r.tmp.resolve("same-b.txt");
		Runner.Result d = post(t.toString(), "--report", "calib", "-o", a.toString());
		r.check(d != null && d.rc == 0, "--report calib: " + (d == null ? "timeout" : d.err));
		Files.copy(a, b);
		byte[] ta = Files.readAllBytes(a);
		expectError("calib merge -o an input", post("calib", "merge", "-o", a.toString(), a.toString(), b.toString()),
				"is the input table");
		expectError("--calib T -o T", post(t.toString(), "--calib", a.toString(), "-o", a.toString()),
				"is the calibration table it reads");
		r.check(Arrays.equals(ta, Files.readAllBytes(a)), "the table is unchanged");
		/* a new file is fine */
		Runner.Result ok = post("calib", "merge", "-o", r.tmp.resolve("merged.txt").toString(), a.toString(), b.toString());
		r.check(ok != null && ok.rc == 0, "merge into a new file: " + (ok == null ? "timeout" : ok.err));
	}

	/** A FIFO as -o of a table: written into, still a FIFO afterwards. */
	private void testFifoOutput() throws Exception {
		Path t = r.trace("fifo-out-loop", W + "Loop", "1000");
		Path a = r.tmp.resolve("fo-a.txt");
		Runner.Result d = post(t.toString(), "--report", "calib", "-o", a.toString());
		r.check(d != null && d.rc == 0, "--report calib: " + (d == null ? "timeout" : d.err));
		String[][] cmds = { { "calib", "merge", "-o", "FIFO", a.toString() },
				{ t.toString(), "--report", "calib", "-o", "FIFO" } };
		int k = 0;
		for (String[] args : cmds) {
			Path fifo = r.tmp.resolve("out-" + k++ + ".fifo"), got = r.tmp.resolve("from-" + k + ".txt");
			mkfifo(fifo);
			Process cat = new ProcessBuilder("cat", fifo.toString()).redirectOutput(got.toFile()).start();
			List<String> cmd = new ArrayList<>(List.of(r.post));
			for (String s : args)
				cmd.add(s.equals("FIFO") ? fifo.toString() : s);
			Runner.Result res = run(cmd, Map.of(), null, 20);
			/* cat ends at the writer's close; if jcal-post never opened the
			 * FIFO, cat still waits and is ended here (opening the FIFO to
			 * end it would block for good once cat had gone in between). */
			if (!cat.waitFor(10, TimeUnit.SECONDS)) {
				cat.destroyForcibly();
				cat.waitFor(10, TimeUnit.SECONDS);
			}
			String what = String.join(" ", args);
			r.check(res != null && res.rc == 0, what + ": exit 0 expected: " + (res == null ? "timeout" : res.err));
			r.check(Files.readString(got).startsWith("jcal-calibration 2\n"), what + ": the table came out of the FIFO");
			r.check(fifoStill(fifo), what + ": still a FIFO afterwards");
		}
	}

	private boolean fifoStill(Path p) throws Exception {
		Runner.Result res = run(List.of("test", "-p", p.toString()), Map.of(), null, 10);
		return res != null && res.rc == 0;
	}

	/** The suite's tests, in the order jcaltest.Main runs them. */
	static Runner.Tests tests(Runner r) {
		PostSafety s = new PostSafety(r);
		return new Runner.Tests()
				.add("post-escaped-names", s::testEscapedNames)
				.add("post-fifo-table", s::testFifoTable)
				.add("post-output-is-input", s::testOutputIsInput)
				.add("post-fifo-output", s::testFifoOutput);
	}
}
