/*
 * names.h - turns JVM class and method signatures into the names users read.
 *
 *   "Lpkg/sub/Class$Inner;" + "run"  -> "pkg.sub.Class$Inner.run"
 *   "[I" -> "int[]",  "[[Ljava/lang/String;" -> "java.lang.String[][]"
 *
 * With the signature, the JVM method descriptor is appended as is:
 * "pkg.Class.run(I)V".
 */
#ifndef JCAL_NAMES_H
#define JCAL_NAMES_H

#include <stddef.h>

/* Writes the Java name of a JVM type descriptor ("Lpkg/C;", "[I", "I") to
 * buf (always NUL-terminated when len > 0). A string that is not a
 * descriptor (e.g. already "pkg.C" or "C") is copied with '/' -> '.'.
 * Returns the length the full name needs, like snprintf. */
size_t names_class(const char *desc, char *buf, size_t len);

/* "class.method" (+ sig when sig is non-NULL and non-empty); an empty or
 * NULL class gives just the method name. Returns the length needed. */
size_t names_method(const char *class_desc, const char *method, const char *sig, char *buf,
		    size_t len);

/* The parameter list of a method descriptor as Java writes it:
 * "(ILjava/lang/String;[J)V" -> "(int, java.lang.String, long[])", or with
 * simple "(int, String, long[])" (class names without their package).
 * Returns the length needed, like snprintf. */
size_t names_params(const char *sig, int simple, char *buf, size_t len);

/* The return type of a method descriptor as Java writes it:
 * "(I)Ljava/lang/String;" -> "java.lang.String", or with simple "String";
 * "()V" -> "void"; "" when sig has none. Returns the length needed. */
size_t names_return(const char *sig, int simple, char *buf, size_t len);

#endif
