/*
 * model_method.h - one method of jcal-post's model (postproc/model.h), as
 * the METHOD records define it, with the names the reports print: the
 * record the model keeps by id and overloads.c marks.
 */
#ifndef JCAL_MODEL_METHOD_H
#define JCAL_MODEL_METHOD_H

#include <stdint.h>
#include <uthash.h>

struct model_method {
	uint32_t id;
	uint32_t modifiers;
	int defined; /* a METHOD record was seen */
	char *class_sig, *name, *sig;
	char *display; /* set by model_names */
	/* What tells it apart from another method of the same class and name
	 * when names have no signature ("(int, String)"); NULL when none does
	 * (overloads.h). */
	char *overload;
	/* An earlier method of the same class, name and signature (the same
	 * method loaded by another class loader, or an id the JVM handed out
	 * again): its events count for that one. */
	int aliased;
	uint32_t canon;
	UT_hash_handle hh;
};

#endif
