package jcaltest.work;

/**
 * Calls of known shapes for the latency reports (docs/jcal-post.md,
 * latency, slow, "Off the CPU"): on the thread "worker", request(i) is
 * called 100 times; 13 of them (i % 8 == 0) call nap(), which sleeps
 * 20 ms, the other 87 call spin(), which adds up a fixed count of numbers
 * on the CPU. So request's p50 is a spin, its p90 (the 90th of 100, past
 * the 87 spins) a nap, and nap is off the CPU nearly all its wall time.
 */
public class Latency {
	static final int CALLS = 100, EVERY = 8, SLEEP_MS = 20, SPIN = 20000;
	static long sink;

	static void spin() {
		long s = 0;
		for (int i = 0; i < SPIN; i++)
			s += i * 31L;
		sink += s;
	}

	static void nap() throws InterruptedException {
		Thread.sleep(SLEEP_MS);
	}

	static void request(int i) throws InterruptedException {
		if (i % EVERY == 0)
			nap();
		else
			spin();
	}

	public static void main(String[] args) throws Exception {
		Thread t = new Thread(() -> {
			try {
				for (int i = 0; i < CALLS; i++)
					request(i);
			} catch (InterruptedException e) {
				Thread.currentThread().interrupt();
			}
		}, "worker");
		t.start();
		t.join();
		System.out.println("sink " + sink);
	}
}
