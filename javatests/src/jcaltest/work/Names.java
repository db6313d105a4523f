package jcaltest.work;

/** A thread whose name needs quoting in CSV and escaping in JSON, and a thread renamed while it runs. */
public final class Names {
	public static final String ODD = "naïve, \"quoted\" 名前";
	static volatile int sink;

	static void leaf() {
		sink++;
	}

	public static void main(String[] args) throws InterruptedException {
		Thread t = new Thread(() -> {
			for (int i = 0; i < 3; i++)
				leaf();
		}, ODD);
		t.start();
		t.join();
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
