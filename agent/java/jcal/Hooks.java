package jcal;

/**
 * Agent-internal: installed by libjcal.so with trace,recalibrate=end|both,
 * so that a calibration burst runs in a shutdown hook, at the end of the
 * traced run, while tracing is still on.
 */
final class Hooks implements Runnable {
	private Hooks() {
	}

	static void install() {
		Runtime.getRuntime().addShutdownHook(new Thread(new Hooks(), "jcal-recalibrate"));
	}

	@Override
	public void run() {
		recalibrate();
	}

	private static native void recalibrate();
}
