package jcalbench;

/**
 * Monitor contention for the monitor events' cost (bench/monitor-cost.sh):
 * THREADS threads (second argument, default 4) each enter one shared monitor
 * N times (first argument, default 200,000) and do a little work inside, all
 * in one call of work(), so that mode=bci has no probe inside the loop and
 * mode=events none but the loop's few calls. Prints the wall time of the
 * whole (wall_ms) and the threads' CPU time in all (cpu_ms).
 */
public final class Contention {
	private static final Object LOCK = new Object();
	private static long shared;

	private static void work(int n) {
		for (int i = 0; i < n; i++) {
			synchronized (LOCK) {
				long s = shared;
				for (int k = 0; k < 20; k++)
					s = s * 31 + k;
				shared = s;
			}
		}
	}

	public static void main(String[] args) throws Exception {
		int n = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
		int threads = args.length > 1 ? Integer.parseInt(args[1]) : 4;
		java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
		long[] cpu = new long[threads];
		Thread[] t = new Thread[threads];
		long t0 = System.nanoTime();
		for (int i = 0; i < threads; i++) {
			final int k = i;
			t[i] = new Thread(() -> {
				long c0 = mx.getCurrentThreadCpuTime();
				work(n);
				cpu[k] = mx.getCurrentThreadCpuTime() - c0;
			});
			t[i].start();
		}
		long sum = 0;
		for (int i = 0; i < threads; i++) {
			t[i].join();
			sum += cpu[i];
		}
		long t1 = System.nanoTime();
		System.out.printf("wall_ms=%.3f cpu_ms=%.3f%n", (t1 - t0) / 1e6, sum / 1e6);
	}
}
