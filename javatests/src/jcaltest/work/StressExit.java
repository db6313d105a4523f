package jcaltest.work;

import java.util.concurrent.CountDownLatch;

/**
 * Stress: System.exit(0) from thread "exiter" while four other threads sit
 * in deep calls: two blocked at the bottom of DEPTH frames, two recursing up
 * and down without end. The exiter calls step() STEPS times (each leaf()
 * LEAVES times), then exitNow(), which exits the JVM.
 */
public class StressExit {
	public static final int DEPTH = 300;
	public static final int STEPS = 50;
	public static final int LEAVES = 4;
	static volatile long sink;
	static final CountDownLatch deep = new CountDownLatch(4);

	static void block(int n) throws InterruptedException {
		if (n == 0) {
			deep.countDown();
			Thread.sleep(60_000);
			return;
		}
		block(n - 1);
	}

	static void spin(int n, boolean first) {
		if (n == 0) {
			if (first)
				deep.countDown();
			return;
		}
		sink += n;
		spin(n - 1, first);
	}

	static void leaf(int x) {
		sink += x;
	}

	static void step() {
		for (int i = 0; i < LEAVES; i++)
			leaf(i);
	}

	static void exitNow() {
		System.exit(0);
	}

	public static void main(String[] args) throws InterruptedException {
		for (int k = 0; k < 2; k++) {
			Thread b = new Thread(() -> {
				try {
					block(DEPTH);
				} catch (InterruptedException e) {
					return;
				}
			}, "blocked-" + k);
			b.setDaemon(true);
			b.start();
			Thread s = new Thread(() -> {
				for (boolean first = true;; first = false)
					spin(DEPTH, first);
			}, "spinner-" + k);
			s.setDaemon(true);
			s.start();
		}
		deep.await();
		Thread exiter = new Thread(() -> {
			for (int i = 0; i < STEPS; i++)
				step();
			exitNow();
		}, "exiter");
		exiter.start();
		exiter.join();
		System.out.println("not reached");
	}
}
