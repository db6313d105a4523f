package jcaltest.work;

/**
 * Runs long enough for a periodic recalibration burst (recalibrate=10s):
 * work 4 times, sleep args[0] ms, work 4 times. Counts: main 1, work 8, leaf 16.
 * With "burst" as args[1] it also waits, at most 60 s more, until the
 * agent's burst (its calibrator thread, then its env-timer JVM) has been
 * seen and has ended, so that a machine too busy to finish the burst in
 * time does not cut it short.
 */
public class Periodic {
	static int sink;

	static void leaf(int x) {
		sink += x;
	}

	static void work(int i) {
		leaf(i);
		leaf(i + 1);
	}

	public static void main(String[] args) throws InterruptedException {
		long ms = Long.parseLong(args[0]);
		for (int i = 0; i < 4; i++)
			work(i);
		if (args.length > 1 && args[1].equals("burst"))
			jcaltest.support.BurstWait.sleepUntilBurstEnded(ms);
		else
			Thread.sleep(ms);
		for (int i = 0; i < 4; i++)
			work(i);
		System.out.println("periodic " + sink);
	}
}
