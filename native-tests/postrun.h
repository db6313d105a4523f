/*
 * postrun.h - runs build/jcal-post in a child under an address-space
 * limit, for the tests that assert what memory it needs end to end
 * (test-post-memory.c, test-post-bounds.c): one malloc arena, so that the
 * limit counts what is used rather than the address space each worker's
 * arena reserves; nothing is allocated in the child once the limit is set
 * (the tests may run under ASan, whose own mappings are far larger).
 */
#ifndef JCAL_TEST_POSTRUN_H
#define JCAL_TEST_POSTRUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs build/jcal-post with args (NULL-terminated) and "-o out", stderr to
 * err (printed when it fails), under the limit (bytes; 0: none). Returns
 * its exit status, -1 when it did not exit. */
static inline int postrun(const char *const *args, const char *out, const char *err,
			  unsigned long limit)
{
	extern char **environ;
	static char arena[] = "MALLOC_ARENA_MAX=1";
	char **argv, **envp;
	size_t n = 0, na = 0, ne = 0;
	pid_t pid;
	int st;

	while (args[na])
		na++;
	while (environ[ne])
		ne++;
	argv = calloc(na + 4, sizeof(*argv));
	envp = calloc(ne + 2, sizeof(*envp));
	if (!argv || !envp) {
		free(argv);
		free(envp);
		return -1;
	}
	argv[n++] = "build/jcal-post";
	for (size_t i = 0; i < na; i++)
		argv[n++] = (char *)args[i];
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	memcpy(envp, environ, ne * sizeof(*envp));
	envp[ne] = arena;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = {limit, limit};

		if (!freopen(err, "w", stderr))
			_exit(126);
		if (limit && setrlimit(RLIMIT_AS, &rl))
			_exit(126);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	free(argv);
	free(envp);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		char line[512];
		FILE *f = fopen(err, "r");

		while (f && fgets(line, sizeof(line), f))
			fprintf(stderr, "  jcal-post: %s", line);
		if (f)
			fclose(f);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The contents of path (free it), its length in *len; NULL when unread. */
static inline char *postrun_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	    (s = malloc((size_t)n + 1))) {
		*len = fread(s, 1, (size_t)n, f);
		s[*len] = '\0';
	}
	fclose(f);
	return s;
}

#endif
