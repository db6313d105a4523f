/*
 * test-agent-clock.c - unit tests of the agent-free clock's arithmetic
 * (common/agent_clock.h): the running sum of the time inside the agent,
 * values that never go backwards, several metrics at once, wrap-around,
 * the end read in bursts and on rare events, the estimate.
 */
#include <string.h>

#include "common/agent_clock.h"
#include "native-tests/test.h"

/* A thread whose callbacks start at s[k] and end at e[k] (one metric):
 * the recorded values are s[k] less the callbacks before it. */
static void test_sum_taken_out(void)
{
	struct agent_clock c;
	const uint64_t s[] = {1000, 1300, 1800, 1850};
	const uint64_t e[] = {1100, 1500, 1820, 1900};
	const uint64_t want[] = {1000, 1200, 1500, 1530};

	memset(&c, 0, sizeof(c));
	for (unsigned k = 0; k < 4; k++) {
		uint64_t v = s[k];

		agent_clock_value(&c, 1, &v);
		CHECK_EQ_U(v, want[k]);
		agent_clock_charge(&c, 1, &s[k], &e[k]);
	}
	CHECK_EQ_U(c.inside[0], 100 + 200 + 20 + 50);
	/* the deltas are the gaps between callbacks */
	CHECK_EQ_U(want[1] - want[0], s[1] - e[0]);
	CHECK_EQ_U(want[3] - want[2], s[3] - e[2]);
}

/* A counter that steps back (between callbacks or inside one) never makes
 * a value go backwards, and a negative difference is not charged. */
static void test_never_backwards(void)
{
	struct agent_clock c;
	uint64_t v, a, b;

	memset(&c, 0, sizeof(c));
	v = 500;
	agent_clock_value(&c, 1, &v);
	a = 500, b = 600;
	agent_clock_charge(&c, 1, &a, &b); /* inside 100 */
	v = 590;			   /* 10 before the end of the last callback: 490 < 500 */
	agent_clock_value(&c, 1, &v);
	CHECK_EQ_U(v, 500);
	a = 700, b = 690; /* backwards inside a callback: nothing charged */
	agent_clock_charge(&c, 1, &a, &b);
	CHECK_EQ_U(c.inside[0], 100);
	v = 800;
	agent_clock_value(&c, 1, &v);
	CHECK_EQ_U(v, 700);
	/* an equal value is given out as such */
	v = 800;
	agent_clock_value(&c, 1, &v);
	CHECK_EQ_U(v, 700);
}

/* Every metric of a multi-metric set has its own sum and last value. */
static void test_several_metrics(void)
{
	struct agent_clock c;
	uint64_t v[3] = {100, 10000, 7}, s[3], e[3];

	memset(&c, 0, sizeof(c));
	agent_clock_value(&c, 3, v);
	CHECK_EQ_U(v[0], 100);
	CHECK_EQ_U(v[1], 10000);
	CHECK_EQ_U(v[2], 7);
	s[0] = 100, s[1] = 10000, s[2] = 7;
	e[0] = 140, e[1] = 10900, e[2] = 7;
	agent_clock_charge(&c, 3, s, e);
	v[0] = 150, v[1] = 11000, v[2] = 9;
	agent_clock_value(&c, 3, v);
	CHECK_EQ_U(v[0], 110);
	CHECK_EQ_U(v[1], 10100);
	CHECK_EQ_U(v[2], 9);
	/* n = 2 leaves the third alone */
	s[0] = 150, s[1] = 11000, s[2] = 9;
	e[0] = 160, e[1] = 11010, e[2] = 1000;
	agent_clock_charge(&c, 2, s, e);
	CHECK_EQ_U(c.inside[0], 50);
	CHECK_EQ_U(c.inside[1], 910);
	CHECK_EQ_U(c.inside[2], 0);
}

/* Counters are modulo 2^64 (a thread's offset may wrap them): the sum and
 * the comparison work across the wrap. */
static void test_wrap(void)
{
	struct agent_clock c;
	uint64_t v = UINT64_MAX - 50, s = UINT64_MAX - 50, e = 30;

	memset(&c, 0, sizeof(c));
	agent_clock_value(&c, 1, &v);
	CHECK_EQ_U(v, UINT64_MAX - 50);
	agent_clock_charge(&c, 1, &s, &e); /* 81 across the wrap */
	CHECK_EQ_U(c.inside[0], 81);
	v = 100;
	agent_clock_value(&c, 1, &v);
	CHECK_EQ_U(v, 19); /* 100 - 81, past the wrap: forwards */
	v = 90;		   /* 9: before 19 */
	agent_clock_value(&c, 1, &v);
	CHECK_EQ_U(v, 19);
}

/* One event of a thread whose callback spends inside from s: the end read
 * when the clock asks for it (counted in *reads), the estimate added
 * otherwise; rare marks the event as one with rare work. */
static void sampled_event(struct agent_clock *c, uint64_t s, uint64_t inside, int rare,
			  unsigned every, unsigned *reads)
{
	const uint64_t e = s + inside;

	if (rare)
		agent_clock_mark_rare(c);
	if (agent_clock_end_needed(c)) {
		agent_clock_end_read(c, 1, &s, &e, every);
		(*reads)++;
	} else {
		agent_clock_end_estimated(c, 1, every);
	}
}

/* With every = 32, the first AGENT_CLOCK_BURST events of each 32 are read
 * and the others take the estimate; events spending a steady 10 inside the
 * agent give an exact sum. every = 1 reads them all, and keeps no
 * estimate. */
static void test_sampled_steady(void)
{
	struct agent_clock c;
	unsigned reads = 0;

	memset(&c, 0, sizeof(c));
	for (unsigned k = 0; k < 96; k++) {
		CHECK_EQ_I(agent_clock_end_needed(&c), k % 32 < AGENT_CLOCK_BURST);
		sampled_event(&c, 1000 * k, 10, 0, 32, &reads);
	}
	CHECK_EQ_U(reads, 3 * AGENT_CLOCK_BURST);
	CHECK_EQ_U(c.inside[0], 960);
	CHECK_EQ_U(c.est[0], 10);
	memset(&c, 0, sizeof(c));
	reads = 0;
	for (unsigned k = 0; k < 5; k++)
		sampled_event(&c, 1000 * k, 10 + k, 0, 1, &reads);
	CHECK_EQ_U(reads, 5);
	CHECK_EQ_U(c.inside[0], 10 + 11 + 12 + 13 + 14);
	/* every event read: no estimate is kept, none is needed */
	CHECK_EQ_I(c.has_est, 0);
}

/* The first AGENT_CLOCK_WARM reads of a burst (slower: their path runs
 * rarely) do not teach the estimate, but for a thread's very first; the
 * others do, by an eighth of each difference, up and down; a sample that
 * went backwards counts as 0. */
static void test_sampled_estimate(void)
{
	struct agent_clock c;
	unsigned reads = 0;
	uint64_t s = 500, e = 400;

	memset(&c, 0, sizeof(c));
	sampled_event(&c, 0, 80, 0, 32, &reads); /* the first: taken */
	CHECK_EQ_U(c.est[0], 80);
	sampled_event(&c, 1000, 500, 0, 32, &reads); /* warm-up: not taken */
	CHECK_EQ_U(c.est[0], 80);
	sampled_event(&c, 2000, 160, 0, 32, &reads);
	CHECK_EQ_U(c.est[0], 90); /* 80 + 80 / 8 */
	sampled_event(&c, 3000, 10, 0, 32, &reads);
	CHECK_EQ_U(c.est[0], 80); /* 90 - 80 / 8 */
	agent_clock_end_read(&c, 1, &s, &e, 32);
	CHECK_EQ_U(c.est[0], 70); /* 80 - 80 / 8 */
	CHECK_EQ_U(c.inside[0], 80 + 500 + 160 + 10);
	/* the next burst's first two are warm-up again */
	for (unsigned k = 5; k < 32; k++)
		sampled_event(&c, 1000 * k, 70, 0, 32, &reads);
	CHECK_EQ_U(c.phase, 0);
	sampled_event(&c, 40000, 1000, 0, 32, &reads);
	sampled_event(&c, 41000, 1000, 0, 32, &reads);
	CHECK_EQ_U(c.est[0], 70);
}

/* A rare event (a buffer written out) has its end read and charged as it
 * is, without moving the estimate or the period; a first event that is
 * rare leaves the next one to give the first estimate. */
static void test_sampled_rare(void)
{
	struct agent_clock c;
	unsigned reads = 0;

	memset(&c, 0, sizeof(c));
	sampled_event(&c, 0, 5000, 1, 32, &reads); /* rare, first */
	CHECK_EQ_I(c.has_est, 0);
	CHECK_EQ_U(c.phase, 0);
	sampled_event(&c, 10000, 10, 0, 32, &reads); /* the first estimate */
	CHECK_EQ_U(c.est[0], 10);
	for (unsigned k = 1; k < AGENT_CLOCK_BURST; k++)
		sampled_event(&c, 10000 + 1000 * k, 10, 0, 32, &reads);
	CHECK_EQ_U(reads, 1 + AGENT_CLOCK_BURST);
	CHECK_EQ_I(agent_clock_end_needed(&c), 0);
	sampled_event(&c, 30000, 7000, 1, 32, &reads); /* rare: read */
	sampled_event(&c, 40000, 10, 0, 32, &reads);   /* estimated */
	CHECK_EQ_U(reads, 2 + AGENT_CLOCK_BURST);
	CHECK_EQ_U(c.est[0], 10);
	CHECK_EQ_U(c.inside[0], 5000 + 10 * AGENT_CLOCK_BURST + 7000 + 10);
	CHECK_EQ_U(c.phase, AGENT_CLOCK_BURST + 1);
}

int main(void)
{
	RUN(test_sum_taken_out);
	RUN(test_never_backwards);
	RUN(test_several_metrics);
	RUN(test_wrap);
	RUN(test_sampled_steady);
	RUN(test_sampled_estimate);
	RUN(test_sampled_rare);
	return test_summary("agent-clock");
}
