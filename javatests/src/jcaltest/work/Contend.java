package jcaltest.work;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * Monitor contention made deterministic, for the monitor events
 * (docs/jcal-post.md, waits): ROUNDS times, the holder thread enters the
 * monitor of a Lock, says so, waits until the taker thread is blocked on
 * that monitor (Thread.State.BLOCKED), holds it 50 ms more and leaves; the
 * taker then gets it. So each round is exactly one contended enter of a
 * Lock by the taker, blocked 50 ms or more (in Contend.take). Then the main
 * thread calls Object.wait(20) once on a Box that nobody notifies (in
 * Contend.pause): one wait that times out. With the argument "stdin" it
 * reads counts of rounds, one a line, and runs each on new threads (for an
 * agent attached later). Nothing else contends: the
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
	private static volatile int held;  /* the round whose lock the holder has */
	private static volatile int taken; /* the last round the taker got it in */
	private static volatile Thread taker;
	private static int got; /* under LOCK */
	private static int last; /* the last round's number */

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

	/** n rounds on a new taker and holder thread, their rounds numbered on from the last. */
	private static void rounds(int n) throws InterruptedException {
		final int first = last + 1, end = last + n;
		last = end;
		Thread t = new Thread(() -> {
			for (int i = first; i <= end; i++)
				take(i);
		}, "taker");
		taker = t;
		Thread h = new Thread(() -> {
			try {
				for (int i = first; i <= end; i++) {
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
	}

	public static void main(String[] args) throws Exception {
		if (args.length > 0 && args[0].equals("stdin")) {
			/* for an agent attached later: "ready", then per line N, N rounds and "done" */
			BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			System.out.println("ready");
			System.out.flush();
			for (String line; (line = in.readLine()) != null;) {
				rounds(Integer.parseInt(line.trim()));
				System.out.println("done");
				System.out.flush();
			}
			return;
		}
		rounds(ROUNDS);
		pause(new Box());
	}
}
