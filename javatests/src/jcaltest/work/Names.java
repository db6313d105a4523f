package jcaltest.work;

/** A thread whose name needs quoting in CSV and escaping in JSON, and a thread renamed while it runs. */
public final class Names {
	public static final String ODD = "naïve, \"quoted\" 名前";
	static volatile int sink;

	static void leaf() {
		sink++;
	}

	/** Runs a thread of that name that calls leaf() 3 times, and waits for it. */
	public static void runNamed(String name) throws InterruptedException {
		Thread t = new Thread(() -> {
			for (int i = 0; i < 3; i++)
				leaf();
		}, name);
		t.start();
		t.join();
	}

	public static void main(String[] args) throws InterruptedException {
		runNamed(ODD);
		Thread r = new Thread(() -> {
			leaf();
			Thread.currentThread().setName("renamed-later");
			leaf();
		}, "first-name");
		r.start();
		r.join();
		System.out.println("names " + sink);
		@SuppressWarnings("deprecation") /* threadId() is JDK 19+ */
		long tid = Thread.currentThread().getId();
		System.out.println("main-tid " + tid);
	}
}
