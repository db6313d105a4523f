package jcaldemo;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The program `make demo` profiles: a small recursive-descent parser and
 * evaluator of arithmetic expressions, run by two worker threads over the
 * same input, so that the trees show recursion, static and instance
 * methods, JDK collections and per-thread results.
 */
public final class Demo {
	/** Tokens of one expression: numbers, names, operators and parentheses. */
	static final class Lexer {
		private final String s;
		private int pos;

		Lexer(String s) {
			this.s = s;
		}

		private void skipSpace() {
			while (pos < s.length() && s.charAt(pos) == ' ')
				pos++;
		}

		char peek() {
			skipSpace();
			return pos < s.length() ? s.charAt(pos) : '\0';
		}

		char next() {
			char c = peek();
			pos++;
			return c;
		}

		long number() {
			long v = 0;
			while (pos < s.length() && Character.isDigit(s.charAt(pos)))
				v = v * 10 + (s.charAt(pos++) - '0');
			return v;
		}

		String name() {
			int start = pos;
			while (pos < s.length() && Character.isLetter(s.charAt(pos)))
				pos++;
			return s.substring(start, pos);
		}
	}

	/** expr := term (('+'|'-') term)*; term := factor (('*'|'/') factor)*; factor := num | name | '(' expr ')'. */
	static final class Parser {
		private final Lexer lx;
		private final Map<String, Long> vars;

		Parser(String text, Map<String, Long> vars) {
			this.lx = new Lexer(text);
			this.vars = vars;
		}

		long expr() {
			long v = term();
			for (char c = lx.peek(); c == '+' || c == '-'; c = lx.peek()) {
				lx.next();
				v = c == '+' ? v + term() : v - term();
			}
			return v;
		}

		long term() {
			long v = factor();
			for (char c = lx.peek(); c == '*' || c == '/'; c = lx.peek()) {
				lx.next();
				long r = factor();
				v = c == '*' ? v * r : (r == 0 ? 0 : v / r);
			}
			return v;
		}

		long factor() {
			char c = lx.peek();
			if (c == '(') {
				lx.next();
				long v = expr();
				lx.next();
				return v;
			}
			if (Character.isDigit(c))
				return lx.number();
			return vars.getOrDefault(lx.name(), 0L);
		}
	}

	static List<String> program() {
		List<String> lines = new ArrayList<>();
		for (int i = 0; i < 40; i++)
			lines.add("(x + " + i + ") * (y - 3) / (1 + z * " + (i % 5) + ") + ((x * y) - (z + " + i + "))");
		return lines;
	}

	static long run(List<String> lines, int rounds) {
		Map<String, Long> vars = new HashMap<>();
		vars.put("x", 7L);
		vars.put("y", 11L);
		vars.put("z", 2L);
		long sum = 0;
		for (int r = 0; r < rounds; r++)
			for (String line : lines)
				sum += new Parser(line, vars).expr();
		return sum;
	}

	static final class Worker extends Thread {
		private final List<String> lines;
		private final int rounds;
		long result;

		Worker(String name, List<String> lines, int rounds) {
			super(name);
			this.lines = lines;
			this.rounds = rounds;
		}

		@Override
		public void run() {
			result = Demo.run(lines, rounds);
		}
	}

	public static void main(String[] args) throws InterruptedException {
		List<String> lines = program();
		/* One round here loads every class, so the workers' trees show only the parser. */
		run(lines, 1);
		Worker a = new Worker("parser-1", lines, 20), b = new Worker("parser-2", lines, 5);
		a.start();
		b.start();
		a.join();
		b.join();
		System.out.println("demo: parser-1 " + a.result + ", parser-2 " + b.result);
	}
}
