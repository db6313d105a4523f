package jcaltest.work;

/**
 * The workload of jcaltest.OtherAgents: the programs of the end-to-end
 * tests one after the other in one JVM (their counts are known: Basic,
 * Recursion, Exceptions, Threads, BciMix), then Loop with the given number
 * of ticks (default 200000), long enough for another agent to retransform
 * the classes while they run.
 */
public class AgentsMix {
	public static void main(String[] args) throws Exception {
		Basic.main(new String[0]);
		Recursion.main(new String[0]);
		Exceptions.main(new String[0]);
		Threads.main(new String[0]);
		BciMix.main(new String[0]);
		Loop.main(new String[] { args.length > 0 ? args[0] : "200000" });
	}
}
