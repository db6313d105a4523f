package jcaltest.work;

import java.nio.file.Files;
import java.nio.file.Path;

import jcal.Control;

/**
 * The workload of jcaltest.Throttle (mode=bci, throttle=). Arguments: LOG
 * (the agent's log= file, or - for none), ROUNDS, K, HEAVY.
 * Phase 1 calls caller() ROUNDS times, each calling tiny() K times, and
 * heavy() (a loop of some 20 microseconds compiled) HEAVY times. With a log file it
 * then waits (at most 60 s) until the agent has logged that a method runs
 * without probes, so phase 2, which calls caller() ROUNDS times more,
 * starts after tiny() lost its probes: its calls are then not recorded.
 * Prints the calls it made of each method.
 * With a fifth argument "region" (the agent run with start=manual), phase 1
 * is outside every jcal.Control region (an unrecorded warm-up), and phase 2
 * (with HEAVY calls of heavy() again) runs inside one region.
 */
public class ThrottleWork {
	static long sink;

	static int tiny(int x) {
		return x * 31 + 7;
	}

	static long caller(int k, int seed) {
		long s = 0;
		for (int i = 0; i < k; i++)
			s += tiny(seed + i);
		return s;
	}

	static long heavy(int seed) {
		long s = seed;
		for (int i = 0; i < 100000; i++)
			s = s * 6364136223846793005L + 1442695040888963407L;
		return s;
	}

	/** Waits for the agent's line about a throttled method in log. */
	static boolean awaitThrottle(Path log) throws Exception {
		long end = System.nanoTime() + 60_000_000_000L;
		while (System.nanoTime() < end) {
			if (Files.exists(log) && Files.readString(log).contains("runs without probes"))
				return true;
			Thread.sleep(10);
		}
		return false;
	}

	public static void main(String[] args) throws Exception {
		String log = args[0];
		int rounds = Integer.parseInt(args[1]);
		int k = Integer.parseInt(args[2]);
		int heavyCalls = Integer.parseInt(args[3]);
		for (int r = 0; r < rounds; r++)
			sink += caller(k, r);
		for (int h = 0; h < heavyCalls; h++)
			sink += heavy(h);
		boolean waited = !log.equals("-") && awaitThrottle(Path.of(log));
		boolean region = args.length > 4 && args[4].equals("region");
		if (region)
			Control.start();
		for (int r = 0; r < rounds; r++)
			sink += caller(k, r);
		if (region)
			for (int h = 0; h < heavyCalls; h++)
				sink += heavy(h);
		if (region)
			Control.stop();
		System.out.println("tiny " + 2L * rounds * k + " phase1 " + (long) rounds * k + " caller " + 2 * rounds
				+ " heavy " + (region ? 2 : 1) * heavyCalls + " throttled " + waited + " sink " + sink);
	}
}
