package jcal;

/**
 * The probes of mode=bci (agent/bci/bci_agent.c). The agent rewrites every
 * instrumented method so that it calls enter(id) at its start, exit(id)
 * before each return and exitThrow(id) in a catch-all handler that rethrows;
 * id is the method id the agent assigned when it rewrote the class. The
 * natives are implemented in libjcal.so and registered at VMInit; the
 * rewriter never instruments this class. Not an API: do not call these.
 */
public final class Tracker {
	private Tracker() {
	}

	/** Entry of the instrumented method id. */
	public static native void enter(int id);

	/** Normal exit of method id. */
	public static native void exit(int id);

	/** Exit of method id popped by an exception (rethrown after this call). */
	public static native void exitThrow(int id);
}
