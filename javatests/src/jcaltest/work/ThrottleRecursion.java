package jcaltest.work;

import java.nio.file.Path;

/**
 * The recursion workload of jcaltest.Throttle (mode=bci, throttle=).
 * Arguments: LOG (the agent's log= file), ROUNDS, DEPTH. Phase 1 makes
 * ROUNDS recursions of down() DEPTH calls deep; every call does almost
 * nothing itself, but its entry-to-exit time holds the whole recursion
 * under it. It then waits (at most 60 s) until the agent has logged that a
 * method runs without probes, and makes phase 2, as many recursions again,
 * whose calls are then not recorded. Prints the calls it made.
 */
public class ThrottleRecursion {
	static long sink;

	static int down(int n) {
		return n == 0 ? 0 : 1 + down(n - 1);
	}

	public static void main(String[] args) throws Exception {
		Path log = Path.of(args[0]);
		int rounds = Integer.parseInt(args[1]);
		int depth = Integer.parseInt(args[2]);
		for (int r = 0; r < rounds; r++)
			sink += down(depth - 1);
		boolean waited = ThrottleWork.awaitThrottle(log);
		for (int r = 0; r < rounds; r++)
			sink += down(depth - 1);
		System.out.println("down " + 2L * rounds * depth + " phase1 " + (long) rounds * depth + " throttled " + waited
				+ " sink " + sink);
	}
}
