/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pam_stack_load() over a throwaway root's etc/pam.d. */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "pamedit.h"
#include "pammod.h"
#include "pamstack.h"
#include "visit.h"

static char root[] = "/tmp/test-pamstack-XXXXXX";

/* etc/pam.d/name */
static void put(const char *name, const char *text) {
        char rel[256];
        snprintf(rel, sizeof rel, "etc/pam.d/%s", name);
        unit_put(root, rel, text);
}

static int setup(void **state) {
        (void)state;
        return unit_tree(root, (const struct unit_file[]){ { "etc/pam.d", NULL }, {} });
}

static void assert_entry(const struct pam_entry *e, const char *file, unsigned line, bool dash, const char *control,
                         const char *module, const char *name, const char *args, unsigned depth) {
        assert_string_equal(e->file, file);
        assert_int_equal(e->line, line);
        assert_int_equal(e->dash, dash);
        assert_string_equal(e->control, control);
        assert_string_equal(e->module, module);
        assert_string_equal(e->name, name);
        assert_string_equal(e->args, args);
        assert_int_equal(e->depth, depth);
}

static void test_includes(void **state) {
        struct pam_stack s;
        (void)state;

        put("common-session", "# the common session\n"
                              "session [default=1]   pam_permit.so\n"
                              "session required pam_unix.so\n"
                              "session optional /lib/security/pam_systemd.so  debug  x=1 \n"
                              "auth required pam_deny.so\n");
        put("extra", "session required pam_limits.so conf=/etc/x.conf # a comment\n");
        put("sub", "Session optional pam_rdmalimit.so\n");
        put("svc", "auth include common-auth\n"
                   "@include common-session\n"
                   "\n"
                   "   # only a comment\n"
                   "session Include extra\n"          /* libpam: strcasecmp() */
                   "-session optional pam_gone.so\n"
                   "session SubStack sub\n"
                   "session\trequired\tpam_env.so\r\n"
                   "session required\n"
                   "account required pam_unix.so\n");
        assert_int_equal(pam_stack_load(root, "svc", &s), 0);
        assert_string_equal(s.service, "svc");
        assert_int_equal(s.error, 0);
        assert_int_equal(s.n, 8);
        assert_entry(&s.v[0], "etc/pam.d/common-session", 2, false, "[default=1]", "pam_permit.so", "pam_permit", "", 1);
        assert_entry(&s.v[1], "etc/pam.d/common-session", 3, false, "required", "pam_unix.so", "pam_unix", "", 1);
        assert_entry(&s.v[2], "etc/pam.d/common-session", 4, false, "optional", "/lib/security/pam_systemd.so",
                     "pam_systemd", "debug  x=1 ", 1);
        assert_entry(&s.v[3], "etc/pam.d/extra", 1, false, "required", "pam_limits.so", "pam_limits",
                     "conf=/etc/x.conf ", 1);
        assert_entry(&s.v[4], "etc/pam.d/svc", 6, true, "optional", "pam_gone.so", "pam_gone", "", 0);
        assert_entry(&s.v[5], "etc/pam.d/sub", 1, false, "optional", "pam_rdmalimit.so", "pam_rdmalimit", "", 1);
        /* a DOS line end: libpam's words end at blanks and newlines, the carriage return is part of
         * the module's name, a file libpam cannot load (measured: PAM_MODULE_UNKNOWN) */
        assert_entry(&s.v[6], "etc/pam.d/svc", 8, false, "required", "pam_env.so\r", "pam_env.so\r", "", 0);
        /* a line without a module: libpam's handler that always fails, under its control */
        assert_entry(&s.v[7], "etc/pam.d/svc", 9, false, "required", "", "", "", 0);
        assert_true(s.v[7].fails);
        assert_false(s.v[6].fails);

        assert_int_equal(pam_stack_find(&s, "pam_limits"), 3);
        assert_int_equal(pam_stack_find(&s, "pam_rdmalimit"), 5);
        assert_int_equal(pam_stack_find(&s, "pam_systemd"), 2);
        assert_int_equal(pam_stack_find(&s, "pam_deny"), -1);
        assert_int_equal(pam_stack_find(&s, "pam_limits.so"), -1);
        pam_stack_clear(&s);
        assert_null(s.v);
        assert_int_equal(s.n, 0);
}

static void test_missing(void **state) {
        struct pam_stack s;
        (void)state;

        /* a missing include leaves an entry that fails (libpam's handler that always fails),
         * named after the file; a missing @include makes pam_start() fail: the stack aborts */
        put("withgap", "session include nowhere\n@include nothere\nsession required pam_unix.so\n");
        assert_int_equal(pam_stack_load(root, "withgap", &s), 0);
        assert_int_equal(s.error, 0);
        assert_int_equal(s.n, 2);
        assert_true(s.v[0].fails);
        assert_string_equal(s.v[0].name, "nowhere");
        assert_int_equal(s.v[0].line, 1);
        assert_false(s.v[1].fails);
        assert_string_equal(s.v[1].name, "pam_unix");
        assert_true(s.aborts);
        pam_stack_clear(&s);
        /* two missing @includes: the first is where it aborts */
        put("twogaps", "session required pam_a.so\n@include first-gone\n@include second-gone\n");
        assert_int_equal(pam_stack_load(root, "twogaps", &s), 0);
        assert_true(s.aborts);
        assert_string_equal(s.abort_where, "etc/pam.d/twogaps:2");
        assert_string_equal(s.abort_name, "first-gone");
        pam_stack_clear(&s);
        /* an included directory: libpam's fopen() takes it and its first fgets() ends it, an
         * empty file; the lines around it stay, nothing fails or aborts */
        {
                char d[PATH_MAX];
                unit_path(d, root, "etc/pam.d/adir");
                assert_int_equal(mkdir(d, 0755), 0);
                put("withdir", "session required pam_a.so\n@include adir\nsession include adir\nsession required pam_b.so\n");
                assert_int_equal(pam_stack_load(root, "withdir", &s), 0);
                assert_int_equal(s.error, 0);
                assert_int_equal(s.include_error, 0);
                assert_false(s.aborts);
                assert_int_equal(s.n, 2);
                assert_string_equal(s.v[0].name, "pam_a");
                assert_string_equal(s.v[1].name, "pam_b");
                assert_false(s.v[0].fails || s.v[1].fails);
                pam_stack_clear(&s);
        }
        put("withgap2", "session include nowhere\nsession required pam_unix.so\n");
        assert_int_equal(pam_stack_load(root, "withgap2", &s), 0);
        assert_false(s.aborts);
        assert_int_equal(s.n, 2);
        pam_stack_clear(&s);

        /* as libpam counts them (measured with Debian 12's 1.5.2): a jump over a missing
         * include skips one handler, over a missing substack two (its substack handler, then
         * the one that fails, at the same level) */
        put("jumpgap", "session [success=1 default=ignore] pam_permit.so\nsession include gone\n"
                       "session required pam_deny.so\n");
        assert_int_equal(pam_stack_load(root, "jumpgap", &s), 0);
        assert_int_equal(s.n, 3);
        bool bad;
        assert_int_equal(pam_stack_jump(&s, 0, 1, &bad), 2);
        assert_false(bad);
        pam_stack_clear(&s);
        put("subgap", "session [success=1 default=ignore] pam_permit.so\nsession substack gone\n"
                      "session required pam_deny.so\n");
        assert_int_equal(pam_stack_load(root, "subgap", &s), 0);
        assert_int_equal(s.n, 3);
        assert_true(s.v[1].fails);
        assert_int_equal(s.v[1].level, 0);
        assert_int_equal(pam_stack_jump(&s, 0, 1, &bad), 1);
        assert_int_equal(pam_stack_jump(&s, 0, 2, &bad), 2);
        assert_false(bad);
        pam_stack_clear(&s);

        /* a missing service file is the stack's error, not the call's; with no `other`
         * either, libpam's pam_start() fails */
        assert_int_equal(pam_stack_load(root, "no-such-service", &s), 0);
        assert_int_equal(s.error, -ENOENT);
        assert_int_equal(s.n, 0);
        assert_false(s.other);
        assert_true(s.aborts);
        assert_null(s.abort_where);
        assert_string_equal(s.service, "no-such-service");
        pam_stack_clear(&s);

        /* a name with a slash is a path under pam.d, as libpam opens it */
        put("slash", "session include ../passwd\nsession required pam_env.so\n");
        assert_int_equal(pam_stack_load(root, "slash", &s), 0);
        assert_int_equal(s.n, 2);
        assert_true(s.v[0].fails);
        assert_string_equal(s.v[1].name, "pam_env");
        pam_stack_clear(&s);
}

/* libpam reads `other` for every service (_pam_init_handlers()) and runs its session lines
 * for a service without any (pam_dispatch.c): measured with Debian 12's 1.5.2 */
static void test_other(void **state) {
        struct pam_stack s;
        (void)state;

        put("other", "auth required pam_deny.so\nsession required pam_deny.so\n");
        /* no service file */
        assert_int_equal(pam_stack_load(root, "gone-svc", &s), 0);
        assert_int_equal(s.error, -ENOENT);
        assert_true(s.other);
        assert_false(s.aborts);
        assert_int_equal(s.n, 1);
        assert_string_equal(s.v[0].name, "pam_deny");
        assert_string_equal(s.v[0].file, "etc/pam.d/other");
        assert_string_equal(s.service, "gone-svc");
        pam_stack_clear(&s);
        /* the service called other: its file twice, one chain (a jump goes on into the copy) */
        assert_int_equal(pam_stack_load(root, "other", &s), 0);
        assert_true(s.other);
        assert_int_equal(s.n, 2);
        assert_int_equal(s.n_chain, 2);
        assert_int_equal(s.v[1].line, 2);
        assert_int_equal(s.v[1].link, 1);
        assert_int_equal(s.chain[1].entry, 1);
        pam_stack_clear(&s);
        /* a service file without session lines (an @include of a file without any) */
        put("auth-only-inc", "auth required pam_permit.so\n");
        put("auth-only", "auth required pam_unix.so\n@include auth-only-inc\n");
        assert_int_equal(pam_stack_load(root, "auth-only", &s), 0);
        assert_int_equal(s.error, 0);
        assert_true(s.other);
        assert_int_equal(s.n, 1);
        assert_string_equal(s.v[0].name, "pam_deny");
        pam_stack_clear(&s);
        /* a substack of an empty file is a handler: no fallback */
        put("empty", "");
        put("sub-empty", "session substack empty\n");
        assert_int_equal(pam_stack_load(root, "sub-empty", &s), 0);
        assert_false(s.other);
        assert_int_equal(s.n, 0);
        assert_int_equal(s.n_chain, 1);
        pam_stack_clear(&s);
        /* the account phase falls back too */
        assert_int_equal(pam_stack_load_phase(root, "gone-svc", "account", &s), 0);
        assert_true(s.other);
        assert_int_equal(s.n, 0);
        pam_stack_clear(&s);
        /* an @include of a missing file in `other` fails every service's pam_start() */
        put("other", "session required pam_permit.so\n@include other-gone\n");
        put("fine", "session required pam_env.so\n");
        assert_int_equal(pam_stack_load(root, "fine", &s), 0);
        assert_false(s.other);
        assert_true(s.aborts);
        assert_string_equal(s.abort_where, "etc/pam.d/other:2");
        assert_string_equal(s.abort_name, "other-gone");
        pam_stack_clear(&s);
        /* a service of /usr/lib/pam.d when /etc/pam.d has none */
        unit_put(root, "usr/lib/pam.d/vendor-svc", "session optional pam_limits.so\n");
        assert_int_equal(pam_stack_load(root, "vendor-svc", &s), 0);
        assert_int_equal(s.error, 0);
        assert_false(s.other);
        assert_int_equal(s.n, 1);
        assert_string_equal(s.v[0].file, "usr/lib/pam.d/vendor-svc");
        pam_stack_clear(&s);
        char path[512];
        snprintf(path, sizeof path, "%s/etc/pam.d/other", root);
        assert_int_equal(unlink(path), 0);
        /* the service called other without pam.d/other: pam_start() fails (measured) */
        assert_int_equal(pam_stack_load(root, "other", &s), 0);
        assert_true(s.aborts);
        assert_int_equal(s.abort_why, PAM_ABORT_NO_FILE);
        pam_stack_clear(&s);
}

/* libpam opens an include named by an absolute path as written (_pam_open_config_file()) */
static void test_path_include(void **state) {
        struct pam_stack s;
        char line[512];
        (void)state;

        unit_put(root, "srv/pam/extra", "session required pam_limits.so\n");
        snprintf(line, sizeof line, "session include /srv/pam/extra\n@include /srv/pam/extra\n"
                 "session substack /srv/pam/nothere\n");
        put("abs", line);
        assert_int_equal(pam_stack_load(root, "abs", &s), 0);
        assert_int_equal(s.n, 3);
        assert_string_equal(s.v[0].file, "srv/pam/extra");
        assert_string_equal(s.v[0].name, "pam_limits");
        assert_string_equal(s.v[1].name, "pam_limits");
        assert_true(s.v[2].fails);
        assert_false(s.aborts);
        pam_stack_clear(&s);
}

/* Lines libpam reads otherwise than word by word: continued lines joined, "@INCLUDE",
 * malformed lines that become handlers that always fail (measured with Debian 12's 1.5.2) */
static void test_libpam_lines(void **state) {
        struct pam_stack s;
        (void)state;

        put("upper-inc", "session required pam_deny.so\n");
        put("cont", "session required \\\n"
                    "# a comment inside is skipped\n"
                    "\n"
                    "   pam_limits.so \\\n"
                    "   conf=/x.conf\n"
                    "session optional pam_a.so # not continued \\\n"
                    "session optional pam_b.so\n"
                    "@INCLUDE upper-inc\n");
        assert_int_equal(pam_stack_load(root, "cont", &s), 0);
        assert_int_equal(s.n, 4);
        assert_entry(&s.v[0], "etc/pam.d/cont", 1, false, "required", "pam_limits.so", "pam_limits", "conf=/x.conf", 0);
        assert_string_equal(s.v[1].name, "pam_a");
        assert_string_equal(s.v[2].name, "pam_b");
        assert_int_equal(s.v[2].line, 7);
        assert_string_equal(s.v[3].name, "pam_deny");
        pam_stack_clear(&s);
        /* a file that ends inside a continued line: libpam gives up on it */
        put("cont-end", "session required pam_env.so\nsession required \\\n");
        assert_int_equal(pam_stack_load(root, "cont-end", &s), 0);
        assert_true(s.aborts);
        pam_stack_clear(&s);

        /* a misspelt type: in the service file an auth line, in a file read for the session
         * only a session line that always fails; no control, no module: lines that fail */
        put("typo-inc", "sesion required pam_limits.so\nsession optional\nsession\n");
        put("typo", "sesion required pam_limits.so\nsession include typo-inc\n@include typo-inc\n");
        assert_int_equal(pam_stack_load(root, "typo", &s), 0);
        assert_int_equal(s.n, 5);
        assert_true(s.v[0].fails);
        assert_string_equal(s.v[0].name, "");
        assert_string_equal(s.v[0].control, "required");
        assert_true(s.v[1].fails);
        assert_string_equal(s.v[1].control, "optional");
        assert_true(s.v[2].fails);
        assert_string_equal(s.v[2].control, "required");
        /* through @include of the service file: the typo is an auth line */
        assert_true(s.v[3].fails);
        assert_string_equal(s.v[3].control, "optional");
        assert_int_equal(pam_stack_find(&s, "pam_limits"), -1);
        pam_stack_clear(&s);

        /* an include without a file name: the process dies in pam_start() */
        put("noname", "session required pam_env.so\nsession include\n");
        assert_int_equal(pam_stack_load(root, "noname", &s), 0);
        assert_true(s.aborts);
        assert_int_equal(s.abort_why, PAM_ABORT_NO_NAME);
        assert_string_equal(s.abort_where, "etc/pam.d/noname:2");
        pam_stack_clear(&s);
}

/* libpam's 1024-byte line buffer (tests/agree/test-reader.sh holds each shape against a real
 * session): pieces of long lines, the hang, and why each abort happens */
static void test_line_buffer(void **state) {
        struct pam_stack s;
        char what[512], fix[512], text[4096];
        (void)state;

        /* a long comment: its piece after the first 1023 bytes is a line, of the same number */
        snprintf(text, sizeof text, "session required pam_a.so\n%-1023ssession optional pam_hidden.so\n",
                 "session required pam_b.so #");
        put("hidden", text);
        assert_int_equal(pam_stack_load(root, "hidden", &s), 0);
        assert_int_equal(s.n, 3);
        assert_string_equal(s.v[1].name, "pam_b");
        assert_string_equal(s.v[2].name, "pam_hidden");
        assert_int_equal(s.v[2].line, 2);
        assert_string_equal(s.v[2].control, "optional");
        pam_stack_clear(&s);
        /* the longest one-piece line (1022 bytes and its newline), and the name cut one byte on */
        snprintf(text, sizeof text, "%-1022s\n%-1018spam_deny.so\n", "session required pam_one.so",
                 "session required");
        put("edge", text);
        assert_int_equal(pam_stack_load(root, "edge", &s), 0);
        assert_int_equal(s.n, 2);
        assert_string_equal(s.v[0].name, "pam_one");
        assert_string_equal(s.v[1].module, "pam_d");
        assert_false(s.aborts);
        pam_stack_clear(&s);
        /* a continued line that reaches the buffer's last byte with its backslash: libpam loops,
         * in the service file as in a file it includes */
        snprintf(text, sizeof text, "session required pam_a.so\n%-1022s\\\nrequired pam_b.so\n", "session");
        put("hang-inc", text);
        put("hang", "session required pam_first.so\nsession include hang-inc\nsession required pam_last.so\n");
        assert_int_equal(pam_stack_load(root, "hang", &s), 0);
        assert_true(s.aborts);
        assert_int_equal(s.abort_why, PAM_ABORT_HANG);
        assert_string_equal(s.abort_where, "etc/pam.d/hang-inc:2");
        assert_int_equal(pam_stack_find(&s, "pam_last"), -1);
        assert_non_null(strstr(pam_abort_text(&s, what, sizeof what, fix, sizeof fix), "never returns"));
        pam_stack_clear(&s);
        /* one byte shorter: fgets() has room for one byte of the next line, "r", and the line
         * ends there: "session r", no module, a handler that fails; "equired ..." is a line of
         * an unknown type, in the service file an auth line */
        snprintf(text, sizeof text, "%-1021s\\\nrequired pam_b.so\n", "session");
        put("nohang", text);
        assert_int_equal(pam_stack_load(root, "nohang", &s), 0);
        assert_false(s.aborts);
        assert_int_equal(s.n, 1);
        assert_true(s.v[0].fails);
        assert_string_equal(s.v[0].control, "r");
        pam_stack_clear(&s);

        /* why: a file that ends inside a continued line, itself or @included */
        put("cont-end2", "session required pam_env.so\nsession required \\\n");
        assert_int_equal(pam_stack_load(root, "cont-end2", &s), 0);
        assert_int_equal(s.abort_why, PAM_ABORT_CONTINUED);
        assert_non_null(strstr(pam_abort_text(&s, what, sizeof what, fix, sizeof fix), "ends inside a continued line"));
        pam_stack_clear(&s);
        put("inc-cont", "@include cont-end2\n");
        assert_int_equal(pam_stack_load(root, "inc-cont", &s), 0);
        assert_int_equal(s.abort_why, PAM_ABORT_INCLUDE_CONTINUED);
        assert_string_equal(s.abort_where, "etc/pam.d/inc-cont:1");
        pam_abort_text(&s, what, sizeof what, fix, sizeof fix);
        assert_non_null(strstr(what, "'@include cont-end2' brings a file that ends inside a continued line"));
        assert_non_null(strstr(fix, "/etc/pam.d/cont-end2"));
        pam_stack_clear(&s);
        put("inc-gone", "@include gone\n");
        assert_int_equal(pam_stack_load(root, "inc-gone", &s), 0);
        assert_int_equal(s.abort_why, PAM_ABORT_INCLUDE);
        pam_abort_text(&s, what, sizeof what, fix, sizeof fix);
        assert_string_equal(what, "'@include gone' names a file that cannot be read: libpam's pam_start() fails");
        assert_string_equal(fix, "create /etc/pam.d/gone, or remove the line");
        pam_stack_clear(&s);
}

static void test_loop_and_depth(void **state) {
        struct pam_stack s;
        char name[16], text[128];
        (void)state;

        /* a loop is a cycle (visit.h): the reading stops at the include that closes it, with the
         * entries read before it */
        put("loop-a", "session required pam_a.so\n@include loop-b\nsession required pam_after.so\n");
        put("loop-b", "session required pam_b.so\nsession include loop-a\n");
        assert_int_equal(pam_stack_load(root, "loop-a", &s), 0);
        assert_int_equal(s.error, 0);
        assert_int_equal(s.include_error, VISIT_ERR_CYCLE);
        assert_string_equal(s.include_where, "etc/pam.d/loop-b:2");
        assert_int_equal(s.n, 2);
        assert_string_equal(s.v[0].name, "pam_a");
        assert_string_equal(s.v[1].name, "pam_b");
        assert_int_equal(s.v[1].depth, 1);
        pam_stack_clear(&s);

        /* a chain of includes is read however deep Linux-PAM 1.5 reads it, up to 16, where
         * 1.6 and later read otherwise: the stack is not known, never cut silently */
        for (int i = 0; i < 20; i++) {
                snprintf(name, sizeof name, "chain%d", i);
                snprintf(text, sizeof text, "session required pam_c%d.so\nsession include chain%d\n", i, i + 1);
                put(name, text);
        }
        put("chain20", "session required pam_c20.so\n");
        assert_int_equal(pam_stack_load(root, "chain5", &s), 0);
        assert_int_equal(s.include_error, 0);
        assert_int_equal(s.n, 16);
        assert_string_equal(s.v[15].name, "pam_c20");
        assert_int_equal(s.v[15].depth, 15);
        pam_stack_clear(&s);
        assert_int_equal(pam_stack_load(root, "chain0", &s), 0);
        assert_int_equal(s.include_error, PAM_INCLUDE_ERR_DEPTH);
        assert_string_equal(s.include_where, "etc/pam.d/chain15:2");
        assert_non_null(strstr(pam_include_strerror(s.include_error), "1.6"));
        pam_stack_clear(&s);

        /* substacks: the file at level 16 is refused, a line that always fails at level 15 */
        for (int i = 0; i < 20; i++) {
                snprintf(name, sizeof name, "subch%d", i);
                snprintf(text, sizeof text, "session required pam_s%d.so\nsession substack subch%d\n", i, i + 1);
                put(name, text);
        }
        assert_int_equal(pam_stack_load(root, "subch4", &s), 0);
        assert_int_equal(s.include_error, 0);
        assert_int_equal(s.n, 17);
        assert_true(s.v[16].fails);
        assert_int_equal(s.v[16].level, 15);
        assert_string_equal(s.v[15].name, "pam_s19");
        assert_int_equal(s.v[15].level, 15);
        pam_stack_clear(&s);
}

/* libpam's jumps: a substack counts as one module and a jump cannot leave it; an empty
 * substack is a module too; a jump past the end of its level is a bad jump. */
static void test_jumps(void **state) {
        struct pam_stack s;
        bool bad;
        (void)state;

        put("sub-two", "session required pam_s1.so\nsession [success=5] pam_s2.so\n");
        put("sub-none", "auth required pam_deny.so\n");
        put("inc", "session required pam_i1.so\nsession required pam_i2.so\n");
        put("jumps", "session [success=1] pam_a.so\n"      /* 0: over the substack, onto pam_b */
                     "session substack sub-two\n"          /* 1, 2 at level 1 */
                     "session [success=2] pam_b.so\n"      /* 3: over the empty substack and pam_c */
                     "session substack sub-none\n"
                     "session required pam_c.so\n"         /* 4 */
                     "session [success=2] pam_d.so\n"      /* 5: over pam_i1 and pam_i2 (included) */
                     "@include inc\n"                      /* 6, 7 */
                     "session required pam_e.so\n");       /* 8 */
        assert_int_equal(pam_stack_load(root, "jumps", &s), 0);
        assert_int_equal(s.n, 9);
        assert_int_equal(s.n_chain, 11);
        assert_int_equal(s.v[1].level, 1);
        assert_int_equal(s.v[2].level, 1);
        assert_int_equal(s.v[6].level, 0);
        assert_int_equal(s.v[6].top, 7);
        assert_int_equal(s.v[8].top, 8);
        assert_int_equal(pam_stack_jump(&s, 0, 1, &bad), 3);
        assert_false(bad);
        assert_int_equal(pam_stack_jump(&s, 3, 2, &bad), 5);
        assert_false(bad);
        assert_int_equal(pam_stack_jump(&s, 5, 2, &bad), 8);
        assert_false(bad);
        assert_int_equal(pam_stack_jump(&s, 5, 3, &bad), 9);      /* past pam_e: the end */
        assert_false(bad);
        assert_int_equal(pam_stack_jump(&s, 5, 4, &bad), 9);
        assert_true(bad);
        /* inside the substack: one module left at its level; 5 is a bad jump that goes on
         * after the substack */
        assert_int_equal(pam_stack_jump(&s, 1, 1, &bad), 3);
        assert_false(bad);
        assert_int_equal(pam_stack_jump(&s, 2, 5, &bad), 3);
        assert_true(bad);
        assert_int_equal(pam_stack_level_end(&s, 1), 3);
        assert_int_equal(pam_stack_level_end(&s, 0), 9);
        pam_stack_clear(&s);

        /* a substack that ends the stack: a jump over it is the end, not its last line; the
         * end of its level is the end of the stack */
        put("sub-last", "session required pam_l1.so\nsession required pam_l2.so\nsession required pam_l3.so\n");
        put("jump-end", "session [success=1] pam_a.so\nsession substack sub-last\n");
        assert_int_equal(pam_stack_load(root, "jump-end", &s), 0);
        assert_int_equal(s.n, 4);
        assert_int_equal(pam_stack_jump(&s, 0, 1, &bad), 4);
        assert_false(bad);
        assert_int_equal(pam_stack_jump(&s, 1, 1, &bad), 3);
        assert_false(bad);
        assert_int_equal(pam_stack_jump(&s, 1, 2, &bad), 4);
        assert_false(bad);
        assert_int_equal(pam_stack_level_end(&s, 1), 4);
        assert_int_equal(pam_stack_level_end(&s, 3), 4);
        pam_stack_clear(&s);
}

/* 20 includes of a file that includes 20 more, 8 deep, without a cycle: the walk's budget ends
 * it (20^8 files otherwise), at an include line, with what was read before. */
static void test_fan_out(void **state) {
        struct pam_stack s;
        char name[16], text[1024];
        (void)state;

        for (int i = 0; i <= 8; i++) {
                int k = snprintf(text, sizeof text, "session required pam_f%d.so\n", i);
                for (int j = 0; j < 20 && i < 8; j++)
                        k += snprintf(text + k, sizeof text - (size_t)k, "@include fan%d\n", i + 1);
                snprintf(name, sizeof name, "fan%d", i);
                put(name, text);
        }
        assert_int_equal(pam_stack_load(root, "fan0", &s), 0);
        assert_int_equal(s.error, 0);
        assert_int_equal(s.include_error, VISIT_ERR_BUDGET);
        assert_non_null(strstr(s.include_where, "etc/pam.d/fan"));
        assert_int_equal(s.n, VISIT_FILES_MAX);
        pam_stack_clear(&s);
}

/* The line budget: the line after the last one it allows is not read (its module not in the
 * stack), the walk says where it stopped. */
static void test_line_budget(void **state) {
        struct pam_stack s;
        size_t n = (size_t)VISIT_LINES_MAX * 2;
        const char *last = "session required pam_after_budget.so\n";
        char *text = malloc(n + strlen(last) + 1);
        (void)state;
        assert_non_null(text);
        for (size_t i = 0; i < n; i += 2)
                memcpy(text + i, "#\n", 2);
        strcpy(text + n, last);
        put("budget", text);
        free(text);
        assert_int_equal(pam_stack_load(root, "budget", &s), 0);
        assert_int_equal(s.include_error, VISIT_ERR_BUDGET);
        assert_non_null(strstr(s.include_where, "etc/pam.d/budget:1000001"));
        assert_int_equal(s.n, 0);
        pam_stack_clear(&s);
}

/* The same file twice in one stack, and through two files: read each time, as before. */
static void test_diamond(void **state) {
        struct pam_stack s;
        (void)state;

        put("common-d", "session required pam_limits.so\n");
        put("mid-d", "session include common-d\nsession optional pam_mid.so\n");
        put("svc-d", "@include common-d\n@include mid-d\nsession substack common-d\nsession optional pam_rdmalimit.so\n");
        assert_int_equal(pam_stack_load(root, "svc-d", &s), 0);
        assert_int_equal(s.error, 0);
        assert_int_equal(s.include_error, 0);
        assert_null(s.include_where);
        assert_int_equal(s.n, 5);
        assert_entry(&s.v[0], "etc/pam.d/common-d", 1, false, "required", "pam_limits.so", "pam_limits", "", 1);
        assert_entry(&s.v[1], "etc/pam.d/common-d", 1, false, "required", "pam_limits.so", "pam_limits", "", 2);
        assert_entry(&s.v[2], "etc/pam.d/mid-d", 2, false, "optional", "pam_mid.so", "pam_mid", "", 1);
        assert_entry(&s.v[3], "etc/pam.d/common-d", 1, false, "required", "pam_limits.so", "pam_limits", "", 1);
        assert_entry(&s.v[4], "etc/pam.d/svc-d", 4, false, "optional", "pam_rdmalimit.so", "pam_rdmalimit", "", 0);
        pam_stack_clear(&s);
}

/* a line's arguments as libpam splits them: blanks, "[...]" one word without its brackets,
 * "\]" inside it a ']' */
static void test_args_words(void **state) {
        static const struct {
                const char *args;
                size_t n;
                const char *words[4];
        } cases[] = {
                { "", 0, { NULL } },
                { NULL, 0, { NULL } },
                { " \t\n ", 0, { NULL } },
                { "debug  conf=/x\tset_all", 3, { "debug", "conf=/x", "set_all" } },
                { "[conf=/etc/my policy.conf] quiet", 2, { "conf=/etc/my policy.conf", "quiet" } },
                { "[a\\]b]c d", 3, { "a]b", "c", "d" } },          /* "\]" is a ']'; the word ends at ']' */
                { "x [] y", 3, { "x", "", "y" } },                  /* an empty word */
                { "[conf=/unclosed file", 1, { "conf=/unclosed file" } },
                { "a[b c]", 2, { "a[b", "c]" } },                  /* a '[' inside a word is a byte */
        };
        (void)state;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                size_t n = 99;
                char *w = pam_args_words(cases[i].args, &n);
                assert_non_null(w);
                if (n != cases[i].n)
                        fail_msg("'%s': %zu words, not %zu", cases[i].args ? cases[i].args : "(null)", n, cases[i].n);
                const char *p = w;
                for (size_t k = 0; k < n; k++, p = pam_args_next(p))
                        if (strcmp(p, cases[i].words[k]) != 0)
                                fail_msg("'%s': word %zu is '%s', not '%s'", cases[i].args, k, p, cases[i].words[k]);
                free(w);
        }
}

static void test_line_split(void **state) {
        char line[] = "session [success=1 default=ignore] pam_x.so a b # c\n";
        char *w[3], *rest;
        (void)state;

        assert_int_equal(pam_line_split(line, w, &rest), 3);
        assert_string_equal(w[0], "session");
        assert_string_equal(w[1], "[success=1 default=ignore]");
        assert_string_equal(w[2], "pam_x.so");
        assert_string_equal(rest, "a b ");

        /* no blank after a bracketed control: libpam's next word starts right after ']' (the
         * caller leaves room for the moved bytes) */
        char tight[64] = "session [default=1]pam_y.so z\n";
        assert_int_equal(pam_line_split(tight, w, &rest), 3);
        assert_string_equal(w[1], "[default=1]");
        assert_string_equal(w[2], "pam_y.so");
        assert_string_equal(rest, "z");
}

/* enable's jump keeping (pam_file_keep_jumps()): the module's line goes right after
 * pam_limits; each jump of the service file that crossed that place counts one more, written
 * as it was written otherwise; a jump that does not cross it, or that libpam cannot read,
 * stays as it is; a jump in an included file that would land elsewhere is refused there. */
static void test_keep_jumps(void **state) {
        /* the jump of line 1 skips pam_limits and pam_deny (it lands on pam_permit); the
         * module's line right after pam_limits would make it land on pam_deny */
#define TAIL "session required pam_limits.so\nsession requisite pam_deny.so\nsession optional pam_permit.so\n"
        static const struct {
                const char *text, *inc;  /* the service file; etc/pam.d/inc2 */
                int want;                /* lines changed, or -EXDEV */
                const char *control;     /* line 1's control afterwards */
        } cases[] = {
                { "session [success=2 new_authtok_reqd=2 default=ignore] pam_succeed_if.so user = root\n" TAIL,
                  NULL, 1, "[success=3 new_authtok_reqd=3 default=ignore]" },
                { "session [success = 2 default = ignore] pam_succeed_if.so user = root\n" TAIL,
                  NULL, 1, "[success = 3 default = ignore]" },
                { "session [success=2default=ignore] pam_succeed_if.so user = root\n" TAIL,
                  NULL, 1, "[success=3default=ignore]" },
                /* leading zeros: the count that changes is written plainly, the other as it was */
                { "session [success=02 default=01] pam_succeed_if.so user = root\n" TAIL,
                  NULL, 1, "[success=3 default=01]" },
                /* a jump over pam_limits alone lands on the new line, which runs: as it was */
                { "session [success=1 default=ignore] pam_succeed_if.so user = root\n" TAIL,
                  NULL, 0, "[success=1 default=ignore]" },
                /* default=N crosses too */
                { "session [default=2] pam_permit.so\n" TAIL, NULL, 1, "[default=3]" },
                /* a control libpam cannot read: every result is bad, no jump to keep */
                { "session [sucess=2 default=ignore] pam_succeed_if.so user = root\n" TAIL,
                  NULL, 0, "[sucess=2 default=ignore]" },
                /* over the modules an @include brings, each counted */
                { "session [success=4 default=ignore] pam_succeed_if.so user = root\n@include inc2\n" TAIL,
                  "session required pam_unix.so\nsession required pam_env.so\n", 1, "[success=5 default=ignore]" },
                /* a jump that lands on the second module an @include brings: told apart from
                 * the first by its place in the include */
                { "session [success=3 default=ignore] pam_succeed_if.so user = root\n"
                  "session required pam_limits.so\nsession requisite pam_deny.so\n@include inc2\n",
                  "session optional pam_env.so\nsession optional pam_permit.so\n", 1, "[success=4 default=ignore]" },
                /* a jump inside the included file over the service's pam_limits and pam_deny:
                 * that file is not edited */
                { "@include inc2\n" TAIL,
                  "session [success=2 default=ignore] pam_succeed_if.so user = root\n", -EXDEV, NULL },
                /* a jump inside the included file that lands where it landed (on pam_limits,
                 * over pam_env): left as it is, the include's second module told apart from its
                 * first */
                { "@include inc2\nsession optional pam_env.so\n" TAIL,
                  "session optional pam_a.so\nsession [success=1 default=ignore] pam_b.so\n", 0, NULL },
                /* to the end of the stack over an empty substack (one handler libpam counts,
                 * no module): the count it needs is more than the stack has modules */
                { "session [success=4 default=ignore] pam_succeed_if.so user = root\nsession substack inc2\n" TAIL,
                  "auth required pam_deny.so\n", 1, "[success=5 default=ignore]" },
        };
#undef TAIL
        (void)state;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct pam_file f = {};
                char where[PAMEDIT_WHERE_MAX] = "";
                size_t lim = 0;
                put("ksvc", cases[i].text);
                put("inc2", cases[i].inc ? cases[i].inc : "");
                assert_int_equal(pam_file_parse("ksvc", cases[i].text, strlen(cases[i].text), &f, NULL), 0);
                for (size_t k = 0; k < f.n; k++)
                        if (f.v[k].name && strcmp(f.v[k].name, "pam_limits") == 0)
                                lim = k;
                assert_int_equal(pam_file_insert_mark(&f, lim + 1), 0);
                int r = pam_file_keep_jumps(root, "ksvc", cases[i].text, &f, where);
                if (r != cases[i].want || (cases[i].control && strcmp(f.v[0].control, cases[i].control) != 0))
                        fail_msg("case %zu: %d lines changed (want %d), control '%s'", i, r, cases[i].want,
                                 f.v[0].control ? f.v[0].control : "(none)");
                if (r == -EXDEV)
                        assert_non_null(strstr(where, "inc2:1"));
                pam_file_clear(&f);
        }
}

/* disable's side of the jump keeping: the marked line taken out, a jump over it counts one
 * less; a jump that landed on it lands on what ran after it, which it now reaches as it was
 * written (the end of the stack when it was the last line). */
static void test_keep_jumps_removed(void **state) {
#define MARKED "session optional pam_rdmalimit.so # " PAMEDIT_MARK "\n"
        static const struct {
                const char *text;        /* the service file */
                int want;                /* lines changed, or -EXDEV */
                const char *control;     /* line 1's control afterwards */
        } cases[] = {
                /* over pam_limits, the marked line and pam_deny: onto pam_permit */
                { "session [success=3 default=ignore] pam_succeed_if.so user = root\n"
                  "session required pam_limits.so\n" MARKED "session requisite pam_deny.so\n"
                  "session optional pam_permit.so\n", 1, "[success=2 default=ignore]" },
                /* onto the marked line: pam_deny ran after it, and is where the jump lands now */
                { "session [success=1 default=ignore] pam_succeed_if.so user = root\n"
                  "session required pam_limits.so\n" MARKED "session requisite pam_deny.so\n",
                  0, "[success=1 default=ignore]" },
                /* onto the marked line that ends the stack: the end, as now */
                { "session [success=1 default=ignore] pam_succeed_if.so user = root\n"
                  "session required pam_limits.so\n" MARKED, 0, "[success=1 default=ignore]" },
                /* past the end before (a bad jump) and after: left as it is */
                { "session [success=4 default=ignore] pam_succeed_if.so user = root\n"
                  "session required pam_limits.so\n" MARKED, 0, "[success=4 default=ignore]" },
        };
#undef MARKED
        (void)state;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct pam_file f = {};
                char where[PAMEDIT_WHERE_MAX] = "";
                put("dsvc", cases[i].text);
                assert_int_equal(pam_file_parse("dsvc", cases[i].text, strlen(cases[i].text), &f, NULL), 0);
                assert_int_equal(pam_file_remove_marked(&f), 1);
                int r = pam_file_keep_jumps(root, "dsvc", cases[i].text, &f, where);
                if (r != cases[i].want || strcmp(f.v[0].control, cases[i].control) != 0)
                        fail_msg("case %zu: %d lines changed (want %d), control '%s' (where '%s')", i, r,
                                 cases[i].want, f.v[0].control, where);
                pam_file_clear(&f);
        }
}

/* The module directories of a root and where a module is: the one libpam loads bare names
 * from (the first with pam_unix.so or pam_permit.so), the others, absolute paths, a root
 * without any */
static void test_moddirs(void **state) {
        char mr[PATH_MAX], p[PATH_MAX];
        struct pam_moddirs m;
        enum pam_mod_state st;
        char *found = (char *)"marker";
        (void)state;
        unit_mkdir_p(root, "mods");
        unit_path(mr, root, "mods");
        unit_put(mr, "usr/lib/x86_64-linux-gnu/security/pam_permit.so", "");
        unit_put(mr, "usr/lib/x86_64-linux-gnu/security/both.so", "");
        unit_put(mr, "lib/x86_64-linux-gnu/security/both.so", "");   /* before libpam's directory */
        unit_put(mr, "lib/security/other.so", "");
        unit_put(mr, "usr/lib/aarch64-linux-gnu/security/arm.so", "");
        unit_mkdir_p(mr, "usr/lib/i386-linux-gnu/security");
        unit_mkdir_p(mr, "lib/s390x-linux-gnu/security");
        unit_mkdir_p(mr, "usr/lib/riscv64-linux-gnu");           /* no security/ in it */
        unit_mkdir_p(mr, "usr/lib/notriple/security");
        unit_mkdir_p(mr, "usr/lib/.a-b-c/security");
        unit_put(mr, "opt/pam/abs.so", "");

        assert_int_equal(pam_moddirs_load(&m, mr, "/opt/pam"), 0);
        assert_true(m.loaded);
        static const char *const want[] = { "/lib/x86_64-linux-gnu/security", "/usr/lib/x86_64-linux-gnu/security",
                                            "/lib/security", "/usr/lib/security", "/lib64/security",
                                            "/usr/lib64/security" };
        /* then the multiarch ones of /usr/lib (in the directory's order), of /lib, securedir */
        assert_int_equal(m.dirs.n, ELEMENTSOF(want) + 4);
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                assert_string_equal(m.dirs.v[i], want[i]);
        bool arm = false, i386 = false;
        for (size_t i = 6; i < 8; i++) {
                arm |= streq(m.dirs.v[i], "/usr/lib/aarch64-linux-gnu/security");
                i386 |= streq(m.dirs.v[i], "/usr/lib/i386-linux-gnu/security");
        }
        assert_true(arm && i386);
        assert_string_equal(m.dirs.v[8], "/lib/s390x-linux-gnu/security");
        assert_string_equal(m.dirs.v[9], "/opt/pam");
        assert_int_equal(m.pamdir, 1);

        /* in the directory libpam loads from, and also in an earlier one: found, no path */
        assert_int_equal(pam_module_state(&m, mr, "both.so", NULL, &st, &found), 0);
        assert_int_equal(st, PAM_MOD_FOUND);
        assert_null(found);
        assert_int_equal(pam_module_state(&m, mr, "pam_permit.so", NULL, &st, NULL), 0);
        assert_int_equal(st, PAM_MOD_FOUND);
        /* only elsewhere: where */
        assert_int_equal(pam_module_state(&m, mr, "other.so", NULL, &st, &found), 0);
        assert_int_equal(st, PAM_MOD_ELSEWHERE);
        assert_string_equal(found, "/lib/security/other.so");
        free(found);
        assert_int_equal(pam_module_state(&m, mr, "arm.so", NULL, &st, &found), 0);
        assert_int_equal(st, PAM_MOD_ELSEWHERE);
        assert_string_equal(found, "/usr/lib/aarch64-linux-gnu/security/arm.so");
        free(found);
        assert_true(pam_mod_unloadable(st));
        assert_int_equal(pam_module_state(&m, mr, "none.so", NULL, &st, &found), 0);
        assert_int_equal(st, PAM_MOD_MISSING);
        assert_null(found);
        /* absolute paths */
        assert_int_equal(pam_module_state(&m, mr, "/opt/pam/abs.so", NULL, &st, &found), 0);
        assert_int_equal(st, PAM_MOD_FOUND);
        assert_int_equal(pam_module_state(&m, mr, "/opt/pam/none.so", NULL, &st, &found), 0);
        assert_int_equal(st, PAM_MOD_MISSING);
        pam_moddirs_clear(&m);
        assert_false(m.loaded);

        /* a stack in that root: which lines' modules libpam cannot load */
        unit_put(mr, "etc/pam.d/svc", "session required pam_permit.so\nsession optional other.so\n"
                                      "session required none.so\nsession include gone\n-session optional arm.so\n");
        struct pam_stack s;
        assert_int_equal(pam_stack_load(mr, "svc", &s), 0);
        assert_int_equal(s.n, 5);
        assert_false(s.modules_unchecked);
        assert_false(s.v[0].unloadable);
        assert_true(s.v[1].unloadable);
        assert_true(s.v[2].unloadable);
        assert_true(s.v[3].fails);            /* the include that cannot be read */
        assert_false(s.v[3].unloadable);
        assert_true(s.v[4].unloadable);
        pam_stack_clear(&s);
        /* with no module directory in the root: unchecked, nothing unloadable */
        unit_put(root, "bare2/etc/pam.d/svc", "session required none.so\n");
        assert_int_equal(pam_stack_load(unit_path(p, root, "bare2"), "svc", &s), 0);
        assert_true(s.modules_unchecked);
        assert_false(s.v[0].unloadable);
        pam_stack_clear(&s);
        /* an empty stack: nothing to check */
        unit_put(mr, "etc/pam.d/empty", "auth required pam_permit.so\n");
        assert_int_equal(pam_stack_load(mr, "empty", &s), 0);
        assert_int_equal(s.n, 0);
        assert_false(s.modules_unchecked);
        pam_stack_clear(&s);
        unit_put(root, "bare2/etc/pam.d/empty", "# nothing\n");
        assert_int_equal(pam_stack_load(p, "empty", &s), 0);
        assert_false(s.modules_unchecked);
        pam_stack_clear(&s);
        assert_string_equal(pam_include_strerror(VISIT_ERR_CYCLE), VISIT_CYCLE_TEXT "; " PAM_CYCLE_EFFECT);
        assert_string_equal(pam_include_strerror(VISIT_ERR_BUDGET), VISIT_BUDGET_TEXT);
        assert_string_equal(pam_include_strerror(-ENOENT), strerror(ENOENT));
        assert_int_equal(m.pamdir, -1);

        /* a root without a PAM module directory: nothing can be checked */
        unit_mkdir_p(root, "bare/etc");
        assert_int_equal(pam_moddirs_load(&m, unit_path(p, root, "bare"), NULL), 0);
        assert_true(m.loaded);
        assert_int_equal(m.pamdir, -1);
        assert_int_equal(m.dirs.n, 6);
        assert_int_equal(pam_module_state(&m, p, "x.so", NULL, &st, &found), 0);
        assert_int_equal(st, PAM_MOD_UNCHECKED);
        assert_false(pam_mod_unloadable(st));
        assert_int_equal(pam_module_state(&m, p, "/lib/x.so", NULL, &st, &found), 0);
        assert_int_equal(st, PAM_MOD_UNCHECKED);
        pam_moddirs_clear(&m);
}

/* ---- the services of pam.d ---- */

static int collect_service(const char *service, void *data) {
        char *buf = data;
        strcat(buf, service);
        strcat(buf, " ");
        return 0;
}

/* Each service once, /etc/pam.d's before /usr/lib/pam.d's of the same name; no dotfile, no
 * directory (libpam names no service so) */
static void test_each_service(void **state) {
        char r[PATH_MAX], got[256] = "";
        (void)state;
        unit_mkdir_p(root, "svcs");
        unit_path(r, root, "svcs");
        unit_put(r, "etc/pam.d/a", "session required pam_permit.so\n");
        unit_put(r, "etc/pam.d/.hidden", "session required pam_permit.so\n");
        unit_mkdir_p(r, "etc/pam.d/sub");
        unit_put(r, "usr/lib/pam.d/a", "session required pam_deny.so\n");
        unit_put(r, "usr/lib/pam.d/b", "session required pam_permit.so\n");
        assert_int_equal(pam_for_each_service(r, collect_service, got), 0);
        assert_true(streq(got, "a b ") || streq(got, "b a "));
}

/* ---- a module's functions: its ELF dynamic symbol table ---- */

/* An ELF shared object's skeleton of this machine's byte order: the header, .dynstr, .dynsym
 * (the null symbol, pam_sm_close_session defined, pam_sm_open_session defined when
 * `defines`, else imported) and three section headers.  Returns its size. */
static size_t elf_image(unsigned char *buf, size_t size, bool is64, bool defines) {
        static const char strs[] = "\0pam_sm_close_session\0pam_sm_open_session";
        const size_t ehsz = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
        const size_t symsz = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
        const size_t shsz = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
        const size_t stroff = ehsz, symoff = (stroff + sizeof strs + 7) & ~(size_t)7, nsym = 3;
        const size_t shoff = symoff + nsym * symsz, total = shoff + 3 * shsz;
        const uint32_t names[] = { 0, 1, 22 };
        const uint16_t shndx[] = { SHN_UNDEF, 1, defines ? 1 : SHN_UNDEF };

        assert_true(total <= size);
        memset(buf, 0, total);
        memcpy(buf + stroff, strs, sizeof strs);
        if (is64) {
                Elf64_Ehdr h = { .e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
                                 .e_shoff = shoff, .e_ehsize = sizeof h, .e_shentsize = sizeof(Elf64_Shdr),
                                 .e_shnum = 3 };
                Elf64_Shdr sh[3] = { {},
                                     { .sh_type = SHT_DYNSYM, .sh_offset = symoff, .sh_size = nsym * symsz,
                                       .sh_link = 2, .sh_entsize = symsz },
                                     { .sh_type = SHT_STRTAB, .sh_offset = stroff, .sh_size = sizeof strs } };
                memcpy(&h, ELFMAG, SELFMAG);
                h.e_ident[EI_CLASS] = ELFCLASS64;
                h.e_ident[EI_DATA] = __BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB;
                h.e_ident[EI_VERSION] = EV_CURRENT;
                memcpy(buf, &h, sizeof h);
                for (size_t i = 0; i < nsym; i++) {
                        Elf64_Sym y = { .st_name = names[i], .st_shndx = shndx[i] };
                        memcpy(buf + symoff + i * symsz, &y, sizeof y);
                }
                memcpy(buf + shoff, sh, sizeof sh);
        } else {
                Elf32_Ehdr h = { .e_type = ET_DYN, .e_machine = EM_386, .e_version = EV_CURRENT,
                                 .e_shoff = (Elf32_Off)shoff, .e_ehsize = sizeof h,
                                 .e_shentsize = sizeof(Elf32_Shdr), .e_shnum = 3 };
                Elf32_Shdr sh[3] = { {},
                                     { .sh_type = SHT_DYNSYM, .sh_offset = (Elf32_Off)symoff,
                                       .sh_size = (Elf32_Word)(nsym * symsz), .sh_link = 2,
                                       .sh_entsize = (Elf32_Word)symsz },
                                     { .sh_type = SHT_STRTAB, .sh_offset = (Elf32_Off)stroff,
                                       .sh_size = sizeof strs } };
                memcpy(&h, ELFMAG, SELFMAG);
                h.e_ident[EI_CLASS] = ELFCLASS32;
                h.e_ident[EI_DATA] = __BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB;
                h.e_ident[EI_VERSION] = EV_CURRENT;
                memcpy(buf, &h, sizeof h);
                for (size_t i = 0; i < nsym; i++) {
                        Elf32_Sym y = { .st_name = names[i], .st_shndx = shndx[i] };
                        memcpy(buf + symoff + i * symsz, &y, sizeof y);
                }
                memcpy(buf + shoff, sh, sizeof sh);
        }
        return total;
}

static void put_bin(const char *dir, const char *rel, const void *buf, size_t len) {
        char p[PATH_MAX];
        unit_put(dir, rel, "");
        int fd = open(unit_path(p, dir, rel), O_WRONLY | O_TRUNC | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, buf, len), (ssize_t)len);
        close(fd);
}

/* Which modules define pam_sm_open_session: read from the file, and a stack line of one that
 * does not returns PAM_MODULE_UNKNOWN (pam_nologin, pam_wheel, pam_rootok in a session
 * stack); what cannot be read as ELF is taken as having it. */
static void test_module_functions(void **state) {
        unsigned char img[1024], bad[1024];
        char mr[PATH_MAX];
        size_t n;
        (void)state;
        unit_mkdir_p(root, "fns");
        unit_path(mr, root, "fns");

        for (int is64 = 0; is64 <= 1; is64++) {
                n = elf_image(img, sizeof img, is64, true);
                put_bin(mr, "m/yes.so", img, n);
                assert_int_equal(pam_module_defines(mr, "/m/yes.so", "pam_sm_open_session"), 1);
                assert_int_equal(pam_module_defines(mr, "/m/yes.so", "pam_sm_close_session"), 1);
                assert_int_equal(pam_module_defines(mr, "/m/yes.so", "pam_sm_authenticate"), 0);
                assert_int_equal(pam_module_defines(mr, "/m/yes.so", "pam_sm_open_sessio"), 0);
                n = elf_image(img, sizeof img, is64, false);
                put_bin(mr, "m/no.so", img, n);
                /* imported (undefined) is not defined */
                assert_int_equal(pam_module_defines(mr, "/m/no.so", "pam_sm_open_session"), 0);
                assert_int_equal(pam_module_defines(mr, "/m/no.so", "pam_sm_close_session"), 1);

                /* every truncation: an answer or an error, never a read beyond the file */
                for (size_t cut = 0; cut < n; cut++) {
                        put_bin(mr, "m/cut.so", img, cut);
                        int r = pam_module_defines(mr, "/m/cut.so", "pam_sm_close_session");
                        assert_true(r < 0);
                }
                /* every byte changed: no crash, no read beyond the file (ASan, valgrind) */
                for (size_t i = 0; i < n; i++) {
                        memcpy(bad, img, n);
                        bad[i] ^= 0xff;
                        put_bin(mr, "m/bad.so", bad, n);
                        int r = pam_module_defines(mr, "/m/bad.so", "pam_sm_close_session");
                        assert_true(r == 0 || r == 1 || r == -EBADMSG || r == -ENODATA);
                }
        }
        /* no section headers: cannot tell */
        n = elf_image(img, sizeof img, true, false);
        memset(img + offsetof(Elf64_Ehdr, e_shoff), 0, sizeof(Elf64_Off));
        put_bin(mr, "m/stripped.so", img, n);
        assert_int_equal(pam_module_defines(mr, "/m/stripped.so", "pam_sm_open_session"), -ENODATA);
        /* not ELF, not a file, missing */
        unit_put(mr, "m/text.so", "#!/bin/sh\n");
        assert_int_equal(pam_module_defines(mr, "/m/text.so", "pam_sm_open_session"), -EBADMSG);
        assert_int_equal(pam_module_defines(mr, "/m", "pam_sm_open_session"), -EBADMSG);
        assert_int_equal(pam_module_defines(mr, "/m/gone.so", "pam_sm_open_session"), -ENOENT);
        assert_string_equal(pam_phase_function("session"), "pam_sm_open_session");
        assert_string_equal(pam_phase_function("Account"), "pam_sm_acct_mgmt");
        assert_null(pam_phase_function("sessions"));

        /* a stack: the module without the function returns PAM_MODULE_UNKNOWN; the rest as before */
        unit_put(mr, "usr/lib/x86_64-linux-gnu/security/pam_permit.so", "");
        n = elf_image(img, sizeof img, true, false);
        put_bin(mr, "usr/lib/x86_64-linux-gnu/security/pam_nosession.so", img, n);
        put_bin(mr, "opt/pam_nosession.so", img, n);
        n = elf_image(img, sizeof img, true, true);
        put_bin(mr, "usr/lib/x86_64-linux-gnu/security/pam_session.so", img, n);
        unit_put(mr, "etc/pam.d/svc", "session required pam_permit.so\nsession required pam_nosession.so\n"
                                      "session required pam_session.so\nsession optional /opt/pam_nosession.so\n"
                                      "auth required pam_nosession.so\n");
        struct pam_stack s;
        assert_int_equal(pam_stack_load(mr, "svc", &s), 0);
        assert_int_equal(s.n, 4);
        assert_false(s.v[0].unloadable);        /* not ELF: taken as having it */
        assert_true(s.v[1].unloadable && s.v[1].no_function);
        assert_false(s.v[2].unloadable || s.v[2].no_function);
        assert_true(s.v[3].unloadable && s.v[3].no_function);
        pam_stack_clear(&s);
        /* the auth phase asks pam_sm_authenticate, which neither defines */
        assert_int_equal(pam_stack_load_phase(mr, "svc", "auth", &s), 0);
        assert_int_equal(s.n, 1);
        assert_true(s.v[0].unloadable && s.v[0].no_function);
        pam_stack_clear(&s);
}

UNIT_MAIN(setup, unit_teardown, cmocka_unit_test(test_args_words),
          cmocka_unit_test(test_includes), cmocka_unit_test(test_missing), cmocka_unit_test(test_other),
          cmocka_unit_test(test_path_include), cmocka_unit_test(test_libpam_lines),
          cmocka_unit_test(test_line_buffer),
          cmocka_unit_test(test_loop_and_depth), cmocka_unit_test(test_jumps),
          cmocka_unit_test(test_fan_out), cmocka_unit_test(test_diamond),
          cmocka_unit_test(test_line_split), cmocka_unit_test(test_keep_jumps),
          cmocka_unit_test(test_keep_jumps_removed), cmocka_unit_test(test_moddirs),
          cmocka_unit_test(test_line_budget), cmocka_unit_test(test_module_functions), cmocka_unit_test(test_each_service))
