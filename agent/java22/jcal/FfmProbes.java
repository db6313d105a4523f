package jcal;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * JDK 22 and later: the mode=bci probes as critical foreign-function
 * downcalls (int probe(int id), no thread-state transition once compiled).
 * Compiled only when the build has a JDK >= 22; loaded by jcal.Tracker
 * through reflection, so jcal-agent.jar still loads on JDK 11 to 21.
 */
final class FfmProbes {
	private FfmProbes() {
	}

	static MethodHandle[] downcalls(long[] at) {
		Linker linker = Linker.nativeLinker();
		FunctionDescriptor probe = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT);
		MethodHandle[] h = new MethodHandle[at.length];
		for (int i = 0; i < at.length; i++)
			h[i] = linker.downcallHandle(MemorySegment.ofAddress(at[i]), probe, Linker.Option.critical(false));
		return h;
	}
}
