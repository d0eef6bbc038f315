/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "output.h"
#include "tool.h"

const char *printable(const char *s, char *buf, size_t size) {
        size_t n = 0;
        if (!s)
                s = "(null)";
        for (const unsigned char *p = (const unsigned char *)s; *p && n + 5 < size; p++) {
                if (*p < 0x20 || *p == 0x7f)
                        n += (size_t)snprintf(buf + n, size - n, "\\x%02x", *p);
                else
                        buf[n++] = (char)*p;
        }
        buf[n < size ? n : size - 1] = '\0';
        return buf;
}

const char *code_word(int code, const struct code_word *words, size_t n, const char *dflt) {
        for (size_t i = 0; i < n; i++)
                if (words[i].code == code)
                        return words[i].word;
        return dflt;
}

/* fputs with control characters escaped */
static void fputs_safe(const char *s, FILE *f) {
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
                if (*p < 0x20 || *p == 0x7f)
                        fprintf(f, "\\x%02x", *p);
                else
                        fputc(*p, f);
        }
}

void log_at(const struct ctx *c, const char *level, const char *fmt, ...) {
        _cleanup_free_ char *msg = NULL;
        va_list ap;

        if (c && c->quiet)
                return;
        fputs("rdmalimits: ", stderr);
        if (level)
                fputs(level, stderr);
        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) >= 0)
                fputs_safe(msg, stderr); /* what users typed is echoed without control characters */
        va_end(ap);
        fputc('\n', stderr);
}

int log_oom(void) {
        log_error("out of memory");
        return -ENOMEM;
}

static void sep(struct json *j) {
        if (j->after_key) {
                j->after_key = false;
                return;
        }
        if (!j->first[j->depth])
                fputs(", ", j->f);
        j->first[j->depth] = false;
}

static void push(struct json *j, char c) {
        sep(j);
        fputc(c, j->f);
        if (j->depth < 31)
                j->depth++;
        j->first[j->depth] = true;
}

void json_obj_begin(struct json *j) {
        push(j, '{');
}
void json_arr_begin(struct json *j) {
        push(j, '[');
}
void json_obj_end(struct json *j) {
        j->depth--;
        fputc('}', j->f);
}
void json_arr_end(struct json *j) {
        j->depth--;
        fputc(']', j->f);
}

static void put_string(FILE *f, const char *s) {
        /* the characters with a short escape, and the letter after their backslash */
        static const char plain[] = "\"\\\n\t\r", escaped[] = "\"\\ntr";

        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
                const char *e = strchr(plain, *p);
                if (e)
                        fprintf(f, "\\%c", escaped[e - plain]);
                else if (*p < 0x20 || *p == 0x7f)
                        fprintf(f, "\\u%04x", *p);
                else
                        fputc(*p, f);
        }
        fputc('"', f);
}

void json_key(struct json *j, const char *key) {
        sep(j);
        put_string(j->f, key);
        fputs(": ", j->f);
        j->after_key = true;
}

void json_str(struct json *j, const char *s) {
        sep(j);
        if (s)
                put_string(j->f, s);
        else
                fputs("null", j->f);
}

void json_u64(struct json *j, uint64_t v) {
        sep(j);
        fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, int64_t v) {
        sep(j);
        fprintf(j->f, "%" PRId64, v);
}

void json_bool(struct json *j, bool v) {
        sep(j);
        fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j) {
        sep(j);
        fputs("null", j->f);
}

void json_limit(struct json *j, uint64_t v) {
        if (v == UINT64_MAX)
                json_str(j, "unlimited");
        else
                json_u64(j, v);
}

void json_doc_begin(struct json *j) {
        *j = (struct json){ .f = stdout, .first = { true } };
        json_obj_begin(j);
}

void json_doc_end(struct json *j) {
        json_obj_end(j);
        fputc('\n', j->f);
}

void json_kstr(struct json *j, const char *key, const char *s) {
        json_key(j, key);
        json_str(j, s);
}

void json_ku64(struct json *j, const char *key, uint64_t v) {
        json_key(j, key);
        json_u64(j, v);
}

void json_ki64(struct json *j, const char *key, int64_t v) {
        json_key(j, key);
        json_i64(j, v);
}

void json_kbool(struct json *j, const char *key, bool v) {
        json_key(j, key);
        json_bool(j, v);
}

void json_klimit(struct json *j, const char *key, uint64_t v) {
        json_key(j, key);
        json_limit(j, v);
}

/* KEY, then null when !known; whether the value is still to be written */
static bool json_kknown(struct json *j, const char *key, bool known) {
        json_key(j, key);
        if (!known)
                json_null(j);
        return known;
}

void json_ku64_opt(struct json *j, const char *key, bool known, uint64_t v) {
        if (json_kknown(j, key, known))
                json_u64(j, v);
}

void json_ki64_opt(struct json *j, const char *key, bool known, int64_t v) {
        if (json_kknown(j, key, known))
                json_i64(j, v);
}

void json_klimit_opt(struct json *j, const char *key, bool known, uint64_t v) {
        if (json_kknown(j, key, known))
                json_limit(j, v);
}

void json_kobj_begin(struct json *j, const char *key) {
        json_key(j, key);
        json_obj_begin(j);
}

void json_karr_begin(struct json *j, const char *key) {
        json_key(j, key);
        json_arr_begin(j);
}

void diag_print(const struct diag_list *l, FILE *f, bool errors_only) {
        for (size_t i = 0; i < l->n; i++) {
                const struct diag *d = &l->v[i];
                if (errors_only && d->severity != DIAG_ERROR)
                        continue;
                if (d->path) {
                        fputs_safe(d->path, f);
                        if (d->line)
                                fprintf(f, ":%u", d->line);
                        fputs(": ", f);
                }
                fprintf(f, "%s: ", diag_severity_name(d->severity));
                fputs_safe(d->message, f);
                fputc('\n', f);
        }
}

void diag_json(struct json *j, const struct diag_list *l) {
        json_arr_begin(j);
        for (size_t i = 0; i < l->n; i++) {
                const struct diag *d = &l->v[i];
                json_obj_begin(j);
                json_kstr(j, "severity", diag_severity_name(d->severity));
                json_kstr(j, "file", d->path);
                json_ku64_opt(j, "line", d->line, d->line);
                json_kstr(j, "message", d->message);
                if (d->id)
                        json_kstr(j, "id", d->id);
                if (d->fix)
                        json_kstr(j, "fix", d->fix);
                json_obj_end(j);
        }
        json_arr_end(j);
}

/* ---- unified diff (LCS over lines; files here are small) ---- */

struct lines {
        char **v;
        size_t n;
        char *buf;
};

static void lines_clear(struct lines *l) {
        free(l->v);
        free(l->buf);
}

/* s into l (empty), line by line; 0 or -ENOMEM (l is to be cleared then). */
static int split_lines(const char *s, struct lines *l) {
        l->buf = strdup(s ? s : "");
        if (!l->buf)
                return -ENOMEM;
        size_t cap = 0;
        for (char *p = l->buf; *p;) {
                char *nl = strchr(p, '\n');
                if (GROW(l->v, cap, l->n + 1) < 0)
                        return -ENOMEM;
                l->v[l->n++] = p;
                if (!nl)
                        break;
                *nl = '\0';
                p = nl + 1;
        }
        return 0;
}

char *unified_diff_string(const char *an, const char *a, const char *bn, const char *b) {
        _cleanup_(lines_clear) struct lines la = {}, lb = {};
        _cleanup_free_ unsigned *t = NULL;
        char *out = NULL;
        size_t size = 0;
        FILE *f;

        if (split_lines(a, &la) < 0 || split_lines(b, &lb) < 0)
                return NULL;
        size_t n = la.n, m = lb.n;
        t = calloc((n + 1) * (m + 1), sizeof(unsigned));
        f = open_memstream(&out, &size);
        if (!t || !f)
                goto done;
#define T(i, k) t[(i) * (m + 1) + (k)]
        for (size_t i = n; i-- > 0;)
                for (size_t k = m; k-- > 0;)
                        T(i, k) = streq(la.v[i], lb.v[k]) ? T(i + 1, k + 1) + 1
                                  : (T(i + 1, k) > T(i, k + 1) ? T(i + 1, k) : T(i, k + 1));
        if (T(0, 0) == n && n == m)
                goto done;
        fprintf(f, "--- %s\n+++ %s\n@@ -%zu,%zu +%zu,%zu @@\n", an, bn, n ? (size_t)1 : 0, n, m ? (size_t)1 : 0, m);
        for (size_t i = 0, k = 0; i < n || k < m;) {
                if (i < n && k < m && streq(la.v[i], lb.v[k])) {
                        fprintf(f, " %s\n", la.v[i]);
                        i++, k++;
                } else if (i < n && (k == m || T(i + 1, k) >= T(i, k + 1))) {
                        fprintf(f, "-%s\n", la.v[i++]);
                } else {
                        fprintf(f, "+%s\n", lb.v[k++]);
                }
        }
#undef T
done:
        if (f)
                fclose(f);
        return out;
}
