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

	/*
	 * The same events for JDKs before 22, in two forms in libjcal.so: the
	 * JNI one records the event and returns 0; HotSpot 17 run with
	 * -XX:+CriticalJNINatives calls, from compiled code, its
	 * JavaCritical_ twin instead, without a thread-state transition, which
	 * records the common event and returns 1 for the others (then the
	 * caller calls enter0 and the like). docs/agent-internals.md.
	 */
	static native int enter1(int id);

	static native int exit1(int id);

	static native int exitThrow1(int id);

	/** The bytes of hidden class b, defined by lookup's Lookup, with probes; null to keep b. */
	static native byte[] hidden(byte[] b, Class<?> lookup);

	static native void exit0(int id);

	static native void exitThrow0(int id);
}
