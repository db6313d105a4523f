package jcaltest.support;

/**
 * For workloads that test a periodic recalibration burst: waits until the
 * agent's burst has been seen and has ended. Kept out of jcaltest.work so
 * that its own calls are not among the counts the tests assert.
 */
public final class BurstWait {
	private BurstWait() {
	}

	/* A burst runs the workload on the agent's jcal-calibrator thread, then
	 * its env timer in a child JVM. */
	private static boolean burstRunning() {
		for (Thread t : Thread.getAllStackTraces().keySet())
			if (t.getName().equals("jcal-calibrator"))
				return true;
		return ProcessHandle.current().children().findAny().isPresent();
	}

	public static void sleepUntilBurstEnded(long ms) throws InterruptedException {
		long start = System.nanoTime(), end = start + ms * 1_000_000L, limit = end + 60_000_000_000L;
		boolean seen = false;
		for (long now = start; now < limit; now = System.nanoTime()) {
			boolean alive = burstRunning();
			seen |= alive;
			if (now >= end && seen && !alive)
				return;
			Thread.sleep(100);
		}
	}
}
