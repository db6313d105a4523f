package jcaltest;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The overhead as a function of the step's own work
 * (docs/calibration-format.md, fields a= and b=): a calibrate run in each
 * mode writes a version 3 table whose keys that ran in a method's body have
 * a fit and no other key has one; jcal-post derives the same table from
 * the calibration trace, applies it with --estimator fit (call counts
 * exact, no figure above the raw one), warns when a table has no fit, and
 * a later version is refused by name. Every process runs under a timeout.
 * Run by jcaltest.Main (javatests/run.sh).
 */
public final class WorkFit {
	private static final String W = "jcaltest.work.";
	private static final Pattern KEY = Pattern.compile("(?m)^([IiJjNnO]):([EXT]):([IiJjNnO]):([EXT]):([IiJjNnO]) .*$");
	private final Runner r;

	private WorkFit(Runner r) {
		this.r = r;
	}

	private Runner.Result run(String... cmd) throws Exception {
		Runner.Result res = r.runFor(r.tmp.toFile(), List.of(cmd), Map.of(), null, 120);
		r.check(res != null, "timed out: " + String.join(" ", cmd));
		return res == null ? new Runner.Result() : res;
	}

	private Runner.Result post(String... args) throws Exception {
		List<String> cmd = new ArrayList<>(List.of(r.post));
		cmd.addAll(Arrays.asList(args));
		return run(cmd.toArray(new String[0]));
	}

	/** Calibrates in mode (events under -Xint, or bci); returns the table. */
	private Path calibrate(String mode) throws Exception {
		Path dir = Files.createDirectories(r.tmp.resolve("workfit-" + mode));
		Path table = dir.resolve("table.txt"), trace = dir.resolve("calib.bin");
		List<String> cmd = new ArrayList<>(List.of(r.java));
		if (mode.equals("events"))
			cmd.add("-Xint");
		cmd.add("-agentpath:" + r.agent + "=calibrate,mode=" + mode + ",metric=cputime,table=" + table + ",out="
				+ trace);
		cmd.add("-version");
		Runner.Result c = run(cmd.toArray(new String[0]));
		r.check(c.rc == 0, mode + ": calibrate: exit " + c.rc + ": " + c.err);
		String text = Files.exists(table) ? Files.readString(table) : "";
		r.check(text.startsWith("jcal-calibration 3\n"), mode + ": a version 3 table");
		/* a fit exactly for the keys that ran in a body: entered or returned to normally, not the thread root */
		int inBody = 0, fits = 0, misplaced = 0;
		Matcher m = KEY.matcher(text);
		while (m.find()) {
			boolean body = !m.group(2).equals("T") && !m.group(3).equals("O");
			boolean fit = m.group(0).contains(" a=");
			inBody += body ? 1 : 0;
			fits += fit ? 1 : 0;
			misplaced += body != fit ? 1 : 0;
		}
		r.check(inBody == 344 && fits == 344 && misplaced == 0,
				mode + ": fits for the 344 keys that ran in a body and no other: " + fits + " fits, " + misplaced
						+ " misplaced");
		r.check(c.err.contains("overhead against the step's own work: a fit for 344 keys (256 with a single body cost"),
				mode + ": the run reports its fits: " + c.err);
		Path derived = dir.resolve("derived.txt");
		Runner.Result d = post(trace.toString(), "--report", "calib", "-o", derived.toString());
		r.check(d.rc == 0, mode + ": --report calib: " + d.err);
		Runner.Result diff = post("calib", "diff", table.toString(), derived.toString());
		r.check(diff.rc == 0 && diff.out.contains("the tables are the same"),
				mode + ": jcal-post derives the agent's fits: " + diff.out);
		return table;
	}

	/** The sum of the rows' base (self) figures, leaf's calls, and the rows whose base is above their raw base. */
	private long[] selfAndCalls(Runner.Result res) {
		long self = 0, leaf = 0, above = 0;
		List<List<String>> rows = Runner.csv(res.out);
		List<String> head = rows.isEmpty() ? List.of() : rows.get(0);
		int base = head.indexOf("base"), rawBase = head.indexOf("raw_base"), calls = head.indexOf("calls"),
				path = head.indexOf("path");
		for (List<String> row : rows.subList(Math.min(1, rows.size()), rows.size())) {
			self += Long.parseLong(row.get(base));
			above += Long.parseLong(row.get(base)) > Long.parseLong(row.get(rawBase)) ? 1 : 0;
			if (row.get(path).endsWith(W + "Basic.leaf(I)V"))
				leaf += Long.parseLong(row.get(calls));
		}
		return new long[] { self, leaf, above };
	}

	private void testEvents() throws Exception {
		Path table = calibrate("events");
		Path t = r.tmp.resolve("workfit-basic.bin");
		Runner.Result tr = run(r.java, "-Xint", "-agentpath:" + r.agent + "=trace,quiet,metric=cputime,out=" + t, "-cp",
				r.classes, W + "Basic");
		r.check(tr.rc == 0, "trace: " + tr.err);
		long[] raw = null, fit = null;
		for (String est : List.of("raw", "fit", "cond")) {
			Runner.Result c = est.equals("raw")
					? post(t.toString(), "--raw", "--report", "tree", "--format", "csv", "--sig")
					: post(t.toString(), "--calib", table.toString(), "--estimator", est, "--report", "tree",
							"--format", "csv", "--sig");
			r.check(c.rc == 0, est + ": " + c.err);
			long[] v = selfAndCalls(c);
			r.check(v[1] == 12, est + ": leaf's 12 calls stay exact: " + v[1]);
			r.check(v[2] == 0, est + ": no row above its raw figure: " + v[2]);
			if (est.equals("raw"))
				raw = v;
			else if (est.equals("fit"))
				fit = v;
		}
		r.check(raw != null && fit != null && fit[0] < raw[0] && fit[0] > 0,
				"fit takes some overhead off: " + (fit == null ? "?" : fit[0]) + " of " + (raw == null ? "?" : raw[0]));
		Runner.Result s = post(t.toString(), "--calib", table.toString(), "--estimator", "fit", "--report", "summary");
		r.check(s.rc == 0 && s.out.contains("estimator fit"), "summary names the estimator: " + s.out);

		/* a version 2 table (no fit): fit falls back to cond, with a warning */
		Path v2 = r.tmp.resolve("workfit-v2.txt");
		Files.writeString(v2, Files.readString(table).replaceFirst("^jcal-calibration 3", "jcal-calibration 2")
				.replaceAll(" a=[0-9.]+ b=[0-9.]+", ""));
		Runner.Result w = post(t.toString(), "--calib", v2.toString(), "--estimator", "fit", "--report", "summary");
		r.check(w.rc == 0 && w.err.contains("has no fit of the overhead against the step's work"),
				"fit on a version 2 table warns: " + w.err);
		/* a later version is refused by name */
		Path v4 = r.tmp.resolve("workfit-v4.txt");
		Files.writeString(v4, Files.readString(table).replaceFirst("^jcal-calibration 3", "jcal-calibration 4"));
		Runner.Result x = post("calib", "show", v4.toString());
		r.check(x.rc != 0 && x.err.contains("unsupported table version '4' (this build reads 1 to 3)"),
				"version 4 refused: " + x.err);
		/* merged with itself, the fits stay */
		Path merged = r.tmp.resolve("workfit-merged.txt");
		Runner.Result mg = post("calib", "merge", "-o", merged.toString(), table.toString(), table.toString());
		r.check(mg.rc == 0 && Files.readString(merged).startsWith("jcal-calibration 3\n"), "merge: " + mg.err);
		Runner.Result md = post("calib", "diff", table.toString(), merged.toString());
		r.check(md.out.lines().noneMatch(l -> l.contains(" fit ")), "merge keeps every fit: " + md.out);
	}

	private void testBci() throws Exception {
		calibrate("bci");
	}

	static Runner.Tests tests(Runner r) {
		WorkFit s = new WorkFit(r);
		return new Runner.Tests().add("workfit-events", s::testEvents).add("workfit-bci", s::testBci);
	}
}
