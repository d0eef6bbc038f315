/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * The bound of every reader that follows includes (PAM stacks, sshd_config, slurm.conf, a
 * unit's drop-ins): one walk keeps
 *   - its path: the files being read now, from the first to the innermost, by device and
 *     inode of the opened descriptor.  A file met again on its own path is a cycle; the same
 *     file reached along another path (common-session included by two files, or twice in one
 *     stack: a diamond) is not.
 *   - its budget: every file it enters and every line it reads, however often the same file
 *     comes back, so a fan-out (20 includes of a file that includes 20 more...) ends after
 *     VISIT_FILES_MAX files, VISIT_LINES_MAX lines or VISIT_BYTES_MAX bytes of lines (a file
 *     larger than what is left is not entered).
 * The first problem sticks: every later visit_enter() and visit_line() returns it, so the
 * reader unwinds at once; the walk's owner reports v->error at v->where.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define VISIT_FILES_MAX 1000u
#define VISIT_LINES_MAX 1000000u
#define VISIT_BYTES_MAX (64u * 1024 * 1024)
#define VISIT_ERR_CYCLE (-ELOOP)
#define VISIT_ERR_BUDGET (-E2BIG)
#define VISIT_WHERE_MAX 512

struct visit_id {
        dev_t dev;
        ino_t ino;
        bool bounded;        /* entered through an edge a counter of the reader bounds (a PAM
                              * substack: libpam stops at 16 levels) */
};

struct visit {
        struct visit_id *path;        /* the files being read, outermost first */
        size_t depth;
        unsigned files;               /* entered so far, each time counted */
        size_t lines;
        uint64_t bytes;
        int error;                    /* 0, VISIT_ERR_CYCLE or VISIT_ERR_BUDGET (or -ENOMEM) */
        char where[VISIT_WHERE_MAX];  /* the include line that brought a file back, or the line
                                       * (the file) where the budget ran out: "FILE:LINE" */
        char file[VISIT_WHERE_MAX];   /* the file brought back, or not read */
};

/*
 * Enter the file st describes (of an opened descriptor), shown as file, brought by the line
 * from_line of from (NULL for the walk's first file).  0; VISIT_ERR_CYCLE when it is on the
 * path already; VISIT_ERR_BUDGET when it is one file, or its size more bytes, too many;
 * -ENOMEM; or the walk's earlier error.  Each 0 needs its visit_leave().
 */
int visit_enter(struct visit *v, const struct stat *st, const char *file, const char *from, unsigned from_line);
/* The same for a file brought by an edge that a counter of the reader bounds: a file met again
 * on its own path is no cycle when such an edge lies between the two (the reader's bound ends
 * that recursion; the budget still counts every file). */
int visit_enter_bounded(struct visit *v, const struct stat *st, const char *file, const char *from,
                        unsigned from_line, bool bounded);
void visit_leave(struct visit *v);
/* One line (line of file, len bytes) read: 0, VISIT_ERR_BUDGET past VISIT_LINES_MAX lines, or
 * the walk's earlier error. */
int visit_line(struct visit *v, const char *file, unsigned line, size_t len);
/* An include pattern at where ("FILE:LINE") names more files (shown as file) than a walk reads
 * (fs_glob_in_root()'s -E2BIG): VISIT_ERR_BUDGET there, or the walk's earlier error. */
int visit_too_many(struct visit *v, const char *where, const char *file);
void visit_done(struct visit *v);
/* What the problem is, for messages (VISIT_CYCLE_TEXT, VISIT_BUDGET_TEXT, else strerror()). */
#define VISIT_CYCLE_TEXT "an include cycle: the file includes itself, directly or through the files it includes"
#define VISIT_BUDGET_TEXT                                                                               \
        "more than 1000 files, 1,000,000 lines or 64 MiB read in one walk through includes or drop-ins " \
        "(rdmalimits' bound): the reading stopped there"
const char *visit_strerror(int error);
