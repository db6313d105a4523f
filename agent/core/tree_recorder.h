/*
 * tree_recorder.h - output=tree|both: each Java thread's calling-context
 * tree built in the agent as its events arrive (common/calltree.h, the
 * tree builder jcal-post uses), compensated with the calibration table
 * jcal-post would pick for the trace (common/calib_dir.c, calib_comp.h),
 * kept within maxcontexts= by folding cold contexts (calltree_fold.h), and
 * written as a tree snapshot (docs/trace-format.md) on demand and at the
 * end. Memory grows with calling contexts, not with events.
 *
 * Locking (docs/agent-internals.md): each thread's tree has its own mutex,
 * taken by the owning thread for each event (uncontended) and by a dump or
 * a fold for as long as it copies or folds that tree; the registry mutex
 * (taken at thread start, and by dumps and folds) orders them. No I/O
 * happens under a tree's mutex.
 */
#ifndef JCAL_TREE_RECORDER_H
#define JCAL_TREE_RECORDER_H

#include <stddef.h>
#include <stdint.h>

struct tree_thread;

/* At the start of a recording (the load, or a later start) with output=
 * tree or both: snapshot_path is where the snapshot goes at the end; a
 * file can be created beside it (checked now, so that a bad out= fails
 * first). The trees are on from then. Returns 0, or -1 with err. */
int tree_recorder_init(const char *snapshot_path, char *err, size_t errlen);

/* A recording with output=trace: no trees. A thread that had one gives it
 * back at its first event (thread_state_renew). */
void tree_recorder_off(void);

/* Whether the recording keeps trees (output=tree|both). */
int tree_recorder_on(void);

/* At the start of a recording with trees, once the meta records of the
 * calibration fingerprint (host, JVM, mode, metrics, agent) are written
 * and before tree_recorder_reset: chooses the calibration table afresh,
 * the one calib= names (a file, applied as given; a directory, searched)
 * or the one jcal-post would pick for this trace by default, so that a
 * table calibrated since the JVM started counts. Without a table the trees
 * keep raw figures and the snapshot says why (which file could not be
 * read, and why). Returns 0, or -1 with err when calib= cannot be used. */
int tree_recorder_choose_table(char *err, size_t errlen);

/* slow=: whether this recording's metrics give it a duration to compare
 * (a TSC or cputime); with keep, the keeper is made for it too (at the
 * load, before any tree takes events; a later start makes it again in
 * tree_recorder_reset). Returns 0, or -1 with err naming the option. */
int tree_recorder_slow_setup(int keep, char *err, size_t errlen);

/* For status: 1 with slow='s threshold (ns), the calls at least that
 * long so far, how many are kept and the most kept; 0 without slow=. */
int tree_recorder_slow_counts(uint64_t *ns, uint64_t *over, uint64_t *kept, uint64_t *max);

/* A new Java thread's tree (NULL when memory runs out: its events are
 * counted as lost). */
struct tree_thread *tree_recorder_thread_new(uint32_t serial, unsigned nmetrics);

/* The thread ended: its tree stays for the snapshots. */
void tree_recorder_thread_ended(struct tree_thread *tt);

/* output=tree (no trace file): the thread's definition is kept with its
 * tree and written with it in each snapshot, instead of in the definitions
 * every thread started would fill. start: its THREAD_START (name may be
 * given again, on a rename); end: its THREAD_END figures. */
void tree_recorder_thread_start(struct tree_thread *tt, uint64_t java_tid, uint32_t os_tid,
				uint32_t flags, uint64_t time_ns, const char *name,
				const uint64_t *metric);
/* The thread continues the last file of a continuous recording (its
 * THREAD_START flag TRACE_THREAD_CONTINUED): the frames it had open then
 * take no call in its emptied tree (common/calltree.h). On the thread,
 * before its first event in the new file. */
void tree_recorder_thread_continues(struct tree_thread *tt, int continued);

void tree_recorder_thread_end(struct tree_thread *tt, uint64_t time_ns, uint64_t events,
			      const uint64_t *metric);

/* One event of the thread (called on the thread itself, from the event
 * path): what the trace would get. Returns 1 when the event did work an
 * ordinary one does not (a new calling context, contexts folded, a wait for
 * the tree's lock held by a snapshot), else 0: the agent-free clock reads
 * the end of such events (common/agent_clock.h). */
int tree_recorder_event(struct tree_thread *tt, uint32_t method, unsigned transition, unsigned type,
			const uint64_t *metric);

/*
 * Writes a snapshot of every thread's tree (the ended ones too) to path:
 * to a new file beside it, renamed to path once complete, so a reader
 * never sees a part of one. Callable from any thread while events run.
 * Returns 0, or -1 with a one-line message in err.
 */
int tree_recorder_dump(const char *path, char *err, size_t errlen);

/* For a status line: contexts in all trees now, contexts and calls
 * folded so far, and the method events the trees took. Any may be NULL. */
void tree_recorder_counts(uint64_t *contexts, uint64_t *folded_contexts, uint64_t *folded_calls,
			  uint64_t *events);

/* The table the trees are compensated with: its path (1), or 0 with note
 * saying why there is none. */
int tree_recorder_table(const char **path, const char **note);

/* A new recording (after tree_recorder_choose_table, while no event
 * runs): every tree emptied, made again with the table chosen (those of
 * ended threads freed), counts set to 0. */
void tree_recorder_reset(void);

/* At the end of a recording (VM death, stop), after the threads are
 * flushed: writes the snapshot to the path given to tree_recorder_init
 * and prints the summary line, also left in line (len bytes; may be NULL)
 * without its "wrote ". Returns 0 or -1 (said already). */
int tree_recorder_finish(char *line, size_t len);

#endif
