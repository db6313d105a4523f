package jcal.calib;

/**
 * The calibration workload (docs/agent-internals.md, "Calibrate mode").
 * The agent's calibrator thread runs
 * call-tree programs through the four method types that mode=events can
 * see: I (static), i (instance), N (static native), n (instance native).
 *
 * A program is an int[] of nodes in prefix order; a node is
 * {type, flags, nchildren, size} followed by its children, where type is
 * 0=I 1=i 2=N 3=n, flags bit 0 = throw after the children, bit 1 = catch
 * exceptions thrown by children, and size is the node's length in ints
 * including its subtree. Each method below runs one node; the natives do
 * the same in C (calibrator/calib_natives.c). The Java bodies are written out
 * in full, without helper methods, so that a node makes no call other than
 * its children: every method entry and exit the agent sees is part of the
 * program.
 */
public final class Workload {
	/** Thrown by nodes with flag 1; preallocated, no stack trace: throwing it calls no method. */
	public static final class Thrown extends RuntimeException {
		private static final long serialVersionUID = 1L;

		Thrown() {
			super("jcal calibration", null, false, false);
		}
	}

	public static final Thrown THROWN = new Thrown();
	public static final Workload INSTANCE = new Workload();

	public static void I(int[] p, int pc) {
		int n = p[pc + 2], c = pc + 4, flags = p[pc + 1];
		for (int k = 0; k < n; k++) {
			try {
				switch (p[c]) {
				case 0:
					I(p, c);
					break;
				case 1:
					INSTANCE.i(p, c);
					break;
				case 2:
					N(p, c);
					break;
				default:
					INSTANCE.n(p, c);
					break;
				}
			} catch (Thrown e) {
				if ((flags & 2) == 0)
					throw e;
			}
			c += p[c + 3];
		}
		if ((flags & 1) != 0)
			throw THROWN;
	}

	public void i(int[] p, int pc) {
		int n = p[pc + 2], c = pc + 4, flags = p[pc + 1];
		for (int k = 0; k < n; k++) {
			try {
				switch (p[c]) {
				case 0:
					I(p, c);
					break;
				case 1:
					i(p, c);
					break;
				case 2:
					N(p, c);
					break;
				default:
					n(p, c);
					break;
				}
			} catch (Thrown e) {
				if ((flags & 2) == 0)
					throw e;
			}
			c += p[c + 3];
		}
		if ((flags & 1) != 0)
			throw THROWN;
	}

	public static native void N(int[] p, int pc);

	public native void n(int[] p, int pc);
}
