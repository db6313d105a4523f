package bcitest;

import java.security.ProtectionDomain;

/* The shape of the JDK's JavaLangAccess.defineClass (java.lang.System$2 on
 * JDK 17, $1 on JDK 25) for the unit test of the hook of hidden classes
 * (native-tests/test-bci-hidden.c), and a twin with a branch, which the hook
 * leaves alone. Not run by run.sh. */
public class Funnel {
	static int defined;

	public Class<?> defineClass(ClassLoader loader, Class<?> lookup, String name, byte[] b, ProtectionDomain pd,
			boolean initialize, int flags, Object classData) {
		return define0(loader, lookup, name, b, 0, b.length, pd, initialize, flags, classData);
	}

	static Class<?> define0(ClassLoader loader, Class<?> lookup, String name, byte[] b, int off, int len,
			ProtectionDomain pd, boolean initialize, int flags, Object classData) {
		defined += len;
		return lookup;
	}

	public static class Branchy {
		public Class<?> defineClass(ClassLoader loader, Class<?> lookup, String name, byte[] b, ProtectionDomain pd,
				boolean initialize, int flags, Object classData) {
			return b == null ? null : define0(loader, lookup, name, b, 0, b.length, pd, initialize, flags, classData);
		}
	}
}
