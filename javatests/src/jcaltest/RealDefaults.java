package jcaltest;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * jcal-post's defaults on a real program from Debian: checkstyle
 * (package checkstyle, installed by scripts/install-deps.sh --tests)
 * checks a few generated Java files with its Sun rules under the agent,
 * about 27 M events and 700 000 calling contexts in its main thread. The
 * default text tree and every default export stay within the bounds of
 * docs/jcal-post.md ("Defaults on a large trace") and say on stderr what
 * they cut; --all gives the whole tree; checkstyle's work on the files is
 * counted exactly; overloads print as distinct rows. Skipped, visibly,
 * without checkstyle. Run by jcaltest.Main (javatests/run.sh).
 */
public final class RealDefaults {
	private static final String JARS = "/usr/share/java/";
	/* checkstyle and what /usr/bin/checkstyle and its manifest put beside it */
	private static final List<String> CLASSPATH = List.of("checkstyle.jar", "antlr4-runtime.jar",
			"commons-lang3.jar", "commons-beanutils.jar", "commons-collections3.jar", "guava.jar",
			"commons-cli.jar", "commons-logging.jar", "picocli.jar", "Saxon-HE.jar", "reflections.jar",
			"antlr.jar");
	private static final String CS = "com.puppycrawl.tools.checkstyle.";
	private static final int FILES = 4;
	/* docs/jcal-post.md: the bounds of the defaults */
	private static final long MB32 = 32L * 1024 * 1024;
	private static final int TREE_LINES = 2000;
	private static final int SPANS = 200000;

	private final Runner r;
	private Path trace;
	private Runner.Result checkstyle;

	private RealDefaults(Runner r) {
		this.r = r;
	}

	/** A Java file with the same style problems each time: javadoc, magic numbers, a long line. */
	private static String source(int i) {
		return "package gen;\n\nimport java.util.*;\n\npublic class Gen" + i + " {\n"
				+ "    public int field" + i + " = 42;\n"
				+ "    public int add(int a, int b) { return a + b + 7; }\n"
				+ "    public String name(String s) { return s + \"" + i + "\"; }\n"
				+ "    public String name(int n) { return \"n\" + n; }\n"
				+ "    public List<String> list() { List<String> l = new ArrayList<>(); l.add(\"x\"); return l; }"
				+ " // a line that is much longer than eighty characters\n"
				+ "}\n";
	}

	/** The trace of checkstyle on FILES generated files, recorded once; null when checkstyle is absent. */
	private Path trace() throws Exception {
		if (trace != null)
			return trace;
		for (String jar : CLASSPATH.subList(0, 1))
			if (!Files.isReadable(Path.of(JARS + jar))) {
				System.out.println("      SKIP: " + JARS + jar
						+ " not installed (scripts/install-deps.sh --tests installs checkstyle)");
				return null;
			}
		Path src = Files.createDirectories(r.tmp.resolve("src/gen"));
		for (int i = 0; i < FILES; i++)
			Files.writeString(src.resolve("Gen" + i + ".java"), source(i));
		List<String> cp = new ArrayList<>();
		for (String jar : CLASSPATH)
			if (Files.isReadable(Path.of(JARS + jar)))
				cp.add(JARS + jar);
		Path t = r.tmp.resolve("checkstyle.bin");
		checkstyle = r.runFor(r.tmp.toFile(), List.of(r.java, "-agentpath:" + r.agent + "=trace,quiet,out=" + t, "-cp",
				String.join(File.pathSeparator, cp), CS + "Main", "-c", "/sun_checks.xml", src.toString()),
				Map.of(), null, 300);
		r.check(checkstyle != null, "checkstyle under the agent finished within 300 s");
		if (checkstyle == null || !Files.exists(t))
			throw new IllegalStateException("no checkstyle trace: " + (checkstyle == null ? "timeout" : checkstyle.err));
		trace = t;
		return t;
	}

	private Runner.Result post(String... args) throws Exception {
		List<String> cmd = new ArrayList<>(List.of(r.post, trace.toString()));
		cmd.addAll(Arrays.asList(args));
		Runner.Result res = r.runFor(r.tmp.toFile(), cmd, Map.of("JCAL_CALIB_DIR", r.tmp.resolve("none").toString()),
				null, 120);
		if (res == null)
			throw new IllegalStateException("jcal-post " + cmd + " timed out");
		r.check(res.rc == 0, "jcal-post " + String.join(" ", args) + ": exit " + res.rc + ": " + res.err);
		return res;
	}

	/** The jcal-post notes of a run (the calibration note aside). */
	private static List<String> notes(Runner.Result res) {
		List<String> l = new ArrayList<>();
		for (String s : res.errLines())
			if (s.startsWith("jcal-post: note: ") && !s.contains("calibration table"))
				l.add(s);
		return l;
	}

	/** Exactly one note, about kind, naming the way to everything. */
	private void expectCutNote(String kind, Runner.Result res, String option) {
		List<String> n = notes(res);
		r.check(n.size() == 1 && n.get(0).startsWith("jcal-post: note: " + kind + ": ")
				&& n.get(0).contains("--all or " + option + " 0"), kind + ": one note saying what was cut: " + n);
	}

	/** Context lines of a text tree (those after a "Lvl" header), the sum of their calls, and the thread roots. */
	private static long[] textCalls(String text) {
		long calls = 0, rows = 0, roots = 0;
		boolean in = false;
		for (String l : text.split("\n")) {
			if (l.startsWith("Lvl ")) {
				in = true;
				continue;
			}
			if (l.isEmpty() || l.startsWith("Thread ")) {
				in = false;
				continue;
			}
			String[] f = l.trim().split(" +");
			if (in && f.length > 3) {
				calls += Long.parseLong(f[2]);
				rows++;
				roots += l.endsWith("<thread root>") ? 1 : 0;
			}
		}
		return new long[] {calls, rows, roots};
	}

	/** checkstyle's work on the files, counted exactly; the tree at least 100 000 contexts. */
	private boolean testRecorded() throws Exception {
		if (trace() == null)
			return false;
		long errors = checkstyle.out.lines().filter(l -> l.startsWith("[ERROR]")).count();
		r.check(errors > 0 && checkstyle.rc == errors, "checkstyle exit " + checkstyle.rc + " = its " + errors
				+ " errors: " + checkstyle.err);
		Map<String, Long> calls = r.flatCalls(trace, CS);
		r.expectExact("checkstyle's calls per file", Map.of(CS + "Checker.process", 1L, CS + "Checker.processFiles",
				1L, CS + "Checker.processFile", (long) FILES, CS + "JavaParser.parse", (long) FILES),
				filter(calls, CS + "Checker.process", CS + "Checker.processFiles", CS + "Checker.processFile",
						CS + "JavaParser.parse"));
		r.check(contexts() > 100000, "more than 100000 contexts: " + contexts());
		return true;
	}

	/** Calling contexts of the trace as the summary counts them (thread roots aside). */
	private long contexts() throws Exception {
		Matcher m = Pattern.compile("\"contexts\":([0-9]+)").matcher(
				post("--report", "summary", "--format", "json").out);
		return m.find() ? Long.parseLong(m.group(1)) : -1;
	}

	private static Map<String, Long> filter(Map<String, Long> m, String... keys) {
		Map<String, Long> out = new java.util.TreeMap<>();
		for (String k : keys)
			if (m.containsKey(k))
				out.put(k, m.get(k));
		return out;
	}

	/** Default text tree: a readable top, one note; --all: every context, every call. */
	private boolean testTree() throws Exception {
		if (trace() == null)
			return false;
		Runner.Result cut = post("--report", "tree");
		long lines = cut.out.lines().count();
		r.check(lines < TREE_LINES, "default tree: " + lines + " lines, under " + TREE_LINES);
		expectCutNote("tree", cut, "--min-pct");
		/* by cum: the first frame under main's root is checkstyle's Main.main */
		String first = cut.out.contains("<thread root>\n") ? cut.out.split("<thread root>\n", 2)[1].lines()
				.findFirst().orElse("") : "";
		r.check(first.endsWith("    " + CS + "Main.main"), "default tree by cum starts with Main.main: " + first);
		Runner.Result all = post("--report", "tree", "--all");
		Runner.Result zero = post("--report", "tree", "--min-pct", "0");
		long[] text = textCalls(all.out);
		long flat = 0;
		for (long c : r.flatCalls(trace, "").values())
			flat += c;
		r.check(notes(all).isEmpty() && notes(zero).isEmpty(), "--all and --min-pct 0: no note");
		r.check(all.out.equals(zero.out), "--all prints what --min-pct 0 prints");
		/* every context and every call: the summary's contexts and the flat calls, plus a root per thread */
		long ctx = contexts();
		r.check(text[1] == ctx + text[2] && text[0] == flat + text[2], "--all: " + text[1] + " contexts and "
				+ text[0] + " calls; the trace has " + ctx + " and " + flat + ", plus " + text[2] + " thread roots");
		long[] small = textCalls(cut.out);
		r.check(small[1] < ctx / 100 && small[0] < text[0], "the default tree is a top: " + small[1] + " of "
				+ text[1] + " contexts");
		/* --order call: the same contexts in another order */
		Runner.Result call = post("--report", "tree", "--order", "call");
		List<String> a = new ArrayList<>(cut.out.lines().toList()), b = new ArrayList<>(call.out.lines().toList());
		r.check(!a.equals(b), "--order call changes the order");
		a.replaceAll(String::trim);
		b.replaceAll(String::trim);
		java.util.Collections.sort(a);
		java.util.Collections.sort(b);
		r.check(a.equals(b), "--order call: the same lines");
		return true;
	}

	/** Every default export within its bound, saying what it cut. */
	private boolean testExports() throws Exception {
		if (trace() == null)
			return false;
		for (String kind : List.of("collapsed", "speedscope", "pprof", "html", "chrome")) {
			Path out = r.tmp.resolve("default." + kind);
			Runner.Result res = post("--report", kind, "-o", out.toString());
			long size = Files.size(out);
			r.check(size > 0 && size <= MB32 + MB32 / 4, kind + ": " + size + " bytes, at most about 32 MB");
			if (kind.equals("chrome")) {
				expectCutNote(kind, res, "--min-duration");
				Matcher m = Pattern.compile("\"spans\":([0-9]+)").matcher(Files.readString(out));
				r.check(m.find() && Long.parseLong(m.group(1)) <= SPANS, "chrome: at most " + SPANS + " spans");
			} else if (kind.equals("collapsed") || kind.equals("speedscope")) {
				expectCutNote(kind, res, "--min-pct");
			} else {
				/* html and pprof stay small at this size: nothing cut, no note */
				r.check(notes(res).isEmpty(), kind + ": nothing cut, no note: " + notes(res));
			}
			Files.delete(out);
		}
		/* --all: the whole sampled speedscope (about 116 MB here) */
		Path out = r.tmp.resolve("all.speedscope");
		Runner.Result res = post("--report", "speedscope", "--all", "-o", out.toString());
		r.check(notes(res).isEmpty() && Files.size(out) > MB32, "speedscope --all: everything, " + Files.size(out)
				+ " bytes, no note");
		Files.delete(out);
		return true;
	}

	/** Hot path: each level the child of largest cum, down from Main.main. */
	private boolean testHot() throws Exception {
		if (trace() == null)
			return false;
		List<List<String>> rows = Runner.csv(post("--report", "hot", "--format", "csv", "--thread", "main").out);
		r.check(rows.size() > 5 && rows.get(2).get(8).equals(CS + "Main.main"), "hot path through Main.main: "
				+ (rows.size() > 2 ? rows.get(2) : rows));
		long prev = Long.MAX_VALUE;
		for (int i = 1; i < rows.size(); i++) {
			long cum = Long.parseLong(rows.get(i).get(5));
			r.check(cum <= prev && Integer.parseInt(rows.get(i).get(1)) == i - 1, "hot path row " + i + ": " + rows.get(i));
			prev = cum;
		}
		return true;
	}

	/** Overloads of the JDK and checkstyle: one name each without --sig. */
	private boolean testOverloads() throws Exception {
		if (trace() == null)
			return false;
		List<List<String>> rows = Runner.csv(post("--report", "flat", "--format", "csv").out);
		Set<String> seen = new HashSet<>();
		List<String> twice = new ArrayList<>();
		int withParams = 0;
		for (List<String> row : rows.subList(1, rows.size())) {
			if (!seen.add(row.get(0)))
				twice.add(row.get(0));
			if (row.get(0).endsWith(")"))
				withParams++;
		}
		r.check(twice.isEmpty(), "flat rows named twice: " + twice.subList(0, Math.min(5, twice.size())));
		r.check(withParams > 100, "overloads carry their parameters: " + withParams);
		r.check(seen.contains("java.lang.String.valueOf(Object)") && seen.contains("java.lang.String.valueOf(int)"),
				"String.valueOf's overloads apart");
		return true;
	}

	static Runner.Tests tests(Runner r) {
		RealDefaults d = new RealDefaults(r);
		return new Runner.Tests()
				.addSkippable("real-checkstyle-recorded", d::testRecorded)
				.addSkippable("real-default-tree", d::testTree)
				.addSkippable("real-default-exports", d::testExports)
				.addSkippable("real-hot-path", d::testHot)
				.addSkippable("real-overloads", d::testOverloads);
	}
}
