package jcaltest.work;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * Two builds of one program, for jcal-post diff: "DiffApp v1" and "DiffApp
 * v2" stand for the same program before and after a change, "pool" adds a
 * worker pool. Every count is fixed, whatever the threads' scheduling:
 *
 * <pre>
 *                       v1   v2   v1 pool  v2 pool
 * main                   1    1      1        1
 * run                    1    1      1        1
 * same                   7    7      7        7   unchanged
 * leaf(long)             7    7      7        7   unchanged overload
 * repeat                 1    1      1        1
 * lambda$run$1          10   30     10       30   the lambda's body: tripled
 * parse                 10   30     10       30   tripled
 * oldStep               10    -     10        -   removed in v2
 * newStep                -   10      -       10   added in v2
 * leaf(int)             20   50     26       68   parse + oldStep, or parse + 2 newStep (+ work)
 * pool                   -    -      1        1   main: submits, waits
 * lambda$pool$0          -    -      6        6   on the pool's threads
 * task                   -    -      6        6
 * work                   -    -      6       18   tripled on the pool's threads
 * </pre>
 *
 * The lambdas' hidden classes (DiffApp$$Lambda...accept and run, their
 * names carrying a counter and an address) run as often as lambda$run$1
 * and lambda$pool$0 where the mode traces them. The pool's threads are
 * pool-N-thread-1..3 (N counts the pools of the JVM: 1 here); which of
 * them runs which task is the scheduler's choice, their sum is not.
 */
public class DiffApp {
	static volatile long sink;

	static void leaf(int x) {
		sink += x;
	}

	static void leaf(long x) {
		sink -= x;
	}

	static void same(int i) {
		leaf((long) i);
	}

	static void parse(int i) {
		leaf(i);
	}

	static void oldStep(int i) {
		leaf(i);
	}

	static void newStep(int i) {
		leaf(i);
		leaf(i + 1);
	}

	static void repeat(int n, IntConsumer f) {
		for (int i = 0; i < n; i++)
			f.accept(i);
	}

	static void work(int x) {
		leaf(x);
	}

	static void task(int k, int n) {
		for (int j = 0; j < n; j++)
			work(k + j);
	}

	/* Six tasks on three threads; the main thread waits for each. */
	static void pool(boolean v2) throws Exception {
		ExecutorService ex = Executors.newFixedThreadPool(3);
		List<Future<?>> done = new ArrayList<>();
		for (int k = 0; k < 6; k++) {
			int kk = k;
			done.add(ex.submit(() -> task(kk, v2 ? 3 : 1)));
		}
		for (Future<?> f : done)
			f.get();
		ex.shutdown();
		if (!ex.awaitTermination(60, TimeUnit.SECONDS))
			throw new IllegalStateException("the pool did not end");
	}

	static void run(boolean v2, boolean withPool) throws Exception {
		for (int i = 0; i < 7; i++)
			same(i);
		repeat(v2 ? 30 : 10, i -> parse(i));
		for (int i = 0; i < 10; i++) {
			if (v2)
				newStep(i);
			else
				oldStep(i);
		}
		if (withPool)
			pool(v2);
	}

	public static void main(String[] args) throws Exception {
		if (args.length < 1 || !(args[0].equals("v1") || args[0].equals("v2"))
				|| (args.length > 1 && !args[1].equals("pool"))) {
			System.err.println("usage: DiffApp v1|v2 [pool]");
			System.exit(2);
		}
		run(args[0].equals("v2"), args.length > 1);
		System.out.println("diffapp " + args[0] + " " + sink);
	}
}
