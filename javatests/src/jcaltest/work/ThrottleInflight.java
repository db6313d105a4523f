package jcaltest.work;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The workload of jcaltest.Throttle's in-flight test (mode=bci,
 * throttle=): the main thread recurses through down() without pause, so
 * that the agent takes down()'s probes while calls of it are under way
 * (their entries recorded, their exits not yet). It goes on until the
 * agent's log (LOG, the agent's log= file) says a method runs without
 * probes, then makes ROUNDS recursions more, and prints the calls it made.
 * With LOG "-" and a fourth argument MS it recurses for MS milliseconds
 * instead of waiting for the log (a recording that stops meanwhile); a
 * fifth argument "pause" sleeps 1 ms after every 256 recursions, so that
 * the thread is mostly outside down().
 */
public class ThrottleInflight {
	static long sink;

	static int down(int n) {
		return n == 0 ? 0 : 1 + down(n - 1);
	}

	public static void main(String[] args) throws Exception {
		Path log = args[0].equals("-") ? null : Path.of(args[0]);
		int rounds = Integer.parseInt(args[1]);
		int depth = Integer.parseInt(args[2]);
		long ms = log == null ? Long.parseLong(args[3]) : 60_000;
		long calls = 0, end = System.nanoTime() + ms * 1_000_000L;
		boolean throttled = false, pause = args.length > 4 && args[4].equals("pause");
		for (int r = 0; !throttled && System.nanoTime() < end; r++) {
			sink += down(depth - 1);
			calls += depth;
			if ((r & 255) == 0 && pause)
				Thread.sleep(1);
			if ((r & 255) == 0 && log != null)
				throttled = Files.exists(log) && Files.readString(log).contains("runs without probes");
		}
		for (int r = 0; r < rounds; r++)
			sink += down(depth - 1);
		calls += (long) rounds * depth;
		System.out.println("down " + calls + " throttled " + throttled + " sink " + sink);
	}
}
