/*
 * overloads.h - methods that share "package.Class.method" (overloads, and
 * bridge methods): the suffix that tells them apart in reports printed
 * without --sig (docs/jcal-post.md, Method names).
 */
#ifndef JCAL_OVERLOADS_H
#define JCAL_OVERLOADS_H

#include "postproc/model_method.h"

/*
 * Sets mm->overload of every method of the table methods (uthash, by id)
 * that is defined (not an alias of another) and whose class and name
 * another one has: its parameter list with class names
 * without their package ("(int, String)"), with packages where that still
 * clashes ("(a.Node)" and "(b.Node)"), else with the return type too
 * ("(): Object" and "(): String": methods that differ by their return type
 * only, bridges), never the JVM descriptor. Others get NULL. Returns 0 or -1 (no
 * memory).
 */
int overloads_mark(struct model_method *methods);

#endif
