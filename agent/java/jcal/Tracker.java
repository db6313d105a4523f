package jcal;

import java.lang.invoke.CallSite;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The probes of mode=bci (agent/bci/bci_agent.c). The agent rewrites every
 * instrumented method so that it calls enter(id) at its start, exit(id)
 * before each return and exitThrow(id) in a catch-all handler that rethrows;
 * id is the method id the agent assigned when it rewrote the class. The
 * rewriter never instruments this class. Not an API: do not call these.
 *
 * How a probe reaches libjcal.so (docs/agent-internals.md, "Probe calls"):
 * on JDK 22 and later, through a critical foreign-function downcall
 * (jcal.FfmProbes), which compiled code makes without a thread-state
 * transition; the native side handles the common event there and answers
 * 1 for the rest, which then takes the JNI native (jcal.TrackerNatives), as every
 * probe does on older JDKs or when the downcalls are not available.
 *
 * A throttled method (the agent's throttle= option), and a tiny one with
 * tiny=count, keeps one probe only,
 * count(slot) at its start, which counts its calls in Java, exactly and
 * cheaply enough for the JIT to inline it: each thread counts in an array
 * of its own (no atomic, no cache line shared with another thread), which
 * the agent sums when a recording starts and ends (counts); the agent
 * says how many slots exist (counters) before code calls count with them.
 *
 * In classes of version 51 and later each probe is an invokedynamic call
 * site (docs/agent-internals.md, "Switchable probes"): site bootstraps it
 * with the method's id and it calls enter, exit, exitThrow or count (with
 * the id pushed before it) through a MutableCallSite that jcal.Sites binds
 * to the probe or to nothing. The
 * agent switches every site off at stop (on again at the next start) and
 * a throttled method's to its counter alone (throttle), which the JIT
 * sees as a change of a constant: it recompiles the code that inlined the
 * site, and the class is never redefined.
 */
public final class Tracker {
	private static final ClassLoader PLATFORM = ClassLoader.getPlatformClassLoader();
	private static final MethodHandle ENTER, EXIT, EXIT_THROW;

	static {
		MethodHandle[] h = downcalls();
		ENTER = h == null ? null : h[0];
		EXIT = h == null ? null : h[1];
		EXIT_THROW = h == null ? null : h[2];
	}

	private Tracker() {
	}

	/** The three downcalls, or null (before JDK 22, or none offered by the agent). */
	private static MethodHandle[] downcalls() {
		long[] at = TrackerNatives.addresses();
		if (at == null || Runtime.version().feature() < 22)
			return null;
		try {
			java.lang.reflect.Method m = Class.forName("jcal.FfmProbes").getDeclaredMethod("downcalls", long[].class);
			MethodHandle[] h = (MethodHandle[]) m.invoke(null, (Object) at);
			/*
			 * HotSpot customises a method handle (spins a class for it) after
			 * ~127 calls from code that does not inline it: do that here, on a
			 * shallow stack, rather than in the program's deepest recursion.
			 * Id 0 is no method: the native side returns 1 and does nothing.
			 */
			for (int i = 0; i < 256; i++)
				for (MethodHandle p : h)
					if ((int) p.invokeExact(0) == 0)
						break;
			return h;
		} catch (Throwable e) {
			return null;
		}
	}

	/**
	 * Bootstrap of a switchable probe: the call site of probe kind (enter,
	 * exit, exitThrow, count) of method id (count: counter slot id), type
	 * (I)V. Never throws: on any failure the site does nothing.
	 */
	public static CallSite site(MethodHandles.Lookup lookup, String kind, MethodType type, int id) {
		try {
			return Sites.site(kind, id);
		} catch (Throwable t) { /* jcal.Sites could not be initialised */
			return new java.lang.invoke.ConstantCallSite(MethodHandles.empty(type));
		}
	}

	/** Entry of the instrumented method id. */
	public static void enter(int id) {
		if (ENTER != null) {
			try {
				if ((int) ENTER.invokeExact(id) == 0)
					return;
			} catch (Throwable t) {
				// a downcall does not throw; the JNI probe below records the event
			}
		} else if (TrackerNatives.enter1(id) == 0) {
			return;
		}
		TrackerNatives.enter0(id);
	}

	/**
	 * One thread's calls of the throttled methods, by slot. Only its own
	 * thread writes them (no atomic, no shared cache line); it replaces c
	 * by a longer copy when a slot is past its end.
	 */
	private static final class Counts {
		/* A plain field, as its elements: counts() reads them without a
		 * barrier (a count a moment old in a report taken while the thread
		 * runs), and a loop calling a counted method keeps it in a register. */
		long[] c;
		/* calls under way of the methods being throttled, by slot (countOpen) */
		int[] open = new int[0];
		final java.lang.ref.WeakReference<Thread> owner;
		final long tid;

		Counts(Thread t, int n) {
			c = new long[n];
			owner = new java.lang.ref.WeakReference<>(t);
			tid = t.getId();
		}
	}

	private static final ThreadLocal<Counts> MINE = new ThreadLocal<>();
	/* Each thread's Counts by its thread id (never reused in a JVM), for ids
	 * below BY_TID_MAX; written under ALL. A plain field: the counting probe
	 * finds its thread's counts with loads the JIT can take out of a loop
	 * (a ThreadLocal lookup it cannot), so a loop over a throttled method
	 * keeps nearly its speed. A thread that does not see its row, or has a
	 * larger id, goes through MINE. */
	private static final int BY_TID_MAX = 4096;
	private static Counts[] byTid = new Counts[0];
	/* Guarded by ALL: every thread's counts, the calls of the threads gone
	 * (their counts folded in by sweep), the slots the agent made. */
	private static final java.util.ArrayList<Counts> ALL = new java.util.ArrayList<>();
	private static long[] gone = new long[0];
	private static int slots, sweepAt = 64;

	/** Entry of a throttled method: one more call of its counter's slot. */
	public static void count(int slot) {
		Counts k = mine();
		if (k != null) {
			long[] c = k.c;
			if (slot < c.length) {
				c[slot]++;
				return;
			}
		}
		countSlow(slot);
	}

	/* This thread's counts, or null before its first count. */
	private static Counts mine() {
		Counts[] b = byTid;
		long tid = Thread.currentThread().getId();
		Counts k = tid < b.length ? b[(int) tid] : null;
		return k != null ? k : MINE.get();
	}

	/**
	 * Entry of a method whose probes are being switched off (jcal.Sites):
	 * counts the call, and that it is under way, so that its exit is not
	 * taken for the exit of a call that began before, whose entry was
	 * recorded (exitCounted).
	 */
	public static void countOpen(int slot) {
		Counts k = mine();
		if (k != null && slot >= 0 && slot < k.c.length)
			k.c[slot]++;
		else {
			countSlow(slot);
			k = mine();
		}
		if (k == null || slot < 0)
			return;
		if (slot >= k.open.length)
			k.open = java.util.Arrays.copyOf(k.open, Math.max(slot + 1, 2 * k.open.length));
		k.open[slot]++;
	}

	/* Whether the exit is that of a call countOpen counted (then no longer under way). */
	private static boolean closeCounted(int slot) {
		Counts k = mine();
		if (k == null || slot < 0 || slot >= k.open.length || k.open[slot] == 0)
			return false;
		k.open[slot]--;
		return true;
	}

	/** Normal exit of method id while its probes are being switched off: see countOpen. */
	public static void exitCounted(int id, int slot) {
		if (!closeCounted(slot))
			exit(id);
	}

	/** Exit by a throw of method id while its probes are being switched off. */
	public static void exitThrowCounted(int id, int slot) {
		if (!closeCounted(slot))
			exitThrow(id);
	}

	/* A thread's first count (its counts registered) or a slot past its array. */
	private static void countSlow(int slot) {
		if (slot < 0)
			return;
		Counts k = MINE.get();
		if (k == null) {
			synchronized (ALL) {
				if (ALL.size() >= sweepAt) {
					sweep();
					sweepAt = Math.max(64, 2 * ALL.size());
				}
				k = new Counts(Thread.currentThread(), Math.max(slots, slot + 1));
				ALL.add(k);
				if (k.tid >= 0 && k.tid < BY_TID_MAX) {
					Counts[] b = byTid;
					if (k.tid >= b.length)
						b = java.util.Arrays.copyOf(b, (int) Math.min(BY_TID_MAX, Math.max(k.tid + 1, 2L * b.length)));
					b[(int) k.tid] = k;
					byTid = b;
				}
			}
			MINE.set(k);
		}
		long[] c = k.c;
		if (slot >= c.length)
			k.c = c = java.util.Arrays.copyOf(c, Math.max(slot + 1, 2 * c.length));
		c[slot]++;
	}

	/* Folds the counts of the threads that ended into gone. Holds ALL. */
	private static void sweep() {
		for (java.util.Iterator<Counts> it = ALL.iterator(); it.hasNext();) {
			Counts k = it.next();
			Thread t = k.owner.get();
			if (t != null && t.isAlive())
				continue;
			if (k.tid >= 0 && k.tid < byTid.length && byTid[(int) k.tid] == k)
				byTid[(int) k.tid] = null;
			long[] c = k.c;
			if (c.length > gone.length)
				gone = java.util.Arrays.copyOf(gone, c.length);
			for (int i = 0; i < c.length; i++)
				gone[i] += c[i];
			it.remove();
		}
	}

	/** Agent: the slots 0 .. n-1 exist (a thread's first array has them all). */
	static void counters(int n) {
		synchronized (ALL) {
			slots = Math.max(slots, n);
		}
	}

	/**
	 * Agent: each slot's calls so far, over every thread: every slot a
	 * thread counted, announced by counters or not (a tiny method's slot is
	 * given in the class file hook, which calls no Java).
	 */
	static long[] counts() {
		synchronized (ALL) {
			sweep();
			int n = Math.max(gone.length, slots);
			for (Counts k : ALL)
				n = Math.max(n, k.c.length);
			long[] v = java.util.Arrays.copyOf(gone, n);
			for (Counts k : ALL) {
				long[] c = k.c;
				for (int i = 0; i < c.length && i < v.length; i++)
					v[i] += c[i];
			}
			return v;
		}
	}

	/** Normal exit of method id. */
	public static void exit(int id) {
		if (EXIT != null) {
			try {
				if ((int) EXIT.invokeExact(id) == 0)
					return;
			} catch (Throwable t) {
				// as in enter
			}
		} else if (TrackerNatives.exit1(id) == 0) {
			return;
		}
		TrackerNatives.exit0(id);
	}

	/** The flag of a hidden class in JavaLangAccess.defineClass (MethodHandleNatives.Constants.HIDDEN_CLASS). */
	private static final int HIDDEN_CLASS = 0x2;

	/**
	 * Called first by the JDK's JavaLangAccess.defineClass, which the agent
	 * rewrites (agent/bci/bci_hidden.h), with the bytes of each class that
	 * MethodHandles.Lookup defines: a hidden class of a class the filters
	 * select (a lambda proxy, a class of Lookup.defineHiddenClass) comes back
	 * with probes, since the JVM offers hidden classes to no
	 * ClassFileLoadHook. Any other class, those of the JDK's own class
	 * loaders (boot, platform) or any failure keeps its bytes.
	 */
	public static byte[] hidden(byte[] b, Class<?> lookup, int flags) {
		if ((flags & HIDDEN_CLASS) == 0 || b == null || lookup == null)
			return b;
		/* the JDK's own hidden classes (LambdaForms, its lambdas) never: the probes use them */
		ClassLoader l = lookup.getClassLoader();
		if (l == null || l == PLATFORM)
			return b;
		try {
			byte[] r = TrackerNatives.hidden(b, lookup);
			return r != null ? r : b;
		} catch (Throwable t) {
			return b;
		}
	}

	/** Exit of method id popped by an exception (rethrown after this call). */
	public static void exitThrow(int id) {
		if (EXIT_THROW != null) {
			try {
				if ((int) EXIT_THROW.invokeExact(id) == 0)
					return;
			} catch (Throwable t) {
				// as in enter
			}
		} else if (TrackerNatives.exitThrow1(id) == 0) {
			return;
		}
		TrackerNatives.exitThrow0(id);
	}

}
