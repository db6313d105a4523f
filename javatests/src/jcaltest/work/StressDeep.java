package jcaltest.work;

import java.util.concurrent.CountDownLatch;

/**
 * Stress: 64 platform threads at once, each recursing deeper than the
 * trace's 1024-frame shadow stack and unwinding by an exception. Thread
 * deep-k runs rounds(k) rounds of recurse(depth(k)) (depth(k) + 1 calls,
 * the last one throws Boom), each caught in round().
 */
public class StressDeep {
	public static final int THREADS = 64;

	public static int depth(int k) {
		return 500 + 10 * k;
	}

	public static int rounds(int k) {
		return 3 + k % 5;
	}

	static final class Boom extends RuntimeException {
		private static final long serialVersionUID = 1L;

		Boom() {
			super(null, null, false, false); /* no stack trace: no hidden calls */
		}
	}

	static int recurse(int n) {
		if (n == 0)
			throw new Boom();
		return recurse(n - 1) + 1;
	}

	static int round(int depth) {
		try {
			return recurse(depth);
		} catch (Boom b) {
			return -1;
		}
	}

	static final class Worker implements Runnable {
		private final int k;
		private final CountDownLatch go;

		Worker(int k, CountDownLatch go) {
			this.k = k;
			this.go = go;
		}

		@Override
		public void run() {
			try {
				go.await();
			} catch (InterruptedException e) {
				return;
			}
			int rounds = rounds(k), depth = depth(k);
			for (int r = 0; r < rounds; r++)
				round(depth);
		}
	}

	public static void main(String[] args) throws InterruptedException {
		CountDownLatch go = new CountDownLatch(1);
		Thread[] t = new Thread[THREADS];
		for (int k = 0; k < THREADS; k++) {
			t[k] = new Thread(null, new Worker(k, go), "deep-" + k, 4 << 20);
			t[k].start();
		}
		go.countDown();
		for (Thread x : t)
			x.join();
		System.out.println("deep done");
	}
}
