package bcitest;

/* Exceptions through instrumented frames: try/catch/finally, nested
 * handlers, rethrow, finally with returns, synchronized blocks exited by an
 * exception, exceptions from the JDK and from native code. */
public class Exceptions {
	static int depth(int n) {
		if (n == 0)
			throw new IllegalStateException("bottom");
		return depth(n - 1) + 1;
	}

	static int catchAt(int n) {
		try {
			return depth(n);
		} catch (IllegalStateException e) {
			return -n;
		}
	}

	static int finallyReturn(int x) {
		try {
			if (x > 0)
				return x;
			throw new RuntimeException("neg");
		} catch (RuntimeException e) {
			return -1;
		} finally {
			counter++;
		}
	}

	static int counter;

	static void rethrow(int x) throws Exception {
		try {
			if (x == 1)
				throw new java.io.IOException("io");
			if (x == 2)
				throw new Error("err");
		} catch (java.io.IOException e) {
			throw new Exception("wrapped", e);
		} finally {
			counter += 10;
		}
	}

	static final Object LOCK = new Object();

	static void syncThrow(boolean t) {
		synchronized (LOCK) {
			if (t)
				throw new UnsupportedOperationException();
			counter++;
		}
	}

	static synchronized void syncMethodThrow() {
		Object o = null;
		o.hashCode();
	}

	static int nested(int a) {
		int r = 0;
		try {
			try {
				r = 10 / a;
			} catch (ArithmeticException e) {
				r = -10;
				throw new IllegalArgumentException(e);
			} finally {
				r += 1;
			}
		} catch (IllegalArgumentException e) {
			r += 100;
		}
		return r;
	}

	static int arrays(int i) {
		try {
			int[] a = new int[3];
			return a[i];
		} catch (ArrayIndexOutOfBoundsException e) {
			return -2;
		}
	}

	public static Object run() {
		StringBuilder sb = new StringBuilder();
		for (int i = 0; i < 5; i++)
			sb.append(catchAt(i)).append(',');
		sb.append(finallyReturn(3)).append(finallyReturn(-3)).append(' ');
		for (int x = 0; x < 3; x++) {
			try {
				rethrow(x);
				sb.append("ok");
			} catch (Exception e) {
				sb.append(e.getMessage());
			} catch (Error e) {
				sb.append(e.getMessage());
			}
		}
		for (int k = 0; k < 2; k++) {
			try {
				syncThrow(k == 1);
			} catch (UnsupportedOperationException e) {
				sb.append(" uoe");
			}
		}
		try {
			syncMethodThrow();
		} catch (NullPointerException e) {
			sb.append(" npe");
		}
		sb.append(' ').append(nested(2)).append(',').append(nested(0));
		sb.append(' ').append(arrays(1)).append(arrays(5));
		try {
			Class.forName("no.such.Clazz");
		} catch (ClassNotFoundException e) {
			sb.append(" cnf");
		}
		sb.append(' ').append(counter);
		return sb.toString();
	}
}
