package jcaltest.work;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Calls tick() TICKS times, prints "holding", then waits (at most 60 s)
 * until the file named by its argument exists: a JVM that stays up while a
 * test does something else with the same trace file. A second argument is
 * the exit status (System.exit), so a test can tell the program's own exit
 * from the agent's.
 */
public class Hold {
	public static final int TICKS = 1000;
	static long sink;

	static void tick(int i) {
		sink += i;
	}

	public static void main(String[] args) throws Exception {
		for (int i = 0; i < TICKS; i++)
			tick(i);
		System.out.println("holding");
		System.out.flush();
		Path go = Path.of(args[0]);
		long end = System.nanoTime() + 60_000_000_000L;
		while (!Files.exists(go) && System.nanoTime() < end)
			Thread.sleep(20);
		if (args.length > 1)
			System.exit(Integer.parseInt(args[1]));
	}
}
