package jcaltest.work;

import jcal.Control;

/**
 * jcal.Control regions: work(5) before any region, then a region holding
 * work(7), a mark, a nested region with work(2), then work(100) after the
 * outer region closed, then one more stop(). With start=manual only work(7)
 * and work(2) are traced (work 2 calls, leaf 9) and the last stop() is
 * ignored. By default a thread is traced from its start as if inside one
 * region, so the balanced pairs change nothing and only the last stop()
 * pauses it: work(5), (7), (2) and (100) are traced (work 4, leaf 114).
 */
public final class Regions {
	static volatile long sink;

	static void leaf(int i) {
		sink += i;
	}

	static void work(int n) {
		for (int i = 0; i < n; i++)
			leaf(i);
	}

	public static void main(String[] args) {
		work(5);
		Control.start();
		work(7);
		Control.mark("after seven");
		Control.start();
		work(2);
		Control.stop();
		Control.stop();
		work(100);
		Control.stop(); /* start=manual: ignored; default: pauses the thread */
		System.out.println("regions " + sink);
	}
}
