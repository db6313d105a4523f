package jcaltest.work;

/**
 * Monitor contention made deterministic, for the monitor events
 * (docs/jcal-post.md, waits): ROUNDS times, the holder thread enters the
 * monitor of a Lock, says so, waits until the taker thread is blocked on
 * that monitor (Thread.State.BLOCKED), holds it 50 ms more and leaves; the
 * taker then gets it. So each round is exactly one contended enter of a
 * Lock by the taker, blocked 50 ms or more (in Contend.take). Then the main
 * thread calls Object.wait(20) once on a Box that nobody notifies (in
 * Contend.pause): one wait that times out. Nothing else contends: the
 * handshakes use volatile fields and spin with Thread.onSpinWait.
 */
public final class Contend {
	static final int ROUNDS = 5;
	static final long HOLD_MS = 50;

	/** The contended monitor's class. */
	static final class Lock {
	}

	/** The waited-on monitor's class. */
	static final class Box {
	}

	private static final Lock LOCK = new Lock();
	private static volatile int held;  /* rounds in which the holder has the lock */
	private static volatile int taken; /* rounds in which the taker got it */
	private static volatile Thread taker;
	private static int got; /* under LOCK */

	private static void hold(int round) throws InterruptedException {
		synchronized (LOCK) {
			held = round;
			Thread t = taker;
			while (t.getState() != Thread.State.BLOCKED)
				Thread.onSpinWait();
			Thread.sleep(HOLD_MS);
		}
	}

	private static void take(int round) {
		while (held != round)
			Thread.onSpinWait();
		synchronized (LOCK) {
			got++;
		}
		taken = round; /* after the exit: the holder's next enter finds it free */
	}

	private static void pause(Box box) throws InterruptedException {
		synchronized (box) {
			box.wait(20);
		}
	}

	public static void main(String[] args) throws Exception {
		Thread t = new Thread(() -> {
			for (int i = 1; i <= ROUNDS; i++)
				take(i);
		}, "taker");
		taker = t;
		Thread h = new Thread(() -> {
			try {
				for (int i = 1; i <= ROUNDS; i++) {
					hold(i);
					while (taken != i)
						Thread.onSpinWait();
				}
			} catch (InterruptedException e) {
				throw new RuntimeException(e);
			}
		}, "holder");
		t.start();
		h.start();
		t.join();
		h.join();
		pause(new Box());
	}
}
