package jcal;

/**
 * Region control for jcal (README.md, "Profiling a region"): profile only
 * the code you care about.
 *
 * The agent puts this class on the boot class path and implements its
 * methods in libjcal.so; compile against build/jcal-agent.jar. Regions are
 * per thread and nest: tracing of the calling thread is on while it is
 * inside at least one start()/stop() pair. With the agent option
 * start=manual a thread is traced only inside regions (and runs untraced,
 * at full speed, outside them); by default every thread is traced from its
 * start and stop() pauses it. The untraced time between a stop() and the
 * next start() is charged to no method.
 */
public final class Control {
	private Control() {
	}

	/* Set by the agent once it has bound the natives below. */
	private static volatile boolean bound;

	/** Enters a region: tracing of this thread is on until the matching stop(). */
	public static void start() {
		if (bound)
			start0();
	}

	/** Leaves a region: tracing of this thread stops when no region is left open. */
	public static void stop() {
		if (bound)
			stop0();
	}

	/** Records a labelled point in this thread's trace (shown by jcal-post). */
	public static void mark(String label) {
		if (bound)
			mark0(label);
	}

	private static native void start0();

	private static native void stop0();

	private static native void mark0(String label);
}
