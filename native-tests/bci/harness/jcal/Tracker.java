package jcal;

import java.lang.invoke.CallSite;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.MutableCallSite;
import java.util.ArrayDeque;

/* Test stand-in for the agent's tracker: counts the probes of rewritten
 * classes per method id and checks, per thread, that every exit or exitThrow
 * closes the innermost open enter of the same id. count(id) is the only
 * probe of a method that is only counted (jcal-bci-rewrite -c). With -i the
 * probes are invokedynamic call sites that site() binds to the same
 * methods, called with the id pushed before them. */
public final class Tracker {
	public static final int MAX_ID = 1 << 17;
	public static final long[] ENTERS = new long[MAX_ID], EXITS = new long[MAX_ID], THROWS = new long[MAX_ID],
			COUNTS = new long[MAX_ID];
	public static int errors;
	public static String firstError;
	private static final ThreadLocal<ArrayDeque<Integer>> STACK = new ThreadLocal<>();

	private Tracker() {
	}

	private static ArrayDeque<Integer> stack() {
		ArrayDeque<Integer> s = STACK.get();
		if (s == null) {
			s = new ArrayDeque<>();
			STACK.set(s);
		}
		return s;
	}

	private static void error(String msg) {
		if (errors++ == 0)
			firstError = msg + " in " + Thread.currentThread().getName();
	}

	private static void close(int id, String what) {
		Integer top = stack().poll();
		if (top == null)
			error(what + "(" + id + ") with no open enter");
		else if (top != id)
			error(what + "(" + id + ") closes enter(" + top + ")");
	}

	public static synchronized void enter(int id) {
		ENTERS[id]++;
		stack().push(id);
	}

	public static synchronized void count(int id) {
		COUNTS[id]++;
	}

	public static synchronized void exit(int id) {
		EXITS[id]++;
		close(id, "exit");
	}

	public static synchronized void exitThrow(int id) {
		THROWS[id]++;
		close(id, "exitThrow");
	}

	public static final long[] SITES = new long[4];

	/* Bootstrap of a switchable probe (jcal-bci-rewrite -i): KIND(I)V calls KIND(id). */
	public static CallSite site(MethodHandles.Lookup lookup, String kind, MethodType type, int id)
			throws ReflectiveOperationException {
		MethodHandle h = MethodHandles.lookup().findStatic(Tracker.class, kind,
				MethodType.methodType(void.class, int.class));
		synchronized (Tracker.class) {
			SITES[kind.equals("enter") ? 0 : kind.equals("exit") ? 1 : kind.equals("exitThrow") ? 2 : 3]++;
		}
		return new MutableCallSite(h.asType(type));
	}

	/* Open enters of the calling thread. */
	public static synchronized int depth() {
		return stack().size();
	}

	public static synchronized void reset() {
		java.util.Arrays.fill(ENTERS, 0);
		java.util.Arrays.fill(EXITS, 0);
		java.util.Arrays.fill(THROWS, 0);
		java.util.Arrays.fill(COUNTS, 0);
		errors = 0;
		firstError = null;
		stack().clear();
	}
}
