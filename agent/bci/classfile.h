/*
 * classfile.h - Java class files in memory (JVMS chapter 4): parse, edit the
 * constant pool, write back.
 *
 * Pure code, no JVM: unit-tested in native-tests/test-classfile.c.
 * Parsing keeps every attribute as bytes pointing into the class's own copy
 * of the input, so parse + write of an unchanged class is byte-identical.
 * The Code attribute and its StackMapTable have their own parse/write pairs
 * (also byte-identical on round trip) for the rewriter (bci_rewrite.c).
 */
#ifndef JCAL_CLASSFILE_H
#define JCAL_CLASSFILE_H

#include <stddef.h>
#include <stdint.h>

enum cf_tag {
	CF_UTF8 = 1,
	CF_INTEGER = 3,
	CF_FLOAT = 4,
	CF_LONG = 5,
	CF_DOUBLE = 6,
	CF_CLASS = 7,
	CF_STRING = 8,
	CF_FIELDREF = 9,
	CF_METHODREF = 10,
	CF_IMETHODREF = 11,
	CF_NAMEANDTYPE = 12,
	CF_METHODHANDLE = 15,
	CF_METHODTYPE = 16,
	CF_DYNAMIC = 17,
	CF_INVOKEDYNAMIC = 18,
	CF_MODULE = 19,
	CF_PACKAGE = 20,
};

/* One constant pool slot. tag 0 is the unusable slot after a Long/Double.
 * Class, String, MethodType, Module, Package: a = the Utf8 (name) index.
 * Field/Method/InterfaceMethodref: a = class, b = NameAndType.
 * NameAndType: a = name, b = descriptor. MethodHandle: a = kind, b = ref.
 * Dynamic, InvokeDynamic: a = bootstrap method attr index, b = NameAndType.
 * Integer, Float: value holds the 32 bits; Long, Double: the 64 bits. */
struct cf_const {
	uint8_t tag;
	uint16_t len; /* Utf8: byte length (modified UTF-8, no NUL) */
	const uint8_t *utf8;
	uint16_t a, b;
	uint64_t value;
};

struct cf_attr {
	uint16_t name; /* Utf8 index */
	uint32_t len;
	const uint8_t *data;
};

struct cf_member { /* a field or a method */
	uint16_t access, name, desc;
	uint16_t nattrs;
	struct cf_attr *attrs;
};

struct cf_blob;

struct cf_class {
	uint16_t minor, major;
	uint16_t cp_count; /* as in the file: slots 1 .. cp_count-1 */
	size_t cp_cap;
	struct cf_const *cp;
	uint16_t access, this_class, super_class;
	uint16_t ninterfaces;
	uint16_t *interfaces;
	uint16_t nfields, nmethods, nattrs;
	struct cf_member *fields, *methods;
	struct cf_attr *attrs;
	uint8_t *buf;	       /* the class's copy of the input bytes */
	struct cf_blob *blobs; /* memory added after parsing (cf_alloc) */
};

/* Parses len bytes (copied). Returns 0, or -1 with a message in err. The
 * constant pool indices it knows of (in the pool, the header, members' names
 * and descriptors, attribute names) must name slots of the pool. */
int cf_parse(const uint8_t *data, size_t len, struct cf_class *c, char *err, size_t errlen);
/* Serialises into a malloc'd buffer. Returns 0, or -1 when memory runs out. */
int cf_write(const struct cf_class *c, uint8_t **out, size_t *outlen);
void cf_free(struct cf_class *c);

/* Memory that lives as long as the class (for replaced attributes). */
void *cf_alloc(struct cf_class *c, size_t n);

/* Constant pool helpers. Index checks: 0 when out of range or wrong tag. */
const struct cf_const *cf_cp(const struct cf_class *c, uint16_t i, uint8_t tag);
/* 1 when slot i is the Utf8 equal to s. */
int cf_utf8_eq(const struct cf_class *c, uint16_t i, const char *s);
/* Copies Utf8 i (for Class: its name) into buf as a C string; "" if bad. */
const char *cf_utf8_str(const struct cf_class *c, uint16_t i, char *buf, size_t buflen);
/* Find-or-add: return the index, or 0 when the pool is full or memory
 * runs out. */
uint16_t cf_cp_utf8(struct cf_class *c, const char *s);
uint16_t cf_cp_class(struct cf_class *c, const char *name);
uint16_t cf_cp_integer(struct cf_class *c, int32_t v);
uint16_t cf_cp_methodref(struct cf_class *c, const char *cls, const char *name, const char *desc);
uint16_t cf_cp_nameandtype(struct cf_class *c, const char *name, const char *desc);
/* kind: the reference kind (6: REF_invokeStatic); ref: the Methodref. */
uint16_t cf_cp_methodhandle(struct cf_class *c, uint8_t kind, uint16_t ref);
/* bsm: an entry of the BootstrapMethods attribute; nat: a NameAndType. */
uint16_t cf_cp_invokedynamic(struct cf_class *c, uint16_t bsm, uint16_t nat);

/* Appends a method without attributes (name and desc: Utf8 indices).
 * Returns its index, or -1 when the class has 65535 methods or memory runs
 * out. Pointers into c->methods are invalid afterwards. */
int cf_add_method(struct cf_class *c, uint16_t access, uint16_t name, uint16_t desc);
/* Appends an attribute to a field or method; data must live as long as the
 * class (cf_alloc). Returns 0, or -1 when memory runs out. */
int cf_member_add_attr(struct cf_member *m, uint16_t name, uint32_t len, const uint8_t *data);

/* Replaces the class's first attribute of that name (a Utf8 index), or
 * appends one; data must live as long as the class (cf_alloc). Returns 0,
 * or -1 when memory runs out. */
int cf_class_set_attr(struct cf_class *c, uint16_t name, uint32_t len, const uint8_t *data);

/* The Code attribute, parsed. Arrays are malloc'd (cf_code_free). */
struct cf_exception {
	uint16_t start, end, handler, catch_type;
};

struct cf_code {
	uint16_t max_stack, max_locals;
	uint32_t code_len;
	const uint8_t *code;
	uint16_t nexc, nattrs;
	struct cf_exception *exc;
	struct cf_attr *attrs;
};

int cf_code_parse(const struct cf_attr *a, struct cf_code *code, char *err, size_t errlen);
/* Serialises the attribute body (without name and length): malloc'd. */
uint8_t *cf_code_write(const struct cf_code *code, uint32_t *len);
void cf_code_free(struct cf_code *code);

/* StackMapTable, parsed as encoded (frames stay relative to each other). */
enum cf_vtag {
	CF_VT_TOP = 0,
	CF_VT_INTEGER,
	CF_VT_FLOAT,
	CF_VT_DOUBLE,
	CF_VT_LONG,
	CF_VT_NULL,
	CF_VT_UNINIT_THIS,
	CF_VT_OBJECT, /* data = Class index */
	CF_VT_UNINIT, /* data = offset of the `new` */
};

struct cf_vtype {
	uint8_t tag;
	uint16_t data;
};

/* kind: the frame_type byte (0-63 same, 64-127 same_locals_1_stack_item,
 * 247 its extended form, 248-250 chop, 251 same_frame_extended, 252-254
 * append, 255 full). delta: offset_delta. locals/stack index into the
 * table's vtype array. */
struct cf_frame {
	uint8_t kind;
	uint16_t delta;
	uint16_t nlocals, nstack;
	uint32_t locals, stack;
};

struct cf_smt {
	uint16_t nframes;
	struct cf_frame *frames;
	uint32_t nvt;
	struct cf_vtype *vt;
};

int cf_smt_parse(const uint8_t *data, uint32_t len, struct cf_smt *s, char *err, size_t errlen);
/* Serialises (malloc'd). Frames whose delta no longer fits their kind
 * (same/same_locals_1 beyond 63) are written in the extended form. */
uint8_t *cf_smt_write(const struct cf_smt *s, uint32_t *len);
void cf_smt_free(struct cf_smt *s);

#endif
