package jcaltest.work;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * THREADS threads (args[1]) that call a small tree of methods in rounds
 * until the file args[0] exists, so that tree snapshots are taken while
 * every thread's tree grows. A round is one call of round(), 1000 of mid()
 * and 3000 of leaf(); the program prints "rounds R" (all threads), from
 * which the test knows every count.
 */
public class TreeStress {
	static int leaf(int i) {
		return i * 31 + 7;
	}

	static int mid(int i) {
		return leaf(i) ^ leaf(i + 1) ^ leaf(i + 2);
	}

	static int round(int r) {
		int s = 0;
		for (int i = 0; i < 1000; i++)
			s += mid(i + r);
		return s;
	}

	static final class Worker extends Thread {
		private final Path stop;
		long rounds;
		int sink;

		Worker(Path stop, int k) {
			super("stress-" + k);
			this.stop = stop;
		}

		@Override
		public void run() {
			while (!Files.exists(stop))
				sink += round((int) rounds++);
		}
	}

	public static void main(String[] args) throws InterruptedException {
		Path stop = Path.of(args[0]);
		Worker[] w = new Worker[Integer.parseInt(args[1])];
		long rounds = 0;

		for (int k = 0; k < w.length; k++)
			(w[k] = new Worker(stop, k)).start();
		for (Worker t : w) {
			t.join();
			rounds += t.rounds;
		}
		System.out.println("rounds " + rounds);
	}
}
