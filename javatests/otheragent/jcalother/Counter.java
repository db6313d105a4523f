package jcalother;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the methods rewritten by CountingTransformer call at entry; the
 * agent prints the total at shutdown.
 */
public final class Counter {
	static final AtomicLong HITS = new AtomicLong();

	private Counter() {
	}

	public static void hit() {
		HITS.incrementAndGet();
	}
}
