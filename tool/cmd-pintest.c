/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pin-test: really pin SIZE bytes the ways RDMA and AF_XDP applications do. */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "escape.h"
#include "hw.h"
#include "rlimit.h"
#include "rlmodel.h"
#include "size.h"
#include "status.h"
#include "tool.h"
#include "umem.h"
#include "fsutil.h"


enum pin_result { PIN_OK, PIN_FAILED, PIN_SKIPPED };

#define PIN_MAX_DEVICES 64

struct pin {
        const char *mechanism;   /* "mlock", "af_xdp_umem", "ibv_reg_mr" */
        char device[64];
        enum pin_result result;
        int error;               /* positive errno */
        char why[256];
};

static const char *errno_name(int e) {
#define E(x) { x, #x }
        static const struct code_word names[] = {
                { 0, NULL }, E(ENOBUFS), E(ENOMEM), E(EPERM), E(EACCES),
                E(EAFNOSUPPORT), E(EINVAL), E(ENOSYS), E(EFAULT),
        };
#undef E
        return CODE_WORD(e, names, "EOTHER");
}

static void pin_mlock(void *buf, size_t len, struct rl_pair lim, struct pin *p) {
        char a[SIZE_FMT_MAX];
        p->mechanism = "mlock";
        if (mlock(buf, len) == 0) {
                munlock(buf, len);
                p->result = PIN_OK;
                return;
        }
        p->result = PIN_FAILED;
        p->error = errno;
        if (errno == ENOMEM || errno == EAGAIN)
                snprintf(p->why, sizeof p->why, "over RLIMIT_MEMLOCK (soft %s): raise memlock", size_format(lim.soft, a));
        else if (errno == EPERM)
                snprintf(p->why, sizeof p->why, "RLIMIT_MEMLOCK is 0 and the process lacks CAP_IPC_LOCK");
        else
                snprintf(p->why, sizeof p->why, "%s", errno_text(-errno));
}

static void pin_umem(void *buf, size_t len, struct rl_pair lim, struct pin *p) {
        char a[SIZE_FMT_MAX];
        enum umem_step step;
        int fd = umem_register(buf, len, &step);

        p->mechanism = "af_xdp_umem";
        if (fd >= 0) {
                close(fd);
                p->result = PIN_OK;
                return;
        }
        p->error = -fd;
        if (step == UMEM_SOCKET) {
                p->result = PIN_SKIPPED;
                if (fd == -EPERM || fd == -EACCES)
                        snprintf(p->why, sizeof p->why, "socket(AF_XDP) needs CAP_NET_RAW");
                else if (fd == -EAFNOSUPPORT)
                        snprintf(p->why, sizeof p->why, "this kernel has no AF_XDP");
                else
                        snprintf(p->why, sizeof p->why, "socket(AF_XDP): %s", errno_text(fd));
                return;
        }
        p->result = PIN_FAILED;
        if (fd == -ENOBUFS)
                snprintf(p->why, sizeof p->why,
                         "over RLIMIT_MEMLOCK (soft %s, charged to all of this user's locked memory)",
                         size_format(lim.soft, a));
        else if (fd == -ENOMEM)
                snprintf(p->why, sizeof p->why, "the kernel could not pin the pages");
        else
                snprintf(p->why, sizeof p->why, "XDP_UMEM_REG: %s", errno_text(fd));
}

static int pin_verbs(void *buf, size_t len, struct rl_pair lim, struct pin *v, size_t *n) {
        _cleanup_free_ struct hw_mr_result *res = NULL;
        size_t nres = 0;
        int status, r;
        char a[SIZE_FMT_MAX];

        r = hw_rdma_reg_mr_test(buf, len, &status, &res, &nres);
        if (r < 0)
                return r;
        if (status < 0 || nres == 0) {
                struct pin *p = &v[(*n)++];
                p->mechanism = "ibv_reg_mr";
                p->result = PIN_SKIPPED;
                p->error = status < 0 ? -status : 0;
                snprintf(p->why, sizeof p->why, "%s",
                         status == -ENOENT ? "libibverbs is not installed"
                         : status < 0      ? "no RDMA device (libibverbs found none)"
                                           : "no RDMA device");
        }
        if (nres > PIN_MAX_DEVICES)
                nres = PIN_MAX_DEVICES; /* the report has room for this many */
        for (size_t i = 0; i < nres; i++) {
                struct pin *p = &v[(*n)++];
                p->mechanism = "ibv_reg_mr";
                snprintf(p->device, sizeof p->device, "%s", res[i].name);
                if (!res[i].error) {
                        p->result = PIN_OK;
                        continue;
                }
                p->result = PIN_FAILED;
                p->error = -res[i].error;
                if (p->error == ENOMEM && streq(res[i].step, "reg_mr"))
                        snprintf(p->why, sizeof p->why, "over RLIMIT_MEMLOCK (soft %s) or out of memory: raise memlock",
                                 size_format(lim.soft, a));
                else if (p->error == EPERM && streq(res[i].step, "reg_mr"))
                        snprintf(p->why, sizeof p->why, "RLIMIT_MEMLOCK is 0 and the process lacks CAP_IPC_LOCK");
                else
                        snprintf(p->why, sizeof p->why, "%s: %s", res[i].step, errno_text(-p->error));
        }
        return 0;
}

/* MemAvailable of /proc/meminfo in bytes. */
static int mem_available(uint64_t *ret) {
        _cleanup_fclose_ FILE *f = fopen("/proc/meminfo", "re");
        _cleanup_free_ char *line = NULL;
        size_t n = 0;

        if (!f)
                return -errno;
        while (getline(&line, &n, f) > 0) {
                const char *p = line + strlen("MemAvailable:");
                uint64_t kib;
                if (strncmp(line, "MemAvailable:", strlen("MemAvailable:")) != 0)
                        continue;
                p += strspn(p, " \t");
                if (parse_u64_prefix(p, &kib, &p) < 0 || strncmp(p, " kB", 3) != 0)
                        return -EBADMSG;
                if (kib > UINT64_MAX / 1024)
                        return -ERANGE;
                *ret = kib * 1024;
                return 0;
        }
        return ferror(f) ? -EIO : -ENOENT;
}

/*
 * With CAP_IPC_LOCK (root) the kernel enforces no memlock limit, and with a soft limit at
 * least the size nothing stops the pin either: refuse more than half of the available
 * memory then, so a test cannot push the host into the OOM killer.  Returns 0 when the pin
 * may go ahead, -E2BIG when it is refused (the message is printed here).
 */
static int pin_guard(const struct ctx *c, size_t len, struct rl_pair lim, bool capipc) {
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX], s[SIZE_FMT_MAX];
        uint64_t avail = 0;
        int r;

        if (c->force || (!capipc && lim.soft < len))
                return 0;
        r = mem_available(&avail);
        if (r < 0) {
                log_error("cannot read MemAvailable from /proc/meminfo (%s): %s, unlimited by memlock%s, could "
                          "exhaust memory; give --force to pin it anyway",
                          errno_text(r), size_format(len, s), capipc ? " (CAP_IPC_LOCK)" : "");
                return -E2BIG;
        }
        if (len <= avail / 2)
                return 0;
        log_error("refusing to pin %s: more than half of the available memory (MemAvailable %s, half %s), and "
                  "%s; pinning it could push the host into the OOM killer. Give --force to pin it anyway",
                  size_format(len, s), size_format(avail, a), size_format(avail / 2, b),
                  capipc ? "with CAP_IPC_LOCK no memlock limit applies" : "the memlock limit allows it");
        return -E2BIG;
}

static const char *result_word(enum pin_result r) {
        return r == PIN_OK ? "ok" : r == PIN_FAILED ? "failed" : "skipped";
}

/*
 * What is already charged when a pin failed (lib/status/status.h): the user's locked_vm for an
 * AF_XDP UMEM (sock_diag where the kernel has it, else the probe, with /proc/net/protocols and
 * the user's processes), this process's own counters for mlock and MRs; and which fix applies.
 */
enum pin_fix { FIX_NONE, FIX_RAISE_SOFT, FIX_STOP_HOLDER, FIX_RAISE_LIMIT };

struct pin_account {
        bool done;
        struct status_report rep;
        const struct status_user *user;
        bool umem_failed, mem_failed;    /* ENOBUFS on the UMEM; ENOMEM on mlock or reg_mr */
        uint64_t need;                   /* the soft limit that would have let every failed pin through */
        bool need_known;
        enum pin_fix fix;
        char fix_text[512];
};

static const char *fix_word(enum pin_fix f) {
        return f == FIX_RAISE_SOFT ? "raise-soft" : f == FIX_STOP_HOLDER ? "stop-holder" : f == FIX_RAISE_LIMIT ? "raise-limit" : "none";
}

static void pin_account(const struct pin *pins, size_t n, size_t len, struct rl_pair lim, struct pin_account *a) {
        struct status_options o = { .probe = true, .probe_exact = true, .threshold = UINT64_MAX };
        char s1[SIZE_FMT_MAX], s2[SIZE_FMT_MAX];

        for (size_t i = 0; i < n; i++) {
                if (pins[i].result != PIN_FAILED)
                        continue;
                if (streq(pins[i].mechanism, "af_xdp_umem") && pins[i].error == ENOBUFS)
                        a->umem_failed = true;
                else if (pins[i].error == ENOMEM || pins[i].error == EAGAIN)
                        a->mem_failed = true;
        }
        if (!a->umem_failed && !a->mem_failed)
                return;
        o.filter.by_user = true;
        o.filter.uid = getuid();
        if (status_collect(&o, &a->rep) < 0)
                return;
        a->done = true;
        a->user = status_find_user(&a->rep, getuid());
        /* mlock and MRs: this process's own counters, which held nothing before the test */
        a->need = len;
        a->need_known = true;
        if (a->umem_failed) {
                if (a->user && a->user->a.charged_method != STATUS_M_UNKNOWN && !a->user->a.charged_at_least)
                        a->need = len + a->user->a.charged;
                else
                        a->need_known = false;
        }
        bool others = a->umem_failed && a->user && a->user->a.charged > 0;
        if (a->need_known && a->need <= lim.hard) {
                a->fix = FIX_RAISE_SOFT;
                snprintf(a->fix_text, sizeof a->fix_text,
                         "raise only the soft limit, the hard one (%s) allows it: ulimit -S -l %llu (KiB, %s)%s",
                         size_format(lim.hard, s1), (unsigned long long)((a->need + 1023) / 1024), size_format(a->need, s2),
                         others ? ", or stop the other holder" : "");
        } else if (others && len <= lim.soft) {
                a->fix = FIX_STOP_HOLDER;
                snprintf(a->fix_text, sizeof a->fix_text,
                         "stop the other holder of this user's locked memory (%s already charged), or raise memlock to "
                         "at least %s (rdmalimits apply USER SIZE)",
                         size_format(a->user->a.charged, s1), a->need_known ? size_format(a->need, s2) : "more");
        } else {
                a->fix = FIX_RAISE_LIMIT;
                snprintf(a->fix_text, sizeof a->fix_text,
                         "raise the limit to at least %s (rdmalimits apply USER SIZE, or a pam_rdmalimit rule), then log "
                         "in again: limits are set when a session opens",
                         a->need_known ? size_format(a->need, s1) : "the size plus what is already charged");
        }
}

static void account_text(const struct pin_account *a) {
        char s1[SIZE_FMT_MAX], s2[SIZE_FMT_MAX], name[ESCAPE_NAME_MAX];
        const struct status_user *u = a->user;
        size_t n_holders = 0;            /* other processes of the user with AF_XDP sockets */

        if (a->umem_failed) {
                struct passwd *pw = getpwuid(getuid());
                str_escape(pw ? pw->pw_name : "?", name, sizeof name);
                if (u && u->a.charged_method != STATUS_M_UNKNOWN)
                        printf("Already charged to %s's locked memory (AF_XDP UMEMs and the like, all of the user's "
                               "processes): %s%s (%s)\n",
                               name, u->a.charged_at_least ? "at least " : "", size_format(u->a.charged, s1),
                               status_method_name(u->a.charged_method));
                else
                        printf("Already charged to %s's locked memory: unknown (%s)\n", name,
                               u && u->charged_why[0] ? u->charged_why : a->rep.xsk_why);
                if (a->rep.xdp_sockets_known)
                        printf("  XDP sockets: %llu (/proc/net/protocols)\n", (unsigned long long)a->rep.xdp_sockets);
                for (size_t i = 0; i < a->rep.n_umems; i++)
                        if (a->rep.umems[i].uid == getuid())
                                printf("  UMEM %u: %s on socket inode %u, held by pid %d (sock_diag)\n", a->rep.umems[i].id,
                                       size_format(a->rep.umems[i].charged, s1), a->rep.umems[i].ino,
                                       (int)a->rep.umems[i].holder);
                for (size_t i = 0; i < a->rep.n_procs; i++) {
                        const struct status_proc *p = &a->rep.procs[i];
                        if (p->pid == getpid() || !p->n_xsk)
                                continue;
                        n_holders++;
                        str_escape(p->comm, name, sizeof name);
                        printf("  pid %d (%s): %zu AF_XDP socket%s (inode", (int)p->pid, name, p->n_xsk,
                               p->n_xsk == 1 ? "" : "s");
                        for (size_t k = 0; k < p->n_xsk && k < ELEMENTSOF(p->xsk_ino); k++)
                                printf(" %u", p->xsk_ino[k]);
                        if (p->xsk_method == STATUS_M_SOCK_DIAG)
                                printf("), %s registered (sock_diag)\n", size_format(p->xsk_umem_bytes, s1));
                        else
                                printf("; %s)\n", status_method_name(p->xsk_method));
                }
                if (n_holders == 0 && u && u->a.charged)
                        printf("  the holder: not found among the user's processes (%s; VmLck of its %zu processes: %s)\n",
                               a->rep.xsk_method == STATUS_M_SOCK_DIAG ? "sock_diag"
                                                                       : "without sock_diag a socket's family needs ptrace access",
                               u->a.n_procs, size_format(u->vmlck, s2));
        }
        printf("Fix: %s.\n", a->fix_text);
}

static void account_json(struct json *j, const struct pin_account *a) {
        const struct status_user *u = a->user;
        json_key(j, "accounting");
        if (!a->done) {
                json_null(j);
                return;
        }
        json_obj_begin(j);
        json_ku64_opt(j, "user_charged", u && u->a.charged_method != STATUS_M_UNKNOWN, u ? u->a.charged : 0);
        json_kbool(j, "user_charged_at_least", u && u->a.charged_at_least);
        json_kstr(j, "method", status_method_name(u ? u->a.charged_method : STATUS_M_UNKNOWN));
        json_ku64_opt(j, "xdp_sockets", a->rep.xdp_sockets_known, a->rep.xdp_sockets);
        json_ku64(j, "user_vmlck", u ? u->vmlck : 0);
        json_karr_begin(j, "holders");
        for (size_t i = 0; i < a->rep.n_procs; i++) {
                const struct status_proc *p = &a->rep.procs[i];
                if (p->pid == getpid() || !p->n_xsk)
                        continue;
                json_obj_begin(j);
                json_ki64(j, "pid", p->pid);
                json_kstr(j, "comm", p->comm);
                json_xsk_sockets(j, p, "sockets");
                json_kstr(j, "method", status_method_name(p->xsk_method));
                json_obj_end(j);
        }
        json_arr_end(j);
        json_ku64_opt(j, "need", a->need_known, a->need);
        json_kstr(j, "fix", fix_word(a->fix));
        json_kstr(j, "fix_text", a->fix_text);
        json_obj_end(j);
}

/* What pin-test found: the size, the limits it ran under, each mechanism's result. */
struct pin_run {
        size_t len;
        struct rl_pair lim;
        bool capipc, failed;
        struct pin pins[2 + PIN_MAX_DEVICES];
        size_t n;
        struct pin_account acc;
};

static void print_json(const struct pin_run *t) {
        struct json j;
        json_doc_begin(&j);
        json_ku64(&j, "size", t->len);
        json_kobj_begin(&j, "memlock");
        json_klimit(&j, "soft", t->lim.soft);
        json_klimit(&j, "hard", t->lim.hard);
        json_obj_end(&j);
        json_kbool(&j, "cap_ipc_lock", t->capipc);
        json_karr_begin(&j, "mechanisms");
        for (size_t i = 0; i < t->n; i++) {
                const struct pin *p = &t->pins[i];
                json_obj_begin(&j);
                json_kstr(&j, "name", p->mechanism);
                if (p->device[0])
                        json_kstr(&j, "device", p->device);
                json_kstr(&j, "result", result_word(p->result));
                json_kstr(&j, "errno", errno_name(p->error));
                json_kstr(&j, "message", p->result == PIN_OK ? "" : p->why);
                json_obj_end(&j);
        }
        json_arr_end(&j);
        account_json(&j, &t->acc);
        json_doc_end(&j);
}

static void print_text(const struct pin_run *t) {
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX], h[SIZE_FMT_MAX];

        printf("Pinning %s with memlock soft %s, hard %s%s:\n", size_format(t->len, a), size_format(t->lim.soft, b),
               size_format(t->lim.hard, h), t->capipc ? " (CAP_IPC_LOCK: the kernel does not enforce the limit)" : "");
        for (size_t i = 0; i < t->n; i++) {
                const struct pin *p = &t->pins[i];
                char label[96];
                snprintf(label, sizeof label, "%s%s%s", p->mechanism, p->device[0] ? " " : "", p->device);
                if (p->result == PIN_OK)
                        printf("  %-24s ok\n", label);
                else
                        printf("  %-24s %s%s%s%s: %s\n", label, result_word(p->result), p->error ? " (" : "",
                               p->error ? errno_name(p->error) : "", p->error ? ")" : "", p->why);
        }
        if (t->failed && t->acc.done)
                account_text(&t->acc);
        else if (t->failed)
                printf("Fix: give this user more memlock (rdmalimits apply USER SIZE, or a pam_rdmalimit rule),\n"
                       "then log in again: limits are set when a session opens.\n");
}

/* The size to pin, in whole pages and UMEM chunks. 0 or CMD_USAGE. */
static int parse_pin_size(const char *arg, size_t *ret) {
        uint64_t size;

        if (ctx_parse_size("size", arg, &size) < 0)
                return CMD_USAGE;
        if (size == 0 || size == SIZE_INFINITY || size > (UINT64_C(1) << 46)) {
                log_error("size '%s': give a size between 1 byte and 64 TiB", arg);
                return CMD_USAGE;
        }
        *ret = (size + 4095) & ~(size_t)4095;
        return 0;
}

/* Pin t->len with each mechanism; when one fails, account for where the limit went. */
static int pin_all(const struct ctx *c, struct pin_run *t) {
        char a[SIZE_FMT_MAX];
        void *buf;

        if (rl_get_memlock(&t->lim) < 0) {
                int r = negative_errno();
                log_error("getrlimit: %s", errno_text(r));
                return r;
        }
        t->capipc = rl_have_cap(CAP_IPC_LOCK);
        if (pin_guard(c, t->len, t->lim, t->capipc) < 0)
                return CMD_FINDINGS;
        buf = mmap(NULL, t->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buf == MAP_FAILED) {
                int r = negative_errno();
                log_error("cannot map %s: %s", size_format(t->len, a), errno_text(r));
                return r;
        }
        pin_mlock(buf, t->len, t->lim, &t->pins[t->n++]);
        pin_umem(buf, t->len, t->lim, &t->pins[t->n++]);
        int r = pin_verbs(buf, t->len, t->lim, t->pins, &t->n);
        munmap(buf, t->len);
        if (r < 0)
                return log_oom();
        for (size_t i = 0; i < t->n; i++)
                t->failed |= t->pins[i].result == PIN_FAILED;
        if (t->failed)
                pin_account(t->pins, t->n, t->len, t->lim, &t->acc);
        return 0;
}

int cmd_pintest(struct ctx *c) {
        struct pin_run t = {};
        int r;

        r = parse_pin_size(c->argv[0], &t.len);
        if (r == 0)
                r = pin_all(c, &t);
        if (r != 0)
                return r;
        if (c->json)
                print_json(&t);
        else
                print_text(&t);
        status_report_clear(&t.acc.rep);
        return t.failed ? CMD_FINDINGS : 0;
}
