/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status: memlock limits, what is locked and pinned, and what is charged (lib/status/status.h). */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "escape.h"
#include "fsutil.h"
#include "size.h"
#include "status.h"
#include "tool.h"

#define STATUS_THRESHOLD_DEFAULT (UINT64_C(1) << 20)

/* ---------------------------------------------------------------------------------------
 * a small util-linux style table: a header, left-aligned text, right-aligned numbers */

#define TBL_COLS 12
#define TBL_CELL 160

/* head: the column names, NULL-terminated; align: 'l' or 'r' for each */
struct table {
        const char *const *head;
        const char *align;
        size_t nrows, cap;
        char (*cells)[TBL_COLS][TBL_CELL];
};

/* A new row; NULL when out of memory (the row is then left out). */
static char (*tbl_row(struct table *t))[TBL_CELL] {
        if (GROW(t->cells, t->cap, t->nrows + 1) < 0)
                return NULL;
        memset(t->cells[t->nrows], 0, sizeof t->cells[0]);
        return t->cells[t->nrows++];
}

static void tbl_print(struct table *t) {
        size_t w[TBL_COLS] = {}, ncols = 0;
        while (ncols < TBL_COLS && t->head[ncols])
                ncols++;
        for (size_t c = 0; c < ncols; c++) {
                w[c] = strlen(t->head[c]);
                for (size_t r = 0; r < t->nrows; r++)
                        if (strlen(t->cells[r][c]) > w[c])
                                w[c] = strlen(t->cells[r][c]);
        }
        for (size_t r = 0; r <= t->nrows; r++) {
                for (size_t c = 0; c < ncols; c++) {
                        const char *s = r == 0 ? t->head[c] : t->cells[r - 1][c];
                        bool last = c + 1 == ncols;
                        if (t->align[c] == 'r')
                                printf("%*s%s", (int)w[c], s, last ? "" : " ");
                        else if (last)
                                printf("%s", s);
                        else
                                printf("%-*s ", (int)w[c], s);
                }
                putchar('\n');
        }
        free(t->cells);
        t->cells = NULL;
}

/* snprintf() into a cell: a cut is fine (names are escaped, then cut) */
_printf_(3, 4) static void cellf(char *buf, size_t size, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, size, fmt, ap);
        va_end(ap);
}

/* A size, or `unknown` where it is not known */
static void size_cell(char *cell, bool known, uint64_t v, const char *unknown) {
        char s[SIZE_FMT_MAX];
        snprintf(cell, TBL_CELL, "%s", known ? size_format(v, s) : unknown);
}

static const char *user_label(const char *name, uid_t uid, char *buf, size_t size) {
        if (name && *name)
                str_escape(name, buf, size);
        else
                snprintf(buf, size, "%u", (unsigned)uid);
        return buf;
}

/* ---------------------------------------------------------------------------------------
 * text */

/* PROCS SOFT HARD CHARGED METHOD HEADROOM of a user or unit: "*" after SOFT when its
 * processes' soft limits differ, "-" where no limit is known, "unknown" for a charge or a
 * headroom that is not known */
static void account_cells(char (*cell)[TBL_CELL], const struct status_account *a) {
        char s[SIZE_FMT_MAX];

        snprintf(cell[0], TBL_CELL, "%zu", a->n_procs);
        size_cell(cell[1], a->limit_known, a->memlock.soft, "-");
        if (a->limit_known && a->limits_differ)
                strcat(cell[1], "*");
        size_cell(cell[2], a->limit_known, a->memlock.hard, "-");
        if (a->charged_method != STATUS_M_UNKNOWN)
                snprintf(cell[3], TBL_CELL, "%s%s", a->charged_at_least ? ">=" : "",
                         size_format(a->charged, s));
        else
                snprintf(cell[3], TBL_CELL, "unknown");
        snprintf(cell[4], TBL_CELL, "%s", status_method_name(a->charged_method));
        size_cell(cell[5], a->headroom_known, a->headroom, a->limit_known ? "unknown" : "-");
}

static void print_users(const struct status_report *r) {
        static const char *const head[] = { "USER", "UID", "PROCS", "SOFT", "HARD", "CHARGED",
                                            "METHOD", "HEADROOM", "VMLCK", "VMPIN", "XSK", NULL };
        struct table t = { .head = head, .align = "lrrrrrlrrrr" };
        char(*row)[TBL_CELL];

        for (size_t i = 0; i < r->n_users && (row = tbl_row(&t)); i++) {
                const struct status_user *u = &r->users[i];
                user_label(u->name, u->uid, row[0], TBL_CELL);
                snprintf(row[1], TBL_CELL, "%u", (unsigned)u->uid);
                account_cells(row + 2, &u->a);
                size_cell(row[8], true, u->vmlck, NULL);
                size_cell(row[9], true, u->vmpin, NULL);
                snprintf(row[10], TBL_CELL, u->xsk_method != STATUS_M_UNKNOWN ? "%zu" : "?", u->n_xsk);
        }
        tbl_print(&t);
}

static void print_units(const struct status_report *r) {
        static const char *const head[] = { "UNIT", "KIND", "PROCS", "SOFT", "HARD", "CHARGED", "METHOD",
                                            "HEADROOM", NULL };
        struct table t = { .head = head, .align = "llrrrrlr" };
        char(*row)[TBL_CELL];

        putchar('\n');
        for (size_t i = 0; i < r->n_units && (row = tbl_row(&t)); i++) {
                str_escape(r->units[i].name, row[0], TBL_CELL);
                snprintf(row[1], TBL_CELL, "%s", cgroup_origin_name(r->units[i].origin));
                account_cells(row + 2, &r->units[i].a);
        }
        tbl_print(&t);
}

/* processes: all of them when asked for by user, pid or unit; else those that hold something */
static void print_procs(const struct status_report *r, const struct status_options *o) {
        static const char *const head[] = { "PID", "NSPID", "USER", "COMM", "SOFT", "HARD", "VMLCK",
                                            "VMPIN", "XSK", "MR", "ORIGIN", NULL };
        struct table t = { .head = head, .align = "rrllrrrrrrl" };
        bool all = o->filter.by_user || o->filter.pid || o->filter.unit;
        size_t quiet = 0;
        char(*row)[TBL_CELL], s[SIZE_FMT_MAX], name[TBL_CELL];

        for (size_t i = 0; i < r->n_procs; i++) {
                const struct status_proc *p = &r->procs[i];
                if (!all && !(p->vmlck || p->vmpin || p->n_xsk || p->n_mr)) {
                        quiet++;
                        continue;
                }
                if (!(row = tbl_row(&t)))
                        break;
                const struct status_user *u = status_find_user(r, p->uid);
                snprintf(row[0], TBL_CELL, "%d", (int)p->pid);
                snprintf(row[1], TBL_CELL, "%d", (int)p->nspid);
                user_label(u ? u->name : NULL, p->uid, row[2], TBL_CELL);
                str_escape(p->comm, row[3], TBL_CELL);
                size_cell(row[4], p->limits_known, p->memlock.soft, "?");
                size_cell(row[5], p->limits_known, p->memlock.hard, "?");
                size_cell(row[6], true, p->vmlck, NULL);
                size_cell(row[7], true, p->vmpin, NULL);
                if (p->xsk_method == STATUS_M_SOCK_DIAG)
                        snprintf(row[8], TBL_CELL, "%zu/%s", p->n_xsk,
                                 size_format(p->xsk_umem_bytes, s));
                else if (p->xsk_method != STATUS_M_UNKNOWN)   /* as the JSON's count */
                        snprintf(row[8], TBL_CELL, "%zu", p->n_xsk);
                else
                        snprintf(row[8], TBL_CELL, "?");
                if (p->mr_method == STATUS_M_RDMA_NETLINK)
                        snprintf(row[9], TBL_CELL, "%zu/%s", p->n_mr, size_format(p->mr_bytes, s));
                else
                        snprintf(row[9], TBL_CELL, "unknown");
                str_escape(p->origin_name, name, sizeof name);
                cellf(row[10], TBL_CELL, "%s %s%s%s%s", cgroup_origin_name(p->origin), name,
                      p->origin_owner[0] ? " (limits of " : "", p->origin_owner,
                      p->origin_owner[0] ? ")" : "");
        }
        if (t.nrows) {
                putchar('\n');
                tbl_print(&t);
        }
        if (quiet)
                printf("(%zu other process%s lock, pin and hold nothing)\n", quiet, quiet == 1 ? "" : "es");
}

static void print_umems(const struct status_report *r) {
        static const char *const head[] = { "INODE", "UID", "UMEM", "SIZE", "CHARGED", "HOLDER", "IFINDEX",
                                            "QUEUE", NULL };
        struct table t = { .head = head, .align = "rrrrrrrr" };
        char(*row)[TBL_CELL];

        putchar('\n');
        for (size_t i = 0; i < r->n_umems && (row = tbl_row(&t)); i++) {
                const struct status_umem *m = &r->umems[i];
                snprintf(row[0], TBL_CELL, "%u", m->ino);
                snprintf(row[1], TBL_CELL, "%u", m->uid);
                snprintf(row[2], TBL_CELL, "%u", m->id);
                size_cell(row[3], true, m->size, NULL);
                size_cell(row[4], true, m->charged, NULL);
                snprintf(row[5], TBL_CELL, m->holder ? "%d" : "-", (int)m->holder);
                snprintf(row[6], TBL_CELL, "%u", m->ifindex);
                snprintf(row[7], TBL_CELL, "%u", m->queue_id);
        }
        tbl_print(&t);
}

/* how each number was found */
static void print_methods(const struct status_report *r) {
        if (r->xsk_method == STATUS_M_SOCK_DIAG)
                printf("AF_XDP: UMEMs from sock_diag");
        else
                printf("AF_XDP: sock_diag unavailable (%s); per-user charge by %s", r->xsk_why,
                       r->xsk_method == STATUS_M_PROBE ? "the probe (one-page UMEM registrations as the user)"
                                                       : "nothing: unknown");
        if (r->xdp_sockets_known)
                printf("; %s%llu XDP socket%s (/proc/net/protocols, %zu network namespace%s%s)\n",
                       r->netns_truncated ? "at least " : "", (unsigned long long)r->xdp_sockets,
                       r->xdp_sockets == 1 ? "" : "s", r->n_netns, r->n_netns == 1 ? "" : "s",
                       r->netns_truncated ? "; the others not counted" : "");
        else
                printf("; XDP sockets unknown (no XDP row in /proc/net/protocols)\n");
        if (r->descriptors_stopped)
                printf("descriptors: the scan passed its bound of %u s (the processes' descriptors are the "
                       "users'): the AF_XDP sockets of the processes left are unknown\n", r->descriptors_bound_s);
        if (r->mr_method == STATUS_M_RDMA_NETLINK)
                printf("RDMA MRs: from the RDMA netlink resource dump\n");
        else
                printf("RDMA MRs: unknown (%s); VmPin includes them\n", r->mr_why);
        for (size_t i = 0; i < r->n_users; i++)
                if (r->users[i].a.charged_method == STATUS_M_UNKNOWN && r->users[i].charged_why[0]) {
                        char n[ESCAPE_NAME_MAX];
                        printf("user %s: charge unknown: %s\n", user_label(r->users[i].name, r->users[i].uid, n, sizeof n),
                               r->users[i].charged_why);
                }
}

static void print_text(const struct status_report *r, const struct status_options *o) {
        print_users(r);
        if (r->n_units)
                print_units(r);
        print_procs(r, o);
        if (r->n_umems)
                print_umems(r);
        putchar('\n');
        print_methods(r);
}

/* ---------------------------------------------------------------------------------------
 * JSON (documented in rdmalimits(8), STATUS) */

static void json_memlock(struct json *j, bool known, struct rl_pair m) {
        json_key(j, "memlock");
        if (!known) {
                json_null(j);
                return;
        }
        json_obj_begin(j);
        json_klimit(j, "soft", m.soft);
        json_klimit(j, "hard", m.hard);
        json_obj_end(j);
}

/* processes, memlock, limits_differ, charged (null: unknown), charged_at_least,
 * charged_method and headroom (null: unknown) of a user or unit */
static void json_account(struct json *j, const struct status_account *a) {
        json_ku64(j, "processes", a->n_procs);
        json_memlock(j, a->limit_known, a->memlock);
        json_kbool(j, "limits_differ", a->limits_differ);
        json_ku64_opt(j, "charged", a->charged_method != STATUS_M_UNKNOWN, a->charged);
        json_kbool(j, "charged_at_least", a->charged_at_least);
        json_kstr(j, "charged_method", status_method_name(a->charged_method));
        json_klimit_opt(j, "headroom", a->headroom_known, a->headroom);
}

static void json_user(struct json *j, const struct status_report *r, const struct status_user *u) {
        json_obj_begin(j);
        json_kstr(j, "user", u->name[0] ? u->name : NULL);
        json_ku64(j, "uid", u->uid);
        json_account(j, &u->a);
        json_kstr(j, "charged_why", u->charged_why);
        json_ku64(j, "vmlck", u->vmlck);
        json_ku64(j, "vmpin", u->vmpin);
        json_ku64_opt(j, "xdp_sockets", u->xsk_method != STATUS_M_UNKNOWN, u->n_xsk);
        json_kstr(j, "xdp_sockets_method", status_method_name(u->xsk_method));
        json_ku64_opt(j, "umems", r->xsk_method == STATUS_M_SOCK_DIAG, u->n_umem);
        json_obj_end(j);
}

static void json_unit(struct json *j, const struct status_unit *u) {
        json_obj_begin(j);
        json_kstr(j, "unit", u->name);
        json_kstr(j, "kind", cgroup_origin_name(u->origin));
        json_account(j, &u->a);
        json_obj_end(j);
}

/* KEY: the inodes of p's AF_XDP sockets (the first 16), then "umem_bytes": what they
 * registered (sock_diag only, else null).  status --json and pin-test --json. */
void json_xsk_sockets(struct json *j, const struct status_proc *p, const char *key) {
        json_karr_begin(j, key);
        for (size_t k = 0; k < p->n_xsk && k < ELEMENTSOF(p->xsk_ino); k++)
                json_u64(j, p->xsk_ino[k]);
        json_arr_end(j);
        json_ku64_opt(j, "umem_bytes", p->xsk_method == STATUS_M_SOCK_DIAG, p->xsk_umem_bytes);
}

static void json_proc(struct json *j, const struct status_report *r, const struct status_proc *p) {
        const struct status_user *u = status_find_user(r, p->uid);
        json_obj_begin(j);
        json_ki64(j, "pid", p->pid);
        json_ki64(j, "nspid", p->nspid);
        json_ku64(j, "uid", p->uid);
        json_kstr(j, "user", u && u->name[0] ? u->name : NULL);
        json_kstr(j, "comm", p->comm);
        json_memlock(j, p->limits_known, p->memlock);
        json_kbool(j, "cap_ipc_lock", p->cap_ipc_lock);
        json_kstr(j, "cgroup", p->cgroup);
        json_kobj_begin(j, "origin");
        json_kstr(j, "kind", cgroup_origin_name(p->origin));
        json_kstr(j, "name", p->origin_name);
        json_kstr(j, "limits_from", p->origin_owner[0] ? p->origin_owner : NULL);
        json_obj_end(j);
        json_ku64(j, "vmlck", p->vmlck);
        json_ku64(j, "vmpin", p->vmpin);
        json_kobj_begin(j, "xdp_sockets");
        json_kstr(j, "method", status_method_name(p->xsk_method));
        json_ku64_opt(j, "count", p->xsk_method != STATUS_M_UNKNOWN, p->n_xsk);
        json_xsk_sockets(j, p, "inodes");
        json_obj_end(j);
        json_kobj_begin(j, "rdma_mrs");
        json_kstr(j, "method", status_method_name(p->mr_method));
        json_ku64_opt(j, "count", p->mr_method == STATUS_M_RDMA_NETLINK, p->n_mr);
        json_ku64_opt(j, "bytes", p->mr_method == STATUS_M_RDMA_NETLINK, p->mr_bytes);
        json_obj_end(j);
        json_kbool(j, "over_threshold", p->over_threshold);
        json_obj_end(j);
}

static void json_umem(struct json *j, const struct status_umem *m) {
        json_obj_begin(j);
        json_ku64(j, "inode", m->ino);
        json_ku64(j, "uid", m->uid);
        json_ku64(j, "id", m->id);
        json_ku64(j, "size", m->size);
        json_ku64(j, "charged", m->charged);
        json_ki64_opt(j, "holder", m->holder, m->holder);
        json_ku64(j, "ifindex", m->ifindex);
        json_ku64(j, "queue_id", m->queue_id);
        json_kbool(j, "zerocopy", m->zerocopy);
        json_obj_end(j);
}

static void print_json(const struct status_report *r) {
        struct json j;
        json_doc_begin(&j);
        json_ku64(&j, "page_size", r->page_size);
        json_kobj_begin(&j, "methods");
        json_kstr(&j, "af_xdp", status_method_name(r->xsk_method));
        json_kstr(&j, "af_xdp_why", r->xsk_why);
        json_kstr(&j, "rdma_mr", status_method_name(r->mr_method));
        json_kstr(&j, "rdma_mr_why", r->mr_why);
        json_kbool(&j, "descriptors_stopped", r->descriptors_stopped);
        json_obj_end(&j);
        json_ku64_opt(&j, "xdp_sockets", r->xdp_sockets_known, r->xdp_sockets);
        json_ku64(&j, "network_namespaces", r->n_netns);
        json_kbool(&j, "network_namespaces_truncated", r->netns_truncated);

        json_karr_begin(&j, "users");
        for (size_t i = 0; i < r->n_users; i++)
                json_user(&j, r, &r->users[i]);
        json_arr_end(&j);

        json_karr_begin(&j, "units");
        for (size_t i = 0; i < r->n_units; i++)
                json_unit(&j, &r->units[i]);
        json_arr_end(&j);

        json_karr_begin(&j, "processes");
        for (size_t i = 0; i < r->n_procs; i++)
                json_proc(&j, r, &r->procs[i]);
        json_arr_end(&j);

        json_karr_begin(&j, "umems");
        for (size_t i = 0; i < r->n_umems; i++)
                json_umem(&j, &r->umems[i]);
        json_arr_end(&j);
        json_doc_end(&j);
}

/* ---------------------------------------------------------------------------------------
 * Prometheus text format (node_exporter textfile collector) */

/* Label values go through prom_label_value() (tool/output.h): the one escaper's output, so
 * ASCII only, with " and \\ escaped as the exposition format wants them. */

static void prom_value(FILE *f, uint64_t v) {
        if (v == UINT64_MAX)
                fprintf(f, "+Inf\n");
        else
                fprintf(f, "%llu\n", (unsigned long long)v);
}

static void prom_head(FILE *f, const char *name, const char *help) {
        fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* The labels of user or unit i: user and uid, or unit and kind */
static void prom_account_labels(FILE *f, const struct status_report *r, bool units, size_t i) {
        if (units) {
                fputs("unit=", f);
                prom_label_value(f, r->units[i].name);
                fprintf(f, ",kind=\"%s\"", cgroup_origin_name(r->units[i].origin));
        } else {
                fputs("user=", f);
                prom_label_value(f, r->users[i].name);
                fprintf(f, ",uid=\"%u\"", (unsigned)r->users[i].uid);
        }
}

/* The three gauges of users or units: limit, charged and headroom, each with the labels of
 * the user (user, uid) or unit (unit, kind); what is unknown is left out. */
static void prom_accounts(FILE *f, const struct status_report *r, bool units) {
        static const char *const gauge[] = { "limit", "charged", "headroom" };
        static const char *const help[2][3] = { {
                "Soft RLIMIT_MEMLOCK of the user's processes (the largest), +Inf for unlimited.",
                "The user's locked_vm, what AF_XDP UMEMs are charged against (method: sock_diag or probe; bound: exact, or at_least when the probe stopped at the limit).",
                "What a new AF_XDP UMEM of the user may still register: limit minus charged.",
        }, {
                "Soft RLIMIT_MEMLOCK of the unit's, session's, container's or job's processes (the largest).",
                "The largest charge one of the unit's processes has against its limit (method: proc, sock_diag or probe; bound: exact or at_least).",
                "The smallest headroom (soft limit minus charge) among the unit's processes.",
        } };
        char name[64];

        for (size_t g = 0; g < ELEMENTSOF(gauge); g++) {
                snprintf(name, sizeof name, "rdmalimit_%s_memlock_%s_bytes",
                         units ? "unit" : "user", gauge[g]);
                prom_head(f, name, help[units][g]);
                for (size_t i = 0; i < (units ? r->n_units : r->n_users); i++) {
                        const struct status_account *a = units ? &r->units[i].a : &r->users[i].a;
                        bool known = g == 0 ? a->limit_known
                                     : g == 1 ? a->charged_method != STATUS_M_UNKNOWN
                                              : a->headroom_known;
                        if (!known)
                                continue;
                        fprintf(f, "%s{", name);
                        prom_account_labels(f, r, units, i);
                        if (g == 1)
                                fprintf(f, ",method=\"%s\",bound=\"%s\"", status_method_name(a->charged_method),
                                        a->charged_at_least ? "at_least" : "exact");
                        fputs("} ", f);
                        prom_value(f, g == 0 ? a->memlock.soft : g == 1 ? a->charged : a->headroom);
                }
        }
}

/* NAME{the labels of a process: pid, comm, user, uid, unit */
static void prom_proc_labels(FILE *f, const char *name, const struct status_report *r, const struct status_proc *p) {
        const struct status_user *u = status_find_user(r, p->uid);

        fprintf(f, "%s{pid=\"%d\",comm=", name, (int)p->pid);
        prom_label_value(f, p->comm);
        fputs(",user=", f);
        prom_label_value(f, u ? u->name : "");
        fprintf(f, ",uid=\"%u\",unit=", (unsigned)p->uid);
        prom_label_value(f, p->origin_name);
}

/* processes over the threshold */
static void prom_procs(FILE *f, const struct status_report *r) {
        static const char charged[] = "rdmalimit_process_memlock_charged_bytes",
                          limit[] = "rdmalimit_process_memlock_limit_bytes";

        prom_head(f, charged, "Locked (VmLck), pinned (VmPin) and AF_XDP or RDMA bytes of processes over the threshold.");
        for (size_t i = 0; i < r->n_procs; i++) {
                const struct status_proc *p = &r->procs[i];
                if (!p->over_threshold)
                        continue;
                const char *kinds[] = { "vmlck", "vmpin", "umem", "rdma_mr" };
                uint64_t vals[] = { p->vmlck, p->vmpin, p->xsk_umem_bytes, p->mr_bytes };
                bool known[] = { true, true, p->xsk_method == STATUS_M_SOCK_DIAG, p->mr_method == STATUS_M_RDMA_NETLINK };
                for (size_t k = 0; k < ELEMENTSOF(kinds); k++) {
                        if (!known[k])
                                continue;
                        prom_proc_labels(f, charged, r, p);
                        fprintf(f, ",counter=\"%s\"} ", kinds[k]);
                        prom_value(f, vals[k]);
                }
        }
        prom_head(f, limit, "Soft RLIMIT_MEMLOCK of processes over the threshold.");
        for (size_t i = 0; i < r->n_procs; i++) {
                const struct status_proc *p = &r->procs[i];
                if (!p->over_threshold || !p->limits_known)
                        continue;
                prom_proc_labels(f, limit, r, p);
                fputs("} ", f);
                prom_value(f, p->memlock.soft);
        }
}

static void print_prometheus(FILE *f, const struct status_report *r) {
        prom_accounts(f, r, false);
        prom_accounts(f, r, true);
        prom_procs(f, r);
        if (r->xdp_sockets_known) {
                prom_head(f, "rdmalimit_xdp_sockets", "AF_XDP sockets (/proc/net/protocols, summed over the network namespaces seen).");
                fprintf(f, "rdmalimit_xdp_sockets %llu\n", (unsigned long long)r->xdp_sockets);
        }
        prom_head(f, "rdmalimit_status_method_info", "Which method gave the AF_XDP and RDMA numbers (1 for the one in use).");
        fprintf(f, "rdmalimit_status_method_info{mechanism=\"af_xdp\",method=\"%s\"} 1\n", status_method_name(r->xsk_method));
        fprintf(f, "rdmalimit_status_method_info{mechanism=\"rdma_mr\",method=\"%s\"} 1\n", status_method_name(r->mr_method));
}

/* --output FILE: its directory, opened before anything is collected (fs_open_parent_trusted():
 * root's, not writable by others, no symbolic link on the way).  0, or CMD_FINDINGS/CMD_USAGE
 * said. */
static int prom_output_open(const char *path, int *ret_dirfd, const char **ret_name) {
        int r = fs_open_parent_trusted(path, ret_dirfd, ret_name);
        if (r == -EINVAL) {
                log_error("status: --output '%s': expected the absolute path of a file", path);
                return CMD_USAGE;
        }
        const char *why = r == -ELOOP         ? "is a symbolic link or has one on the way"
                          : r == FS_ERR_OWNER ? "is not owned by root"
                          : r == FS_ERR_MODE  ? "is writable by group or others"
                                              : NULL;
        if (why)
                log_error("status: --output %s: refused: its directory %s; nothing written", path, why);
        else if (r < 0)
                log_error("status: --output %s: its directory: %s; nothing written", path, fs_strerror(r));
        return r < 0 ? CMD_FINDINGS : 0;
}

/* The metrics into dirfd/name, replaced atomically (fs_write_atomic(): a new temporary name,
 * O_EXCL|O_NOFOLLOW, fsync, 0644, renameat; the old file untouched on failure). */
static int prom_output_write(const struct ctx *c, int dirfd, const char *name, const struct status_report *r) {
        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f)
                return log_oom();
        print_prometheus(f, r);
        if (fclose(f) != 0 || !text)   /* glibc: text NULL when the last realloc failed */
                return log_oom();
        int e = fs_write_atomic(dirfd, name, text, len, 0644);
        if (e == FS_ERR_DIRSYNC)
                log_warning(c, "status: --output %s: written, but %s", c->output, fs_strerror(e));
        else if (e < 0) {
                log_error("status: --output %s: %s; the old file is unchanged", c->output, fs_strerror(e));
                return e;
        }
        return 0;
}

/* The options of status from the command line. 0 or a CMD_* outcome. */
static int status_parse_args(const struct ctx *c, struct status_options *o) {
        if (c->json && c->prometheus) {
                log_error("status: --json and --prometheus exclude each other");
                return CMD_USAGE;
        }
        if (c->output && !c->prometheus) {
                log_error("status: --output needs --prometheus");
                return CMD_USAGE;
        }
        if (c->threshold && ctx_parse_size("--threshold", c->threshold, &o->threshold) < 0)
                return CMD_USAGE;
        if (c->argc == 1) {
                struct passwd pw, *res = NULL;
                char pwbuf[4096];
                uint32_t uid;
                if (getpwnam_r(c->argv[0], &pw, pwbuf, sizeof pwbuf, &res) == 0 && res)
                        o->filter.uid = res->pw_uid;
                else if (parse_u32(c->argv[0], &uid) >= 0)
                        o->filter.uid = (uid_t)uid;
                else {
                        log_error("status: no such user '%s'", c->argv[0]);
                        return CMD_FINDINGS;
                }
                o->filter.by_user = true;
        }
        o->filter.pid = c->pid;
        o->filter.unit = c->unit;
        o->probe_timeout = c->probe_timeout;
        return 0;
}

/* A Slurm task's "limits of": what explain --slurm's model says set them (the one answer to
 * "what does a job task of this user start with"), checked against the live values. */
static int slurm_origins(const struct ctx *c, struct status_report *r) {
        struct slurm_origin *cache = NULL;
        int k = 0;

        for (size_t i = 0; i < r->n_procs && k >= 0; i++) {
                struct status_proc *p = &r->procs[i];
                char buf[sizeof p->origin_owner];
                if (p->origin != CGROUP_O_SLURM || !p->limits_known || streq(p->comm, "slurmstepd"))
                        continue;
                k = slurm_task_origin(c, &cache, p->uid, p->memlock, buf, sizeof buf);
                if (k > 0)
                        snprintf(p->origin_owner, sizeof p->origin_owner, "%s", buf);
                else if (k == 0)   /* no slurm.conf, or no slurmd to read: no model to ask */
                        snprintf(p->origin_owner, sizeof p->origin_owner, "not known: explain --slurm cannot model it here");
        }
        slurm_origin_free(cache);
        return k < 0 ? k : 0;
}

int cmd_status(struct ctx *c) {
        struct status_options o = { .probe = true, .threshold = STATUS_THRESHOLD_DEFAULT };
        _cleanup_(status_report_clear) struct status_report r = {};
        _cleanup_close_ int outfd = -1;
        const char *outname = NULL;
        int e;

        e = status_parse_args(c, &o);
        if (e == 0 && c->output)
                e = prom_output_open(c->output, &outfd, &outname);
        if (e != 0)
                return e;
        e = status_collect(&o, &r);
        if (e == 0)
                e = slurm_origins(c, &r);
        if (e == -ESRCH)
                log_error("status: no process %d", (int)c->pid);
        else if (e < 0)
                log_error("status: %s", errno_text(e));
        else if (c->json)
                print_json(&r);
        else if (c->output)
                e = prom_output_write(c, outfd, outname, &r);
        else if (c->prometheus)
                print_prometheus(stdout, &r);
        else
                print_text(&r, &o);
        return e;
}
