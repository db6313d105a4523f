package jcalbench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * The sampler's side of bench/shape.sh (docs/accuracy.md, "Profile shape
 * against a sampler"): reads a JFR recording and counts the
 * jdk.ExecutionSample events of one thread by their top frame, the method
 * the thread was executing (self time). Names are package.Class.method
 * without parameters, so overloads merge, the form jcal-post's flat CSV
 * uses once its parameter lists are cut off.
 *
 * Usage: java -cp build/bench jcalbench.JfrShape FILE.jfr THREAD [UNDER [EXCLUDES]]
 *
 * UNDER, a package.Class.method name: only samples with that method on
 * their stack count (the program's main method: the JVM's start-up before
 * it and JFR's own work on the thread are left out, as jcal-post --include
 * leaves them out of the traced run). A stack cut at the recording's
 * stackdepth cannot show its bottom frames; such samples count as under
 * UNDER and are reported.
 *
 * EXCLUDES, comma-separated class name globs ("java.*" a prefix, else an
 * exact name): a sample counts for the first frame from the top whose class
 * matches none of them and is not hidden, as in mode=bci, where excluded
 * classes and hidden classes run without probes and their time is their
 * caller's base (docs/agent-internals.md, "What is instrumented"). A sample
 * with no such frame counts as "# unattributed".
 *
 * Output: "# samples N", "# truncated N", "# outside N", "# unattributed N",
 * then one "COUNT NAME" line per method, most samples first.
 */
public final class JfrShape {
	static String name(RecordedFrame f) {
		RecordedMethod m = f.getMethod();
		String cls = m.getType().getName();
		int slash = cls.indexOf('/'); // hidden classes: Foo$$Lambda$14/0x0000...
		if (slash >= 0)
			cls = cls.substring(0, slash);
		return cls + "." + m.getName();
	}

	static boolean excluded(RecordedFrame f, String[] excludes) {
		String cls = f.getMethod().getType().getName();
		if (cls.indexOf('/') >= 0)
			return true;
		for (String x : excludes)
			if (x.endsWith("*") ? cls.startsWith(x.substring(0, x.length() - 1)) : cls.equals(x))
				return true;
		return false;
	}

	static boolean under(List<RecordedFrame> frames, String method) {
		for (RecordedFrame f : frames)
			if (f.isJavaFrame() && name(f).equals(method))
				return true;
		return false;
	}

	public static void main(String[] args) throws IOException {
		if (args.length < 2 || args.length > 4) {
			System.err.println("usage: JfrShape FILE.jfr THREAD [UNDER [EXCLUDES]]");
			System.exit(2);
		}
		String thread = args[1];
		String method = args.length > 2 ? args[2] : null;
		String[] excludes = args.length > 3 ? args[3].split(",") : new String[0];
		Map<String, Long> counts = new TreeMap<>();
		long samples = 0, truncated = 0, outside = 0, unattributed = 0;
		try (RecordingFile rf = new RecordingFile(Path.of(args[0]))) {
			while (rf.hasMoreEvents()) {
				RecordedEvent e = rf.readEvent();
				if (!e.getEventType().getName().equals("jdk.ExecutionSample"))
					continue;
				RecordedThread t = e.getThread("sampledThread");
				RecordedStackTrace st = e.getStackTrace();
				if (t == null || st == null || !thread.equals(t.getJavaName()))
					continue;
				List<RecordedFrame> frames = st.getFrames();
				if (frames.isEmpty())
					continue;
				if (method != null && !under(frames, method)) {
					if (!st.isTruncated()) {
						outside++;
						continue;
					}
					truncated++;
				}
				RecordedFrame top = null;
				for (RecordedFrame f : frames)
					if (f.isJavaFrame() && !excluded(f, excludes)) {
						top = f;
						break;
					}
				if (top == null) {
					unattributed++;
					continue;
				}
				samples++;
				counts.merge(name(top), 1L, Long::sum);
			}
		}
		System.out.println("# samples " + samples);
		System.out.println("# truncated " + truncated);
		System.out.println("# outside " + outside);
		System.out.println("# unattributed " + unattributed);
		counts.entrySet().stream()
				.sorted((a, b) -> a.getValue().equals(b.getValue()) ? a.getKey().compareTo(b.getKey())
						: Long.compare(b.getValue(), a.getValue()))
				.forEach(c -> System.out.println(c.getValue() + " " + c.getKey()));
	}
}
