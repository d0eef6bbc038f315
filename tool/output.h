/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "macro.h"

/* The word for a code (an errno, a state) in a table of them, else dflt. */
struct code_word {
        int code;
        const char *word;
};
const char *code_word(int code, const struct code_word *words, size_t n, const char *dflt);
#define CODE_WORD(code, words, dflt) code_word((code), (words), ELEMENTSOF(words), (dflt))

/* Messages to stderr, prefixed with the program name and level (NULL: none); those given a ctx
 * (warnings and information) not with --quiet.  The whole message goes through the one escaper
 * (escape.h): pass user bytes raw, never escaped already (they would be escaped twice). */
struct ctx;
void log_at(const struct ctx *c, const char *level, const char *fmt, ...) _printf_(3, 4);
#define log_error(...) log_at(NULL, NULL, __VA_ARGS__)
#define log_warning(c, ...) log_at((c), "warning: ", __VA_ARGS__)
#define log_info(c, ...) log_at((c), NULL, __VA_ARGS__)
/* "out of memory", then -ENOMEM to return */
int log_oom(void);

/* A small streaming JSON writer.  Every string (keys, values) is the one escaper's output
 * (escape.h) with '"' and '\\' after a backslash: pure ASCII, whatever the bytes.  Pass raw
 * bytes: a byte 0xff is written as "\\xff" (the string \xff once parsed), a backslash as
 * "\\\\" (the string \\), a newline as "\\x0a". */
struct json {
        FILE *f;
        int depth;
        bool first[32];
        bool after_key;
};
void json_obj_begin(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s);   /* NULL -> null */
void json_u64(struct json *j, uint64_t v);
void json_i64(struct json *j, int64_t v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* bytes as an integer, "unlimited" for UINT64_MAX */
void json_limit(struct json *j, uint64_t v);
/* The one object a command prints on stdout: its "{"; its "}" and newline */
void json_doc_begin(struct json *j);
void json_doc_end(struct json *j);
/* KEY and its value in one call; the _opt ones write null when !known */
void json_kstr(struct json *j, const char *key, const char *s);
/* A text of lines (a diff, messages): each line as json_str() writes it, its line breaks and
 * tabs as \n and \t (NULL: "") */
void json_klines(struct json *j, const char *key, const char *text);
void json_ku64(struct json *j, const char *key, uint64_t v);
void json_ki64(struct json *j, const char *key, int64_t v);
void json_kbool(struct json *j, const char *key, bool v);
void json_klimit(struct json *j, const char *key, uint64_t v);
void json_ku64_opt(struct json *j, const char *key, bool known, uint64_t v);
void json_ki64_opt(struct json *j, const char *key, bool known, int64_t v);
void json_klimit_opt(struct json *j, const char *key, bool known, uint64_t v);
void json_kobj_begin(struct json *j, const char *key);
void json_karr_begin(struct json *j, const char *key);

/* A text of lines (a diff) on a terminal: every byte through the one escaper but the newlines
 * and tabs that lay it out (NULL: nothing) */
void print_lines(FILE *f, const char *text);

/* A Prometheus label value with its quotes: the one escaper's output, '"' and '\\' after a
 * backslash (the exposition format's escapes; a newline cannot remain).  NULL: "". */
void prom_label_value(FILE *f, const char *s);

/* Print findings as "path:line: severity: message" (stderr) or into JSON. */
void diag_print(const struct diag_list *l, FILE *f, bool errors_only);
void diag_json(struct json *j, const struct diag_list *l);

/* Unified diff of two texts ("--- a", "+++ b") into a malloc()ed string, "" when they are the same. */
char *unified_diff_string(const char *a_name, const char *a, const char *b_name, const char *b);
