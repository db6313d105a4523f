package jcalbench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * How much tracing slows a call down, as a function of what the callee
 * does (bench/dilation.sh, docs/history/accuracy.md). The callee runs a loop of K
 * iterations; for each K the program times N calls with thread CPU time,
 * ROUNDS times, and prints the median per call.
 *
 * Usage: java -Xint [agent] -cp build/bench jcalbench.Dilation plain ROUNDS
 *        java -Xint -agentpath:libjcal.so=trace,start=manual,... \
 *             -cp build/bench jcalbench.Dilation ab ROUNDS
 *
 * "plain" times every round as it runs. "ab" alternates an untraced round
 * with a traced one inside a jcal.Control region in the same JVM. Output
 * lines: "K NS_PER_CALL" (plain) or "K UNTRACED_NS TRACED_NS" (ab).
 */
public final class Dilation {
	static final int[] KS = {0, 2, 8, 32, 128, 512};
	static int sink;

	static int body(int k) {
		int s = 0;
		for (int i = 0; i < k; i++)
			s += i * i;
		return s;
	}

	static void run(int n, int k) {
		for (int i = 0; i < n; i++)
			sink += body(k);
	}

	static double median(long[] v, int n) {
		long[] c = v.clone();
		Arrays.sort(c);
		return (double) c[c.length / 2] / n;
	}

	public static void main(String[] args) {
		ThreadMXBean mx = ManagementFactory.getThreadMXBean();
		boolean ab = args[0].equals("ab");
		int rounds = Integer.parseInt(args[1]);
		run(1000, 1); /* warm-up: resolution of the call sites */
		for (int k : KS) {
			int n = 4000000 / (k + 10);
			long[] plain = new long[rounds], traced = new long[rounds];
			for (int r = 0; r < rounds; r++) {
				long t0 = mx.getCurrentThreadCpuTime();
				run(n, k);
				plain[r] = mx.getCurrentThreadCpuTime() - t0;
				if (!ab)
					continue;
				jcal.Control.start();
				t0 = mx.getCurrentThreadCpuTime();
				run(n, k);
				traced[r] = mx.getCurrentThreadCpuTime() - t0;
				jcal.Control.stop();
			}
			if (ab)
				System.out.printf("%d %.1f %.1f%n", k, median(plain, n), median(traced, n));
			else
				System.out.printf("%d %.1f%n", k, median(plain, n));
		}
	}
}
