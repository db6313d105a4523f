package jcalbench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * What a method event costs the code that runs after it (bench/after-event.sh,
 * docs/history/accuracy.md "What an event costs the code after it"). Each pattern is
 * a loop whose iteration calls an empty static method, then runs a few
 * bytecodes of one kind in the caller; the sequence keys of every call are
 * the same in all patterns, only the code after the callee's exit differs.
 * "noCall" runs the heaviest code with no call at all: what the
 * interpreter-only mode of an event-enabled thread costs by itself.
 *
 * Usage: java -Xint [-agentpath:libcount.so] -cp build/bench jcalbench.AfterEvent plain ROUNDS
 *        java -Xint -agentpath:libjcal.so=trace,start=manual,... \
 *             -cp build/bench jcalbench.AfterEvent ab ROUNDS
 *
 * "plain" times every round as it runs and prints "PATTERN CALLS NS" (calls
 * per iteration, median ns per iteration). "ab" alternates an untraced round
 * and a traced one (inside a jcal.Control region) in the same JVM and
 * prints "PATTERN CALLS UNTRACED_NS TRACED_NS UNTRACED_SUM_NS"; each pattern
 * is the method of its name, so a trace gives its traced cum, to be set
 * against the sum of the untraced rounds.
 */
public final class AfterEvent {
	static final String[] PATTERNS = {
		"empty", "locals", "locals32", "fields", "statics", "arrays", "loop8", "switch8",
		"staticsLoop8", "noCall",
	};
	static int sink, sa, sb;
	int a = 1, b = 2;
	final int[] arr = new int[16];

	static void callee() {
	}

	int empty(int n) {
		int s = 0;
		for (int i = 0; i < n; i++)
			callee();
		return s;
	}

	int locals(int n) {
		int s = 0;
		for (int i = 0; i < n; i++) {
			callee();
			s += i * i; s ^= s >> 3; s += i; s ^= s << 1; s += 7; s ^= i; s -= 3; s ^= s >> 5;
		}
		return s;
	}

	int locals32(int n) {
		int s = 0;
		for (int i = 0; i < n; i++) {
			callee();
			s += i * i; s ^= s >> 3; s += i; s ^= s << 1; s += 7; s ^= i; s -= 3; s ^= s >> 5;
			s += i * i; s ^= s >> 3; s += i; s ^= s << 1; s += 7; s ^= i; s -= 3; s ^= s >> 5;
			s += i * i; s ^= s >> 3; s += i; s ^= s << 1; s += 7; s ^= i; s -= 3; s ^= s >> 5;
			s += i * i; s ^= s >> 3; s += i; s ^= s << 1; s += 7; s ^= i; s -= 3; s ^= s >> 5;
		}
		return s;
	}

	int fields(int n) {
		int s = 0;
		for (int i = 0; i < n; i++) {
			callee();
			a += b; b ^= a; a += 3; b -= 1; a ^= b; b += a; a -= 2; b ^= 7;
		}
		return s;
	}

	int statics(int n) {
		int s = 0;
		for (int i = 0; i < n; i++) {
			callee();
			sa += sb; sb ^= sa; sa += 3; sb -= 1; sa ^= sb; sb += sa; sa -= 2; sb ^= 7;
		}
		return s;
	}

	int arrays(int n) {
		int s = 0;
		for (int i = 0; i < n; i++) {
			callee();
			arr[i & 15] += arr[(i + 1) & 15];
			arr[(i + 2) & 15] ^= arr[(i + 3) & 15];
			arr[(i + 4) & 15] += 3;
			arr[(i + 5) & 15] -= arr[i & 15];
		}
		return s;
	}

	int loop8(int n) {
		int s = 0;
		for (int i = 0; i < n; i++) {
			callee();
			for (int k = 0; k < 8; k++)
				s += k;
		}
		return s;
	}

	int switch8(int n) {
		int s = 0;
		for (int i = 0; i < n; i++) {
			callee();
			switch (i & 7) {
			case 0: s += 1; break;
			case 1: s ^= 2; break;
			case 2: s += 3; break;
			case 3: s -= 1; break;
			case 4: s += 5; break;
			case 5: s ^= 9; break;
			case 6: s += 2; break;
			default: s--;
			}
		}
		return s;
	}

	int staticsLoop8(int n) {
		int s = 0;
		for (int i = 0; i < n; i++) {
			callee();
			sa += sb; sb ^= sa; sa += 3; sb -= 1; sa ^= sb; sb += sa; sa -= 2; sb ^= 7;
			for (int k = 0; k < 8; k++)
				s += k;
		}
		return s;
	}

	int noCall(int n) {
		int s = 0;
		for (int i = 0; i < n; i++) {
			sa += sb; sb ^= sa; sa += 3; sb -= 1; sa ^= sb; sb += sa; sa -= 2; sb ^= 7;
			for (int k = 0; k < 8; k++)
				s += k;
		}
		return s;
	}

	int run(String p, int n) {
		switch (p) {
		case "empty": return empty(n);
		case "locals": return locals(n);
		case "locals32": return locals32(n);
		case "fields": return fields(n);
		case "statics": return statics(n);
		case "arrays": return arrays(n);
		case "loop8": return loop8(n);
		case "switch8": return switch8(n);
		case "staticsLoop8": return staticsLoop8(n);
		case "noCall": return noCall(n);
		default: throw new IllegalArgumentException("unknown pattern " + p);
		}
	}

	public static void main(String[] args) {
		ThreadMXBean mx = ManagementFactory.getThreadMXBean();
		boolean ab = args[0].equals("ab");
		int rounds = Integer.parseInt(args[1]);
		int n = 200000;
		AfterEvent o = new AfterEvent();
		for (String p : PATTERNS) {
			int calls = p.equals("noCall") ? 0 : 1;
			sink += o.run(p, 1000); /* warm-up: resolution of the call sites */
			long[] plain = new long[rounds], traced = new long[rounds];
			long plainSum = 0;
			for (int r = 0; r < rounds; r++) {
				long t0 = mx.getCurrentThreadCpuTime();
				sink += o.run(p, n);
				plain[r] = mx.getCurrentThreadCpuTime() - t0;
				plainSum += plain[r];
				if (!ab)
					continue;
				jcal.Control.start();
				t0 = mx.getCurrentThreadCpuTime();
				sink += o.run(p, n);
				traced[r] = mx.getCurrentThreadCpuTime() - t0;
				jcal.Control.stop();
			}
			if (ab)
				System.out.printf("%s %d %.1f %.1f %d%n", p, calls, Dilation.median(plain, n),
						  Dilation.median(traced, n), plainSum);
			else
				System.out.printf("%s %d %.1f%n", p, calls, Dilation.median(plain, n));
		}
	}
}
