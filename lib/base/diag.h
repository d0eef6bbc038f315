/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* Findings collected by the library: library code never prints. */
#include <stddef.h>
#include "macro.h"

enum diag_severity {
        DIAG_ERROR,
        DIAG_WARNING,
        DIAG_INFO,
};

struct diag {
        enum diag_severity severity;
        char *path;     /* may be NULL */
        unsigned line;  /* 0: no line */
        char *message;
};

struct diag_list {
        struct diag *v;
        size_t n, cap;
};

/* Returns 0 or -ENOMEM. A NULL list is accepted and ignored. */
int diag_add(struct diag_list *l, enum diag_severity sev, const char *path, unsigned line,
             const char *fmt, ...) _printf_(5, 6);
size_t diag_count(const struct diag_list *l, enum diag_severity sev);
void diag_list_clear(struct diag_list *l);
const char *diag_severity_name(enum diag_severity sev);
