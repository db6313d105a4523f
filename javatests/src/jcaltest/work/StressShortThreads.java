package jcaltest.work;

/**
 * Stress: THREADS short-lived threads, BATCH alive at a time; thread short-i
 * calls leaf() calls(i) times from its run().
 */
public class StressShortThreads {
	public static final int THREADS = 3000;
	static final int BATCH = 50;
	static volatile long sink;

	public static int calls(int i) {
		return i % 7 + 1;
	}

	static void leaf(int x) {
		sink += x;
	}

	static final class Worker implements Runnable {
		private final int i;

		Worker(int i) {
			this.i = i;
		}

		@Override
		public void run() {
			int n = calls(i);
			for (int c = 0; c < n; c++)
				leaf(c);
		}
	}

	public static void main(String[] args) throws InterruptedException {
		for (int b = 0; b < THREADS; b += BATCH) {
			Thread[] t = new Thread[BATCH];
			for (int j = 0; j < BATCH; j++) {
				t[j] = new Thread(new Worker(b + j), "short-" + (b + j));
				t[j].start();
			}
			for (Thread x : t)
				x.join();
		}
		System.out.println("short done " + sink);
	}
}
