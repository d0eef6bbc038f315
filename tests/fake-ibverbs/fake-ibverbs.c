/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A fake libibverbs.so.1 for tests: the few verbs the hardware probe and pin-test call, with
 * the symbol versions of rdma-core (see libibverbs.map) and the struct layouts of the real
 * <infiniband/verbs.h>.  It behaves like libibverbs: without devices ibv_get_device_list()
 * returns NULL with errno set, verbs return a positive errno.
 *
 * Environment, read when ibv_get_device_list() is called:
 *   FAKE_IBVERBS_SCENARIO  none (default: NULL, errno ENOSYS, as on a host without RDMA
 *                          kernel support), empty (a list of 0 devices), one, two, queryfail
 *   FAKE_IBVERBS_SPEC      a free-form device list, overrides the scenario:
 *                          DEV[;DEV...], DEV = NAME:NODE:MAX_MR_SIZE:MAX_MR:PORTS[:FLAG]
 *                          NODE = CA|switch|router|RNIC or a number, PORTS = PORT[,PORT...]
 *                          or empty, PORT = STATE/LL (STATE DOWN|INIT|ARMED|ACTIVE, LL IB|ETH)
 *                          or "fail" (ibv_query_port fails with EIO), FLAG = openfail
 *                          (ibv_open_device fails with ENODEV) or queryfail
 *                          (ibv_query_device fails with EIO).  An empty spec is an empty list.
 * Read when the library is loaded:
 *   FAKE_IBVERBS_MARKER    a file to append "loaded\n" to, so a test sees the library was loaded
 *
 * ibv_reg_mr() emulates the kernel's accounting (ib_umem_get): RLIMIT_MEMLOCK 0 without
 * CAP_IPC_LOCK -> EPERM; more pages pinned by this process than RLIMIT_MEMLOCK allows ->
 * ENOMEM.  Nothing is really pinned.
 *
 * A malformed spec or an unknown scenario aborts: tests must not pass by accident.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* The functions are reached only through their versioned names. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

#define EXPORT(name, version) __attribute__((symver(name "@" version), used))
#define EXPORT_DEFAULT(name, version) __attribute__((symver(name "@@" version), used))

#define MAX_PORTS 8

struct fake_port {
        enum ibv_port_state state;
        uint8_t link_layer;
        bool fail;
};

struct fake_dev {
        struct ibv_device dev; /* first: struct ibv_device * <-> struct fake_dev * */
        unsigned refs;          /* the list and every open context */
        enum ibv_node_type node_type;
        uint64_t max_mr_size;
        int max_mr;
        bool open_fail, query_fail;
        unsigned n_ports;
        struct fake_port ports[MAX_PORTS];
};

struct fake_ctx {
        struct ibv_context ctx; /* first */
        struct fake_dev *dev;
};

static uint64_t pinned_pages; /* of this process, for ibv_reg_mr's memlock accounting */

static const struct {
        const char *name;
        const char *spec; /* NULL: no device list (NULL + ENOSYS) */
} scenarios[] = {
        { "none", NULL },
        { "empty", "" },
        { "one", "mlx5_0:CA:1099511627776:16777216:ACTIVE/IB,DOWN/IB" },
        { "two", "mlx5_0:CA:1099511627776:16777216:ACTIVE/IB,DOWN/IB;"
                 "mlx5_1:CA:4294967296:16777216:ACTIVE/ETH" },
        { "queryfail", "mlx5_0:CA:1099511627776:16777216:ACTIVE/IB:queryfail" },
};

__attribute__((noreturn, format(printf, 1, 2))) static void die(const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        fputs("fake libibverbs: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        abort();
}

__attribute__((constructor)) static void fake_loaded(void) {
        const char *marker = getenv("FAKE_IBVERBS_MARKER");
        int fd;

        if (!marker || !*marker)
                return;
        fd = open(marker, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0)
                die("cannot open marker %s: %m", marker);
        if (write(fd, "loaded\n", 7) != 7)
                die("cannot write marker %s: %m", marker);
        close(fd);
}

/* ---------------------------------------------------------------------------------------
 * spec parsing: fields are cut out of a private copy of the spec */
static uint64_t parse_number(const char *s, const char *what) {
        uint64_t v = 0;

        if (!*s)
                die("empty %s", what);
        for (const char *p = s; *p; p++) {
                if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10)
                        die("bad %s '%s'", what, s);
                v = v * 10 + (uint64_t)(*p - '0');
        }
        return v;
}

static char *next_field(char **s, char sep) {
        char *f = *s, *e;

        if (!f)
                return NULL;
        e = strchr(f, sep);
        if (e) {
                *e = 0;
                *s = e + 1;
        } else
                *s = NULL;
        return f;
}

static void parse_port(char *s, struct fake_port *p) {
        static const char *const states[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE" };
        char *state = next_field(&s, '/');

        memset(p, 0, sizeof(*p));
        if (strcmp(state, "fail") == 0 && !s) {
                p->fail = true;
                return;
        }
        if (!s)
                die("port '%s' needs STATE/LL", state);
        p->state = IBV_PORT_NOP;
        for (unsigned i = 1; i < sizeof(states) / sizeof(states[0]); i++)
                if (strcmp(state, states[i]) == 0)
                        p->state = (enum ibv_port_state)i;
        if (p->state == IBV_PORT_NOP)
                die("bad port state '%s'", state);
        if (strcmp(s, "IB") == 0)
                p->link_layer = IBV_LINK_LAYER_INFINIBAND;
        else if (strcmp(s, "ETH") == 0)
                p->link_layer = IBV_LINK_LAYER_ETHERNET;
        else
                die("bad link layer '%s'", s);
}

static enum ibv_node_type parse_node(const char *s) {
        if (strcmp(s, "CA") == 0)
                return IBV_NODE_CA;
        if (strcmp(s, "switch") == 0)
                return IBV_NODE_SWITCH;
        if (strcmp(s, "router") == 0)
                return IBV_NODE_ROUTER;
        if (strcmp(s, "RNIC") == 0)
                return IBV_NODE_RNIC;
        return (enum ibv_node_type)parse_number(s, "node type");
}

static struct fake_dev *parse_dev(char *s, unsigned index) {
        char *name = next_field(&s, ':'), *node = next_field(&s, ':'),
             *mr_size = next_field(&s, ':'), *max_mr = next_field(&s, ':'),
             *ports = next_field(&s, ':'), *flag = next_field(&s, ':');
        struct fake_dev *d;

        if (!ports || s)
                die("device '%s' needs NAME:NODE:MAX_MR_SIZE:MAX_MR:PORTS[:FLAG]", name);
        if (!*name || strlen(name) >= sizeof(d->dev.name))
                die("bad device name '%s'", name);
        d = calloc(1, sizeof(*d));
        if (!d)
                die("out of memory");
        d->refs = 1;
        d->node_type = parse_node(node);
        d->max_mr_size = parse_number(mr_size, "max_mr_size");
        d->max_mr = (int)parse_number(max_mr, "max_mr");
        while (*ports) {
                char *port = next_field(&ports, ',');
                if (d->n_ports == MAX_PORTS)
                        die("too many ports");
                parse_port(port, &d->ports[d->n_ports++]);
                if (!ports)
                        break;
        }
        if (flag && strcmp(flag, "openfail") == 0)
                d->open_fail = true;
        else if (flag && strcmp(flag, "queryfail") == 0)
                d->query_fail = true;
        else if (flag)
                die("bad flag '%s'", flag);

        d->dev.node_type = d->node_type;
        d->dev.transport_type = d->node_type == IBV_NODE_RNIC ? IBV_TRANSPORT_IWARP : IBV_TRANSPORT_IB;
        snprintf(d->dev.name, sizeof(d->dev.name), "%s", name);
        snprintf(d->dev.dev_name, sizeof(d->dev.dev_name), "uverbs%u", index);
        snprintf(d->dev.dev_path, sizeof(d->dev.dev_path), "/sys/class/infiniband_verbs/uverbs%u", index);
        snprintf(d->dev.ibdev_path, sizeof(d->dev.ibdev_path), "/sys/class/infiniband/%s", name);
        return d;
}

static void dev_unref(struct fake_dev *d) {
        if (__atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) == 0)
                free(d);
}

/* ---------------------------------------------------------------------------------------
 * IBVERBS_1.1 */
EXPORT_DEFAULT("ibv_get_device_list", "IBVERBS_1.1")
struct ibv_device **fake_get_device_list(int *num_devices) {
        const char *spec = getenv("FAKE_IBVERBS_SPEC");
        const char *scenario = getenv("FAKE_IBVERBS_SCENARIO");
        struct ibv_device **list;
        char *copy, *rest;
        unsigned n = 0;

        if (!spec) {
                bool found = false;

                if (!scenario || !*scenario)
                        scenario = "none";
                for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
                        if (strcmp(scenario, scenarios[i].name) == 0) {
                                spec = scenarios[i].spec;
                                found = true;
                        }
                if (!found)
                        die("unknown FAKE_IBVERBS_SCENARIO '%s'", scenario);
                if (!spec) {
                        errno = ENOSYS;
                        return NULL;
                }
        }

        copy = strdup(spec);
        list = calloc(strlen(spec) + 2, sizeof(*list)); /* more than ';'-separated devices */
        if (!copy || !list) {
                free(copy);
                free(list);
                errno = ENOMEM;
                return NULL;
        }
        rest = *copy ? copy : NULL;
        while (rest) {
                struct fake_dev *d = parse_dev(next_field(&rest, ';'), n);
                list[n++] = &d->dev;
        }
        free(copy);
        if (num_devices)
                *num_devices = (int)n;
        return list;
}

EXPORT_DEFAULT("ibv_free_device_list", "IBVERBS_1.1")
void fake_free_device_list(struct ibv_device **list) {
        for (struct ibv_device **d = list; *d; d++)
                dev_unref((struct fake_dev *)*d);
        free(list);
}

EXPORT_DEFAULT("ibv_get_device_name", "IBVERBS_1.1")
const char *fake_get_device_name(struct ibv_device *device) {
        return device->name;
}

EXPORT_DEFAULT("ibv_open_device", "IBVERBS_1.1")
struct ibv_context *fake_open_device(struct ibv_device *device) {
        struct fake_dev *d = (struct fake_dev *)device;
        struct fake_ctx *c;

        if (d->open_fail) {
                errno = ENODEV;
                return NULL;
        }
        c = calloc(1, sizeof(*c));
        if (!c) {
                errno = ENOMEM;
                return NULL;
        }
        __atomic_add_fetch(&d->refs, 1, __ATOMIC_ACQ_REL);
        c->dev = d;
        c->ctx.device = device;
        c->ctx.cmd_fd = -1;
        c->ctx.async_fd = -1;
        c->ctx.num_comp_vectors = 1;
        c->ctx.abi_compat = NULL; /* not a verbs_context: ibv_query_port() uses the export */
        return &c->ctx;
}

EXPORT_DEFAULT("ibv_close_device", "IBVERBS_1.1")
int fake_close_device(struct ibv_context *context) {
        struct fake_ctx *c = (struct fake_ctx *)context;

        dev_unref(c->dev);
        free(c);
        return 0;
}

EXPORT_DEFAULT("ibv_query_device", "IBVERBS_1.1")
int fake_query_device(struct ibv_context *context, struct ibv_device_attr *attr) {
        const struct fake_dev *d = ((struct fake_ctx *)context)->dev;

        if (d->query_fail)
                return EIO;
        memset(attr, 0, sizeof(*attr));
        snprintf(attr->fw_ver, sizeof(attr->fw_ver), "16.35.1012");
        attr->max_mr_size = d->max_mr_size;
        attr->page_size_cap = 0xfffffffffffff000ULL;
        attr->vendor_id = 0x02c9;
        attr->vendor_part_id = 4119;
        attr->max_qp = 262144;
        attr->max_qp_wr = 32768;
        attr->max_sge = 30;
        attr->max_cq = 16777216;
        attr->max_cqe = 4194303;
        attr->max_mr = d->max_mr;
        attr->max_pd = 16777216;
        attr->max_pkeys = 128;
        attr->local_ca_ack_delay = 16;
        attr->phys_port_cnt = (uint8_t)d->n_ports;
        return 0;
}

/* Like rdma-core's export: fills a whole struct ibv_port_attr (the verbs.h inline zeroes it
 * and passes it as struct _compat_ibv_port_attr). */
EXPORT_DEFAULT("ibv_query_port", "IBVERBS_1.1")
int fake_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr) {
        const struct fake_dev *d = ((struct fake_ctx *)context)->dev;
        const struct fake_port *p;

        if (port_num < 1 || port_num > d->n_ports)
                return EINVAL;
        p = &d->ports[port_num - 1];
        if (p->fail)
                return EIO;
        memset(attr, 0, sizeof(*attr));
        attr->state = p->state;
        attr->max_mtu = IBV_MTU_4096;
        attr->active_mtu = p->state == IBV_PORT_ACTIVE ? IBV_MTU_4096 : IBV_MTU_256;
        attr->gid_tbl_len = p->link_layer == IBV_LINK_LAYER_ETHERNET ? 255 : 128;
        attr->max_msg_sz = 0x40000000;
        attr->pkey_tbl_len = 128;
        attr->lid = p->link_layer == IBV_LINK_LAYER_INFINIBAND ? port_num : 0;
        attr->phys_state = p->state == IBV_PORT_ACTIVE ? 5 : 3; /* LinkUp : Disabled */
        attr->link_layer = p->link_layer;
        return 0;
}

EXPORT_DEFAULT("ibv_alloc_pd", "IBVERBS_1.1")
struct ibv_pd *fake_alloc_pd(struct ibv_context *context) {
        struct ibv_pd *pd = calloc(1, sizeof(*pd));

        if (!pd) {
                errno = ENOMEM;
                return NULL;
        }
        pd->context = context;
        pd->handle = 1;
        return pd;
}

EXPORT_DEFAULT("ibv_dealloc_pd", "IBVERBS_1.1")
int fake_dealloc_pd(struct ibv_pd *pd) {
        free(pd);
        return 0;
}

static bool have_cap_ipc_lock(void) {
        FILE *f = fopen("/proc/self/status", "re");
        char line[256];
        bool r = false;

        if (!f)
                return false;
        while (fgets(line, sizeof(line), f)) {
                uint64_t caps = 0;

                if (strncmp(line, "CapEff:", 7) != 0)
                        continue;
                for (const char *p = line + 7; *p; p++) {
                        if (*p >= '0' && *p <= '9')
                                caps = caps << 4 | (uint64_t)(*p - '0');
                        else if (*p >= 'a' && *p <= 'f')
                                caps = caps << 4 | (uint64_t)(*p - 'a' + 10);
                }
                r = caps & (UINT64_C(1) << 14); /* CAP_IPC_LOCK */
        }
        fclose(f);
        return r;
}

static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova) {
        long page = sysconf(_SC_PAGESIZE);
        uintptr_t start = (uintptr_t)addr & ~(uintptr_t)(page - 1);
        uintptr_t end = ((uintptr_t)addr + length + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1);
        uint64_t npages = (end - start) / (uint64_t)page, total;
        struct rlimit rl;
        struct ibv_mr *mr;

        if (!pd || length == 0) {
                errno = EINVAL;
                return NULL;
        }
        if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0)
                return NULL;
        if (rl.rlim_cur == 0 && !have_cap_ipc_lock()) {
                errno = EPERM;
                return NULL;
        }
        total = __atomic_add_fetch(&pinned_pages, npages, __ATOMIC_ACQ_REL);
        if (rl.rlim_cur != RLIM_INFINITY && total > rl.rlim_cur / (uint64_t)page &&
            !have_cap_ipc_lock()) {
                __atomic_sub_fetch(&pinned_pages, npages, __ATOMIC_ACQ_REL);
                errno = ENOMEM;
                return NULL;
        }
        mr = calloc(1, sizeof(*mr));
        if (!mr) {
                __atomic_sub_fetch(&pinned_pages, npages, __ATOMIC_ACQ_REL);
                errno = ENOMEM;
                return NULL;
        }
        mr->context = pd->context;
        mr->pd = pd;
        mr->addr = (void *)(uintptr_t)iova;
        mr->length = length;
        mr->handle = 1;
        mr->lkey = mr->rkey = (uint32_t)(npages & 0xffffff) << 8 | 0x42;
        return mr;
}

EXPORT_DEFAULT("ibv_reg_mr", "IBVERBS_1.1")
struct ibv_mr *fake_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access) {
        return reg_mr(pd, addr, length, (uintptr_t)addr);
}

EXPORT_DEFAULT("ibv_reg_mr_iova2", "IBVERBS_1.8")
struct ibv_mr *fake_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
                                 unsigned access) {
        return reg_mr(pd, addr, length, iova);
}

EXPORT_DEFAULT("ibv_dereg_mr", "IBVERBS_1.1")
int fake_dereg_mr(struct ibv_mr *mr) {
        long page = sysconf(_SC_PAGESIZE);
        uintptr_t a = (uintptr_t)mr->addr;
        uintptr_t start = a & ~(uintptr_t)(page - 1);
        uintptr_t end = (a + mr->length + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1);

        __atomic_sub_fetch(&pinned_pages, (end - start) / (uint64_t)page, __ATOMIC_ACQ_REL);
        free(mr);
        return 0;
}

/* ---------------------------------------------------------------------------------------
 * IBVERBS_1.0: the old ABI (struct ibv_device_1_0 ...).  A caller that resolves these got
 * the wrong version: fail loudly. */
#define COMPAT_1_0(fn, name)                                          \
        EXPORT(name, "IBVERBS_1.0") void fn(void);                    \
        void fn(void) {                                               \
                die("%s@IBVERBS_1.0 called: use IBVERBS_1.1", name);  \
        }
COMPAT_1_0(compat_get_device_list, "ibv_get_device_list")
COMPAT_1_0(compat_free_device_list, "ibv_free_device_list")
COMPAT_1_0(compat_get_device_name, "ibv_get_device_name")
COMPAT_1_0(compat_open_device, "ibv_open_device")
COMPAT_1_0(compat_close_device, "ibv_close_device")
COMPAT_1_0(compat_query_device, "ibv_query_device")
COMPAT_1_0(compat_query_port, "ibv_query_port")
COMPAT_1_0(compat_alloc_pd, "ibv_alloc_pd")
COMPAT_1_0(compat_dealloc_pd, "ibv_dealloc_pd")
COMPAT_1_0(compat_reg_mr, "ibv_reg_mr")
COMPAT_1_0(compat_dereg_mr, "ibv_dereg_mr")
