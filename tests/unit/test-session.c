/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The session model: its PAM stack walk (controls as libpam reads them, jumps, the early ends),
 * which lines override which, and the model built on a tree. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "../fault/fault.h"
#include "../fault/fdcheck.h"
#include "model.h"
#include "apply.h"
#include "ident-files.h"
#include "ident.h"
#include "limitsconf.h"
#include "macro.h"
#include "policy.h"
#include "session.h"
#include "visit.h"

static void action(const char *control, enum pam_ret ret, enum pam_action want, unsigned want_jump) {
        enum pam_action a;
        unsigned jump = 99;
        assert_int_equal(pam_control_action(control, ret, &a, &jump), 0);
        if (a != want || (want == PAM_ACT_JUMP && jump != want_jump))
                fail_msg("%s, ret %d: action %d jump %u, want %d jump %u", control, ret, a, jump, want, want_jump);
}

static void test_controls(void **state) {
        action("required", PAM_RET_SUCCESS, PAM_ACT_OK, 0);
        action("required", PAM_RET_FAIL, PAM_ACT_BAD, 0);
        action("required", PAM_RET_IGNORE, PAM_ACT_IGNORE, 0);
        action("requisite", PAM_RET_FAIL, PAM_ACT_DIE, 0);
        action("sufficient", PAM_RET_SUCCESS, PAM_ACT_DONE, 0);
        action("sufficient", PAM_RET_FAIL, PAM_ACT_IGNORE, 0);
        action("optional", PAM_RET_FAIL, PAM_ACT_IGNORE, 0);
        action("[success=1 default=ignore]", PAM_RET_SUCCESS, PAM_ACT_JUMP, 1);
        action("[success=1 default=ignore]", PAM_RET_FAIL, PAM_ACT_IGNORE, 0);
        action("[default=1]", PAM_RET_SUCCESS, PAM_ACT_JUMP, 1);
        action("[success=ok perm_denied=die default=bad]", PAM_RET_PERM_DENIED, PAM_ACT_DIE, 0);
        /* each return value its own name: pam_limits' PAM_SERVICE_ERR is no perm_denied
         * (measured with Linux-PAM 1.5.2: the default decides) */
        action("[perm_denied=ignore default=bad]", PAM_RET_SERVICE_ERR, PAM_ACT_BAD, 0);
        action("[perm_denied=ignore default=bad]", PAM_RET_PERM_DENIED, PAM_ACT_IGNORE, 0);
        action("[session_err=ignore default=bad]", PAM_RET_FAIL, PAM_ACT_IGNORE, 0);
        action("[session_err=ignore default=bad]", PAM_RET_PERM_DENIED, PAM_ACT_BAD, 0);
        action("[service_err=1 default=bad]", PAM_RET_SERVICE_ERR, PAM_ACT_JUMP, 1);
        action("[user_unknown=ignore default=bad]", PAM_RET_USER_UNKNOWN, PAM_ACT_IGNORE, 0);
        action("[module_unknown=ignore default=bad]", PAM_RET_UNKNOWN, PAM_ACT_IGNORE, 0);
        action("required", PAM_RET_SERVICE_ERR, PAM_ACT_BAD, 0);
        action("optional", PAM_RET_PERM_DENIED, PAM_ACT_IGNORE, 0);
        action("[success=ok]", PAM_RET_FAIL, PAM_ACT_BAD, 0);          /* no default: bad */
        action("[default=bad success=ok]", PAM_RET_SUCCESS, PAM_ACT_OK, 0);   /* default first */
        action("[default=bad success=ok]", PAM_RET_FAIL, PAM_ACT_BAD, 0);
        action("[success=done new_authtok_reqd=done default=ignore]", PAM_RET_SUCCESS, PAM_ACT_DONE, 0);
        /* libpam: the four words with strcasecmp() (measured: "Optional pam_deny" is ignored,
         * "Required pam_deny" fails), a [...] control with strncmp() */
        action("Required", PAM_RET_FAIL, PAM_ACT_BAD, 0);
        action("OPTIONAL", PAM_RET_FAIL, PAM_ACT_IGNORE, 0);
        action("Sufficient", PAM_RET_SUCCESS, PAM_ACT_DONE, 0);
        action("Requisite", PAM_RET_FAIL, PAM_ACT_DIE, 0);
        /* libpam's parser (pam_misc.c _pam_parse_control(), each checked with a real session
         * of Linux-PAM 1.5.2): blanks around '=', a jump of leading zeros, pairs without a
         * blank between them; a value it does not know (case counts) or a jump past INT_MAX
         * is a parse error, which makes every result "bad" (the walk's -EINVAL) */
        action("[success = 1 default = ignore]", PAM_RET_SUCCESS, PAM_ACT_JUMP, 1);
        action("[success=0000000000000011 default=ignore]", PAM_RET_SUCCESS, PAM_ACT_JUMP, 11);
        action("[success=1default=bad]", PAM_RET_FAIL, PAM_ACT_BAD, 0);
        action("[success=1default=ignore]", PAM_RET_FAIL, PAM_ACT_IGNORE, 0);
        action("[success=2147483647]", PAM_RET_SUCCESS, PAM_ACT_JUMP, 2147483647);
        enum pam_action a;
        unsigned j;
        assert_int_equal(pam_control_action("mandatory", PAM_RET_SUCCESS, &a, &j), -EINVAL);
        assert_int_equal(pam_control_action("[SUCCESS=1 default=ignore]", PAM_RET_SUCCESS, &a, &j), -EINVAL);
        assert_int_equal(pam_control_action("[sucess=1 default=ignore]", PAM_RET_FAIL, &a, &j), -EINVAL);
        assert_int_equal(pam_control_action("[success=ok garbage]", PAM_RET_SUCCESS, &a, &j), -EINVAL);
        assert_int_equal(pam_control_action("[default=2147483648]", PAM_RET_SUCCESS, &a, &j), -EINVAL);
        assert_int_equal(pam_control_action("[default=0]", PAM_RET_SUCCESS, &a, &j), -EINVAL);
        assert_int_equal(pam_control_action("[success=]", PAM_RET_SUCCESS, &a, &j), -EINVAL);
        assert_int_equal(pam_control_action("[success ok]", PAM_RET_SUCCESS, &a, &j), -EINVAL);
        assert_int_equal(pam_control_action("[success x1]", PAM_RET_SUCCESS, &a, &j), -EINVAL);   /* no '=' */
        /* a value of the same length as the result's name is not it */
        action("[buf_err=die default=ignore]", PAM_RET_SUCCESS, PAM_ACT_IGNORE, 0);
        assert_int_equal(pam_control_action("[success=x]", PAM_RET_SUCCESS, &a, &j), -EINVAL);
        assert_int_equal(pam_control_action("[success=1", PAM_RET_SUCCESS, &a, &j), -EINVAL);
        /* a jump followed by what is no pair is a parse error */
        assert_int_equal(pam_control_action("[success=000000000000001abc]", PAM_RET_SUCCESS, &a, &j), -EINVAL);
}

struct pairs {
        char text[256];
};
static int pair_text(const char *value, size_t len, enum pam_action a, unsigned jump, void *userdata) {
        struct pairs *p = userdata;
        size_t u = strlen(p->text);
        snprintf(p->text + u, sizeof p->text - u, "%s%.*s:%d:%u", u ? " " : "", (int)len, value, (int)a, jump);
        return 0;
}

/* Every value=action pair, in order, by the one grammar (doctor's jump check reads it too). */
static void test_control_pairs(void **state) {
        struct pairs p = {};
        assert_int_equal(pam_control_pairs("[success=2 user_unknown=die default=ignore]", pair_text, &p), 0);
        assert_string_equal(p.text, "success:6:2 user_unknown:4:0 default:0:0");
        p = (struct pairs){};
        assert_int_equal(pam_control_pairs("required", pair_text, &p), 0);
        assert_string_equal(p.text, "");
        assert_int_equal(pam_control_pairs("[success=2 default]", pair_text, &p), -EINVAL);
        assert_int_equal(pam_control_pairs("[success=2", pair_text, &p), -EINVAL);
}

/* a stack of "control name" pairs */
static void stack_of(struct pam_stack *st, const char *const *lines, size_t n) {
        *st = (struct pam_stack){ .service = strdup("t") };
        st->v = calloc(n, sizeof(*st->v));
        st->chain = calloc(n, sizeof(*st->chain));
        for (size_t i = 0; i < n; i += 2) {
                st->chain[st->n_chain++] = (struct pam_link){ .entry = (long)st->n };
                struct pam_entry *e = &st->v[st->n++];
                *e = (struct pam_entry){ .file = strdup("etc/pam.d/t"), .line = (unsigned)st->n, .link = st->n_chain - 1,
                                         .control = strdup(lines[i]), .module = strdup(lines[i + 1]),
                                         .name = strdup(lines[i + 1]), .args = strdup("") };
        }
}

static void test_walk(void **state) {
        struct pam_stack st;
        struct stack_run r;

        /* pam_limits, pam_rdmalimit, pam_limits: the last pam_limits runs after the module */
        static const char *const three[] = { "required", "pam_limits", "optional", "pam_rdmalimit",
                                             "required", "pam_limits" };
        stack_of(&st, three, ELEMENTSOF(three));
        assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_SUCCESS, &r), 0);
        assert_int_equal(r.n_run, 3);
        assert_int_equal(r.last_limits, 2);
        assert_int_equal(r.last_module, 1);
        assert_int_equal(r.n_limits, 2);
        assert_false(r.failed);
        stack_run_clear(&r);
        /* pam_limits refusing the session (upstream EPERM): required -> the stack fails */
        assert_int_equal(stack_run_walk(&st, PAM_RET_FAIL, PAM_RET_SUCCESS, &r), 0);
        assert_true(r.failed);
        assert_int_equal(r.n_run, 3);
        stack_run_clear(&r);
        pam_stack_clear(&st);

        /* an unloadable optional module: recorded, and the walk goes on past it */
        static const char *const unl[] = { "optional", "pam_gone", "optional", "pam_gone2", "required", "pam_limits",
                                           "optional", "pam_rdmalimit" };
        stack_of(&st, unl, ELEMENTSOF(unl));
        st.v[0].unloadable = st.v[1].unloadable = true;
        assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_SUCCESS, &r), 0);
        assert_int_equal(r.unloadable, 0);
        assert_int_equal(r.last_limits, 2);
        assert_int_equal(r.last_module, 3);
        stack_run_clear(&r);
        pam_stack_clear(&st);

        /* Debian's common-session primary block: pam_permit jumps over pam_deny */
        static const char *const debian[] = { "[default=1]", "pam_permit", "requisite", "pam_deny",
                                              "required", "pam_permit", "optional", "pam_rdmalimit" };
        stack_of(&st, debian, ELEMENTSOF(debian));
        assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_IGNORE, &r), 0);
        assert_int_equal(r.n_run, 3);
        assert_int_equal(r.last_module, 3);
        assert_false(r.failed);
        assert_false(r.assumed);
        stack_run_clear(&r);
        pam_stack_clear(&st);

        /* a module whose result decides a jump over pam_rdmalimit: assumed to succeed */
        static const char *const jump[] = { "required", "pam_limits", "[success=1 default=ignore]", "pam_succeed_if",
                                            "optional", "pam_rdmalimit" };
        stack_of(&st, jump, ELEMENTSOF(jump));
        assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_SUCCESS, &r), 0);
        assert_int_equal(r.last_module, -1);
        assert_true(r.assumed);
        stack_run_clear(&r);
        pam_stack_clear(&st);

        /* sufficient success ends the stack before the module; requisite pam_deny dies */
        static const char *const early[] = { "sufficient", "pam_permit", "optional", "pam_rdmalimit" };
        stack_of(&st, early, ELEMENTSOF(early));
        assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_SUCCESS, &r), 0);
        assert_int_equal(r.ended_at, 0);
        assert_int_equal(r.last_module, -1);
        stack_run_clear(&r);
        pam_stack_clear(&st);
        static const char *const deny[] = { "requisite", "pam_deny", "required", "pam_limits" };
        stack_of(&st, deny, ELEMENTSOF(deny));
        assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_SUCCESS, &r), 0);
        assert_true(r.failed);
        assert_int_equal(r.last_limits, -1);
        stack_run_clear(&r);
        pam_stack_clear(&st);

        /* no module's result counts as a success (ignored, or a jump): libpam fails the stack
         * (PAM_PERM_DENIED, measured with Debian 12's libpam); one success is enough */
        static const char *const ignored[] = { "[default=ignore]", "pam_permit", "optional", "pam_rdmalimit" };
        stack_of(&st, ignored, ELEMENTSOF(ignored));
        assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_IGNORE, &r), 0);
        assert_true(r.failed);
        stack_run_clear(&r);
        assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_SUCCESS, &r), 0);
        assert_false(r.failed);
        stack_run_clear(&r);
        pam_stack_clear(&st);
        static const char *const over[] = { "[success=1 default=ignore]", "pam_permit", "required", "pam_limits" };
        stack_of(&st, over, ELEMENTSOF(over));
        assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_SUCCESS, &r), 0);
        assert_true(r.failed);
        assert_int_equal(r.last_limits, -1);
        stack_run_clear(&r);
        pam_stack_clear(&st);
}

/* the name a stack line's module goes by: its file name without ".so", the path dropped */
static void test_module_name(void **state) {
        static const char *const cases[][2] = {
                { "/lib/x86_64-linux-gnu/security/pam_limits.so", "pam_limits" },
                { "pam_unix.so", "pam_unix" },
                { "pam_foo", "pam_foo" },          /* no ".so": kept whole */
                { "x.so", "x" },
                { ".so", ".so" },                  /* nothing before ".so": kept */
                { "/dir.so/pam_env", "pam_env" },
        };
        (void)state;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *n = pam_module_name(cases[i][0]);
                assert_non_null(n);
                if (!streq(n, cases[i][1]))
                        fail_msg("%s: \"%s\", want \"%s\"", cases[i][0], n, cases[i][1]);
        }
}

/* run the stack of "control name" pairs, the pam_limits result given: its stack_run */
static struct stack_run walk_of(const char *const *lines, size_t n, const unsigned *levels, enum pam_ret limits) {
        struct pam_stack st;
        struct stack_run r;

        stack_of(&st, lines, n);
        for (size_t i = 0; levels && i < st.n; i++)
                st.v[i].level = st.chain[i].level = levels[i];   /* one entry per link here */
        assert_int_equal(stack_run_walk(&st, limits, PAM_RET_SUCCESS, &r), 0);
        pam_stack_clear(&st);
        return r;
}

/* Only a decision (jump, done, die) by a module whose result the model does not know makes the
 * path assumed; pam_permit, pam_deny and pam_limits are known.  A decision inside a substack
 * ends the substack only: the walk goes on after it. */
static void test_walk_decisions(void **state) {
        struct stack_run r;
        (void)state;

        static const char *const plain[] = { "required", "pam_mkhomedir", "required", "pam_limits" };
        r = walk_of(plain, ELEMENTSOF(plain), NULL, PAM_RET_SUCCESS);
        assert_false(r.assumed);
        assert_int_equal(r.last_limits, 1);
        stack_run_clear(&r);

        static const char *const limits_done[] = { "sufficient", "pam_limits", "optional", "pam_rdmalimit" };
        r = walk_of(limits_done, ELEMENTSOF(limits_done), NULL, PAM_RET_SUCCESS);
        assert_false(r.assumed);
        assert_int_equal(r.ended_at, 0);
        assert_int_equal(r.last_module, -1);
        stack_run_clear(&r);

        static const char *const deny_dies[] = { "requisite", "pam_deny", "required", "pam_limits" };
        r = walk_of(deny_dies, ELEMENTSOF(deny_dies), NULL, PAM_RET_SUCCESS);
        assert_false(r.assumed);
        assert_true(r.failed);
        stack_run_clear(&r);

        /* an assumed jump: the walk goes on where it lands */
        static const char *const jump[] = { "[success=1 default=ignore]", "pam_succeed_if", "required", "pam_env",
                                            "required", "pam_limits" };
        r = walk_of(jump, ELEMENTSOF(jump), NULL, PAM_RET_SUCCESS);
        assert_true(r.assumed);
        assert_int_equal(r.n_run, 2);
        assert_int_equal(r.last_limits, 2);
        stack_run_clear(&r);

        static const char *const other_done[] = { "sufficient", "pam_systemd", "required", "pam_limits" };
        r = walk_of(other_done, ELEMENTSOF(other_done), NULL, PAM_RET_SUCCESS);
        assert_true(r.assumed);
        assert_int_equal(r.last_limits, -1);
        stack_run_clear(&r);

        /* pam_rdmalimit's result is the one given: its failure fails a required line */
        static const char *const module[] = { "required", "pam_rdmalimit", "required", "pam_limits" };
        struct pam_stack st;
        stack_of(&st, module, ELEMENTSOF(module));
        assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_FAIL, &r), 0);
        assert_true(r.failed);
        stack_run_clear(&r);
        assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_SUCCESS, &r), 0);
        assert_false(r.failed);
        stack_run_clear(&r);
        pam_stack_clear(&st);

        /* a substack (level 1) whose sufficient pam_permit ends it; pam_limits after it runs */
        static const char *const sub[] = { "sufficient", "pam_permit", "required", "pam_env",
                                           "required", "pam_limits" };
        static const unsigned levels[] = { 1, 1, 0 };
        r = walk_of(sub, ELEMENTSOF(sub), levels, PAM_RET_SUCCESS);
        assert_int_equal(r.n_run, 2);
        assert_int_equal(r.last_limits, 2);
        assert_int_equal(r.ended_at, -1);
        stack_run_clear(&r);

        /* ... a substack that ends the stack: what follows the decision in it does not run */
        static const char *const tail[] = { "required", "pam_env", "sufficient", "pam_permit",
                                            "required", "pam_limits" };
        static const unsigned tail_levels[] = { 0, 1, 1 };
        r = walk_of(tail, ELEMENTSOF(tail), tail_levels, PAM_RET_SUCCESS);
        assert_int_equal(r.n_run, 2);
        assert_int_equal(r.last_limits, -1);
        stack_run_clear(&r);
}

/* libpam's impression and status (pam_dispatch.c, each measured with Debian 12's 1.5.2): the
 * status is the first result taken while undecided, reset restores the state where the level
 * began, every return value is told apart. */
static void test_walk_status(void **state) {
        struct stack_run r;
        struct pam_stack st;
        (void)state;

        /* [default=ok] on a module libpam cannot load: PAM_MODULE_UNKNOWN is the status, a
         * later success does not replace it: the session fails */
        static const char *const unk[] = { "[default=ok]", "pam_nothere", "required", "pam_permit",
                                           "required", "pam_limits" };
        stack_of(&st, unk, ELEMENTSOF(unk));
        st.v[0].unloadable = true;
        assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_SUCCESS, &r), 0);
        assert_true(r.failed);
        assert_int_equal(r.status, PAM_RET_UNKNOWN);
        assert_int_equal(r.last_limits, 2);
        stack_run_clear(&r);
        pam_stack_clear(&st);
        /* ... and PAM_IGNORE under ok: pam_open_session() returns PAM_IGNORE */
        static const char *const ign[] = { "[default=ok]", "pam_rdmalimit", "required", "pam_permit" };
        stack_of(&st, ign, ELEMENTSOF(ign));
        assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_IGNORE, &r), 0);
        assert_true(r.failed);
        assert_int_equal(r.status, PAM_RET_IGNORE);
        stack_run_clear(&r);
        pam_stack_clear(&st);
        /* a failure first: its code is the status */
        static const char *const first[] = { "required", "pam_limits", "required", "pam_deny" };
        stack_of(&st, first, ELEMENTSOF(first));
        assert_int_equal(stack_run_walk(&st, PAM_RET_SERVICE_ERR, PAM_RET_SUCCESS, &r), 0);
        assert_true(r.failed);
        assert_int_equal(r.status, PAM_RET_SERVICE_ERR);
        stack_run_clear(&r);
        assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_SUCCESS, &r), 0);
        assert_int_equal(r.status, PAM_RET_FAIL);   /* pam_deny: PAM_SESSION_ERR */
        stack_run_clear(&r);
        pam_stack_clear(&st);

        /* reset: the state where the stack began, so a later success opens the session */
        static const char *const reset[] = { "required", "pam_deny", "[success=reset default=bad]", "pam_permit",
                                             "required", "pam_permit" };
        r = walk_of(reset, ELEMENTSOF(reset), NULL, PAM_RET_SUCCESS);
        assert_false(r.failed);
        assert_int_equal(r.status, PAM_RET_SUCCESS);
        stack_run_clear(&r);
        /* ... in a substack: the state where the substack began (pam_permit's success) */
        static const char *const sub_reset[] = { "required", "pam_permit", "required", "pam_deny",
                                                 "[success=reset default=bad]", "pam_permit" };
        static const unsigned sub_levels[] = { 0, 1, 1 };
        r = walk_of(sub_reset, ELEMENTSOF(sub_reset), sub_levels, PAM_RET_SUCCESS);
        assert_false(r.failed);
        stack_run_clear(&r);
        /* ... and with nothing before the substack: undecided again, nothing succeeds after */
        static const unsigned sub_first[] = { 1, 1, 1 };
        static const char *const sub_only[] = { "required", "pam_deny", "[success=reset default=bad]", "pam_permit",
                                                "[default=ignore]", "pam_permit" };
        r = walk_of(sub_only, ELEMENTSOF(sub_only), sub_first, PAM_RET_SUCCESS);
        assert_true(r.failed);
        assert_int_equal(r.status, PAM_RET_PERM_DENIED);
        stack_run_clear(&r);

        /* ... after a deeper substack that opens the stack (A's first line a substack B):
         * libpam saves a level's state only on entering it (substates[] of _pam_dispatch_aux()),
         * so Y's reset at level 1 restores the state where A began, undecided, not the one B's
         * pam_deny left: Z's success opens the session */
        {
                static const char *const deep[] = { "required", "pam_deny", "[success=reset default=bad]",
                                                    "pam_permit", "required", "pam_permit" };
                static const unsigned deep_levels[] = { 2, 1, 1 };
                st = (struct pam_stack){ .service = strdup("t") };
                st.v = calloc(3, sizeof(*st.v));
                st.chain = calloc(5, sizeof(*st.chain));
                st.chain[st.n_chain++] = (struct pam_link){ .entry = -1, .level = 0 };   /* substack A */
                st.chain[st.n_chain++] = (struct pam_link){ .entry = -1, .level = 1 };   /* substack B */
                for (size_t i = 0; i < 3; i++) {
                        st.chain[st.n_chain++] = (struct pam_link){ .entry = (long)i, .level = deep_levels[i] };
                        st.v[st.n++] = (struct pam_entry){ .file = strdup("etc/pam.d/t"), .line = (unsigned)i + 1,
                                                           .link = st.n_chain - 1, .level = deep_levels[i],
                                                           .control = strdup(deep[2 * i]),
                                                           .module = strdup(deep[2 * i + 1]),
                                                           .name = strdup(deep[2 * i + 1]), .args = strdup("") };
                }
                assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_SUCCESS, &r), 0);
                assert_false(r.failed);
                assert_int_equal(r.status, PAM_RET_SUCCESS);
                stack_run_clear(&r);
                pam_stack_clear(&st);
        }

        /* a bracket naming one failure: pam_limits' PAM_SERVICE_ERR is not perm_denied */
        static const char *const named[] = { "required", "pam_permit", "[perm_denied=ignore default=bad]",
                                             "pam_limits" };
        r = walk_of(named, ELEMENTSOF(named), NULL, PAM_RET_SERVICE_ERR);
        assert_true(r.failed);
        assert_int_equal(r.status, PAM_RET_SERVICE_ERR);
        stack_run_clear(&r);
        r = walk_of(named, ELEMENTSOF(named), NULL, PAM_RET_PERM_DENIED);
        assert_false(r.failed);
        stack_run_clear(&r);

        /* a line that always fails, under optional: ignored; under required: PAM_PERM_DENIED */
        static const char *const bad_line[] = { "optional", "", "required", "pam_permit", "required", "" };
        stack_of(&st, bad_line, ELEMENTSOF(bad_line));
        st.v[0].fails = st.v[2].fails = true;
        assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_SUCCESS, &r), 0);
        assert_true(r.failed);
        assert_int_equal(r.status, PAM_RET_PERM_DENIED);
        assert_int_equal(r.n_run, 3);
        stack_run_clear(&r);
        pam_stack_clear(&st);
}

/* A model's inputs from a throwaway tree root (made by the caller): its limits tree as Debian
 * reads it, its users, PID 1's limits (root/proc/1/limits), a service that starts with soft
 * 64 KiB and the hard limit given, and the policy text (NULL: none). */
struct model_fixture {
        struct lc_tree *t;
        struct ident *id;
        struct lc_baseline b;
        struct lc_service svc;
        struct policy *pol;
};

static void model_fixture_load(struct model_fixture *f, const char *root, uint64_t hard, const char *policy_text) {
        char p[PATH_MAX];

        *f = (struct model_fixture){ .svc = { .known = true } };
        assert_int_equal(lc_tree_load(root, LC_FLAVOUR_DEBIAN, NULL, &f->t), 0);
        assert_int_equal(ident_new(root, &f->id), 0);
        snprintf(p, sizeof p, "%s/proc/1/limits", root);
        assert_int_equal(lc_baseline_load(f->t, p, &f->b), 0);
        f->svc.rl[RLIMIT_MEMLOCK] = (__typeof__(f->svc.rl[0])){ .known = true, .soft = 65536, .hard = hard };
        if (policy_text)
                assert_int_equal(policy_load_string(policy_text, strlen(policy_text), "p", &f->pol, NULL), 0);
}

static void model_fixture_free(struct model_fixture *f) {
        policy_free(f->pol);
        ident_free(f->id);
        lc_tree_free(f->t);
}

/* The session of a service libpam runs `other`'s stack for (no file, no session lines), or
 * whose lines libpam reads otherwise than word by word: session_model_build() follows libpam
 * (each measured with Debian 12's 1.5.2). */
static void test_model_libpam_stacks(void **state) {
        static char root[] = "/tmp/test-session-libpam-XXXXXX";
        struct model_fixture f;
        char p[PATH_MAX];
        (void)state;

        assert_int_equal(unit_tree(root, (const struct unit_file[]){
                { "etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n" },
                { "etc/group", "root:x:0:\nalice:x:1001:\n" },
                { "etc/pam.d/other", "session required pam_permit.so\n" },
                { "etc/pam.d/auth-only", "auth required pam_unix.so\n" },
                { "etc/pam.d/cont", "session required \\\n  pam_limits.so\n" },
                { "etc/pam.d/upper", "@INCLUDE upper-inc\n" },
                { "etc/pam.d/upper-inc", "session required pam_limits.so\n" },
                { "etc/pam.d/path", "session include /srv/limits-stack\n" },
                { "srv/limits-stack", "session required pam_limits.so\n" },
                { "etc/pam.d/noctl", "session required pam_limits.so\nsession required\n" },
                { "etc/security/limits.conf", "alice soft memlock 2048\nalice hard memlock 4096\n" },
                { "proc/1/limits", "Limit                     Soft Limit           Hard Limit           Units     \n"
                                   "Max locked memory         65536                8388608              bytes     \n" },
                {},
        }), 0);
        model_fixture_load(&f, root, 8388608, NULL);

        static const struct {
                const char *service;
                enum lc_session_kind kind;
                uint64_t soft, hard;
        } cases[] = {
                /* other's stack has no pam_limits: the service's own limits, no limits.conf */
                { "no-such-service", LC_SESSION_NO_LIMITS, 65536, 8388608 },
                { "auth-only", LC_SESSION_NO_LIMITS, 65536, 8388608 },
                /* a continued line is one line: pam_limits runs */
                { "cont", LC_SESSION_LIMITS, 2 << 20, 4 << 20 },
                { "upper", LC_SESSION_LIMITS, 2 << 20, 4 << 20 },
                { "path", LC_SESSION_LIMITS, 2 << 20, 4 << 20 },
                /* a line without a module fails the session (PAM_PERM_DENIED) */
                { "noctl", LC_SESSION_FAILS, 2 << 20, 4 << 20 },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct session_input in = { .root = root, .service = cases[i].service, .tree = f.t, .id = f.id,
                                            .user = "alice", .base = &f.b, .svc = &f.svc };
                struct session_model m = { .kind = 99 };
                assert_int_equal(session_model_build(&in, &m), 0);
                if (m.kind != cases[i].kind || !m.final_known || m.final.soft != cases[i].soft ||
                    m.final.hard != cases[i].hard || m.order == SESSION_NO_STACK)
                        fail_msg("%s: kind %d, order %d, final %" PRIu64 "/%" PRIu64 " (%s)", cases[i].service, m.kind,
                                 m.order, m.final.soft, m.final.hard, m.cause);
                if (i < 2)
                        assert_non_null(strstr(m.cause, "pam.d/other"));
                session_model_clear(&m);
        }
        /* other = pam_deny: the session of a service without a file fails */
        unit_put(root, "etc/pam.d/other", "session required pam_deny.so\n");
        struct session_input in = { .root = root, .service = "no-such-service", .tree = f.t, .id = f.id, .user = "alice",
                                    .base = &f.b, .svc = &f.svc };
        struct session_model m = { .kind = 99 };
        assert_int_equal(session_model_build(&in, &m), 0);
        assert_int_equal(m.kind, LC_SESSION_FAILS);
        assert_true(m.run.failed);
        assert_non_null(strstr(m.cause, "PAM_SESSION_ERR"));
        session_model_clear(&m);
        /* no other either: pam_start() fails */
        snprintf(p, sizeof p, "%s/etc/pam.d/other", root);
        assert_int_equal(unlink(p), 0);
        m = (struct session_model){ .kind = 99 };
        assert_int_equal(session_model_build(&in, &m), 0);
        assert_int_equal(m.kind, LC_SESSION_FAILS);
        assert_non_null(strstr(m.cause, "pam_start() fails"));
        session_model_clear(&m);
        model_fixture_free(&f);
        assert_int_equal(unit_teardown(NULL), 0);
}

/* pam_succeed_if as the model evaluates it (tests/agree/test-reader.sh holds the shapes against
 * real sessions): what it cannot know is -1, taken as success and said */
static void test_succeed_if(void **state) {
        static char root[] = "/tmp/test-session-succeedif-XXXXXX";
        struct model_fixture f;
        (void)state;

        assert_int_equal(unit_tree(root, (const struct unit_file[]){
                { "etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n" },
                { "etc/group", "root:x:0:\nalice:x:1001:\nrdma:x:2000:alice\n" },
                {},
        }), 0);
        model_fixture_load(&f, root, 8388608, NULL);
        static const struct {
                const char *args;
                int ret;
        } cases[] = {
                { "uid >= 1000 quiet", PAM_RET_SUCCESS },
                { "uid < 1000", PAM_RET_AUTH_ERR },
                { "user ingroup rdma", PAM_RET_SUCCESS },
                { "user ingroup root:rdma", PAM_RET_SUCCESS },
                { "user notingroup rdma", PAM_RET_AUTH_ERR },
                { "gid eq 1001 user = alice", PAM_RET_SUCCESS },
                { "gid eq 1001 user = bob", PAM_RET_AUTH_ERR },
                { "service notin sshd:login", PAM_RET_SUCCESS },
                /* evaluate_inlist(): a whole item, the first, a middle or the last */
                { "user in alice:bob", PAM_RET_SUCCESS },
                { "user in bob:alice:carol", PAM_RET_SUCCESS },
                { "user in bob:alice", PAM_RET_SUCCESS },
                { "user in alice", PAM_RET_SUCCESS },
                { "user in xalice:bob", PAM_RET_AUTH_ERR },
                { "user in alicex:bob", PAM_RET_AUTH_ERR },
                { "user in bob:xalice:alicex", PAM_RET_AUTH_ERR },
                { "user notin bob:carol", PAM_RET_SUCCESS },
                { "user notin alice:carol", PAM_RET_AUTH_ERR },
                { "user =~ al*", PAM_RET_SUCCESS },
                /* the other spellings of the glob tests (pam_succeed_if.c: glob, noglob, !~) */
                { "user glob al*", PAM_RET_SUCCESS },
                { "user noglob b*", PAM_RET_SUCCESS },
                { "user noglob al*", PAM_RET_AUTH_ERR },
                { "user !~ al*", PAM_RET_AUTH_ERR },
                { "user", PAM_RET_SERVICE_ERR },
                { "colour = red", PAM_RET_SERVICE_ERR },
                { "uid < x", PAM_RET_SERVICE_ERR },
                { "", PAM_RET_SUCCESS },
                { "use_uid user = alice", -1 },
                { "rhost = gw", -1 },
                { "tty = tty1", -1 },
                { "shell = /bin/sh", -1 },
                { "home = /home/alice", -1 },
                { "dir = /home/alice", -1 },
                { "homedir = /home/alice", -1 },
                { "ruser = root", -1 },
                { "user innetgr admins", -1 },
                { "uid < 1000 rhost = gw", PAM_RET_AUTH_ERR },   /* the first that fails decides */
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                int r = succeed_if_ret(cases[i].args, f.id, "alice", "su");
                if (r != cases[i].ret)
                        fail_msg("'%s': %d, expected %d", cases[i].args, r, cases[i].ret);
        }
        assert_int_equal(succeed_if_ret("uid > 0", f.id, "nosuch", "su"), PAM_RET_USER_UNKNOWN);
        model_fixture_free(&f);
        assert_int_equal(unit_teardown(NULL), 0);
}

/* a service whose daemon the model does not know: -ESRCH at once, *ret_pid untouched */
static void test_service_find_unknown(void **state) {
        pid_t pid = 4242;
        (void)state;

        assert_int_equal(session_service_find("no-such-service", &pid, NULL), -ESRCH);
        assert_int_equal(session_service_find("", &pid, NULL), -ESRCH);
        assert_int_equal(pid, 4242);
}

/* the rank a line's domain gives it, as pam_limits orders them */
static void test_line_rank(void **state) {
        static const struct {
                const char *domain;
                enum lc_range range;
                enum lc_rank want;
        } cases[] = {
                { "alice", LC_RANGE_NONE, LC_RANK_USER },
                { "a", LC_RANGE_NONE, LC_RANK_USER },
                { "1000:2000", LC_RANGE_MM, LC_RANK_USER },
                { "@spdk", LC_RANGE_NONE, LC_RANK_GROUP },
                { "%spdk", LC_RANGE_NONE, LC_RANK_ALLGROUP },
                { "%", LC_RANGE_NONE, LC_RANK_ALL },
                { "*", LC_RANGE_NONE, LC_RANK_DEFAULT },
        };
        (void)state;

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                if (lc_domain_rank(cases[i].domain, cases[i].range) != cases[i].want)
                        fail_msg("%s: rank %d, want %d", cases[i].domain, lc_domain_rank(cases[i].domain, cases[i].range),
                                 cases[i].want);
}

/* session_model_build() on a tree: pam_limits sets alice 2 MiB / 4 MiB from a service at
 * 64 KiB / 8 MiB; bob, whom no line names, keeps the service's limits; where the service's
 * stack cannot be read, pam_limits then the module run, as documented */
static void test_model_build(void **state) {
        static char root[] = "/tmp/test-session-model-XXXXXX";
        struct lc_tree *t = NULL;
        struct ident *id = NULL;
        struct lc_baseline b;
        struct lc_service svc = { .known = true };
        char p[PATH_MAX];
        (void)state;

        assert_int_equal(unit_tree(root, (const struct unit_file[]){
                { "etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n"
                                "bob:x:1002:1002::/home/bob:/bin/sh\ncarl:x:1003:1003::/home/carl:/bin/sh\n" },
                { "etc/group", "root:x:0:\nalice:x:1001:\nbob:x:1002:\ncarl:x:1003:\n" },
                { "etc/pam.d/svc", "session required pam_limits.so\n" },
                { "etc/pam.d/mod", "session required pam_limits.so\nsession optional pam_rdmalimit.so\n" },
                { "etc/pam.d/skip", "session sufficient pam_permit.so\nsession required pam_limits.so\n" },
                { "etc/pam.d/optlim", "session optional pam_limits.so\nsession required pam_permit.so\n" },
                { "etc/pam.d/sshd", "session required pam_limits.so\nsession optional pam_rdmalimit.so\n" },
                { "etc/ssh/sshd_config", "Port 22\nUsePAM no\n" },
                { "etc/security/limits.conf", "alice soft memlock 2048\nalice hard memlock 4096\n"
                                              "carl - maxlogins 0\ncarl - memlock 1024\n" },
                { "proc/1/limits", "Limit                     Soft Limit           Hard Limit           Units     \n"
                                   "Max locked memory         65536                8388608              bytes     \n" },
                {},
        }), 0);
        /* a service file the tool cannot read: a FIFO (libpam's fopen() would wait on it; a
         * directory it reads as an empty file) */
        snprintf(p, sizeof p, "%s/etc/pam.d/unread", root);
        assert_int_equal(mkfifo(p, 0644), 0);
        assert_int_equal(lc_tree_load(root, LC_FLAVOUR_DEBIAN, NULL, &t), 0);
        assert_int_equal(ident_new(root, &id), 0);
        snprintf(p, sizeof p, "%s/proc/1/limits", root);
        assert_int_equal(lc_baseline_load(t, p, &b), 0);
        svc.rl[RLIMIT_MEMLOCK].known = true;
        svc.rl[RLIMIT_MEMLOCK].soft = 65536;
        svc.rl[RLIMIT_MEMLOCK].hard = 8388608;

        /* pam_rdmalimit after it: 6 MiB for alice is above her hard 4 MiB (no CAP_SYS_RESOURCE):
         * the closest, 4 MiB / 4 MiB; nothing for bob */
        static const char policy_text[] = "version = 1;\nrules = ( { user = \"alice\"; memlock = \"6M\"; } );\n";
        struct policy *pol = NULL;
        assert_int_equal(policy_load_string(policy_text, strlen(policy_text), "p", &pol, NULL), 0);

        static const struct {
                const char *service, *user;
                enum session_order order;
                uint64_t soft, hard;
                bool eperm;
        } cases[] = {
                { "svc", "alice", SESSION_NO_MODULE, 2 << 20, 4 << 20, false },
                { "unread", "alice", SESSION_NO_STACK, 4 << 20, 4 << 20, true },   /* limits, then module */
                { "svc", "bob", SESSION_NO_MODULE, 65536, 8388608, false },
                { "mod", "alice", SESSION_MODULE_LAST, 4 << 20, 4 << 20, true },
                { "mod", "bob", SESSION_MODULE_LAST, 65536, 8388608, false },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct session_input in = { .root = root, .service = cases[i].service, .tree = t, .id = id,
                                            .user = cases[i].user, .base = &b, .svc = &svc, .policy = pol };
                struct session_model m = { .kind = 99 };
                assert_int_equal(session_model_build(&in, &m), 0);
                if (m.order != cases[i].order || !m.final_known || m.final.soft != cases[i].soft ||
                    m.final.hard != cases[i].hard || m.kind != LC_SESSION_LIMITS || m.module_eperm != cases[i].eperm)
                        fail_msg("%s for %s: order %d, final %s%" PRIu64 "/%" PRIu64 ", kind %d", cases[i].service,
                                 cases[i].user, m.order, m.final_known ? "" : "unknown ", m.final.soft,
                                 m.final.hard, m.kind);
                session_model_clear(&m);
        }
        /* sshd with UsePAM no: no stack runs, the login keeps sshd's limits; the policy's rule
         * is a target the login misses, and the fix names the line.  A PAM session the caller
         * opens itself (verify) runs the stack all the same. */
        struct session_input in = { .root = root, .service = "sshd", .tree = t, .id = id, .user = "alice",
                                    .base = &b, .svc = &svc, .policy = pol };
        struct session_model m = { .kind = 99 };
        struct session_target tg;
        assert_int_equal(session_model_build(&in, &m), 0);
        assert_int_equal(m.order, SESSION_NO_PAM);
        assert_int_equal(m.kind, LC_SESSION_NO_LIMITS);
        assert_int_equal(m.pam.kind, SESSION_PAM_NONE);
        assert_string_equal(m.pam.where, "etc/ssh/sshd_config:2");
        assert_non_null(strstr(m.cause, "sshd opens no PAM session (UsePAM no, etc/ssh/sshd_config:2)"));
        assert_true(m.final_known && m.final.soft == 65536 && m.final.hard == 8388608);
        assert_true(m.module_matched);
        session_target(&m, t, &svc, "sshd", true, m.final, &tg);
        assert_int_equal(tg.cause, SESSION_SHORT_NO_PAM);
        assert_string_equal(tg.where, "etc/ssh/sshd_config:2");
        assert_non_null(strstr(tg.fix, "set 'UsePAM yes' at etc/ssh/sshd_config:2"));
        session_model_clear(&m);
        in.pam_direct = true;
        m = (struct session_model){ .kind = 99 };
        assert_int_equal(session_model_build(&in, &m), 0);
        assert_int_equal(m.order, SESSION_MODULE_LAST);
        assert_true(m.final_known && m.final.soft == 4 << 20 && m.final.hard == 4 << 20);
        session_model_clear(&m);

        /* no pam_limits runs (the stack ends before it): alice's entries set nothing, the
         * session keeps the service's limits and says so (no-limits, pam_limits' values unknown) */
        in = (struct session_input){ .root = root, .service = "skip", .tree = t, .id = id, .user = "alice",
                                     .base = &b, .svc = &svc };
        m = (struct session_model){ .kind = 99 };
        assert_int_equal(session_model_build(&in, &m), 0);
        assert_int_equal(m.kind, LC_SESSION_NO_LIMITS);
        assert_int_equal(m.pl.kind, LC_SESSION_NO_LIMITS);
        assert_false(m.pl.memlock_known);
        assert_false(m.pl.requested_hard_known);
        assert_true(m.final_known);
        assert_int_equal(m.final.soft, 65536);
        assert_int_equal(m.final.hard, 8388608);
        session_model_clear(&m);
        /* 'carl - maxlogins 0': pam_limits sets the limits, then refuses (measured with Debian
         * 12's pam_limits): a required pam_limits fails the session, an optional one leaves it
         * open with carl's 1 MiB */
        in.user = "carl";
        m = (struct session_model){ .kind = 99 };
        assert_int_equal(session_model_build(&in, &m), 0);
        assert_int_equal(m.kind, LC_SESSION_NO_LIMITS);   /* "skip": no pam_limits runs */
        session_model_clear(&m);
        in.service = "svc";
        m = (struct session_model){ .kind = 99 };
        assert_int_equal(session_model_build(&in, &m), 0);
        assert_int_equal(m.kind, LC_SESSION_REFUSED);
        session_model_clear(&m);
        in.service = "optlim";
        m = (struct session_model){ .kind = 99 };
        assert_int_equal(session_model_build(&in, &m), 0);
        assert_int_equal(m.kind, LC_SESSION_LIMITS);
        assert_true(m.final_known);
        assert_int_equal(m.final.soft, 1 << 20);
        assert_int_equal(m.final.hard, 1 << 20);
        session_model_clear(&m);
        policy_free(pol);
        ident_free(id);
        lc_tree_free(t);
        assert_int_equal(unit_teardown(NULL), 0);
}

/* session_service_pam(): sshd's UsePAM in a tree, each answer with its where and why; every
 * other service runs its stack */
static void test_service_pam(void **state) {
        static char root[] = "/tmp/test-session-usepam-XXXXXX";
        static const struct {
                const char *tree, *text;
                enum session_pam kind;
                const char *where, *why;
        } cases[] = {
                { "yes", "UsePAM yes\n", SESSION_PAM_RUNS, "etc/ssh/sshd_config:1", "" },
                { "no", "Port 22\nusepam no\n", SESSION_PAM_NONE, "etc/ssh/sshd_config:2",
                  "sshd opens no PAM session (UsePAM no, etc/ssh/sshd_config:2): neither pam_limits nor pam_rdmalimit "
                  "runs for ssh logins, which keep sshd's own limits" },
                { "unset", "Port 22\n", SESSION_PAM_NONE, "etc/ssh/sshd_config",
                  "sshd opens no PAM session (etc/ssh/sshd_config does not set UsePAM, and OpenSSH's built-in default "
                  "is no): neither pam_limits nor pam_rdmalimit runs for ssh logins, which keep sshd's own limits" },
                { "match", "UsePAM yes\nMatch User bob\n  UsePAM no\n", SESSION_PAM_NO_DAEMON, "etc/ssh/sshd_config:3",
                  "sshd refuses its configuration (etc/ssh/sshd_config:3: UsePAM inside a Match block): it does not "
                  "start, and nobody logs in by ssh" },
                { "bad", "UsePAM 1\n", SESSION_PAM_NO_DAEMON, "etc/ssh/sshd_config:1",
                  "sshd refuses its configuration (etc/ssh/sshd_config:1: UsePAM takes yes or no): it does not start, "
                  "and nobody logs in by ssh" },
                { "cycle", "Include /etc/ssh/sshd_config\nUsePAM yes\n", SESSION_PAM_NO_DAEMON, "etc/ssh/sshd_config:1",
                  "sshd refuses its configuration (etc/ssh/sshd_config:1: an Include cycle): it does not start, and "
                  "nobody logs in by ssh" },
                { "none", NULL, SESSION_PAM_ASSUMED, "",
                  "assumed: sshd runs its PAM session stack (UsePAM yes); there is no etc/ssh/sshd_config" },
        };
        char p[PATH_MAX], r[PATH_MAX];
        struct session_pam_answer a;
        (void)state;

        assert_true(mkdtemp(root) != NULL);
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                snprintf(p, sizeof p, "%s/etc/ssh/sshd_config", cases[i].tree);
                if (cases[i].text)
                        unit_put(root, p, cases[i].text);
                unit_path(r, root, cases[i].tree);
                a = (struct session_pam_answer){ .kind = 99 };
                assert_int_equal(session_service_pam(r, "sshd", 0, &a), 0);
                if (a.kind != cases[i].kind || !streq(a.where, cases[i].where) || !streq(a.why, cases[i].why))
                        fail_msg("%s: kind %d, where '%s', why '%s'", cases[i].tree, a.kind, a.where, a.why);
                /* another service runs its stack whatever sshd says */
                a = (struct session_pam_answer){ .kind = 99 };
                assert_int_equal(session_service_pam(r, "su", 0, &a), 0);
                assert_int_equal(a.kind, SESSION_PAM_RUNS);
        }
        char fix[1024];
        session_pam_fix("etc/ssh/sshd_config:2", fix, sizeof fix);
        assert_string_equal(fix, "set 'UsePAM yes' at etc/ssh/sshd_config:2 (sshd takes the first value it reads), then "
                                 "restart sshd");
        session_pam_fix("etc/ssh/sshd_config", fix, sizeof fix);
        assert_string_equal(fix, "set 'UsePAM yes' in etc/ssh/sshd_config (sshd takes the first value it reads), then "
                                 "restart sshd");
        session_pam_fix("the command line of sshd (pid 7)", fix, sizeof fix);
        assert_string_equal(fix, "start sshd without its -o UsePAM option (the command line of sshd (pid 7): its unit's "
                                 "ExecStart=, or SSHD_OPTS in /etc/default/ssh), then restart sshd");
        unit_dir = root;
        assert_int_equal(unit_teardown(NULL), 0);
}

/* Each pam_limits line reads its own file (conf=): the last that runs sets memlock from its
 * file, and its file's refusal decides its control (the walk), not another line's. */
static void test_model_line_trees(void **state) {
        static char root[] = "/tmp/test-session-trees-XXXXXX";
        struct lc_tree *t[2] = {};
        struct lc_args alt;
        struct ident *id = NULL;
        struct lc_baseline b;
        struct lc_service svc = { .known = true, .cap_sys_resource = true };
        char p[PATH_MAX];
        (void)state;

        assert_int_equal(unit_tree(root, (const struct unit_file[]){
                { "etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n"
                                "dave:x:1004:1004::/home/dave:/bin/sh\nerin:x:1005:1005::/home/erin:/bin/sh\n" },
                { "etc/group", "root:x:0:\nalice:x:1001:\ndave:x:1004:\nerin:x:1005:\n" },
                { "etc/pam.d/alt-def", "session required pam_limits.so conf=/etc/security/limits-alt.conf\n"
                                       "session required pam_limits.so\n" },
                { "etc/pam.d/def-alt", "session required pam_limits.so\n"
                                       "session required pam_limits.so conf=/etc/security/limits-alt.conf\n" },
                /* a control libpam cannot read is a failure, and the walk goes on */
                { "etc/pam.d/typo", "session requird pam_permit.so\nsession required pam_limits.so\n" },
                { "etc/pam.d/jump", "session [success=1 default=ignore] pam_limits.so conf=/etc/security/limits-alt.conf\n"
                                    "session required pam_deny.so\n"
                                    "session required pam_limits.so\n" },
                { "etc/security/limits.conf", "alice soft memlock 2048\nalice hard memlock 4096\nerin -\n" },
                { "etc/security/limits-alt.conf", "alice - memlock 6144\ndave - maxlogins 0\nerin - memlock 3072\n" },
                { "proc/1/limits", "Limit                     Soft Limit           Hard Limit           Units     \n"
                                   "Max locked memory         65536                8388608              bytes     \n" },
                {},
        }), 0);
        {
                /* a service file the tool cannot read: a FIFO */
                char fifo[PATH_MAX];
                snprintf(fifo, sizeof fifo, "%s/etc/pam.d/unread", root);
                assert_int_equal(mkfifo(fifo, 0644), 0);
        }
        assert_int_equal(lc_tree_load(root, LC_FLAVOUR_DEBIAN, NULL, &t[0]), 0);
        assert_int_equal(lc_args_parse("conf=/etc/security/limits-alt.conf", &alt), 0);
        assert_int_equal(lc_tree_load_args(root, LC_FLAVOUR_DEBIAN, &alt, &t[1]), 0);
        assert_int_equal(ident_new(root, &id), 0);
        snprintf(p, sizeof p, "%s/proc/1/limits", root);
        assert_int_equal(lc_baseline_load(t[0], p, &b), 0);
        svc.rl[RLIMIT_MEMLOCK] = (__typeof__(svc.rl[0])){ .known = true, .soft = 65536, .hard = 8388608 };

        static const struct {
                const char *service, *user;
                bool failed;
                int tree;              /* the tree the last pam_limits run read */
                uint64_t soft, hard;
        } cases[] = {
                { "alt-def", "alice", false, 0, 2 << 20, 4 << 20 },
                { "def-alt", "alice", false, 1, 6 << 20, 6 << 20 },
                /* the first line's file accepts alice: its jump skips pam_deny */
                { "jump", "alice", false, 0, 2 << 20, 4 << 20 },
                /* ... and refuses dave (maxlogins 0): no jump, pam_deny fails the session */
                { "jump", "dave", true, 0, 65536, 8388608 },
                /* the last line's file says "erin -" (no limits: memlock left as it is): the
                 * first line's 3 MiB stays, and its file is the one that decides */
                { "alt-def", "erin", false, 1, 3 << 20, 3 << 20 },
        };
        static const char policy_text[] = "version = 1;\nrules = ( { user = \"erin\"; memlock = \"1M\"; } );\n";
        struct policy *pol = NULL;
        assert_int_equal(policy_load_string(policy_text, strlen(policy_text), "p", &pol, NULL), 0);
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct session_input in = { .root = root, .service = cases[i].service, .tree = t[0],
                                            .line_tree = unit_line_tree, .line_tree_data = t, .id = id,
                                            .user = cases[i].user, .base = &b, .svc = &svc };
                struct session_model m = { .kind = 99 };
                assert_int_equal(session_model_build(&in, &m), 0);
                if (m.run.failed != cases[i].failed || m.tree != t[cases[i].tree] || !m.final_known ||
                    m.final.soft != cases[i].soft || m.final.hard != cases[i].hard ||
                    m.kind != (cases[i].failed ? LC_SESSION_FAILS : LC_SESSION_LIMITS))
                        fail_msg("%s for %s: failed %d, tree %d, final %" PRIu64 "/%" PRIu64 ", kind %d", cases[i].service,
                                 cases[i].user, m.run.failed, m.tree == t[1], m.final.soft, m.final.hard, m.kind);
                if (i == 1)
                        unit_sweep_model(&in, &m);   /* the second line's tree decides */
                session_model_clear(&m);
        }
        /* an unreadable control: pam_limits after it still runs (the stack fails) */
        struct session_input in = { .root = root, .service = "typo", .tree = t[0], .line_tree = unit_line_tree,
                                    .line_tree_data = t, .id = id, .user = "alice", .base = &b, .svc = &svc };
        struct session_model m = { .kind = 99 };
        assert_int_equal(session_model_build(&in, &m), 0);
        assert_true(m.run.failed);
        assert_int_equal(m.run.last_limits, 1);
        assert_int_equal(m.final.hard, 4 << 20);
        session_model_clear(&m);
        /* no stack the tool can read: pam_limits then the module; a '-' line (erin) sets nothing, and
         * the module runs all the same */
        in = (struct session_input){ .root = root, .service = "unread", .tree = t[0], .id = id, .user = "erin",
                                     .base = &b, .svc = &svc, .policy = pol };
        m = (struct session_model){ .kind = 99 };
        assert_int_equal(session_model_build(&in, &m), 0);
        assert_int_equal(m.order, SESSION_NO_STACK);
        assert_true(m.module_ran);
        assert_int_equal(m.final.soft, 1 << 20);
        session_model_clear(&m);
        policy_free(pol);
        ident_free(id);
        lc_tree_free(t[0]);
        lc_tree_free(t[1]);
        assert_int_equal(unit_teardown(NULL), 0);
}

/* A shortfall an entry causes is the entry's, even when the service's own hard limit is below
 * the target too: the entry lowered it further (session_target()). */
static void test_target_entry(void **state) {
        static char root[] = "/tmp/test-session-target-XXXXXX";
        struct lc_tree *t = NULL;
        struct ident *id = NULL;
        struct lc_baseline b = { .rank = LC_RANK_NONE };
        struct lc_service svc = { .known = true, .source = "svc (pid 1)" };
        struct policy *pol = NULL;
        static const char policy_text[] = "version = 1;\nrules = ( { user = \"alice\"; memlock = \"6M\"; } );\n";
        (void)state;

        assert_int_equal(unit_tree(root, (const struct unit_file[]){
                { "etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n" },
                { "etc/group", "root:x:0:\nalice:x:1001:\n" },
                { "etc/pam.d/s", "session required pam_limits.so\nsession optional pam_rdmalimit.so\n" },
                { "etc/security/limits.conf", "alice hard memlock 2048\n" },
                {},
        }), 0);
        assert_int_equal(lc_tree_load(root, LC_FLAVOUR_UPSTREAM, NULL, &t), 0);
        assert_int_equal(ident_new(root, &id), 0);
        assert_int_equal(policy_load_string(policy_text, strlen(policy_text), "p", &pol, NULL), 0);
        svc.rl[RLIMIT_MEMLOCK] = (__typeof__(svc.rl[0])){ .known = true, .soft = 65536, .hard = 4 << 20 };
        struct session_input in = { .root = root, .service = "s", .tree = t, .id = id, .user = "alice", .base = &b,
                                    .svc = &svc, .policy = pol };
        struct session_model m = {};
        struct session_target tg;
        assert_int_equal(session_model_build(&in, &m), 0);
        assert_int_equal(m.final.hard, 2 << 20);
        session_target(&m, m.tree, &svc, "s", true, m.final, &tg);
        assert_int_equal(tg.cause, SESSION_SHORT_ENTRY);
        assert_non_null(strstr(tg.where, "limits.conf:1"));
        session_model_clear(&m);
        policy_free(pol);
        ident_free(id);
        lc_tree_free(t);
        assert_int_equal(unit_teardown(NULL), 0);
}

/* Each pam_rdmalimit line reads its own policy (conf=): a later copy without a rule for the
 * user leaves the earlier copy's value, and its decision is the one shown. */
static void pick_policy(const struct pam_entry *e, const struct policy **ret_p, const struct hw_summary **ret_hw,
                        void *data) {
        struct policy **p = data;
        (void)ret_hw;
        *ret_p = strstr(e->args, "conf=/b") ? p[1] : p[0];
}

static void test_model_line_policies(void **state) {
        static char root[] = "/tmp/test-session-pols-XXXXXX";
        struct lc_tree *t = NULL;
        struct ident *id = NULL;
        struct lc_baseline b = { .rank = LC_RANK_NONE };
        struct lc_service svc = { .known = true };
        struct policy *p[2] = {};
        static const char a_text[] = "version = 1;\nrules = ( { user = \"alice\"; memlock = \"2M\"; } );\n";
        static const char b_text[] = "version = 1;\nrules = ( { user = \"bob\"; memlock = \"3M\"; } );\n";
        (void)state;

        assert_int_equal(unit_tree(root, (const struct unit_file[]){
                { "etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n"
                                "bob:x:1002:1002::/home/bob:/bin/sh\n" },
                { "etc/group", "root:x:0:\nalice:x:1001:\nbob:x:1002:\n" },
                { "etc/pam.d/s", "session required pam_limits.so\n"
                                 "session optional pam_rdmalimit.so conf=/a\n"
                                 "session optional pam_rdmalimit.so conf=/b\n" },
                { "etc/security/limits.conf", "" },
                {},
        }), 0);
        assert_int_equal(lc_tree_load(root, LC_FLAVOUR_UPSTREAM, NULL, &t), 0);
        assert_int_equal(ident_new(root, &id), 0);
        assert_int_equal(policy_load_string(a_text, strlen(a_text), "a", &p[0], NULL), 0);
        assert_int_equal(policy_load_string(b_text, strlen(b_text), "b", &p[1], NULL), 0);
        svc.rl[RLIMIT_MEMLOCK] = (__typeof__(svc.rl[0])){ .known = true, .soft = 65536, .hard = 8 << 20 };
        static const struct {
                const char *user;
                long entry;
                uint64_t soft;
        } cases[] = {
                { "alice", 1, 2 << 20 },   /* the first copy's rule; the second has none for her */
                { "bob", 2, 3 << 20 },     /* the second copy's */
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                /* the input policy is the last copy's, as the tool gives it */
                struct session_input in = { .root = root, .service = "s", .tree = t, .id = id, .user = cases[i].user,
                                            .base = &b, .svc = &svc, .policy = p[1], .line_policy = pick_policy,
                                            .line_policy_data = p };
                struct session_model m = {};
                assert_int_equal(session_model_build(&in, &m), 0);
                if (m.module_entry != cases[i].entry || !m.module_matched || m.final.soft != cases[i].soft)
                        fail_msg("%s: entry %ld, matched %d, final soft %" PRIu64, cases[i].user, m.module_entry,
                                 m.module_matched, m.final.soft);
                session_model_clear(&m);
        }
        policy_free(p[0]);
        policy_free(p[1]);
        ident_free(id);
        lc_tree_free(t);
        assert_int_equal(unit_teardown(NULL), 0);
}

/* A pam_rdmalimit line without a policy it can use (missing or refused: NULL) ignores the
 * session, unless it says strict: then it fails it (PAM_SESSION_ERR), as
 * pam_sm_open_session() does; a user no rule matches is ignored either way. */
static void no_policy_for_x(const struct pam_entry *e, const struct policy **ret_p, const struct hw_summary **ret_hw,
                            void *data) {
        _cleanup_free_ char *buf = NULL;
        struct login_args a;
        (void)ret_hw;
        assert_int_equal(session_module_args(e->args, &a, &buf), 0);
        *ret_p = streq(a.conf, "/x") ? NULL : data;
}

static void test_model_strict_without_policy(void **state) {
        static const char a_text[] = "version = 1;\nrules = ( { user = \"bob\"; memlock = \"3M\"; } );\n";
        static const struct {
                const char *stack;
                bool fails;
        } cases[] = {
                { "session required pam_rdmalimit.so conf=/x strict\n", true },
                { "session required pam_rdmalimit.so conf=/x\n", false },
                { "session optional pam_rdmalimit.so strict conf=/x\n", false },    /* optional: ignored */
                { "session required pam_rdmalimit.so conf=/a strict\n", false },    /* no rule for alice */
                { "session required pam_rdmalimit.so conf=/x strict conf=/a\n", false }, /* the last conf= */
        };
        struct policy *pa = NULL;
        (void)state;

        assert_int_equal(policy_load_string(a_text, strlen(a_text), "a", &pa, NULL), 0);
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct lc_tree *t = NULL;
                struct ident *id = NULL;
                struct lc_baseline b = { .rank = LC_RANK_NONE };
                struct lc_service svc = { .known = true };
                char root[] = "/tmp/test-session-strict-XXXXXX", stack[256];
                /* pam_permit: a stack whose every module ignores fails in libpam */
                snprintf(stack, sizeof stack, "session required pam_permit.so\n%s", cases[i].stack);
                assert_int_equal(unit_tree(root, (const struct unit_file[]){
                        { "etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n" },
                        { "etc/group", "root:x:0:\nalice:x:1001:\n" },
                        { "etc/pam.d/s", stack },
                        { "etc/security/limits.conf", "" },
                        {},
                }), 0);
                assert_int_equal(lc_tree_load(root, LC_FLAVOUR_UPSTREAM, NULL, &t), 0);
                assert_int_equal(ident_new(root, &id), 0);
                svc.rl[RLIMIT_MEMLOCK] = (__typeof__(svc.rl[0])){ .known = true, .soft = 65536, .hard = 8 << 20 };
                struct session_input in = { .root = root, .service = "s", .tree = t, .id = id, .user = "alice",
                                            .base = &b, .svc = &svc, .policy = pa, .line_policy = no_policy_for_x,
                                            .line_policy_data = pa };
                struct session_model m = {};
                assert_int_equal(session_model_build(&in, &m), 0);
                if (m.run.failed != cases[i].fails || (m.kind == LC_SESSION_FAILS) != cases[i].fails)
                        fail_msg("%s: failed %d, kind %d", cases[i].stack, m.run.failed, m.kind);
                session_model_clear(&m);
                ident_free(id);
                lc_tree_free(t);
                assert_int_equal(unit_teardown(NULL), 0);
        }
        policy_free(pa);
}

/* session_module_ret(): success when matched, whatever else; strict matters only without a
 * policy */
static void test_module_ret(void **state) {
        static const char text[] = "version = 1;\nrules = ( { user = \"bob\"; memlock = \"3M\"; } );\n";
        struct policy *p = NULL;
        enum pam_ret r;
        (void)state;

        assert_int_equal(policy_load_string(text, strlen(text), "a", &p, NULL), 0);
        assert_int_equal(session_module_ret("strict", NULL, true, &r), 0);
        assert_int_equal(r, PAM_RET_SUCCESS);
        assert_int_equal(session_module_ret("strict", NULL, false, &r), 0);
        assert_int_equal(r, PAM_RET_FAIL);
        assert_int_equal(session_module_ret("debug  strict\tquiet", NULL, false, &r), 0);
        assert_int_equal(r, PAM_RET_FAIL);
        assert_int_equal(session_module_ret("strictly", NULL, false, &r), 0);
        assert_int_equal(r, PAM_RET_IGNORE);
        assert_int_equal(session_module_ret(NULL, NULL, false, &r), 0);
        assert_int_equal(r, PAM_RET_IGNORE);
        assert_int_equal(session_module_ret("strict", p, false, &r), 0);
        assert_int_equal(r, PAM_RET_IGNORE);
        policy_free(p);
}

/* session_walks_every_user(): the walks of a stack for every combination of the copies'
 * policies having a rule for the user, with what each line returns whoever logs in */
struct walk_lines {
        struct policy *a, *b, *e, *p[9];
        const struct lc_tree *fails;
};

static const struct policy *walk_policy(const struct pam_entry *e, const char **ret_name, const char **ret_refused,
                                       void *data) {
        struct walk_lines *w = data;
        _cleanup_free_ char *buf = NULL;
        struct login_args a;
        unsigned k;
        (void)ret_refused;
        assert_int_equal(session_module_args(e->args, &a, &buf), 0);
        *ret_name = strstr(e->args, a.conf);   /* the name lives as long as the entry */
        if (streq(a.conf, "/a"))
                return w->a;
        if (streq(a.conf, "/b"))
                return w->b;
        if (streq(a.conf, "/e"))
                return w->e;
        if (sscanf(a.conf, "/p%u", &k) == 1 && k < ELEMENTSOF(w->p))
                return w->p[k];
        return NULL;
}

static const struct lc_tree *walk_tree(const struct pam_entry *e, void *data) {
        struct walk_lines *w = data;
        return e->args && strstr(e->args, "conf=/nothere") ? w->fails : NULL;
}

static void walks_of(const char *root, const char *stack, const struct session_lines *l, struct pam_stack *st,
                     struct session_walks *w) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/etc/pam.d/s", root);
        unit_write(path, stack);
        assert_int_equal(pam_stack_load(root, "s", st), 0);
        assert_int_equal(session_walks_every_user(st, l, w), 0);
}

static void test_walks_every_user(void **state) {
        char root[] = "/tmp/test-session-walks-XXXXXX", buf[64];
        static const char one[] = "version = 1;\nrules = ( { user = \"alice\"; memlock = \"2M\"; } );\n";
        static const char none[] = "version = 1;\n";
        struct walk_lines wl = {};
        struct lc_tree *fails = NULL;
        const struct session_lines l = { .policy = walk_policy, .tree = walk_tree, .data = &wl };
        struct pam_stack st = {};
        struct session_walks w = {};
        char *u;
        (void)state;

        assert_int_equal(unit_tree(root, (const struct unit_file[]){
                { "etc/pam.d/s", "" },
                { "etc/security/limits.conf", "" },
                {},
        }), 0);
        assert_int_equal(policy_load_string(one, strlen(one), "a", &wl.a, NULL), 0);
        assert_int_equal(policy_load_string(one, strlen(one), "b", &wl.b, NULL), 0);
        assert_int_equal(policy_load_string(none, strlen(none), "e", &wl.e, NULL), 0);
        for (size_t k = 0; k < ELEMENTSOF(wl.p); k++)
                assert_int_equal(policy_load_string(one, strlen(one), "p", &wl.p[k], NULL), 0);
        assert_int_equal(lc_tree_load(root, LC_FLAVOUR_DEBIAN, "/nothere.conf", &fails), 0);
        wl.fails = fails;

        /* /b's copy jumps over the second pam_limits for its users only */
        walks_of(root, "session required pam_limits.so\n"
                       "session optional pam_rdmalimit.so conf=/a\n"
                       "session [success=1 default=ignore] pam_rdmalimit.so conf=/b\n"
                       "session required pam_limits.so\n"
                       "session optional pam_rdmalimit.so conf=/e\n"
                       "session optional pam_rdmalimit.so conf=/x\n"
                       "session required pam_permit.so\n", &l, &st, &w);
        assert_int_equal(w.n_policies, 2);                  /* /e has no rule, /x no policy */
        assert_ptr_equal(w.policy[0], wl.a);
        assert_ptr_equal(w.policy[1], wl.b);
        assert_int_equal(w.n, 3);                           /* masks 1, 2, 3: not 0 */
        static const struct { uint32_t mask; long lim, mod; } want[] = { { 1, 3, 5 }, { 2, 0, 5 }, { 3, 0, 5 } };
        for (size_t j = 0; j < w.n; j++)
                if (w.v[j].mask != want[j].mask || w.v[j].run.last_limits != want[j].lim ||
                    w.v[j].run.last_module != want[j].mod)
                        fail_msg("walk %zu: mask %u, last pam_limits %ld, last module %ld", j, w.v[j].mask,
                                 w.v[j].run.last_limits, w.v[j].run.last_module);
        assert_ptr_equal(session_walks_all(&w), &w.v[2]);
        assert_non_null(u = session_walk_users(&w, 1));
        assert_string_equal(u, "that /a has a rule for and /b none");
        free(u);
        assert_non_null(u = session_walk_users(&w, 2));
        assert_string_equal(u, "that /b has a rule for and /a none");
        free(u);
        assert_non_null(u = session_walk_users(&w, 3));
        assert_string_equal(u, "that /a, /b have a rule for");
        free(u);
        assert_false(session_line_never_succeeds(&w, &l, &st.v[0]));
        assert_false(session_line_never_succeeds(&w, &l, &st.v[1]));
        assert_true(session_line_never_succeeds(&w, &l, &st.v[4]));     /* no rule */
        assert_true(session_line_never_succeeds(&w, &l, &st.v[5]));     /* no policy */
        assert_false(session_line_never_succeeds(&w, &l, &st.v[6]));
        /* a line libpam cannot load, or without the session's function (PAM_MODULE_UNKNOWN),
         * and a handler that always fails, succeed for no user, whatever the module */
        struct pam_entry x = st.v[6];
        x.unloadable = true;
        assert_true(session_line_never_succeeds(&w, &l, &x));
        x.unloadable = false;
        x.fails = true;
        assert_true(session_line_never_succeeds(&w, &l, &x));
        session_walks_clear(&w);
        pam_stack_clear(&st);

        /* a strict copy without a policy fails the stack where required; not without strict */
        for (int strict = 0; strict <= 1; strict++) {
                snprintf(buf, sizeof buf, "session required pam_rdmalimit.so conf=/x%s\n", strict ? " strict" : "");
                char stack[256];
                snprintf(stack, sizeof stack, "session required pam_limits.so\n%ssession optional pam_rdmalimit.so "
                         "conf=/a\n", buf);
                walks_of(root, stack, &l, &st, &w);
                assert_int_equal(w.n, 1);
                assert_int_equal(w.v[0].run.failed, strict);
                session_walks_clear(&w);
                pam_stack_clear(&st);
        }

        /* no policy with a rule: one walk, every copy taken as having one (it jumps) */
        walks_of(root, "session [success=1 default=ignore] pam_rdmalimit.so conf=/x\n"
                       "session required pam_limits.so\n"
                       "session required pam_permit.so\n", &l, &st, &w);
        assert_int_equal(w.n_policies, 0);
        assert_int_equal(w.n, 1);
        assert_int_equal(w.v[0].mask, 0);
        assert_int_equal(w.v[0].run.last_limits, -1);
        assert_false(session_line_never_succeeds(&w, &l, &st.v[0]));
        assert_non_null(u = session_walk_users(&w, 0));
        assert_string_equal(u, "that a policy has a rule for");
        free(u);
        session_walks_clear(&w);
        pam_stack_clear(&st);

        /* a pam_limits whose conf= file is missing fails every session: sufficient does not end
         * the stack there, and the copy after it runs */
        walks_of(root, "session sufficient pam_limits.so conf=/nothere.conf\n"
                       "session optional pam_rdmalimit.so conf=/a\n", &l, &st, &w);
        assert_int_equal(w.v[0].run.last_module, 1);
        assert_true(session_line_never_succeeds(&w, &l, &st.v[0]));
        session_walks_clear(&w);
        pam_stack_clear(&st);
        /* ... where a readable one ends it (no lines: every line succeeds, one walk) */
        walks_of(root, "session sufficient pam_limits.so conf=/nothere.conf\n"
                       "session optional pam_rdmalimit.so conf=/a\n", NULL, &st, &w);
        assert_int_equal(w.n, 1);
        assert_int_equal(w.v[0].run.last_module, -1);
        session_walks_clear(&w);
        pam_stack_clear(&st);

        /* past SESSION_MAX_POLICIES policies, the others are taken as having a rule: the last
         * copy's jump over pam_limits is taken in every walk */
        char big[1024] = "";
        for (size_t k = 0; k < ELEMENTSOF(wl.p); k++) {
                size_t len = strlen(big);
                snprintf(big + len, sizeof big - len, "session %s pam_rdmalimit.so conf=/p%zu\n",
                         k + 1 < ELEMENTSOF(wl.p) ? "optional" : "[success=1 default=ignore]", k);
        }
        strcat(big, "session required pam_limits.so\n");
        walks_of(root, big, &l, &st, &w);
        assert_int_equal(w.n_policies, SESSION_MAX_POLICIES);
        assert_int_equal(w.n, (1u << SESSION_MAX_POLICIES) - 1);
        assert_ptr_equal(w.policy[SESSION_MAX_POLICIES - 1], wl.p[SESSION_MAX_POLICIES - 1]);
        for (size_t j = 0; j < w.n; j++)
                if (w.v[j].run.last_limits != -1)
                        fail_msg("walk %zu: pam_limits runs (%ld): the copy past the bound did not jump", j,
                                 w.v[j].run.last_limits);
        session_walks_clear(&w);
        pam_stack_clear(&st);

        /* a copy whose policy has no rule ignores: its jump is not taken */
        walks_of(root, "session required pam_limits.so\n"
                       "session optional pam_rdmalimit.so conf=/a\n"
                       "session [success=1 default=ignore] pam_rdmalimit.so conf=/e\n"
                       "session required pam_limits.so\n", &l, &st, &w);
        assert_int_equal(w.n, 1);
        assert_int_equal(w.v[0].run.last_limits, 3);
        session_walks_clear(&w);
        pam_stack_clear(&st);

        /* every line after a pam_limits that fails gets its own return: /b, which has no rule
         * for the users of mask 1, does not jump for them */
        walks_of(root, "session sufficient pam_limits.so conf=/nothere.conf\n"
                       "session [success=1 default=ignore] pam_rdmalimit.so conf=/b\n"
                       "session required pam_limits.so\n"
                       "session optional pam_rdmalimit.so conf=/a\n", &l, &st, &w);
        assert_int_equal(w.n_policies, 2);
        assert_ptr_equal(w.policy[0], wl.b);
        assert_int_equal(w.v[1].mask, 2);     /* /a only */
        assert_int_equal(w.v[1].run.last_limits, 2);
        assert_int_equal(w.v[0].run.last_limits, 0);   /* /b only: it jumps */
        session_walks_clear(&w);
        pam_stack_clear(&st);

        lc_tree_free(fails);
        policy_free(wl.a);
        policy_free(wl.b);
        policy_free(wl.e);
        for (size_t k = 0; k < ELEMENTSOF(wl.p); k++)
                policy_free(wl.p[k]);
        assert_int_equal(unit_teardown(NULL), 0);
}

static int stop_at_jump(const char *digits, size_t len, unsigned jump, void *userdata) {
        (void)digits;
        (void)len;
        (void)jump;
        (*(unsigned *)userdata)++;
        return -ECANCELED;
}

/* pam_control_jumps(): the digits of each jump, and the callback's error ends the walk */
static void test_control_jumps(void **state) {
        unsigned calls = 0;
        (void)state;
        assert_int_equal(pam_control_jumps("[success=2 default=1]", stop_at_jump, &calls), -ECANCELED);
        assert_int_equal(calls, 1);
        calls = 0;
        assert_int_equal(pam_control_jumps("[success=ok default=ignore]", stop_at_jump, &calls), 0);
        assert_int_equal(calls, 0);
        assert_int_equal(pam_control_jumps("required", stop_at_jump, &calls), 0);
}

/* The walk names the first line that cannot be loaded, and a running process's name is in the
 * service's source */
static void test_walk_first_unloadable(void **state) {
        struct pam_stack st;
        struct stack_run run;
        struct lc_service svc;
        (void)state;

        static const char *const gone[] = { "optional", "pam_gone1", "optional", "pam_gone2", "required", "pam_permit" };
        stack_of(&st, gone, ELEMENTSOF(gone));
        st.v[0].unloadable = st.v[1].unloadable = true;
        assert_int_equal(stack_run_walk(&st, PAM_RET_SUCCESS, PAM_RET_SUCCESS, &run), 0);
        assert_int_equal(run.unloadable, 0);
        stack_run_clear(&run);
        pam_stack_clear(&st);

        assert_int_equal(session_service_from_pid(getpid(), &svc), 0);
        assert_non_null(strstr(svc.source, "test-session"));
}

/* session_target(): each cause of a shortfall, with its fix, from a model set by hand */
static void test_target_causes(void **state) {
        static const char text[] = "alice hard memlock 2048\n";
        struct lc_tree *t = NULL;
        struct policy_rule rule = { .user = "alice", .line = 3 };
        struct session_target r;
        (void)state;

        assert_int_equal(lc_tree_load_text("limits.conf", text, strlen(text), LC_FLAVOUR_UPSTREAM, &t), 0);
        const struct session_model base = {
                .module_matched = true, .dec = { .matched = true, .rule = &rule, .soft = 6 << 20, .hard = 6 << 20 },
                .order = SESSION_MODULE_LAST, .start_known = true, .start = { 65536, 4 << 20 }, .final_known = true,
                .final = { 2 << 20, 2 << 20 }, .module_ran = true, .limits_before_module = true,
                .pl = { .kind = LC_SESSION_LIMITS, .memlock_known = true, .memlock_soft = 65536,
                        .memlock_hard = 2 << 20 },
                .limits = { .kind = LC_RES_LIMITS, .hard = { .known = true, .value = 2 << 20, .src = &t->lines[0] } },
                .cause = "pam_deny fails it",
        };
        struct lc_service svc = { .known = true, .source = "sshd (pid 7)" };
        struct rl_pair got = { 2 << 20, 2 << 20 };
        struct session_model m;

        /* the target: the policy's rule */
        m = base;
        session_target(&m, t, &svc, "sshd", false, got, &r);
        assert_int_equal(r.cause, SESSION_SHORT_FAILS);
        assert_true(r.known);
        assert_int_equal(r.want.hard, 6 << 20);
        assert_non_null(strstr(r.from, "user alice (line 3)"));
        assert_non_null(strstr(r.why, "the session did not open: pam_deny fails it"));
        session_target(&m, t, &svc, "sshd", true, (struct rl_pair){ 6 << 20, 6 << 20 }, &r);
        assert_int_equal(r.cause, SESSION_SHORT_NONE);
        session_target(&m, t, &svc, "sshd", true, (struct rl_pair){ 6 << 20, (6 << 20) - 1 }, &r);
        assert_int_not_equal(r.cause, SESSION_SHORT_NONE);      /* the hard limit counts too */
        /* the entry that lowered the hard limit */
        session_target(&m, t, &svc, "sshd", true, got, &r);
        assert_int_equal(r.cause, SESSION_SHORT_ENTRY);
        assert_string_equal(r.where, "limits.conf:1");
        assert_non_null(strstr(r.fix, "limits.conf:1"));
        /* PID 1's (Debian's baseline): no entry */
        m.limits.hard.src = NULL;
        session_target(&m, t, &svc, "sshd", true, got, &r);
        assert_int_equal(r.cause, SESSION_SHORT_BASELINE);
        /* the service's own hard limit, without CAP_SYS_RESOURCE: a unit's LimitMEMLOCK= only
         * for a service that has a unit */
        m = base;
        m.limits.hard.value = m.pl.memlock_hard = m.final.hard = m.start.hard;
        session_target(&m, t, &svc, "sshd", true, (struct rl_pair){ 4 << 20, 4 << 20 }, &r);
        assert_int_equal(r.cause, SESSION_SHORT_SERVICE);
        assert_non_null(strstr(r.why, "sshd (pid 7) has the hard limit 4 MiB"));
        assert_non_null(strstr(r.fix, "no systemd unit"));
        snprintf(svc.unit, sizeof svc.unit, "ssh.service");
        session_target(&m, t, &svc, "sshd", true, (struct rl_pair){ 4 << 20, 4 << 20 }, &r);
        assert_non_null(strstr(r.fix, "apply --unit ssh.service 6M"));
        /* with CAP_SYS_RESOURCE the service's limit holds nothing: no cause the model knows */
        svc.cap_sys_resource = true;
        session_target(&m, t, &svc, "sshd", true, (struct rl_pair){ 4 << 20, 4 << 20 }, &r);
        assert_int_equal(r.cause, SESSION_SHORT_OTHER);
        svc.cap_sys_resource = false;
        /* the module matched but never ran (memlock unknown when it came): the entry did not
         * stop it, the service's own hard limit is what is short */
        m = base;
        m.module_ran = false;
        session_target(&m, t, &svc, "sshd", true, got, &r);
        assert_int_equal(r.cause, SESSION_SHORT_SERVICE);
        /* only the soft value is short: the entry's hard value (and the service's) is the
         * target's, neither is the cause */
        m = base;
        m.limits.hard.value = m.pl.memlock_hard = m.final.hard = 6 << 20;
        m.start.hard = 8 << 20;
        session_target(&m, t, &svc, "sshd", true, (struct rl_pair){ 2 << 20, 6 << 20 }, &r);
        assert_int_equal(r.cause, SESSION_SHORT_OTHER);
        m.start.hard = 6 << 20;
        session_target(&m, t, &svc, "sshd", true, (struct rl_pair){ 2 << 20, 6 << 20 }, &r);
        assert_int_equal(r.cause, SESSION_SHORT_OTHER);
        /* the module does not run, or runs before pam_limits */
        m = base;
        m.order = SESSION_NO_MODULE;
        session_target(&m, t, &svc, "sshd", true, got, &r);
        assert_int_equal(r.cause, SESSION_SHORT_NO_MODULE);
        assert_string_equal(r.fix, "rdmalimits enable --service sshd");
        /* a service without a file of its own runs other's: enable cannot edit it */
        m.stack.other = true;
        m.stack.error = -ENOENT;
        session_target(&m, t, &svc, "nosuch", true, got, &r);
        assert_non_null(strstr(r.fix, "nosuch has no file of its own and libpam runs pam.d/other's stack"));
        m.stack.other = false;
        m.stack.error = 0;
        m.order = SESSION_LIMITS_LAST;
        session_target(&m, t, &svc, "sshd", true, got, &r);
        assert_int_equal(r.cause, SESSION_SHORT_ORDER);
        /* enable moves the module's line only when it added it (its mark) */
        struct pam_entry ent = { .file = (char *)"etc/pam.d/sshd", .line = 3, .marked = true };
        m.stack.v = &ent;
        m.stack.n = 1;
        m.run.last_module = 0;
        session_target(&m, t, &svc, "sshd", true, got, &r);
        assert_string_equal(r.fix, "rdmalimits enable --service sshd");
        ent.marked = false;
        session_target(&m, t, &svc, "sshd", true, got, &r);
        assert_string_equal(r.fix, "move the pam_rdmalimit line (etc/pam.d/sshd:3) after the last pam_limits by hand: "
                                   "rdmalimits enable moves only a line it added");
        m.stack.v = NULL;
        m.stack.n = 0;
        m.run.last_module = -1;
        /* no rule: the target is the entry's request */
        m = base;
        m.module_matched = false;
        m.pl.requested_soft_known = m.pl.requested_hard_known = true;
        m.pl.requested_soft = m.pl.requested_hard = 3 << 20;
        session_target(&m, t, &svc, "sshd", true, got, &r);
        assert_true(r.known);
        assert_int_equal(r.want.hard, 3 << 20);
        assert_string_equal(r.from, "limits.conf:1");
        /* an entry's request is no target when pam_limits sets nothing (a '-' line stops it,
         * or it fails) or does not know both values */
        m.pl.kind = LC_SESSION_NO_LIMITS;
        session_target(&m, t, &svc, "sshd", true, got, &r);
        assert_false(r.known);
        m.pl.kind = LC_SESSION_FAILS;
        session_target(&m, t, &svc, "sshd", true, got, &r);
        assert_false(r.known);
        m.pl.kind = LC_SESSION_LIMITS;
        m.pl.requested_soft_known = false;
        session_target(&m, t, &svc, "sshd", true, got, &r);
        assert_false(r.known);
        /* a slot no entry asks is no part of the target: a hard-only entry and PID 1's soft
         * (Debian's baseline) above what the session got is still met */
        m.pl.requested_soft_known = true;
        m.pl.requested_soft = 16 << 20;   /* PID 1's, no line */
        m.pl.requested_hard = 2 << 20;
        session_target(&m, t, &svc, "sshd", true, got, &r);
        assert_true(r.known && !r.want_soft && r.want_hard);
        assert_int_equal(r.want.soft, 0);
        assert_int_equal(r.cause, SESSION_SHORT_NONE);
        lc_tree_free(t);

        /* the entries ask a soft value above their own hard one: pam_limits lowers the soft
         * limit, the hard entry is named with a fix that raises it */
        static const char text2[] = "alice hard memlock 4096\nalice soft memlock 6144\n";
        assert_int_equal(lc_tree_load_text("limits.conf", text2, strlen(text2), LC_FLAVOUR_UPSTREAM, &t), 0);
        m = base;
        m.module_matched = false;
        m.pl.requested_soft_known = m.pl.requested_hard_known = true;
        m.pl.requested_soft = 6 << 20;
        m.pl.requested_hard = 4 << 20;
        m.limits.hard = (struct lc_slot){ .known = true, .value = 4 << 20, .src = &t->lines[0] };
        m.limits.soft = (struct lc_slot){ .known = true, .value = 6 << 20, .src = &t->lines[1] };
        session_target(&m, t, &svc, "sshd", true, (struct rl_pair){ 4 << 20, 4 << 20 }, &r);
        assert_true(r.want_soft && r.want_hard);
        assert_int_equal(r.cause, SESSION_SHORT_ENTRY);
        assert_string_equal(r.where, "limits.conf:1");
        assert_non_null(strstr(r.why, "asks a soft limit of 6 MiB, above the hard limit of 4 MiB"));
        assert_non_null(strstr(r.fix, "at least 6 MiB"));
        lc_tree_free(t);

        /* Debian's chroot item before the module: the chroot line is named */
        static const char text3[] = "alice - chroot /srv/jail\n";
        assert_int_equal(lc_tree_load_text("limits.conf", text3, strlen(text3), LC_FLAVOUR_DEBIAN, &t), 0);
        m = base;
        m.module_ran = false;
        m.jail = &t->lines[0];
        m.jail_tree = t;
        session_target(&m, t, &svc, "sshd", true, got, &r);
        assert_int_equal(r.cause, SESSION_SHORT_ENTRY);
        assert_string_equal(r.where, "limits.conf:1");
        assert_non_null(strstr(r.why, "chroots the session into /srv/jail"));
        assert_non_null(strstr(r.why, "where there is none"));
        m.jail_policy = true;
        session_target(&m, t, &svc, "sshd", true, got, &r);
        assert_non_null(strstr(r.why, "assumed"));
        lc_tree_free(t);
}

/* which service su, runuser and sudo open, from their command lines, as their getopt_long()
 * reads them: every way of asking for a login shell, the words that are an option's argument
 * and not an option, and the end of the options */
static void test_caller_service(void **state) {
        (void)state;
        static const struct {
                const char *exe, *cmd, *want;
        } cases[] = {
                { "/usr/bin/su", "su", "su" },
                { "/usr/bin/su", "su alice", "su" },
                { "/bin/su", "su - alice", "su-l" },
                { "/usr/bin/su", "su -", "su-l" },
                { "/usr/bin/su", "su -l alice", "su-l" },
                { "/usr/bin/su", "su --login alice", "su-l" },
                { "/usr/bin/su", "su --log alice", "su-l" },             /* an unambiguous prefix */
                { "/usr/bin/su", "su -fl alice", "su-l" },               /* in a cluster */
                { "/usr/bin/su", "su alice -l", "su-l" },                /* after the operand: GNU order */
                { "/usr/bin/su", "su -c -l alice", "su" },               /* -l is -c's argument */
                { "/usr/bin/su", "su -c-l alice", "su" },                /* attached */
                { "/usr/bin/su", "su --command -l alice", "su" },
                { "/usr/bin/su", "su --command=-l alice", "su" },
                { "/usr/bin/su", "su -s /bin/sh -c sleep alice", "su" },
                { "/usr/bin/su", "su alice -", "su" },                   /* "-" counts first only */
                { "/usr/bin/su", "su -- - alice", "su-l" },              /* the first operand, after -- */
                { "/usr/bin/su", "su -- alice -l", "su" },               /* -l after --: the shell's */
                { "/usr/bin/su", "su alice -- -", "su" },                /* the first operand was alice */
                { "/usr/bin/su", "su -- -", "su-l" },
                { "/usr/bin/su", "su --fast - alice", "su-l" },          /* --fast takes no argument */
                { "/usr/bin/su", "su -p - alice", "su-l" },
                { "/usr/sbin/runuser", "runuser -l alice -c id", "runuser-l" },
                { "/usr/sbin/runuser", "runuser -u alice -- id -l", "runuser" },
                { "/sbin/runuser", "runuser - alice", "runuser-l" },
                { "/usr/bin/sudo", "sudo id", "sudo" },
                { "/usr/bin/sudo", "sudo -i", "sudo-i" },
                { "/usr/bin/sudo", "sudo -iu alice", "sudo-i" },
                { "/usr/bin/sudo", "sudo -u alice -i", "sudo-i" },
                { "/usr/bin/sudo", "sudo --login", "sudo-i" },
                { "/usr/bin/sudo", "sudo -ui", "sudo" },                 /* i is -u's argument */
                { "/usr/bin/sudo", "sudo -u -i id", "sudo" },
                { "/usr/bin/sudo", "sudo -hi id", "sudo" },              /* -h's optional argument */
                { "/usr/bin/sudo", "sudo id -i", "sudo" },               /* sudo stops at its command */
                { "/usr/bin/sudo", "sudo - -i", "sudo" },                /* "-" is its command */
                { "/usr/bin/sudo", "sudo --login-class x id", "sudo" },
                { "/usr/bin/sudo", "sudo --logi id", "sudo" },           /* ambiguous: not taken */
                { "/usr/bin/sudo", "sudo -- -i", "sudo" },
                { "/usr/bin/sudo", "sudo", "sudo" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char buf[128], *argv[16];
                size_t argc = 0;
                snprintf(buf, sizeof buf, "%s", cases[i].cmd);
                for (char *w = strtok(buf, " "); w && argc < ELEMENTSOF(argv); w = strtok(NULL, " "))
                        argv[argc++] = w;
                const char *got = session_caller_service(cases[i].exe, argv, argc);
                if (!got || !streq(got, cases[i].want))
                        fail_msg("%s: %s, want %s", cases[i].cmd, got ? got : "NULL", cases[i].want);
        }
        /* from a command line as /proc/PID/cmdline holds it */
        static const struct {
                const char *exe;
                const char *cmd;
                size_t len;
                const char *want;
        } lines[] = {
                { "/usr/bin/su", "su\0-\0alice", sizeof "su\0-\0alice" - 1, "su-l" },
                { "/usr/bin/su", "su\0alice\0-", sizeof "su\0alice\0-" - 1, "su" },
                { "/usr/bin/su", "su", sizeof "su" - 1, "su" },
                { "/usr/bin/su", "", sizeof "" - 1, "su" },                            /* unreadable */
                { "/usr/bin/su", "su\0--", sizeof "su\0--" - 1, "su" },                      /* nothing after -- */
                { "/usr/bin/su", "su\0-l", sizeof "su\0-l" - 1, "su-l" },
                { "/usr/bin/su", "su\0--fast\0-\0alice", sizeof "su\0--fast\0-\0alice" - 1, "su-l" },   /* --fast takes no argument */
                { "/usr/bin/sudo", "sudo\0-i\0\0x", sizeof "sudo\0-i\0\0x" - 1, "sudo-i" },       /* an empty word */
                { "/usr/sbin/sshd", "sshd\0-D", sizeof "sshd\0-D" - 1, NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(lines); i++) {
                const char *got = "unset";
                assert_int_equal(session_caller_service_cmdline(lines[i].exe, lines[i].cmd, lines[i].len, &got), 0);
                if (!lines[i].want ? got != NULL : !got || !streq(got, lines[i].want))
                        fail_msg("cmdline %zu: %s, want %s", i, got ? got : "NULL", lines[i].want ? lines[i].want : "NULL");
        }
        char *no[] = { "sshd" };
        assert_null(session_caller_service("/usr/sbin/sshd", no, 1));
        assert_null(session_caller_service("/tmp/su", no, 1));
        assert_string_equal(session_caller_service("/usr/bin/su", NULL, 0), "su");
}

/* the services whose sessions run in the caller's process, and what a service is assumed to
 * have (PID 1's limits: the host's, a tree's, or the assumption) */
static void test_service_caller_assume(void **state) {
        (void)state;
        static const char *const callers[] = { "su", "su-l", "sudo", "sudo-i", "runuser", "runuser-l" };
        for (size_t i = 0; i < ELEMENTSOF(callers); i++)
                assert_true(session_service_of_caller(callers[i]));
        assert_false(session_service_of_caller("sshd"));
        assert_false(session_service_of_caller("login"));
        assert_false(session_service_of_caller("su-"));

        struct lc_service s;
        session_service_assume(NULL, NULL, &s);
        FILE *f = fopen("/proc/1/limits", "re");
        if (f) {
                char line[256];
                unsigned long long soft = 0, hard = 0;
                bool found = false;
                while (fgets(line, sizeof line, f))
                        if (strncmp(line, "Max locked memory", 17) == 0) {
                                char a[32], b[32];
                                assert_int_equal(sscanf(line + 17, "%31s %31s", a, b), 2);
                                soft = streq(a, "unlimited") ? UINT64_MAX : strtoull(a, NULL, 10);
                                hard = streq(b, "unlimited") ? UINT64_MAX : strtoull(b, NULL, 10);
                                found = true;
                        }
                fclose(f);
                assert_true(found);
                assert_true(s.rl[RLIMIT_MEMLOCK].known);
                assert_true(s.rl[RLIMIT_MEMLOCK].soft == soft);
                assert_true(s.rl[RLIMIT_MEMLOCK].hard == hard);
        }
        /* a service of this system has this process's capabilities at most; one of a tree is
         * taken to have CAP_SYS_RESOURCE */
        {
                bool have = false;
                FILE *st = fopen("/proc/self/status", "re");
                char l[256];
                assert_non_null(st);
                while (fgets(l, sizeof l, st))
                        if (strncmp(l, "CapEff:", 7) == 0)
                                have = (strtoull(l + 7, NULL, 16) >> 24) & 1;   /* CAP_SYS_RESOURCE */
                fclose(st);
                assert_int_equal(s.cap_sys_resource, have);
        }
        /* a tree without proc/1/limits: the assumption, never the host's */
        char tmpl[] = "/tmp/test-session-assume-XXXXXX";
        assert_non_null(mkdtemp(tmpl));
        session_service_assume(tmpl, NULL, &s);
        assert_true(s.rl[RLIMIT_MEMLOCK].known);
        assert_true(s.rl[RLIMIT_MEMLOCK].soft == LC_ASSUMED_PID1_MEMLOCK);
        assert_true(s.cap_sys_resource);
        assert_non_null(strstr(s.source, LC_ASSUMED_PID1_SOURCE));
        /* a tree with proc/1/limits: its values */
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/proc", tmpl);
        assert_int_equal(mkdir(p, 0755), 0);
        snprintf(p, sizeof p, "%s/proc/1", tmpl);
        assert_int_equal(mkdir(p, 0755), 0);
        snprintf(p, sizeof p, "%s/proc/1/limits", tmpl);
        f = fopen(p, "we");
        assert_non_null(f);
        fputs("Limit                     Soft Limit           Hard Limit           Units     \n"
              "Max locked memory         131072               6291456              bytes     \n", f);
        assert_int_equal(fclose(f), 0);
        session_service_assume(tmpl, NULL, &s);
        assert_true(s.rl[RLIMIT_MEMLOCK].known);
        assert_true(s.rl[RLIMIT_MEMLOCK].soft == 131072);
        assert_true(s.rl[RLIMIT_MEMLOCK].hard == 6291456);
        assert_non_null(strstr(s.source, "the tree's proc/1/limits"));
        /* --proc1-limits FILE: that file is PID 1's limits, for the service too, under a tree
         * as without one */
        char other[PATH_MAX];
        snprintf(other, sizeof other, "%s/other-limits", tmpl);
        f = fopen(other, "we");
        assert_non_null(f);
        fputs("Max locked memory         65536                65536                bytes     \n", f);
        assert_int_equal(fclose(f), 0);
        for (int k = 0; k < 2; k++) {
                session_service_assume(k ? tmpl : NULL, other, &s);
                assert_true(s.rl[RLIMIT_MEMLOCK].known);
                assert_true(s.rl[RLIMIT_MEMLOCK].soft == 65536 && s.rl[RLIMIT_MEMLOCK].hard == 65536);
                assert_non_null(strstr(s.source, other));
        }
        assert_int_equal(unlink(other), 0);
        /* ... one that cannot be read: said so, memlock unknown (neither the tree's nor assumed) */
        session_service_assume(tmpl, other, &s);
        assert_false(s.rl[RLIMIT_MEMLOCK].known);
        assert_non_null(strstr(s.source, "which cannot be read: unknown"));
        /* a FIFO in the tree's place of proc/1/limits (nobody writes to it): read as empty, not
         * waited on; the row it lacks is not made up */
        assert_int_equal(unlink(p), 0);
        assert_int_equal(mkfifo(p, 0600), 0);
        alarm(10);      /* a hang fails the test instead of the run */
        session_service_assume(tmpl, NULL, &s);
        alarm(0);
        assert_false(s.rl[RLIMIT_MEMLOCK].known);
        assert_non_null(strstr(s.source, "the tree's proc/1/limits"));
        assert_int_equal(unlink(p), 0);
        snprintf(p, sizeof p, "%s/proc/1", tmpl);
        assert_int_equal(rmdir(p), 0);
        snprintf(p, sizeof p, "%s/proc", tmpl);
        assert_int_equal(rmdir(p), 0);
        assert_int_equal(rmdir(tmpl), 0);
}

/* a running service's limits, capabilities and name from /proc: this process; each file it
 * needs failing to open gives that error, nothing half read */
static void test_service_from_pid(void **state) {
        struct lc_service s = { .known = false }, before;
        struct rlimit rl;
        (void)state;
        assert_int_equal(session_service_from_pid(getpid(), &s), 0);
        assert_true(s.known);
        assert_int_equal(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
        assert_true(s.rl[RLIMIT_MEMLOCK].known);
        assert_true(s.rl[RLIMIT_MEMLOCK].soft == rl.rlim_cur);
        assert_true(s.rl[RLIMIT_MEMLOCK].hard == rl.rlim_max);
        assert_non_null(strstr(s.source, "(pid "));
        assert_null(strchr(s.source, '\n'));           /* comm's newline cut */
        static const char *const files[] = { "limits", "status" };
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                memset(&s, 0x5a, sizeof s);
                before = s;
                fault_arm("open", files[i], 1, EACCES);
                int r = session_service_from_pid(getpid(), &s);
                bool hit = fault_injected() > 0;
                fault_disarm();
                assert_true(hit);
                assert_int_equal(r, -EACCES);
                assert_memory_equal(&s, &before, sizeof s);
        }
        assert_true(session_service_from_pid(999999999, &s) < 0);
        /* a service in a systemd unit: the unit, from its cgroup */
        char canned[] = "/tmp/test-session-cgroup-XXXXXX", path[64];
        int cfd = mkstemp(canned);
        assert_true(cfd >= 0);
        assert_int_equal(write(cfd, "0::/system.slice/ssh.service\n", 29), 29);
        close(cfd);
        snprintf(path, sizeof path, "/proc/%d/cgroup", (int)getpid());
        fault_redirect(path, canned);
        int r = session_service_from_pid(getpid(), &s);
        fault_redirect(NULL, NULL);
        unlink(canned);
        assert_int_equal(r, 0);
        assert_string_equal(s.unit, "ssh.service");
}

/* the names explain gives the orders; any other value is "unknown", never read past the table */
static void test_order_names(void **state) {
        (void)state;
        assert_string_equal(session_order_name(SESSION_MODULE_LAST), "after-pam_limits");
        assert_string_equal(session_order_name(SESSION_LIMITS_LAST), "before-pam_limits");
        assert_string_equal(session_order_name(SESSION_NO_MODULE), "not-in-stack");
        assert_string_equal(session_order_name(SESSION_NO_STACK), "unknown");
        assert_string_equal(session_order_name(SESSION_NO_PAM), "no-pam-session");
        assert_string_equal(session_order_name((enum session_order)(SESSION_NO_PAM + 1)), "unknown");
        assert_string_equal(session_order_name((enum session_order)INT_MAX), "unknown");
}

/* a walk's order: pam_rdmalimit as the first line of the stack runs all the same */
static void test_walk_order(void **state) {
        struct stack_run r;
        (void)state;

        static const char *const first[] = { "optional", "pam_rdmalimit", "required", "pam_permit" };
        r = walk_of(first, ELEMENTSOF(first), NULL, PAM_RET_SUCCESS);
        assert_int_equal(r.last_module, 0);
        assert_int_equal(session_walk_order(&r), SESSION_MODULE_LAST);
        stack_run_clear(&r);
        static const char *const then_limits[] = { "optional", "pam_rdmalimit", "required", "pam_limits" };
        r = walk_of(then_limits, ELEMENTSOF(then_limits), NULL, PAM_RET_SUCCESS);
        assert_int_equal(session_walk_order(&r), SESSION_LIMITS_LAST);
        stack_run_clear(&r);
        static const char *const limits_then[] = { "required", "pam_limits", "optional", "pam_rdmalimit" };
        r = walk_of(limits_then, ELEMENTSOF(limits_then), NULL, PAM_RET_SUCCESS);
        assert_int_equal(session_walk_order(&r), SESSION_MODULE_LAST);
        stack_run_clear(&r);
        static const char *const none[] = { "required", "pam_limits" };
        r = walk_of(none, ELEMENTSOF(none), NULL, PAM_RET_SUCCESS);
        assert_int_equal(session_walk_order(&r), SESSION_NO_MODULE);
        stack_run_clear(&r);
}

/* the daemons the model knows (sshd, cron) are looked for among the processes: /proc failing
 * to open is that error; any other service is -ESRCH without a look */
static void test_service_find_known(void **state) {
        static const char *const known[] = { "sshd", "cron", "crond" };
        (void)state;

        for (size_t i = 0; i < ELEMENTSOF(known); i++) {
                pid_t pid = 4242;
                fault_arm("opendir", "proc", 1, EMFILE);
                int r = session_service_find(known[i], &pid, NULL);
                bool hit = fault_injected() > 0;
                fault_disarm();
                if (!hit || r != -EMFILE)
                        fail_msg("%s: %d, /proc %s", known[i], r, hit ? "opened" : "not opened");
                assert_int_equal(pid, 4242);
        }
        pid_t pid = 4242;
        fault_arm("opendir", "proc", 1, EMFILE);
        int r = session_service_find("sudo", &pid, NULL);
        bool hit = fault_injected() > 0;
        fault_disarm();
        assert_int_equal(r, -ESRCH);
        assert_false(hit);
}

/* a file written for a test: its path in buf (a mkstemp() template) */
static void canned_file(char *tmpl, const char *text) {
        int fd = mkstemp(tmpl);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        assert_int_equal(close(fd), 0);
}

/* /proc/PID/limits without a "Max locked memory" row (a kernel that does not say it): the
 * service is not known, -EBADMSG, nothing written */
static void test_service_from_pid_no_memlock(void **state) {
        char canned[] = "/tmp/test-session-limits-XXXXXX", path[64];
        struct lc_service s, before;
        (void)state;

        canned_file(canned, "Limit                     Soft Limit           Hard Limit           Units     \n"
                            "Max open files            1024                 524288               files     \n");
        snprintf(path, sizeof path, "/proc/%d/limits", (int)getpid());
        memset(&s, 0x5a, sizeof s);
        before = s;
        fault_redirect(path, canned);
        int r = session_service_from_pid(getpid(), &s);
        fault_redirect(NULL, NULL);
        unlink(canned);
        assert_int_equal(r, -EBADMSG);
        assert_memory_equal(&s, &before, sizeof s);
}

static char fds_before[256], fds_during[256];
static void hook_fds(void) {
        fd_inherited(fds_during, sizeof fds_during);
}

/* session_service_assume() on this system: PID 1's limits read with O_CLOEXEC (a program
 * exec()ed meanwhile gets no descriptor), and read too when descriptor 0 is free; the
 * capability from this process's CapEff */
static void test_service_assume_host(void **state) {
        struct lc_service want, s;
        (void)state;

        session_service_assume(NULL, NULL, &want);
        if (!want.rl[RLIMIT_MEMLOCK].known) {
                print_message("# no readable /proc/1/limits here: not tested\n");
                return;
        }
        /* this host's PID 1, never called a tree's */
        assert_non_null(strstr(want.source, "(init's defaults)"));
        fd_inherited(fds_before, sizeof fds_before);
        strcpy(fds_during, "(the hook was not called)");
        fault_arm("read", "limits", 1, 0);
        fault_hook(hook_fds);
        session_service_assume(NULL, NULL, &s);
        fault_hook(NULL);
        fault_disarm();
        assert_string_equal(fds_during, fds_before);

        memset(&s, 0, sizeof s);
        fd0_free();
        session_service_assume(NULL, NULL, &s);
        fd0_restore();
        assert_true(s.rl[RLIMIT_MEMLOCK].known);
        assert_true(s.rl[RLIMIT_MEMLOCK].soft == want.rl[RLIMIT_MEMLOCK].soft);
        assert_true(s.rl[RLIMIT_MEMLOCK].hard == want.rl[RLIMIT_MEMLOCK].hard);

        /* CapEff with CAP_SYS_RESOURCE (bit 24), and without */
        static const char *const caps[] = { "000001ffffffffff", "000001fffeffffff" };
        for (size_t i = 0; i < ELEMENTSOF(caps); i++) {
                char canned[] = "/tmp/test-session-status-XXXXXX", path[64], text[256];
                snprintf(text, sizeof text, "Name:\ttest-session\nCapInh:\t0000000000000000\nCapPrm:\t%s\n"
                         "CapEff:\t%s\nCapBnd:\t000001ffffffffff\n", caps[i], caps[i]);
                canned_file(canned, text);
                snprintf(path, sizeof path, "/proc/%d/status", (int)getpid());
                fault_redirect(path, canned);
                session_service_assume(NULL, NULL, &s);
                fault_redirect(NULL, NULL);
                unlink(canned);
                assert_int_equal(s.cap_sys_resource, i == 0);
                assert_non_null(strstr(s.source, i == 0 ? "with CAP_SYS_RESOURCE" : "without CAP_SYS_RESOURCE"));
        }
}

/* Each pam_rdmalimit line's own policy and hardware: its decision is the one shown, whatever
 * its place in the stack; an error of the policy (an auto rule without hardware) is the
 * model's; an unknown user matches no rule. */
struct copies {
        struct policy *a, *b, *autop;
        const struct hw_summary *small;
};

static void copy_policy(const struct pam_entry *e, const struct policy **ret_p, const struct hw_summary **ret_hw,
                        void *data) {
        const struct copies *c = data;
        if (strstr(e->args, "conf=/a"))
                *ret_p = c->a;
        else if (strstr(e->args, "conf=/b"))
                *ret_p = c->b;
        else if (strstr(e->args, "conf=/h")) {
                *ret_p = c->autop;
                *ret_hw = c->small;
        } else if (strstr(e->args, "conf=/n")) {
                *ret_p = c->autop;
                *ret_hw = NULL;
        }
}

static void test_model_copies(void **state) {
        static char root[] = "/tmp/test-session-copies-XXXXXX";
        struct lc_tree *t = NULL;
        struct ident *id = NULL;
        struct lc_baseline b = { .rank = LC_RANK_NONE };
        struct lc_service svc = { .known = true };
        struct copies c = {};
        static const char a_text[] = "version = 1;\nrules = ( { user = \"alice\"; memlock = \"2M\"; } );\n";
        static const char b_text[] = "version = 1;\nrules = ( { user = \"bob\"; memlock = \"3M\"; } );\n";
        static const char auto_text[] = "version = 1;\nhardware = { fallback = \"8M\"; };\n"
                                        "rules = ( { user = \"alice\"; memlock = \"auto\"; } );\n";
        /* no device: auto is the fallback, 8 MiB; with 8 MiB of RAM, half of it */
        struct hw_summary none = { .rdma_status = -ENODATA, .verbs_status = -ENODATA, .xdp_status = -ENODATA,
                                   .mem_status = -ENODATA };
        struct hw_summary small = none;
        small.mem_status = 0;
        small.mem_total = 8 << 20;
        (void)state;

        assert_int_equal(unit_tree(root, (const struct unit_file[]){
                { "etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n"
                                "bob:x:1002:1002::/home/bob:/bin/sh\n" },
                { "etc/group", "root:x:0:\nalice:x:1001:\nbob:x:1002:\n" },
                { "etc/pam.d/first", "session optional pam_rdmalimit.so conf=/a\n"
                                     "session optional pam_rdmalimit.so conf=/b\n"
                                     "session required pam_permit.so\n" },
                { "etc/pam.d/only", "session optional pam_rdmalimit.so conf=/b\nsession required pam_permit.so\n" },
                { "etc/pam.d/hw", "session optional pam_rdmalimit.so conf=/h\nsession required pam_permit.so\n" },
                { "etc/pam.d/nohw", "session optional pam_rdmalimit.so conf=/n\nsession required pam_permit.so\n" },
                { "etc/pam.d/lim", "session required pam_limits.so\nsession optional pam_rdmalimit.so conf=/a\n" },
                { "etc/pam.d/cycle", "session required pam_limits.so\n@include cycle\n" },
                { "etc/security/limits.conf", "" },
                {},
        }), 0);
        assert_int_equal(lc_tree_load(root, LC_FLAVOUR_UPSTREAM, NULL, &t), 0);
        assert_int_equal(ident_new(root, &id), 0);
        assert_int_equal(policy_load_string(a_text, strlen(a_text), "a", &c.a, NULL), 0);
        assert_int_equal(policy_load_string(b_text, strlen(b_text), "b", &c.b, NULL), 0);
        assert_int_equal(policy_load_string(auto_text, strlen(auto_text), "h", &c.autop, NULL), 0);
        c.small = &small;
        svc.rl[RLIMIT_MEMLOCK] = (__typeof__(svc.rl[0])){ .known = true, .soft = 65536, .hard = 64 << 20 };
        struct session_input in = { .root = root, .tree = t, .id = id, .user = "alice", .base = &b, .svc = &svc,
                                    .policy = c.a, .line_policy = copy_policy, .line_policy_data = &c };
        struct session_model m;

        /* the first line sets 2 MiB; the second has no rule for alice: the first's decision */
        in.service = "first";
        m = (struct session_model){};
        assert_int_equal(session_model_build(&in, &m), 0);
        assert_int_equal(m.module_entry, 0);
        assert_true(m.module_matched);
        assert_int_equal(m.dec.soft, 2 << 20);
        assert_int_equal(m.final.soft, 2 << 20);
        session_model_clear(&m);
        /* the only line, the first of the stack, has no rule for her: its decision, not the
         * input policy's */
        in.service = "only";
        m = (struct session_model){};
        assert_int_equal(session_model_build(&in, &m), 0);
        assert_int_equal(m.module_entry, -1);
        assert_int_equal(m.run.last_module, 0);
        assert_false(m.module_matched);
        assert_int_equal(m.final.soft, 65536);
        session_model_clear(&m);
        /* one policy, two hardware summaries: each copy decides with its own */
        in.service = "hw";
        in.policy = c.autop;
        in.hw = &none;
        m = (struct session_model){};
        assert_int_equal(session_model_build(&in, &m), 0);
        assert_true(m.module_matched);
        assert_int_equal(m.final.soft, 4 << 20);
        session_model_clear(&m);
        /* an auto rule and no hardware: policy_evaluate()'s -EINVAL, for the input's policy and
         * for a line's, nothing written */
        in.hw = NULL;
        m = (struct session_model){ .kind = 99 };
        assert_int_equal(session_model_build(&in, &m), -EINVAL);
        assert_int_equal(m.kind, 99);
        in.policy = c.a;
        in.service = "nohw";
        assert_int_equal(session_model_build(&in, &m), -EINVAL);
        assert_int_equal(m.kind, 99);
        /* a user the tree does not know: pam_limits fails (PAM_USER_UNKNOWN), no rule matches */
        in.user = "nobody";
        in.service = "lim";
        m = (struct session_model){ .kind = 99 };
        assert_int_equal(session_model_build(&in, &m), 0);
        assert_int_equal(m.kind, LC_SESSION_FAILS);
        assert_false(m.module_matched);
        assert_false(m.module_ran);
        session_model_clear(&m);
        /* an include cycle: no session to model */
        in.user = "alice";
        in.service = "cycle";
        m = (struct session_model){ .kind = 99 };
        assert_int_equal(session_model_build(&in, &m), VISIT_ERR_CYCLE);
        assert_int_equal(m.kind, 99);

        policy_free(c.a);
        policy_free(c.b);
        policy_free(c.autop);
        ident_free(id);
        lc_tree_free(t);
        assert_int_equal(unit_teardown(NULL), 0);
}

/* pam_limits' setup_limits() sets every limit it can before it refuses the session: for a
 * setrlimit() failing with EPERM (upstream), a chroot that fails (Debian's chroot item, after
 * the limits) as for a login limit of 0.  Where the stack goes on (an optional pam_limits),
 * the session has the entries' memlock; a required one fails it. */
static void test_model_refused_after_limits(void **state) {
        static char root[] = "/tmp/test-session-refused-XXXXXX";
        struct ident *id = NULL;
        struct lc_baseline b = { .rank = LC_RANK_NONE };
        struct lc_service svc = { .known = true };
        (void)state;

        assert_int_equal(unit_tree(root, (const struct unit_file[]){
                { "etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n" },
                { "etc/group", "root:x:0:\nalice:x:1001:\n" },
                { "etc/pam.d/opt", "session optional pam_limits.so\nsession required pam_permit.so\n" },
                { "etc/pam.d/req", "session required pam_limits.so\nsession required pam_permit.so\n" },
                { "etc/security/limits.conf", "" },
                { "eperm/limits.conf", "alice - memlock 1024\nalice hard nofile 4096\n" },
                { "chroot/limits.conf", "alice - memlock 1024\nalice - chroot /nonexistent\n" },
                {},
        }), 0);
        assert_int_equal(ident_new(root, &id), 0);
        svc.rl[RLIMIT_MEMLOCK] = (__typeof__(svc.rl[0])){ .known = true, .soft = 65536, .hard = 8 << 20 };
        svc.rl[RLIMIT_NOFILE] = (__typeof__(svc.rl[0])){ .known = true, .soft = 1024, .hard = 2048 };
        static const struct {
                const char *conf;
                enum lc_flavour flavour;
        } trees[] = {
                { "/eperm/limits.conf", LC_FLAVOUR_UPSTREAM },   /* nofile above the service's hard */
                { "/chroot/limits.conf", LC_FLAVOUR_DEBIAN },
        };
        for (size_t i = 0; i < ELEMENTSOF(trees); i++) {
                struct lc_tree *t = NULL;
                assert_int_equal(lc_tree_load(root, trees[i].flavour, trees[i].conf, &t), 0);
                struct session_input in = { .root = root, .service = "opt", .tree = t, .id = id, .user = "alice",
                                            .base = &b, .svc = &svc };
                struct session_model m = {};
                assert_int_equal(session_model_build(&in, &m), 0);
                if (m.pl.kind != LC_SESSION_REFUSED || m.kind != LC_SESSION_LIMITS || !m.final_known ||
                    m.final.soft != 1 << 20 || m.final.hard != 1 << 20)
                        fail_msg("%s, optional: pam_limits %d, session %d, final %" PRIu64 "/%" PRIu64, trees[i].conf,
                                 m.pl.kind, m.kind, m.final.soft, m.final.hard);
                session_model_clear(&m);
                in.service = "req";
                m = (struct session_model){};
                assert_int_equal(session_model_build(&in, &m), 0);
                assert_int_equal(m.kind, LC_SESSION_REFUSED);
                session_model_clear(&m);
                lc_tree_free(t);
        }
        ident_free(id);
        assert_int_equal(unit_teardown(NULL), 0);
}


/*
 * A read error in the middle of a service file (an I/O error after the first block): the stack
 * is as unreadable as one that cannot be opened (SESSION_NO_STACK: pam_limits, then the
 * module), never the lines read before the error taken for the whole stack.  The error is
 * made by putting a directory under the file's descriptor once its first block is read
 * (stdio's next read() then fails with EISDIR), from a hook at the allocations the reader
 * makes between its reads.
 */
static int midread_dir = -1;
static off_t midread_size;
static bool midread_swapped;

static void midread_swap(void) {
        static bool busy;
        if (busy || midread_swapped)
                return;
        busy = true;
        for (int fd = 3; fd < 128; fd++) {
                char link[64], target[PATH_MAX];
                snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
                ssize_t n = readlink(link, target, sizeof target - 1);
                if (n <= 0)
                        continue;
                target[n] = '\0';
                const char *tail = "/etc/pam.d/midread";
                if ((size_t)n < strlen(tail) || strcmp(target + n - strlen(tail), tail) != 0)
                        continue;
                off_t off = lseek(fd, 0, SEEK_CUR);
                if (off > 0 && off < midread_size && dup2(midread_dir, fd) == fd)
                        midread_swapped = true;
        }
        busy = false;
}

static void test_model_stack_read_error(void **state) {
        static char root[] = "/tmp/test-session-midread-XXXXXX";
        struct model_fixture f;
        char p[PATH_MAX], *text = NULL;
        size_t len = 0;
        (void)state;

        /* a pam_limits of another file (alice 1 MiB) first, then 300 lines of pam_permit (12 KiB):
         * a walk of them runs that pam_limits and not the module */
        FILE *mf = open_memstream(&text, &len);
        assert_non_null(mf);
        fprintf(mf, "session required pam_limits.so conf=/etc/security/other.conf\n");
        for (int i = 0; i < 300; i++)
                fprintf(mf, "session optional pam_permit.so # line %03d of the padding\n", i);
        assert_int_equal(fclose(mf), 0);
        assert_int_equal(unit_tree(root, (const struct unit_file[]){
                { "etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n" },
                { "etc/group", "root:x:0:\nalice:x:1001:\n" },
                { "etc/pam.d/midread", text },
                { "etc/security/limits.conf", "alice soft memlock 2048\nalice hard memlock 4096\n" },
                { "etc/security/other.conf", "alice - memlock 1024\n" },
                { "proc/1/limits", "Limit                     Soft Limit           Hard Limit           Units     \n"
                                   "Max locked memory         65536                8388608              bytes     \n" },
                {},
        }), 0);
        midread_size = (off_t)len;
        free(text);
        model_fixture_load(&f, root, 8388608, "version = 1;\nrules = ( { user = \"alice\"; memlock = \"3M\"; } );\n");
        struct lc_args other_args;
        struct lc_tree *trees[2] = { f.t, NULL };
        assert_int_equal(lc_args_parse("conf=/etc/security/other.conf", &other_args), 0);
        assert_int_equal(lc_tree_load_args(root, LC_FLAVOUR_DEBIAN, &other_args, &trees[1]), 0);
        struct session_input in = { .root = root, .service = "midread", .tree = f.t, .line_tree = unit_line_tree,
                                    .line_tree_data = trees, .id = f.id, .user = "alice", .base = &f.b,
                                    .svc = &f.svc, .policy = f.pol };

        /* read whole: other.conf's 1 MiB, no module */
        struct session_model m = { .kind = 99 };
        assert_int_equal(session_model_build(&in, &m), 0);
        assert_int_equal(m.stack.error, 0);
        assert_int_equal(m.stack.n, 301);
        assert_int_equal(m.order, SESSION_NO_MODULE);
        if (!m.final_known || m.final.soft != 1 << 20 || m.final.hard != 1 << 20)
                fail_msg("the whole stack: final %s%" PRIu64 "/%" PRIu64, m.final_known ? "" : "unknown ", m.final.soft,
                         m.final.hard);
        session_model_clear(&m);

        /* cut by a read error: the documented order, pam_limits (2 MiB / 4 MiB), then the module's
         * 3 MiB within alice's 4 MiB hard limit */
        snprintf(p, sizeof p, "%s/etc", root);
        midread_dir = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(midread_dir >= 0);
        midread_swapped = false;
        fault_hook(midread_swap);
        fault_arm_from("alloc", NULL, 1, 0);
        m = (struct session_model){ .kind = 99 };
        int r = session_model_build(&in, &m);
        fault_disarm();
        fault_hook(NULL);
        close(midread_dir);
        if (!midread_swapped) {
                print_message("# the service file's descriptor was not found between its reads: not checked\n");
                if (r >= 0)
                        session_model_clear(&m);
        } else {
                assert_int_equal(r, 0);
                assert_true(m.stack.error < 0);
                assert_true(m.stack.n < 301);
                assert_int_equal(m.order, SESSION_NO_STACK);
                assert_int_equal(m.kind, LC_SESSION_LIMITS);
                if (!m.final_known || m.final.soft != 3 << 20 || m.final.hard != 4 << 20)
                        fail_msg("a stack cut by a read error: final %s%" PRIu64 "/%" PRIu64, m.final_known ? "" : "unknown ",
                                 m.final.soft, m.final.hard);
                session_model_clear(&m);
        }
        model_fixture_free(&f);
        lc_tree_free(trees[1]);
        unit_rm_rf(root);
}

/*
 * pam_rdmalimit, pam_limits, pam_rdmalimit again: the second run decides, and pam_limits ran
 * before it.  An entry that lowers the hard limit below the policy's value is the cause of the
 * shortfall, not the service's own hard limit: giving the service a higher LimitMEMLOCK= would
 * leave the entry's 2 MiB.
 */
static void test_target_module_twice(void **state) {
        static char root[] = "/tmp/test-session-twice-XXXXXX";
        struct model_fixture f;
        (void)state;

        assert_int_equal(unit_tree(root, (const struct unit_file[]){
                { "etc/passwd", "root:x:0:0::/root:/bin/sh\nalice:x:1001:1001::/home/alice:/bin/sh\n" },
                { "etc/group", "root:x:0:\nalice:x:1001:\n" },
                { "etc/pam.d/twice", "session optional pam_rdmalimit.so\nsession required pam_limits.so\n"
                                     "session optional pam_rdmalimit.so\n" },
                { "etc/pam.d/once", "session required pam_limits.so\nsession optional pam_rdmalimit.so\n" },
                { "etc/security/limits.conf", "alice hard memlock 2048\n" },
                { "proc/1/limits", "Limit                     Soft Limit           Hard Limit           Units     \n"
                                   "Max locked memory         65536                4194304              bytes     \n" },
                {},
        }), 0);
        model_fixture_load(&f, root, 4 << 20, "version = 1;\nrules = ( { user = \"alice\"; memlock = \"6M\"; } );\n");
        snprintf(f.svc.source, sizeof f.svc.source, "sshd (pid 7)");

        static const char *const services[] = { "once", "twice" };
        for (size_t i = 0; i < ELEMENTSOF(services); i++) {
                struct session_input in = { .root = root, .service = services[i], .tree = f.t, .id = f.id,
                                            .user = "alice", .base = &f.b, .svc = &f.svc, .policy = f.pol };
                struct session_model m = { .kind = 99 };
                struct session_target r;
                assert_int_equal(session_model_build(&in, &m), 0);
                /* the entry's 2 MiB hard limit holds the module's second run too */
                if (!m.final_known || m.final.soft != 2 << 20 || m.final.hard != 2 << 20)
                        fail_msg("%s: final %s%" PRIu64 "/%" PRIu64, services[i], m.final_known ? "" : "unknown ",
                                 m.final.soft, m.final.hard);
                session_target(&m, f.t, &f.svc, services[i], true, m.final, &r);
                if (r.cause != SESSION_SHORT_ENTRY || !strstr(r.where, "security/limits.conf:1"))
                        fail_msg("%s: cause %d at \"%s\": %s; fix: %s", services[i], r.cause, r.where, r.why, r.fix);
                session_model_clear(&m);
        }
        model_fixture_free(&f);
        unit_rm_rf(root);
}

UNIT_MAIN(NULL, NULL,
          cmocka_unit_test(test_controls), cmocka_unit_test(test_control_pairs), cmocka_unit_test(test_walk), cmocka_unit_test(test_service_find_unknown),
          cmocka_unit_test(test_walk_decisions), cmocka_unit_test(test_walk_status),
          cmocka_unit_test(test_model_libpam_stacks),
          cmocka_unit_test(test_succeed_if),
          cmocka_unit_test(test_module_name),
          cmocka_unit_test(test_line_rank),
          cmocka_unit_test(test_model_build), cmocka_unit_test(test_model_line_trees),
          cmocka_unit_test(test_target_entry), cmocka_unit_test(test_model_line_policies),
          cmocka_unit_test(test_model_strict_without_policy), cmocka_unit_test(test_module_ret),
          cmocka_unit_test(test_walks_every_user),
          cmocka_unit_test(test_control_jumps), cmocka_unit_test(test_walk_first_unloadable),
          cmocka_unit_test(test_target_causes), cmocka_unit_test(test_caller_service),
                cmocka_unit_test(test_service_caller_assume),
          cmocka_unit_test(test_service_from_pid), cmocka_unit_test(test_order_names), cmocka_unit_test(test_service_pam),
          cmocka_unit_test(test_walk_order), cmocka_unit_test(test_service_find_known),
          cmocka_unit_test(test_service_from_pid_no_memlock), cmocka_unit_test(test_service_assume_host),
          cmocka_unit_test(test_model_copies), cmocka_unit_test(test_model_refused_after_limits),
          cmocka_unit_test(test_model_stack_read_error), cmocka_unit_test(test_target_module_twice))
