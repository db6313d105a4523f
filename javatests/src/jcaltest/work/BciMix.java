package jcaltest.work;

import java.util.function.IntUnaryOperator;
import java.util.function.Supplier;

/**
 * mode=bci shapes (BciTests): lambdas and method references (their bodies,
 * and their hidden proxy classes through the hook of hidden classes:
 * applyAsInt 10 each, one constructor call each), an anonymous class,
 * a synchronized method, a switch, constructors chained with this(), a
 * static initialiser, try/finally, and an exception caught two frames up.
 * Calls: lambda$main$0 10, twice 10, BciMix$1.get 5 (+5 of its bridge
 * method), BciMix$1.<init> 1, sync 7, pick 12, BciMix.<init> 3 (()V once,
 * (I)V twice: once through this()), <clinit> 1, recover 4, guarded 4 and
 * fail 4 (both exit by the exception: 8 T transitions).
 */
public class BciMix {
	static int sink;
	static final int[] TABLE;

	static {
		TABLE = new int[] { 1, 2, 3 };
	}

	private final int k;

	BciMix() {
		this(1);
	}

	BciMix(int k) {
		this.k = k;
	}

	static int twice(int x) {
		return 2 * x;
	}

	synchronized void sync(int x) {
		sink += x * k;
	}

	static int pick(int i) {
		switch (i % 4) {
		case 0:
			return 10;
		case 1:
			return 20;
		case 2:
			return TABLE[i % 3];
		default:
			return -1;
		}
	}

	static int fail(int i) {
		throw new IllegalArgumentException("x" + i);
	}

	static int guarded(int i) {
		try {
			return fail(i);
		} finally {
			sink++;
		}
	}

	static void recover(int i) {
		try {
			guarded(i);
		} catch (IllegalArgumentException e) {
			sink += e.getMessage().length();
		}
	}

	public static void main(String[] args) {
		IntUnaryOperator lambda = x -> x + 1;
		IntUnaryOperator ref = BciMix::twice;
		for (int i = 0; i < 10; i++)
			sink += lambda.applyAsInt(i) + ref.applyAsInt(i);
		Supplier<Integer> anon = new Supplier<Integer>() {
			@Override
			public Integer get() {
				return sink;
			}
		};
		for (int i = 0; i < 5; i++)
			anon.get();
		BciMix a = new BciMix(), b = new BciMix(3);
		for (int i = 0; i < 7; i++)
			(i % 2 == 0 ? a : b).sync(i);
		for (int i = 0; i < 12; i++)
			sink += pick(i);
		for (int i = 0; i < 4; i++)
			recover(i);
		System.out.println("bcimix " + sink);
	}
}
