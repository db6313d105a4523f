package jcaltest.work;

/**
 * Starts and joins 600 short threads one after the other (thread churn for
 * output=tree). Counts: main 1, Worker.<init> 600, Worker.run 600, work 600,
 * leaf 3000 (3 + k % 5 calls in thread k).
 */
public class ThreadChurn {
	static int sink;

	static void leaf(int x) {
		sink += x;
	}

	static void work(int n) {
		for (int i = 0; i < n; i++)
			leaf(i);
	}

	static final class Worker implements Runnable {
		private final int k;

		Worker(int k) {
			this.k = k;
		}

		@Override
		public void run() {
			work(3 + k % 5);
		}
	}

	public static void main(String[] args) throws InterruptedException {
		for (int k = 0; k < 600; k++) {
			Thread t = new Thread(new Worker(k), "churn-" + k);
			t.start();
			t.join();
		}
		System.out.println("churn " + sink);
	}
}
