package bcitest;

/* tableswitch and lookupswitch at every padding, returns as branch targets,
 * string and enum switches. */
public class Switches {
	enum Color { RED, GREEN, BLUE }

	static int table(int x) {
		switch (x) {
		case 0: return 10;
		case 1: return 11;
		case 2: x += 5; break;
		case 3: return 13;
		case 4: x *= 2; break;
		default: return -1;
		}
		return x;
	}

	static int table1(int x) {
		int y = 1;
		switch (x) {
		case 5: y = 50; break;
		case 6: y = 60; break;
		case 7: y = 70; break;
		case 8: y = 80;
		}
		return y;
	}

	static int table12(long l, int x) {
		long z = l;
		switch (x) {
		case 5: z += 50; break;
		case 6: z += 60; break;
		case 7: return (int) z;
		case 8: z = 80;
		}
		return (int) z;
	}

	static int lookup(int x) {
		switch (x) {
		case -1000: return 1;
		case 7: return 2;
		case 100000: return 3;
		case Integer.MAX_VALUE: return 4;
		default: return 0;
		}
	}

	static String str(String s) {
		switch (s) {
		case "alpha": return "A";
		case "beta": return "B";
		case "gamma": return "C";
		default: return "?";
		}
	}

	static int color(Color c) {
		switch (c) {
		case RED: return 1;
		case GREEN: return 2;
		default: return 3;
		}
	}

	public static Object run() {
		StringBuilder sb = new StringBuilder();
		for (int i = -1; i < 7; i++)
			sb.append(table(i)).append(',').append(table1(i + 3)).append(',')
					.append(table12(i, i + 3)).append(' ');
		for (int v : new int[] { -1000, 7, 100000, Integer.MAX_VALUE, 3 })
			sb.append(lookup(v));
		for (String s : new String[] { "alpha", "beta", "gamma", "delta" })
			sb.append(str(s));
		for (Color c : Color.values())
			sb.append(color(c));
		return sb.toString();
	}
}
