/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _unused_ __attribute__((unused))
#define _pure_ __attribute__((pure))
#define _warn_unused_ __attribute__((warn_unused_result))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

static inline void freep(void *p) { free(*(void **)p); }
#define _cleanup_free_ _cleanup_(freep)

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Hand ownership out of a _cleanup_ variable. */
#define TAKE_PTR(p) ({ __typeof__(p) _p = (p); (p) = NULL; _p; })
#define TAKE_FD(fd) ({ int _fd = (fd); (fd) = -1; _fd; })

static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}

#define streq(a, b) (strcmp((a), (b)) == 0)

/* isspace(), tolower() and strncasecmp() of the C locale, whatever the process's: the module
 * runs in its caller's locale (su sets the user's), where tolower('I') may not be 'i'. */
static inline bool c_isspace(char c) {
        return c == ' ' || (c >= '\t' && c <= '\r');
}
static inline char c_tolower(char c) {
        return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}
static inline bool c_strncaseeq(const char *a, const char *b, size_t n) {
        for (size_t i = 0; i < n; i++) {
                if (c_tolower(a[i]) != c_tolower(b[i]))
                        return false;
                if (!a[i])
                        return true;
        }
        return true;
}
static inline bool c_strcaseeq(const char *a, const char *b) {
        return c_strncaseeq(a, b, SIZE_MAX);
}

static inline bool endswith(const char *s, const char *suffix) {
        size_t a = strlen(s), b = strlen(suffix);
        return a >= b && streq(s + a - b, suffix);
}

/* dst = the symbol p (a dlsym() or dlvsym() result), or return -ELIBBAD: the library loaded
 * lacks a function this build calls (libibverbs, opened with dlopen() by the tool). */
#define DL_ASSIGN(dst, p)                                                           \
        do {                                                                        \
                void *_p = (p);                                                     \
                if (!_p)                                                            \
                        return -ELIBBAD;                                            \
                (dst) = (__typeof__(dst))_p;                                        \
        } while (0)
