package jcaltest21;

/**
 * Virtual threads (JDK 21+): N of them, vt-k calls leaf() exactly k times
 * and yields every 7 calls, so each is unmounted and remounted, possibly on
 * the other carrier. Run with two carriers.
 *
 * Usage: VThreads N
 */
public final class VThreads {
	static volatile long sink;

	static void leaf(int x) {
		sink += x;
	}

	static void work(int k) {
		for (int i = 0; i < k; i++) {
			leaf(i);
			if (i % 7 == 6)
				Thread.yield();
		}
	}

	public static void main(String[] args) throws InterruptedException {
		int n = Integer.parseInt(args[0]);
		Thread[] t = new Thread[n];
		for (int k = 1; k <= n; k++) {
			final int c = k;
			t[k - 1] = Thread.ofVirtual().name("vt-" + k).unstarted(() -> work(c));
		}
		for (Thread x : t)
			x.start();
		for (Thread x : t)
			x.join();
		System.out.println("vthreads " + sink);
	}
}
