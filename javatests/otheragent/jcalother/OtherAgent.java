package jcalother;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A -javaagent beside jcal in the tests of jcaltest.OtherAgents (built by
 * that suite into a jar at test time, not by make). Options, separated by
 * commas: "count" rewrites every method of the classes of jcaltest.work
 * to call Counter.hit() at entry (CountingTransformer, needs ASM);
 * "identity" hands those classes back as a copy of the bytes it was given;
 * "retransform" also retransforms every loaded class of jcaltest.work
 * every 2 ms while the program runs. At shutdown it prints one line to
 * stderr: "otheragent: hits N, transformed N, retransforms N".
 */
public final class OtherAgent {
	static final String PREFIX = "jcaltest/work/";
	static final AtomicLong TRANSFORMED = new AtomicLong();
	static final AtomicLong RETRANSFORMS = new AtomicLong();

	private OtherAgent() {
	}

	/** Copies the class bytes: the class changes hands but not content. */
	static final class Identity implements ClassFileTransformer {
		@Override
		public byte[] transform(ClassLoader loader, String name, Class<?> redefined, ProtectionDomain pd, byte[] bytes) {
			if (name == null || !name.startsWith(PREFIX))
				return null;
			TRANSFORMED.incrementAndGet();
			return bytes.clone();
		}
	}

	public static void premain(String args, Instrumentation inst) throws Exception {
		List<String> opts = List.of((args == null ? "" : args).split(","));
		ClassFileTransformer t = opts.contains("count")
				? (ClassFileTransformer) Class.forName("jcalother.CountingTransformer").getConstructor().newInstance()
				: new Identity();
		inst.addTransformer(t, true);
		if (opts.contains("retransform")) {
			Thread loop = new Thread(() -> retransformLoop(inst), "otheragent-retransform");
			loop.setDaemon(true);
			loop.start();
		}
		Runtime.getRuntime().addShutdownHook(new Thread(() -> System.err.println("otheragent: hits " + Counter.HITS.get()
				+ ", transformed " + TRANSFORMED.get() + ", retransforms " + RETRANSFORMS.get())));
	}

	private static void retransformLoop(Instrumentation inst) {
		while (true) {
			List<Class<?>> mine = new ArrayList<>();
			for (Class<?> c : inst.getAllLoadedClasses())
				if (c.getName().startsWith("jcaltest.work.") && inst.isModifiableClass(c))
					mine.add(c);
			try {
				if (!mine.isEmpty()) {
					inst.retransformClasses(mine.toArray(new Class<?>[0]));
					RETRANSFORMS.incrementAndGet();
				}
				Thread.sleep(2);
			} catch (Throwable e) {
				System.err.println("otheragent: retransformClasses failed: " + e);
				return;
			}
		}
	}
}
