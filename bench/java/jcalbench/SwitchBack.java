package jcalbench;

/**
 * A loop that never returns, in the same class as the small method with a
 * loop that it calls (the "bodies" shape): it prints its speed, in calls
 * per microsecond, for each window of WINDOW_MS, for SECONDS. Run without
 * agent it gives the JIT's speed; with the agent, how that speed goes
 * while the method is recorded, after throttle= takes its probes, and
 * after the recording stops (duration=), which bench/switch-back.sh
 * compares. Not a test: it prints, never fails.
 */
public final class SwitchBack {
	static volatile int sink;

	static int body(int x) {
		int s = 0;
		for (int i = 0; i < 16; i++)
			s += (x ^ i) * 31;
		return s;
	}

	public static void main(String[] args) {
		double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 6;
		long windowNs = (args.length > 1 ? Long.parseLong(args[1]) : 250) * 1_000_000L;
		long start = System.nanoTime(), end = start + (long) (seconds * 1e9), from = start;
		long calls = 0;
		int s = 0;
		for (int i = 0;; i++) {
			s += body(i);
			calls++;
			if ((i & 0xfff) == 0) {
				long now = System.nanoTime();
				if (now - from >= windowNs) {
					System.out.printf("window t=%.2f s calls_per_us=%.2f%n", (now - start) / 1e9,
							calls * 1e3 / (now - from));
					from = now;
					calls = 0;
					if (now >= end)
						break;
				}
			}
		}
		sink = s;
	}
}
