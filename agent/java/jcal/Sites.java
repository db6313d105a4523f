package jcal;

import java.lang.invoke.CallSite;
import java.lang.invoke.ConstantCallSite;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.MutableCallSite;
import java.util.Arrays;

/**
 * The call sites of the switchable probes (Tracker.site,
 * docs/agent-internals.md "Switchable probes"): one MutableCallSite per
 * method and probe kind, shared by every invokedynamic instruction of that
 * kind in the method (and by every copy of its class), whose target is the
 * probe (called with the id the instruction before pushed), the counting
 * probe, or nothing. Loaded on the first bootstrap, not with Tracker: a
 * program with no switchable probe never starts java.lang.invoke for them.
 * Not an API.
 *
 * The agent changes targets through on (every site, at start and stop),
 * throttle and close (a throttled method's sites); each setTarget makes
 * HotSpot deoptimise the compiled code that inlined the old target, which
 * the JIT then compiles again with the new one (an empty target inlines to
 * nothing).
 */
final class Sites {
	static final int ENTER = 0, EXIT = 1, EXIT_THROW = 2, COUNT = 3;
	private static final MethodType PROBE_TYPE = MethodType.methodType(void.class, int.class);
	private static final MethodHandle NONE = MethodHandles.empty(PROBE_TYPE);
	/* What a site may call, with the int the probe pushes (the method's id;
	 * a count site's: its slot): the probe of its kind (ENTER .. COUNT)
	 * directly; a throttled method's entry, COUNT_SLOT, the counting probe
	 * with its slot bound; and while its sites close (throttle, then
	 * close), COUNT_OPEN with its slot bound and EXIT_COUNTED,
	 * EXIT_THROW_COUNTED with the id and its slot bound. */
	private static final int COUNT_OPEN = 4, EXIT_COUNTED = 5, EXIT_THROW_COUNTED = 6, COUNT_SLOT = 7;
	private static final MethodHandle[] PROBE = new MethodHandle[7];

	static {
		MethodType t2 = PROBE_TYPE.appendParameterTypes(int.class);
		MethodHandles.Lookup l = MethodHandles.lookup();
		String[] name = { "enter", "exit", "exitThrow", "count", "countOpen", "exitCounted", "exitThrowCounted" };
		try {
			for (int k = 0; k < PROBE.length; k++)
				PROBE[k] = l.findStatic(Tracker.class, name[k], k < EXIT_COUNTED ? PROBE_TYPE : t2);
		} catch (ReflectiveOperationException e) {
			throw new LinkageError("jcal.Tracker has no probe", e);
		}
	}

	/* Guarded by Sites.class: the sites by kind and id (count: slot), what
	 * each calls (bound, as from bound()), the throttled methods (by id:
	 * their slot + 1, 0 not throttled), those whose sites are closing, and
	 * whether probes are on (a recording runs). */
	private static final MutableCallSite[][] SITES = new MutableCallSite[4][0];
	private static final long[][] BOUND = new long[4][0];
	private static int[] throttled = new int[0];
	private static boolean[] closing = new boolean[0];
	private static boolean on = true;
	private static final long NOTHING = -1;

	private Sites() {
	}

	static CallSite site(String kind, int id) {
		int k = "enter".equals(kind) ? ENTER
				: "exit".equals(kind) ? EXIT
						: "exitThrow".equals(kind) ? EXIT_THROW : "count".equals(kind) ? COUNT : -1;
		try {
			if (k < 0 || id < 0)
				return new ConstantCallSite(NONE);
			synchronized (Sites.class) {
				MutableCallSite[] s = SITES[k];
				if (id >= s.length) {
					int n = Math.max(id + 1, 2 * s.length);
					SITES[k] = s = Arrays.copyOf(s, n);
					BOUND[k] = Arrays.copyOf(BOUND[k], n);
				}
				if (s[id] == null) {
					long b = bound(k, id);
					s[id] = new MutableCallSite(handle(b));
					BOUND[k][id] = b;
				}
				return s[id];
			}
		} catch (Throwable t) {
			return new ConstantCallSite(NONE);
		}
	}

	/* What site (k, id) is to call now: NOTHING, or what (high half) with
	 * which slot bound (low half; 0 for the probes called directly). Holds
	 * Sites.class. */
	private static long bound(int k, int id) {
		int t = id < throttled.length ? throttled[id] : 0;
		if (!on)
			return NOTHING;
		if (k == COUNT || t == 0)
			return (long) k << 32;
		if (id < closing.length && closing[id])
			return (long) (k == ENTER ? COUNT_OPEN : k + 4) << 32 | (t - 1);
		if (k == ENTER)
			return (long) COUNT_SLOT << 32 | (t - 1);
		return NOTHING;
	}

	private static MethodHandle handle(long b) {
		if (b == NOTHING)
			return NONE;
		int p = (int) (b >>> 32), slot = (int) b;
		if (p <= COUNT)
			return PROBE[p];
		if (p == EXIT_COUNTED || p == EXIT_THROW_COUNTED)
			return MethodHandles.insertArguments(PROBE[p], 1, slot);
		MethodHandle c = MethodHandles.insertArguments(PROBE[p == COUNT_SLOT ? COUNT : COUNT_OPEN], 0, slot);
		return MethodHandles.dropArguments(c, 0, int.class);
	}

	/* Sets each site of kinds ks of method id to call what it is to call
	 * now, in that order: callers give the exits first, so that no call
	 * whose entry a new target does not record meets an exit that does
	 * (a call under way then loses at most its exit; the reports end a
	 * frame without exit at its caller's). Adds those that changed to
	 * changed. Holds Sites.class. */
	private static void retarget(java.util.List<MutableCallSite> changed, int id, int... ks) {
		for (int k : ks) {
			MutableCallSite[] s = SITES[k];
			if (id >= s.length || s[id] == null)
				continue;
			long b = bound(k, id);
			if (BOUND[k][id] != b) {
				s[id].setTarget(handle(b));
				BOUND[k][id] = b;
				changed.add(s[id]);
			}
		}
	}

	/* The new targets of the sites changed, seen by every thread (compiled
	 * code saw them already). Returns how many changed. */
	private static int sync(java.util.List<MutableCallSite> changed) {
		MutableCallSite.syncAll(changed.toArray(new MutableCallSite[0]));
		return changed.size();
	}

	/**
	 * Agent: every site calls its probe (true: a recording starts) or
	 * nothing (false: it stopped). Returns the number of sites changed.
	 */
	static synchronized int on(boolean v) {
		java.util.List<MutableCallSite> changed = new java.util.ArrayList<>();
		on = v;
		/* no call is under way with a recorded entry: nothing to close */
		Arrays.fill(closing, false);
		int max = 0;
		for (MutableCallSite[] s : SITES)
			max = Math.max(max, s.length);
		for (int id = 0; id < max; id++)
			retarget(changed, id, EXIT, EXIT_THROW, ENTER, COUNT);
		return sync(changed);
	}

	/**
	 * Agent: methods ids[i] are throttled: their entry sites only count
	 * their calls, in slot slots[i], and their exit sites close (call the
	 * exit probe only for the calls under way since before, whose entry
	 * was recorded) until close(ids) turns them to nothing. Returns the
	 * number of sites changed.
	 */
	static synchronized int throttle(int[] ids, int[] slots) {
		java.util.List<MutableCallSite> changed = new java.util.ArrayList<>();
		for (int i = 0; i < ids.length; i++) {
			int id = ids[i];
			if (id <= 0 || slots[i] < 0)
				continue;
			if (id >= throttled.length) {
				throttled = Arrays.copyOf(throttled, Math.max(id + 1, 2 * throttled.length));
				closing = Arrays.copyOf(closing, throttled.length);
			}
			throttled[id] = slots[i] + 1;
			closing[id] = true;
			retarget(changed, id, EXIT, EXIT_THROW, ENTER);
		}
		return sync(changed);
	}

	/**
	 * Agent: the exit sites of throttled methods ids[i] call nothing from
	 * now on (the calls under way when they were throttled have ended by
	 * now, or lose their exit). Returns the number of sites changed.
	 */
	static synchronized int close(int[] ids) {
		java.util.List<MutableCallSite> changed = new java.util.ArrayList<>();
		for (int id : ids)
			if (id > 0 && id < closing.length && closing[id]) {
				closing[id] = false;
				retarget(changed, id, EXIT, EXIT_THROW, ENTER);
			}
		return sync(changed);
	}
}
