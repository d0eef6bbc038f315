/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * What the tests of the session engine share (include after unit.h): the tree a pam_limits
 * line reads, and session_model_build() with each allocation failing in turn.
 */
#include <inttypes.h>
#include <string.h>

#include "session.h"
#include "../fault/fault.h"

/* A session_input's line_tree: data is two trees, the second for a line with conf= */
static inline const struct lc_tree *unit_line_tree(const struct pam_entry *e, void *data) {
        struct lc_tree **t = data;
        return strstr(e->args, "conf=") ? t[1] : t[0];
}

/* session_model_build() with each allocation failing in turn: -ENOMEM and nothing written, or
 * the model want (the run without a fault): never a model of less, such as a line's tree left
 * out for the input's or a stack read short.  Where the allocators are not interposed, the
 * model without a fault only. */
static inline void unit_sweep_model(const struct session_input *in, const struct session_model *want) {
        if (!fault_alloc_supported())
                print_message("# the allocators are not interposed in this build: no sweep\n");
        for (unsigned long n = 1, hit = 1; hit; n++) {
                struct session_model m = { .kind = 99 };
                fault_arm("alloc", NULL, n, ENOMEM);
                int r = session_model_build(in, &m);
                hit = fault_injected() > 0;
                fault_disarm();
                if (r < 0) {
                        assert_int_equal(r, -ENOMEM);
                        assert_int_equal(m.kind, 99);
                        continue;
                }
                if (m.kind != want->kind || m.order != want->order || m.tree != want->tree ||
                    m.final_known != want->final_known || m.final.soft != want->final.soft ||
                    m.final.hard != want->final.hard || m.run.n_run != want->run.n_run ||
                    m.run.failed != want->run.failed || m.module_matched != want->module_matched)
                        fail_msg("allocation %lu failing: kind %d, order %d, final %" PRIu64 "/%" PRIu64, n, m.kind,
                                 m.order, m.final.soft, m.final.hard);
                session_model_clear(&m);
        }
}
