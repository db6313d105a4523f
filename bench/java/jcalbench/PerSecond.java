package jcalbench;

/**
 * Counts events and prints, for every wall-clock second that saw any,
 * "EPOCH_SECOND COUNT": a rate over time for bench/live-throughput.sh.
 */
final class PerSecond {
	private long second = System.currentTimeMillis() / 1000, count;

	/** One more event; prints the last second's count when a new one began. */
	void add() {
		count++;
		long now = System.currentTimeMillis() / 1000;
		if (now != second) {
			System.out.println(second + " " + count);
			System.out.flush();
			second = now;
			count = 0;
		}
	}
}
