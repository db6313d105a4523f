package jcalbench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The workload of bench/pfm-vs-perf-stat.sh: one call of work() on the main
 * thread between two lines of a handshake, so that perf stat -t can count
 * that thread around the call while jcal counts the call itself.
 *
 * Prints "tid N" (the main thread's kernel id, from /proc/thread-self),
 * reads a line, runs work(KIND, N), prints "done", reads a line, exits.
 * KIND: spin (N iterations of a multiply-add, no call, no allocation),
 * sleep (N sleeps of 2 ms), touch (N direct buffers of 1 MiB, zeroed by the
 * JDK: fresh pages).
 */
public final class PfmCompare {
	static final List<ByteBuffer> keep = new ArrayList<>();

	static long work(String kind, long n) throws InterruptedException {
		long x = 1;
		switch (kind) {
		case "spin":
			for (long i = 0; i < n; i++)
				x = x * 6364136223846793005L + 1442695040888963407L;
			break;
		case "sleep":
			for (long i = 0; i < n; i++)
				Thread.sleep(2);
			break;
		case "touch":
			for (long i = 0; i < n; i++)
				keep.add(ByteBuffer.allocateDirect(1 << 20));
			break;
		default:
			throw new IllegalArgumentException("kind: spin, sleep or touch, not " + kind);
		}
		return x;
	}

	public static void main(String[] args) throws Exception {
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
		String self = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
		System.out.println("tid " + self.substring(self.lastIndexOf('/') + 1));
		System.out.flush();
		in.readLine();
		long x = work(args[0], Long.parseLong(args[1]));
		System.out.println("done");
		System.out.flush();
		in.readLine();
		System.err.println("sink " + x + " " + keep.size());
	}
}
