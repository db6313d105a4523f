package jcal;

/**
 * The JNI side of the mode=bci probes (jcal.Tracker), implemented in
 * libjcal.so and registered by the agent before jcal.Tracker is
 * initialised (its initialiser asks for addresses()). Not an API.
 */
final class TrackerNatives {
	private TrackerNatives() {
	}

	/** The addresses of libjcal.so's critical probes, or null to use JNI only. */
	static native long[] addresses();

	static native void enter0(int id);

	static native void exit0(int id);

	static native void exitThrow0(int id);
}
