package bcicheck;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Links every class jcal-bci-rewrite rewrote from a set of jars, without
 * initialising it, twice: unmodified (a class loader over the original class
 * path) and rewritten (a class loader over the rewritten folder first, then
 * the same class path). Run under -Xverify:all, linking verifies the
 * bytecode; Class.getDeclaredMethods() links the class in HotSpot.
 *
 * A rewritten class fails when it links unmodified but not rewritten, or
 * when it is rejected as malformed or unverifiable (ClassFormatError,
 * VerifyError) rewritten but not unmodified. A class that does not link
 * unmodified either (a missing optional dependency) is counted apart.
 *
 * Usage: java -Xverify:all -cp HARNESS bcicheck.JarCheck LABEL LIST REWRITTEN CLASSPATH
 * LIST: the tool's status lines (jcal-bci-rewrite -l). Ends with
 * "jars LABEL: ..." figures and "bci-jars: N passed, N failed" (one check:
 * no class failed, at least one was rewritten and linked, and a copy of it
 * with a broken probe fails to link with a VerifyError).
 */
public final class JarCheck {
	private JarCheck() {
	}

	/* Loads and links name in l: null when it links, else what was thrown. */
	private static Throwable link(ClassLoader l, String name) {
		try {
			Class<?> k = Class.forName(name, false, l);
			k.getDeclaredMethods();
			return null;
		} catch (Throwable t) {
			return t;
		}
	}

	/* Loads one class from the given bytes, the rest from the class path. */
	private static final class OneClassLoader extends URLClassLoader {
		private final String name;
		private final byte[] bytes;

		OneClassLoader(URL[] path, ClassLoader parent, String name, byte[] bytes) {
			super(path, parent);
			this.name = name;
			this.bytes = bytes;
		}

		@Override
		protected Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
			synchronized (getClassLoadingLock(n)) {
				if (!n.equals(name))
					return super.loadClass(n, resolve);
				Class<?> k = findLoadedClass(n);
				return k != null ? k : defineClass(n, bytes, 0, bytes.length);
			}
		}
	}

	/*
	 * The control: the rewritten class with a probe's `sipush ID` made
	 * `fconst_0; nop; nop` (a float where the probe takes an int) must fail
	 * to link with a VerifyError, or linking here does not verify and the
	 * check proves nothing. The bytes sipush ?? ?? invokestatic may also
	 * occur in the constant pool: each place is tried until one is code.
	 */
	private static boolean controlFails(URL[] path, ClassLoader parent, String rwDir, String name)
			throws Exception {
		byte[] orig = Files.readAllBytes(Path.of(rwDir, name.replace('.', '/') + ".class"));
		for (int i = 0, tries = 0; i + 3 < orig.length && tries < 50; i++) {
			if (orig[i] != 0x11 || (orig[i + 3] & 0xff) != 0xb8)
				continue;
			byte[] b = orig.clone();
			b[i] = 0x0b;
			b[i + 1] = 0;
			b[i + 2] = 0;
			tries++;
			Throwable t = link(new OneClassLoader(path, parent, name, b), name);
			if (t instanceof VerifyError) {
				System.out.println("control: " + name + " with a float for a probe's id: "
						+ t.toString().split("\n")[0]);
				return true;
			}
		}
		return false;
	}

	private static boolean malformed(Throwable t) {
		return t instanceof VerifyError || t instanceof ClassFormatError;
	}

	private static URL[] urls(String first, String classPath) throws Exception {
		List<URL> u = new ArrayList<>();
		if (first != null)
			u.add(Path.of(first).toUri().toURL());
		for (String p : classPath.split(":"))
			if (!p.isEmpty())
				u.add(Path.of(p).toUri().toURL());
		return u.toArray(new URL[0]);
	}

	public static void main(String[] args) throws Exception {
		String label = args[0];
		ClassLoader parent = JarCheck.class.getClassLoader();
		URLClassLoader orig = new URLClassLoader(urls(null, args[3]), parent);
		URLClassLoader rewritten = new URLClassLoader(urls(args[2], args[3]), parent);
		int total = 0, ok = 0, unchanged = 0, refused = 0, unloadable = 0, failed = 0;
		String linked = null;

		for (String line : Files.readAllLines(Path.of(args[1]))) {
			String[] f = line.split(" ", 2);
			total++;
			if (f[0].equals("unchanged")) {
				unchanged++;
				continue;
			}
			if (f[0].equals("error")) {
				refused++;
				System.out.println("refused " + f[1]);
				continue;
			}
			String name = f[1].replace('/', '.');
			Throwable before = link(orig, name), after = link(rewritten, name);
			if (after == null && before == null) {
				ok++;
				if (linked == null)
					linked = name;
			} else if (before == null || (malformed(after) && !malformed(before))) {
				failed++;
				System.out.println("FAIL " + name + ": " + after);
				if (before != null)
					System.out.println("  unmodified: " + before);
			} else {
				unloadable++;
			}
		}
		System.out.printf("jars %s: %d classes: %d rewritten and linked, %d unchanged (nothing to instrument), "
				+ "%d refused by the rewriter, %d unloadable also unmodified, %d failed%n", label, total, ok,
				unchanged, refused, unloadable, failed);
		boolean control = linked != null && controlFails(urls(args[2], args[3]), parent, args[2], linked);
		boolean pass = failed == 0 && ok > 0 && control;
		if (!pass)
			System.out.println("FAIL jars " + label + (ok == 0 ? ": no class rewritten and linked"
					: !control ? ": the control class linked: classes are not verified" : ""));
		System.out.println("bci-jars: " + (pass ? 1 : 0) + " passed, " + (pass ? 0 : 1) + " failed");
		System.exit(pass ? 0 : 1);
	}
}
