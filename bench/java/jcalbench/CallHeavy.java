package jcalbench;

/**
 * A call-heavy workload for the agent-cost benchmark: small static and
 * instance methods, recursion and a little real work per call, in a loop
 * whose size is the first argument (default 2,000,000 outer iterations).
 * Prints the loop's wall time and its thread CPU time.
 */
public final class CallHeavy {
	private int acc;

	private int add(int x) {
		acc += x;
		return acc;
	}

	private static int square(int x) {
		return x * x;
	}

	private static int fib(int n) {
		return n < 2 ? n : fib(n - 1) + fib(n - 2);
	}

	int step(int i) {
		return add(square(i & 15)) ^ fib(i & 7);
	}

	public static void main(String[] args) {
		int n = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
		CallHeavy c = new CallHeavy();
		java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
		int r = 0;
		long c0 = mx.getCurrentThreadCpuTime();
		long t0 = System.nanoTime();
		for (int i = 0; i < n; i++)
			r += c.step(i);
		long t1 = System.nanoTime();
		long c1 = mx.getCurrentThreadCpuTime();
		/* cpu_ms: the loop's thread CPU time, what a busy machine does not inflate */
		System.out.printf("callheavy n=%d result=%d time_ms=%.1f cpu_ms=%.1f%n", n, r, (t1 - t0) / 1e6,
				(c1 - c0) / 1e6);
	}
}
