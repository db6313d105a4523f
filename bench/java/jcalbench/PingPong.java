package jcalbench;

/**
 * Two threads hand a turn to each other N times (first argument, default
 * 100,000) through Object.wait and notify on one monitor, for the monitor
 * events' cost (bench/monitor-cost.sh): every hand-over is one wait of the
 * thread whose turn it is not (a MonitorWait/MonitorWaited pair, and a
 * contended enter when it wakes before the other left the monitor), and
 * the callbacks of each lie on the path from one turn to the next, so what
 * they cost shows in the wall time per hand-over. Prints wall_ms and the
 * two threads' CPU time in all (cpu_ms).
 */
public final class PingPong {
	private static final Object LOCK = new Object();
	private static int turn;

	private static void play(int me, int n) throws InterruptedException {
		for (int i = 0; i < n; i++) {
			synchronized (LOCK) {
				while (turn != me)
					LOCK.wait();
				turn = 1 - me;
				LOCK.notify();
			}
		}
	}

	public static void main(String[] args) throws Exception {
		int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
		java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
		long[] cpu = new long[2];
		Thread[] t = new Thread[2];
		long t0 = System.nanoTime();
		for (int i = 0; i < 2; i++) {
			final int me = i;
			t[i] = new Thread(() -> {
				long c0 = mx.getCurrentThreadCpuTime();
				try {
					play(me, n);
				} catch (InterruptedException e) {
					throw new RuntimeException(e);
				}
				cpu[me] = mx.getCurrentThreadCpuTime() - c0;
			});
			t[i].start();
		}
		t[0].join();
		t[1].join();
		long t1 = System.nanoTime();
		System.out.printf("wall_ms=%.3f cpu_ms=%.3f%n", (t1 - t0) / 1e6, (cpu[0] + cpu[1]) / 1e6);
	}
}
