package jcalbench;

/**
 * Runs CallHeavy's small calls for the given seconds and prints its
 * iterations per second (PerSecond): a CPU-bound program's throughput over
 * time, for bench/live-throughput.sh (WORKLOAD=steady; with a second
 * argument "inline", WORKLOAD=steady-inline).
 */
public final class Steady {
	/* One unit of work; main's own loop does little else, so that the
	 * figures do not hinge on main's frame, which was running when the agent
	 * attached (docs/live-profiling.md, "After stop"). */
	private static int burst(CallHeavy c, int i) {
		int sink = 0;
		for (int j = 0; j < 1000; j++)
			sink ^= c.step(i + j);
		return sink;
	}

	public static void main(String[] args) {
		long end = System.currentTimeMillis() + Long.parseLong(args[0]) * 1000;
		CallHeavy c = new CallHeavy();
		PerSecond rate = new PerSecond();
		int sink = 0;
		/* "inline": the work in main's own loop, a frame that never returns. */
		boolean inline = args.length > 1 && args[1].equals("inline");
		for (int i = 0; System.currentTimeMillis() < end; i++) {
			if (inline)
				for (int j = 0; j < 1000; j++)
					sink ^= c.step(i + j);
			else
				sink ^= burst(c, i);
			rate.add();
		}
		System.err.println("sink " + sink);
	}
}
