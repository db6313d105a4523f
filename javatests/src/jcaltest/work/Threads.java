package jcaltest.work;

/** Four named threads; worker-k calls leaf() 100*k times through step(). */
public class Threads {
	static volatile long sink;

	static void leaf(int x) {
		sink += x;
	}

	static void step(int n) {
		for (int i = 0; i < n; i++)
			leaf(i);
	}

	/* A named class, not a lambda: hidden lambda class names are not stable. */
	static final class Worker implements Runnable {
		private final int n;

		Worker(int n) {
			this.n = n;
		}

		@Override
		public void run() {
			step(n);
		}
	}

	public static void main(String[] args) throws InterruptedException {
		Thread[] t = new Thread[4];
		for (int k = 1; k <= 4; k++)
			t[k - 1] = new Thread(new Worker(100 * k), "worker-" + k);
		for (Thread x : t)
			x.start();
		for (Thread x : t)
			x.join();
		System.out.println("threads " + sink);
	}
}
