package jcal.calib;

/**
 * The calibration workload (docs/agent-internals.md, "Calibrate mode").
 * The agent's calibrator thread runs
 * call-tree programs through the method types a trace can see: I (static),
 * i (instance), N (static native), n (instance native) in mode=events; in
 * mode=bci, where natives are not traced, I and i, which the JIT compiles
 * during the warm-up (J and j), beside H and h, which it never compiles
 * (they stay I and i).
 *
 * A program is an int[] of nodes in prefix order; a node is
 * {type, flags, nchildren, size} followed by its children, where type is
 * 0=I 1=i 2=N 3=n 4=H 5=h (6 = no call: the env timer's baseline), flags
 * bit 0 = throw after the children, bit 1 = catch exceptions thrown by
 * children, and size is the node's length in ints including its subtree.
 * Each node first runs `work` iterations of a small loop, and again after
 * each child that returned normally (see work below).
 * Each method below runs one node; the natives do the same in C
 * (calibrator/calib_natives.c). The Java bodies are written out in full,
 * without helper methods, so that a node makes no call other than its
 * children: every method entry and exit the agent sees is part of the
 * program.
 *
 * H and h are I and i with dead code that makes them longer than 8000
 * bytes of bytecode: HotSpot does not compile such methods
 * (DontCompileHugeMethods, on by default), so in mode=bci calls between
 * compiled and interpreted methods, in both directions, happen in every
 * measured round, as they do in real programs.
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

	/**
	 * The body's own work: iterations of a small arithmetic loop that every
	 * node runs when it is entered and again after each child that returned
	 * normally (not after one that threw), so that the steps of a key are
	 * measured with bodies of known, varied cost (docs/calibration-format.md,
	 * "a= b="). Set by the agent without a call (no event), or by setWork.
	 */
	public static int work;
	/** Written when the loop's result happens to be 42: keeps the JIT from dropping the loop. */
	static int sink;

	/** Sets the work of the Java nodes and of the natives (EnvTimer, without agent). */
	public static void setWork(int iterations) {
		work = iterations;
		setNativeWork(iterations);
	}

	static native void setNativeWork(int iterations);

	/**
	 * Calls the leaf node p (no children) n times from Java, as a program
	 * calls a method: the calibration times the work loop with it, the
	 * thread's events off (calibrator/calib_worktime.c). Not a node.
	 */
	public static void repeat(int[] p, int n) {
		for (int k = 0; k < n; k++) {
			switch (p[0]) {
			case 0:
				I(p, 0);
				break;
			case 1:
				INSTANCE.i(p, 0);
				break;
			case 2:
				N(p, 0);
				break;
			default:
				INSTANCE.n(p, 0);
				break;
			}
		}
	}

	public static void I(int[] p, int pc) {
		int n = p[pc + 2], c = pc + 4, flags = p[pc + 1], w = work, s = pc;
		for (int j = 0; j < w; j++)
			s = s * 31 + j;
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
				case 3:
					INSTANCE.n(p, c);
					break;
				case 4:
					H(p, c);
					break;
				case 5:
					INSTANCE.h(p, c);
					break;
				default:
					break;
				}
				for (int j = 0; j < w; j++)
					s = s * 31 + j;
			} catch (Thrown e) {
				if ((flags & 2) == 0)
					throw e;
			}
			c += p[c + 3];
		}
		if (s == 42)
			sink = s;
		if ((flags & 1) != 0)
			throw THROWN;
	}

	public void i(int[] p, int pc) {
		int n = p[pc + 2], c = pc + 4, flags = p[pc + 1], w = work, s = pc;
		for (int j = 0; j < w; j++)
			s = s * 31 + j;
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
				case 3:
					n(p, c);
					break;
				case 4:
					H(p, c);
					break;
				case 5:
					h(p, c);
					break;
				default:
					break;
				}
				for (int j = 0; j < w; j++)
					s = s * 31 + j;
			} catch (Thrown e) {
				if ((flags & 2) == 0)
					throw e;
			}
			c += p[c + 3];
		}
		if (s == 42)
			sink = s;
		if ((flags & 1) != 0)
			throw THROWN;
	}

	/** I with padding: never compiled (see the class comment). */
	public static void H(int[] p, int pc) {
		int n = p[pc + 2], c = pc + 4, flags = p[pc + 1], w = work, s = pc;
		for (int j = 0; j < w; j++)
			s = s * 31 + j;
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
				case 3:
					INSTANCE.n(p, c);
					break;
				case 4:
					H(p, c);
					break;
				case 5:
					INSTANCE.h(p, c);
					break;
				default:
					break;
				}
				for (int j = 0; j < w; j++)
					s = s * 31 + j;
			} catch (Thrown e) {
				if ((flags & 2) == 0)
					throw e;
			}
			c += p[c + 3];
		}
		if (s == 42)
			sink = s;
		if (pc < 0) {
			/* never runs (pc >= 0): 1400 array stores take the method past 8000 bytes */
			int[] pad = {
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0
			};
			p[0] = pad[0];
		}
		if ((flags & 1) != 0)
			throw THROWN;
	}

	/** i with padding: never compiled (see the class comment). */
	public void h(int[] p, int pc) {
		int n = p[pc + 2], c = pc + 4, flags = p[pc + 1], w = work, s = pc;
		for (int j = 0; j < w; j++)
			s = s * 31 + j;
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
				case 3:
					n(p, c);
					break;
				case 4:
					H(p, c);
					break;
				case 5:
					h(p, c);
					break;
				default:
					break;
				}
				for (int j = 0; j < w; j++)
					s = s * 31 + j;
			} catch (Thrown e) {
				if ((flags & 2) == 0)
					throw e;
			}
			c += p[c + 3];
		}
		if (s == 42)
			sink = s;
		if (pc < 0) {
			/* never runs (pc >= 0): 1400 array stores take the method past 8000 bytes */
			int[] pad = {
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
				0,0,0,0,0,0,0,0
			};
			p[0] = pad[0];
		}
		if ((flags & 1) != 0)
			throw THROWN;
	}

	public static native void N(int[] p, int pc);

	public native void n(int[] p, int pc);
}
