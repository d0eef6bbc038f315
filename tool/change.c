/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a command that changes a file reports: the JSON document of a change and its unified diff.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dropin.h"
#include "escape.h"
#include "fsutil.h"
#include "hwcache.h"
#include "ident.h"
#include "size.h"
#include "tool.h"

void change_json_begin(struct json *j, bool changed, const char *file, const char *diff) {
        json_doc_begin(j);
        json_kbool(j, "changed", changed);
        json_kstr(j, "file", file);
        json_klines(j, "diff", diff);
}

void change_json_end(const struct ctx *c, struct json *j) {
        if (c->check)
                json_kbool(j, "check", true);
        json_doc_end(j);
}

char *change_diff(const struct ctx *c, bool changed, const char *display, bool existed, const char *old, bool removed,
                  const char *text) {
        char *diff = NULL;
        if (changed && (c->diff || c->json))
                diff = unified_diff_string(existed ? display : "/dev/null", old, removed ? "/dev/null" : display, text);
        if (c->diff && diff && !c->json)
                print_lines(stdout, diff);
        return diff;
}
