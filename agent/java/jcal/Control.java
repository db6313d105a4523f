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

	/** Enters a region: tracing of this thread is on until the matching stop(). */
	public static native void start();

	/** Leaves a region: tracing of this thread stops when no region is left open. */
	public static native void stop();

	/** Records a labelled point in this thread's trace (shown by jcal-post). */
	public static native void mark(String label);
}
