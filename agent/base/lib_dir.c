/*
 * lib_dir.c - finds libjcal.so's own directory with dladdr(3), so that the
 * user types nothing but -agentpath and the jars beside it are found.
 */
#include "agent/base/lib_dir.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int jcal_lib_file(const char *name, char *out, size_t len)
{
	Dl_info info;
	char dir[1024] = ".";
	struct stat sb;

	if (dladdr((void *)jcal_lib_file, &info) && info.dli_fname) {
		char *real = realpath(info.dli_fname, NULL);
		snprintf(dir, sizeof(dir), "%s", real ? real : info.dli_fname);
		free(real);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else
			strcpy(dir, ".");
	}
	snprintf(out, len, "%s/%s", dir, name);
	return stat(out, &sb) == 0 ? 0 : -1;
}
