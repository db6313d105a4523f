package bcicheck;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import jcal.Tracker;

/**
 * Runs each subject class's run() twice: as compiled (ORIG) and as rewritten
 * by jcal-bci-rewrite (REWRITTEN, loaded by its own class loader, so the JVM
 * verifies it), and checks: same result, probes balanced on every method,
 * exact counts for chosen methods.
 *
 * Usage: java -Xverify:all -cp HARNESS bcicheck.BciCheck MAP ORIG REWRITTEN CLASS...
 * Ends with "bci: N passed, N failed".
 */
public final class BciCheck {
	private static int passed, failed;
	private static final Map<String, Integer> ids = new HashMap<>();
	private static final Map<Integer, String> names = new HashMap<>();
	/* ids of the methods that only count their calls (MAP lines "cID ...") */
	private static final java.util.Set<Integer> counted = new java.util.HashSet<>();

	/* class name desc -> enters, exits, exitThrows */
	private static final Object[][] EXPECT = {
		{ "bcitest/Basics fib (I)I", 1973, 1973, 0 },
		{ "bcitest/Basics empty ()V", 10, 10, 0 },
		{ "bcitest/Basics <clinit> ()V", 1, 1, 0 },
		{ "bcitest/Basics add (J)V", 100, 100, 0 },
		{ "bcitest/Basics earlyReturns (I)I", 5, 5, 0 },
		{ "bcitest/Basics <init> ()V", 1, 1, 0 },
		{ "bcitest/Exceptions depth (I)I", 15, 0, 15 },
		{ "bcitest/Exceptions catchAt (I)I", 5, 5, 0 },
		{ "bcitest/Exceptions syncMethodThrow ()V", 1, 0, 1 },
		{ "bcitest/Exceptions syncThrow (Z)V", 2, 1, 1 },
		{ "bcitest/Exceptions rethrow (I)V", 3, 1, 2 },
		{ "bcitest/Exceptions nested (I)I", 2, 2, 0 },
		{ "bcitest/Ctors$Derived <init> (Ljava/lang/String;)V", 2, 1, 1 },
		{ "bcitest/Ctors$Derived <init> (I)V", 4, 4, 0 },
		{ "bcitest/Ctors$Derived <init> (IZ)V", 8, 8, 0 },
		{ "bcitest/Ctors$Base <init> (I)V", 13, 13, 0 },
		{ "bcitest/Modern$Point <init> (II)V", 4, 3, 1 },
		{ "bcitest/Switches table (I)I", 8, 8, 0 },
		{ "bcitest/Switches lookup (I)I", 5, 5, 0 },
		{ "bcitest/Modern expr (I)I", 6, 6, 0 },
		{ "bcitest/Lambdas twice (I)I", 1, 1, 0 },
		{ "bcitest/Wide many (I)J", 2, 2, 0 },
		{ "bcitest/Big gotoWide (I)I", 2, 2, 0 },
		{ "bcitest/Big condWideFrame (I)I", 3, 3, 0 },
		{ "bcitest/Natives none ()V", 1, 0, 1 },
		{ "bcitest/Natives ints (IBCSZ)I", 1, 0, 1 },
		{ "bcitest/Natives wide (JDIJ)J", 1, 0, 1 },
		{ "bcitest/Natives fp (FD)D", 1, 0, 1 },
		{ "bcitest/Natives inst (Ljava/lang/String;[I[[Ljava/lang/Object;)Ljava/lang/String;", 1, 0, 1 },
		{ "bcitest/Natives sync (J)J", 1, 0, 1 },
		{ "bcitest/Natives arrays ([JLbcitest/Natives;)[Ljava/lang/Object;", 1, 0, 1 },
		{ "bcitest/Natives body ()I", 1, 1, 0 },
	};

	private static void check(boolean ok, String what) {
		if (ok) {
			passed++;
		} else {
			failed++;
			System.out.println("FAIL " + what);
		}
	}

	private static Object runIn(ClassLoader l, String cls) throws ReflectiveOperationException {
		try {
			return Class.forName(cls.replace('/', '.'), true, l).getMethod("run").invoke(null);
		} catch (InvocationTargetException e) {
			throw new RuntimeException(cls + ".run() threw", e.getCause());
		}
	}

	public static void main(String[] args) throws Exception {
		for (String line : Files.readAllLines(Path.of(args[0]))) {
			String[] f = line.split(" ", 2);
			boolean c = f[0].startsWith("c");
			int id = Integer.parseInt(c ? f[0].substring(1) : f[0]);
			ids.put(f[1], id);
			names.put(id, f[1]);
			if (c)
				counted.add(id);
		}
		ClassLoader parent = BciCheck.class.getClassLoader();
		URLClassLoader orig = new URLClassLoader(new URL[] { Path.of(args[1]).toUri().toURL() }, parent);
		URLClassLoader rewritten = new URLClassLoader(new URL[] { Path.of(args[2]).toUri().toURL() }, parent);
		Tracker.reset();
		for (int i = 3; i < args.length; i++) {
			String cls = args[i];
			Object want = runIn(orig, cls);
			check(Tracker.ENTERS.length > 0 && sum(Tracker.ENTERS) == 0 && sum(Tracker.COUNTS) == 0,
					cls + ": original classes call no probe");
			Object got;
			try {
				got = runIn(rewritten, cls);
			} catch (Throwable e) {
				check(false, cls + ": rewritten run() failed: " + e + (e.getCause() != null ? " / " + e.getCause() : ""));
				e.printStackTrace(System.out);
				continue;
			}
			check(want.equals(got), cls + ": same result\n  original:  " + want + "\n  rewritten: " + got);
			check(Tracker.errors == 0, cls + ": probes nest: " + Tracker.firstError);
			check(Tracker.depth() == 0, cls + ": no enter left open (" + Tracker.depth() + ")");
			boolean balanced = true;
			for (int id = 0; id < Tracker.MAX_ID; id++)
				if (counted.contains(id) && Tracker.ENTERS[id] + Tracker.EXITS[id] + Tracker.THROWS[id] != 0) {
					balanced = false;
					System.out.println("  " + names.get(id) + " is only counted, but ran enter/exit probes");
				} else if (!counted.contains(id) && Tracker.COUNTS[id] != 0) {
					balanced = false;
					System.out.println("  " + names.get(id) + " has all probes, but ran count");
				} else if (Tracker.ENTERS[id] != Tracker.EXITS[id] + Tracker.THROWS[id]) {
					balanced = false;
					System.out.println("  unbalanced " + names.get(id) + ": " + Tracker.ENTERS[id] + " enters, "
							+ Tracker.EXITS[id] + " exits, " + Tracker.THROWS[id] + " exitThrows");
				}
			check(balanced, cls + ": enters == exits + exitThrows for every method");
			check(sum(Tracker.ENTERS) + sum(Tracker.COUNTS) > 0, cls + ": probes ran");
			for (Object[] e : EXPECT) {
				String key = (String) e[0];
				if (!key.startsWith(cls + " ") && !key.startsWith(cls + "$"))
					continue;
				Integer id = ids.get(key);
				if (id == null) {
					check(false, key + ": not instrumented");
					continue;
				}
				long[] got3 = { Tracker.ENTERS[id], Tracker.EXITS[id], Tracker.THROWS[id] };
				boolean ok = got3[0] == (Integer) e[1] && got3[1] == (Integer) e[2] && got3[2] == (Integer) e[3];
				if (counted.contains(id)) { /* only counted: its calls, nothing else */
					ok = Tracker.COUNTS[id] == (Integer) e[1];
					got3 = new long[] { Tracker.COUNTS[id], 0, 0 };
				}
				check(ok, key + ": expected " + e[1] + "/" + e[2] + "/" + e[3] + " enters/exits/exitThrows, got "
						+ got3[0] + "/" + got3[1] + "/" + got3[2]);
			}
			System.out.println("ok   " + cls + ": " + sum(Tracker.ENTERS) + " enters, " + sum(Tracker.COUNTS) + " counts");
			Tracker.reset();
		}
		System.out.println("bci: " + passed + " passed, " + failed + " failed");
		System.exit(failed == 0 ? 0 : 1);
	}

	private static long sum(long[] a) {
		long s = 0;
		for (long v : a)
			s += v;
		return s;
	}
}
