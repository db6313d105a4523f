package jcaltest.work;

import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * Stress: classes loaded and unloaded while tracing. LOADERS class loaders
 * each define StressPayload from its bytes (not delegating), call
 * work(WORK) once (WORK calls of step()), and are dropped; System.gc() runs
 * every GC_EVERY loaders. Prints how many of the classes were unloaded.
 */
public class StressClassLoading {
	public static final int LOADERS = 60;
	public static final int WORK = 25;
	static final int GC_EVERY = 10;

	static final class BytesLoader extends ClassLoader {
		private final byte[] bytes;

		BytesLoader(byte[] bytes) {
			super(StressClassLoading.class.getClassLoader());
			this.bytes = bytes;
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			if (!name.equals(StressPayload.class.getName()))
				return super.loadClass(name, resolve);
			synchronized (getClassLoadingLock(name)) {
				Class<?> c = findLoadedClass(name);
				if (c == null)
					c = defineClass(name, bytes, 0, bytes.length);
				return c;
			}
		}
	}

	static byte[] payloadBytes() throws IOException {
		try (InputStream in = StressClassLoading.class.getResourceAsStream("StressPayload.class")) {
			return in.readAllBytes();
		}
	}

	static WeakReference<Class<?>> once(byte[] bytes) throws Exception {
		Class<?> c = new BytesLoader(bytes).loadClass(StressPayload.class.getName());
		if (c == StressPayload.class)
			throw new IllegalStateException("payload was not loaded by its own loader");
		Object o = c.getConstructor().newInstance();
		Method work = c.getMethod("work", int.class);
		work.invoke(o, WORK);
		return new WeakReference<>(c);
	}

	public static void main(String[] args) throws Exception {
		byte[] bytes = payloadBytes();
		List<WeakReference<Class<?>>> refs = new ArrayList<>();
		for (int i = 1; i <= LOADERS; i++) {
			refs.add(once(bytes));
			if (i % GC_EVERY == 0)
				System.gc();
		}
		System.gc();
		int unloaded = 0;
		for (WeakReference<Class<?>> r : refs)
			if (r.get() == null)
				unloaded++;
		System.out.println("unloaded " + unloaded + " of " + LOADERS);
	}
}
