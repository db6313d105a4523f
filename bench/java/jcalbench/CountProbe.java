package jcalbench;

/**
 * The counting probe of a throttled method (bench/count-probe.sh): THREADS
 * threads each call a static tiny(int) ROUNDS x 10,000 times from a
 * compiled loop, after a warm-up long enough for throttle= to take tiny()'s
 * full probes out (it keeps the one that counts its calls). Prints the
 * best of 5 runs in ns a call, and the calls made, which the recording's
 * flat report must give exactly.
 */
public final class CountProbe {
	static long sink;

	static int tiny(int x) {
		return x * 31 + 7;
	}

	static long loop(int n, int seed) {
		long s = 0;
		for (int i = 0; i < n; i++)
			s += tiny(seed + i);
		return s;
	}

	public static void main(String[] a) throws Exception {
		int threads = Integer.parseInt(a[0]);
		int rounds = a.length > 1 ? Integer.parseInt(a[1]) : 2000;
		long calls = 0;
		for (int r = 0; r < 2000; r++)
			sink += loop(1000, r);
		calls += 2000L * 1000;
		Thread.sleep(1500); /* the throttle thread's batch */
		double best = Double.MAX_VALUE;
		for (int rep = 0; rep < 5; rep++) {
			Thread[] ts = new Thread[threads];
			long t0 = System.nanoTime();
			for (int t = 0; t < threads; t++) {
				final int k = t;
				ts[t] = new Thread(() -> {
					long s = 0;
					for (int r = 0; r < rounds; r++)
						s += loop(10000, r + k);
					synchronized (CountProbe.class) {
						sink += s;
					}
				});
				ts[t].start();
			}
			for (Thread t : ts)
				t.join();
			best = Math.min(best, (System.nanoTime() - t0) / (threads * (double) rounds * 10000));
			calls += threads * (long) rounds * 10000;
		}
		System.out.printf("threads=%d ns_per_call=%.2f tiny_calls=%d sink=%d%n", threads, best, calls, sink);
	}
}
