/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The AF_XDP probe of the login path (lib/login/hw.c: generic netlink's netdev family, its
 * device dump) against a fake kernel: tests/fault/fault.c's fault_netlink() answers each
 * request with replies built here, so the probe's handling of what a kernel may say is tested
 * on any kernel: no netdev family, a family reply split over datagrams or followed by another
 * family's message, a dump interrupted by a change (asked again, up to three times), devices
 * without their attributes or with malformed ones, interfaces that vanished, more interfaces
 * than the probe keeps, the calls failing, every allocation failing in turn.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "hw.h"
#include "macro.h"
#include "netlink.h"
#include "nlmsg.h"
#include "../fault/fault.h"
#include "../fault/fdcheck.h"

#ifdef ENABLE_XDP
#define NETDEV_CMD_DEV_GET 1
#define NETDEV_A_DEV_IFINDEX 1
#define NETDEV_A_DEV_XDP_FEATURES 3
#define NETDEV_CMD_QUEUE_GET 10
#define NETDEV_A_QUEUE_ID 1
#define NETDEV_A_QUEUE_IFINDEX 2
#define NETDEV_A_QUEUE_TYPE 3

struct dev {
        uint32_t ifindex;
        uint64_t features;
        bool no_index, no_features, bad_attr;
        uint16_t type;                 /* the message's type: 0 for the netdev family's */
        unsigned rx, tx;               /* the queues the queue dump lists: 0 and 0 when it is down */
};

/* what the fake kernel says */
struct fake {
        int family_error;              /* the answer to the family request: an error, or 0 */
        uint16_t family;               /* its id (0: the attribute left out) */
        bool family_split;             /* a NOOP datagram first, the family's in a second */
        bool family_foreign;           /* another family's message after it, with an id of 0x77 */
        bool family_short;             /* the family's message too short for a genlmsghdr */
        bool family_empty;             /* an empty datagram before the family's */
        unsigned interrupted;          /* this many dumps are interrupted (NLM_F_DUMP_INTR) */
        int dump_error;                /* the dump's answer: an error, or 0 */
        const struct dev *devs;
        size_t n_devs;
        size_t flood;                  /* the dump: this many bytes of NOOP datagrams first */
        uint32_t flood_seq;
        int queue_error;               /* the queue dump's answer: an error (-EOPNOTSUPP before 6.8), or 0 */
        bool queue_intr;               /* the queue dump is interrupted by a change */
        bool queue_bad_attr;           /* a queue's attribute runs past its message */
        bool queue_noise;              /* another interface's queue, a queue without its type, a
                                        * device message and another family's, among the queues */
        /* seen */
        unsigned family_requests, dumps, queue_dumps;
};

static void send_msg(struct msg *m) {
        assert_int_equal(fault_netlink_reply(m->buf, m->len), 0);
        *m = (struct msg){};
}

/* the kernel's error answer to request h, in m */
static void send_error(struct msg *m, const struct nlmsghdr *h, int error) {
        msg_error(m, h->nlmsg_seq, FAULT_NL_PORTID, error);
        send_msg(m);
}

static void genl_begin(struct msg *m, uint16_t type, uint32_t seq, uint8_t cmd) {
        struct genlmsghdr gh = { .cmd = cmd, .version = 1 };
        msg_begin(m, type, seq, FAULT_NL_PORTID, &gh, sizeof gh);
}

/* NOOP datagrams of f->flood bytes in all, then the end of the dump, as the queue has room */
static void flood(struct fake *f) {
        static uint8_t dgram[NL_DUMP_BUF_SIZE];
        while (f->flood > 0) {
                size_t n = f->flood < sizeof dgram ? f->flood : sizeof dgram;
                struct nlmsghdr *h = (void *)dgram;
                *h = (struct nlmsghdr){ .nlmsg_len = (uint32_t)n, .nlmsg_type = NLMSG_NOOP,
                                        .nlmsg_seq = f->flood_seq, .nlmsg_pid = FAULT_NL_PORTID };
                if (fault_netlink_reply(dgram, n) < 0)
                        return;
                f->flood -= n;
        }
        struct msg m = {};
        msg_done(&m, f->flood_seq, FAULT_NL_PORTID);
        if (fault_netlink_reply(m.buf, m.len) == 0)
                f->flood_seq = 0;       /* else at the next read */
}

/* One queue message of the message type mtype and the command cmd (the family's and
 * NETDEV_CMD_QUEUE_GET in a real dump); typed: with its type attribute */
static void queue(struct msg *m, struct fake *f, uint32_t seq, uint16_t mtype, uint8_t cmd, uint32_t ifindex,
                  uint32_t id, uint32_t type, bool typed) {
        genl_begin(m, mtype, seq, cmd);
        if (f->queue_intr)
                ((struct nlmsghdr *)(void *)(m->buf + m->start))->nlmsg_flags |= NLM_F_DUMP_INTR;
        attr(m, NETDEV_A_QUEUE_ID, &id, sizeof id);
        attr(m, NETDEV_A_QUEUE_IFINDEX, &ifindex, sizeof ifindex);
        if (typed)
                attr(m, NETDEV_A_QUEUE_TYPE, &type, sizeof type);
        if (f->queue_bad_attr) {
                size_t at = attr(m, 9, "xxxx", 4);
                ((struct nlattr *)(void *)(m->buf + at))->nla_len = 200;
        }
        msg_end(m);
}

/* A queue dump filtered by ifindex: the device's RX then TX queues, as the kernel lists them */
static void queues(struct fake *f, const struct nlmsghdr *h, size_t len) {
        static struct msg m;
        const struct nlattr *a = (const void *)((const uint8_t *)NLMSG_DATA(h) + GENL_HDRLEN);
        uint32_t ifindex;
        m = (struct msg){};
        assert_true(len >= NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN + sizeof ifindex);
        assert_int_equal(a->nla_type, NETDEV_A_QUEUE_IFINDEX);
        memcpy(&ifindex, (const uint8_t *)a + NLA_HDRLEN, sizeof ifindex);
        f->queue_dumps++;
        if (f->queue_error) {
                send_error(&m, h, f->queue_error);
                return;
        }
        if (f->queue_noise) {
                uint32_t seq = h->nlmsg_seq;
                queue(&m, f, seq, f->family, NETDEV_CMD_QUEUE_GET, ifindex + 1, 0, 0, true); /* another interface's */
                queue(&m, f, seq, f->family, NETDEV_CMD_QUEUE_GET, ifindex, 7, 0, false);    /* no type */
                queue(&m, f, seq, f->family, NETDEV_CMD_DEV_GET, ifindex, 0, 0, true);       /* another command */
                queue(&m, f, seq, 0x30, NETDEV_CMD_QUEUE_GET, ifindex, 0, 0, true);          /* another family */
                /* a message too short for its genlmsghdr */
                msg_begin(&m, f->family, h->nlmsg_seq, FAULT_NL_PORTID, "x", 1);
                msg_end(&m);
                send_msg(&m);   /* and the queues in a second datagram */
        }
        for (size_t i = 0; i < f->n_devs; i++) {
                const struct dev *d = &f->devs[i];
                if (d->ifindex != ifindex)
                        continue;
                for (uint32_t q = 0; q < d->rx + d->tx; q++) {
                        if (m.len > sizeof m.buf - 128)
                                send_msg(&m);
                        queue(&m, f, h->nlmsg_seq, f->family, NETDEV_CMD_QUEUE_GET, ifindex,
                              q < d->rx ? q : q - d->rx, q < d->rx ? 0 : 1, true);
                }
                break;
        }
        msg_done(&m, h->nlmsg_seq, FAULT_NL_PORTID);
        send_msg(&m);
}

static void kernel(const void *req, size_t len, void *data) {
        struct fake *f = data;
        const struct nlmsghdr *h = req;
        static struct msg m;
        if (!req) {
                if (f->flood_seq)
                        flood(f);
                return;
        }
        assert_true(len >= NLMSG_HDRLEN + GENL_HDRLEN);
        m = (struct msg){};
        if (h->nlmsg_type == GENL_ID_CTRL) {
                f->family_requests++;
                assert_false(h->nlmsg_flags & NLM_F_DUMP);
                if (f->family_error) {
                        send_error(&m, h, f->family_error);
                        return;
                }
                if (f->family_empty)
                        assert_int_equal(fault_netlink_reply("", 0), 0);
                if (f->family_split) {
                        msg_begin(&m, NLMSG_NOOP, h->nlmsg_seq, FAULT_NL_PORTID, NULL, 0);
                        msg_end(&m);
                        send_msg(&m);
                }
                genl_begin(&m, GENL_ID_CTRL, h->nlmsg_seq, CTRL_CMD_NEWFAMILY);
                attr(&m, CTRL_ATTR_FAMILY_NAME, "netdev", 7);
                if (f->family)
                        attr(&m, CTRL_ATTR_FAMILY_ID, &f->family, sizeof f->family);
                msg_end(&m);
                if (f->family_short) {
                        ((struct nlmsghdr *)(void *)(m.buf + m.start))->nlmsg_len = NLMSG_HDRLEN + 2;
                        m.len = m.start + NLMSG_HDRLEN + 2;
                }
                if (f->family_foreign) {
                        uint16_t other = 0x77;
                        genl_begin(&m, 0x30, h->nlmsg_seq, CTRL_CMD_NEWFAMILY);
                        attr(&m, CTRL_ATTR_FAMILY_ID, &other, sizeof other);
                        msg_end(&m);
                }
                send_msg(&m);
                return;
        }
        /* the device dump or a queue dump, of the family given out */
        assert_int_equal(h->nlmsg_type, f->family);
        assert_true(h->nlmsg_flags & NLM_F_DUMP);
        if (((const struct genlmsghdr *)NLMSG_DATA(h))->cmd == NETDEV_CMD_QUEUE_GET) {
                queues(f, h, len);
                return;
        }
        f->dumps++;
        if (f->dump_error) {
                send_error(&m, h, f->dump_error);
                return;
        }
        if (f->flood) {
                f->flood_seq = h->nlmsg_seq;
                flood(f);
                return;
        }
        bool intr = f->dumps <= f->interrupted;
        for (size_t i = 0; i < f->n_devs; i++) {
                const struct dev *d = &f->devs[i];
                if (m.len > sizeof m.buf - 128)
                        send_msg(&m);
                genl_begin(&m, d->type ? d->type : f->family, h->nlmsg_seq, NETDEV_CMD_DEV_GET);
                if (intr)
                        ((struct nlmsghdr *)(void *)(m.buf + m.start))->nlmsg_flags |= NLM_F_DUMP_INTR;
                if (!d->no_index)
                        attr(&m, NETDEV_A_DEV_IFINDEX, &d->ifindex, sizeof d->ifindex);
                if (!d->no_features)
                        attr(&m, NETDEV_A_DEV_XDP_FEATURES, &d->features, sizeof d->features);
                attr(&m, 98, NULL, 0);          /* an empty attribute (a flag): fine */
                if (d->bad_attr) {
                        size_t at = attr(&m, 9, "xxxx", 4);
                        ((struct nlattr *)(void *)(m.buf + at))->nla_len = 200;
                }
                msg_end(&m);
        }
        msg_done(&m, h->nlmsg_seq, FAULT_NL_PORTID);
        send_msg(&m);
}

static char *lo_only[] = { "lo", NULL };
static const struct hw_netsel sel_lo = { .include = lo_only };

/* the descriptors open now: "3 4 " */
static void open_fds(char *buf, size_t size) {
        DIR *d = opendir("/proc/self/fd");
        struct dirent *de;
        size_t l = 0;
        assert_non_null(d);
        buf[0] = '\0';
        while ((de = readdir(d)))
                if (de->d_name[0] != '.' && atoi(de->d_name) != dirfd(d) && l + 16 < size)
                        l += (size_t)snprintf(buf + l, size - l, "%s ", de->d_name);
        closedir(d);
}

/* hw_probe(HW_XDP) against f, with the selection sel; the summary.  No descriptor is left open. */
static struct hw_summary *probe_sel(struct fake *f, const struct hw_netsel *sel) {
        struct hw_summary *s = NULL;
        char before[512], after[512];
        f->family_requests = f->dumps = f->queue_dumps = 0;
        open_fds(before, sizeof before);
        fault_netlink(NETLINK_GENERIC, kernel, f);
        int r = hw_probe(HW_XDP, sel, &s);
        fault_netlink(-1, NULL, NULL);
        open_fds(after, sizeof after);
        assert_int_equal(r, 0);
        assert_string_equal(after, before);
        return s;
}

static struct hw_summary *probe(struct fake *f) {
        return probe_sel(f, &sel_lo);
}

static const struct dev lo_and_gone[] = {
        { .ifindex = 1, .features = 0x2b },                 /* lo, zero-copy */
        { .ifindex = 0x7ffffff0, .features = 0x23 },        /* no such interface (any more) */
};

static void test_probe(void **state) {
        struct fake f = { .family = 0x21, .devs = lo_and_gone, .n_devs = 2 };
        (void)state;
        struct hw_summary *s = probe(&f);
        assert_int_equal(s->xdp_status, 0);
        assert_int_equal(f.family_requests, 1);
        assert_int_equal(f.dumps, 1);
        assert_int_equal(s->n_xdp, 1);
        assert_string_equal(s->xdp[0].name, "lo");
        assert_int_equal(s->xdp[0].ifindex, 1);
        assert_true(s->xdp[0].zero_copy);
        assert_true(s->xdp[0].counted);
        assert_false(s->xdp[0].physical);
        assert_int_equal(s->xdp[0].rx_queues, hw_count_rx_queues("lo", 1));
        assert_int_equal(hw_zc_queues(s), hw_count_rx_queues("lo", 1));
        assert_int_equal(hw_copy_queues(s), 0);
        hw_summary_free(s);

        /* the family's reply after a datagram with no message of it; another family's message
         * after it changes nothing */
        f.family_split = f.family_foreign = true;
        s = probe(&f);
        assert_int_equal(s->xdp_status, 0);
        assert_int_equal(f.dumps, 1);
        assert_int_equal(s->n_xdp, 1);
        hw_summary_free(s);
}

/* no netdev family (Linux < 6.3): unknown; another error is the status; a reply without the
 * id, or too short to hold one, is a protocol error */
static void test_family(void **state) {
        struct fake f = { .family = 0x21, .devs = lo_and_gone, .n_devs = 2, .family_error = -ENOENT };
        (void)state;
        struct hw_summary *s = probe(&f);
        assert_int_equal(s->xdp_status, -EOPNOTSUPP);
        assert_int_equal(f.dumps, 0);
        assert_int_equal(s->n_xdp, 0);
        hw_summary_free(s);
        f.family_error = -EPERM;
        s = probe(&f);
        assert_int_equal(s->xdp_status, -EPERM);
        hw_summary_free(s);
        f = (struct fake){ .family = 0 };
        s = probe(&f);
        assert_int_equal(s->xdp_status, -EPROTO);
        assert_int_equal(f.dumps, 0);
        hw_summary_free(s);
        f = (struct fake){ .family = 0x21, .family_short = true };
        s = probe(&f);
        assert_int_equal(s->xdp_status, -EPROTO);
        hw_summary_free(s);
        /* an empty datagram from the kernel: a protocol error, nothing after it is read */
        f = (struct fake){ .family = 0x21, .devs = lo_and_gone, .n_devs = 2, .family_empty = true };
        s = probe(&f);
        assert_int_equal(s->xdp_status, -EPROTO);
        assert_int_equal(f.dumps, 0);
        hw_summary_free(s);
        /* the request cannot be sent, or the socket opened */
        f = (struct fake){ .family = 0x21, .devs = lo_and_gone, .n_devs = 2 };
        fault_arm("sendto", NULL, 1, EIO);
        s = probe(&f);
        fault_disarm();
        assert_int_equal(s->xdp_status, -EIO);
        assert_int_equal(f.family_requests, 0);
        hw_summary_free(s);
        fault_arm("sendto", NULL, 2, EIO);
        s = probe(&f);
        fault_disarm();
        assert_int_equal(s->xdp_status, -EIO);
        assert_int_equal(f.family_requests, 1);
        hw_summary_free(s);
        fault_arm("socket", NULL, 1, EMFILE);
        s = probe(&f);
        fault_disarm();
        assert_int_equal(s->xdp_status, -EMFILE);
        hw_summary_free(s);
}

/* a dump a change interrupted is asked again on a new socket, three times at most */
static void test_interrupted(void **state) {
        struct fake f = { .family = 0x21, .devs = lo_and_gone, .n_devs = 2, .interrupted = 3 };
        (void)state;
        struct hw_summary *s = probe(&f);
        assert_int_equal(s->xdp_status, 0);
        assert_int_equal(f.dumps, 4);
        assert_int_equal(s->n_xdp, 1);
        hw_summary_free(s);
        f.interrupted = 4;
        s = probe(&f);
        assert_int_equal(s->xdp_status, -EINTR);
        assert_int_equal(f.dumps, 4);
        assert_int_equal(s->n_xdp, 0);
        hw_summary_free(s);
        /* the new socket cannot be opened */
        f.interrupted = 1;
        fault_arm("socket", NULL, 2, EMFILE);
        s = probe(&f);
        fault_disarm();
        assert_int_equal(s->xdp_status, -EMFILE);
        assert_int_equal(f.dumps, 1);
        hw_summary_free(s);
        /* the dump's error */
        f = (struct fake){ .family = 0x21, .dump_error = -EPERM };
        s = probe(&f);
        assert_int_equal(s->xdp_status, -EPERM);
        hw_summary_free(s);
}

/* An interface that is up: its RX queues from the kernel's queue dump, by ifindex (here more
 * than sysfs shows for lo, so the count can only come from the dump); TX queues, other
 * interfaces' queues, untyped queues, other messages are not counted; a dump spread over
 * datagrams is counted whole */
static void test_queue_dump(void **state) {
        static const struct dev up[] = { { .ifindex = 1, .features = 0x2b, .rx = 3, .tx = 2 } };
        static const struct dev many[] = { { .ifindex = 1, .features = 0x2b, .rx = 600, .tx = 600 } };
        struct fake f = { .family = 0x21, .devs = up, .n_devs = 1 };
        (void)state;
        assert_int_not_equal(hw_count_rx_queues("lo", 1), 3);
        struct hw_summary *s = probe(&f);
        assert_int_equal(s->xdp_status, 0);
        assert_int_equal(f.queue_dumps, 1);
        assert_int_equal(s->n_xdp, 1);
        assert_int_equal(s->xdp[0].rx_queues, 3);
        assert_int_equal(hw_zc_queues(s), 3);
        hw_summary_free(s);
        f.queue_noise = true;
        s = probe(&f);
        assert_int_equal(s->xdp[0].rx_queues, 3);
        hw_summary_free(s);
        f = (struct fake){ .family = 0x21, .devs = many, .n_devs = 1 };
        s = probe(&f);
        assert_int_equal(s->xdp[0].rx_queues, 600);
        hw_summary_free(s);
}

/* Where the dump lists no queue (the interface is down: the kernel lists running interfaces'
 * only) the count is sysfs's; where the dump fails (no queue dump before Linux 6.8, an
 * interrupted or malformed dump) too, and the probe does not ask again for the next interface */
static void test_queue_fallback(void **state) {
        static const struct dev down[] = { { .ifindex = 1, .features = 0x2b } };
        static const struct dev two[] = { { .ifindex = 1, .features = 0x2b, .rx = 3 },
                                          { .ifindex = 1, .features = 0x23, .rx = 3 } };
        unsigned sysfs = hw_count_rx_queues("lo", 1);
        (void)state;
        assert_int_not_equal(sysfs, 0);
        struct fake f = { .family = 0x21, .devs = down, .n_devs = 1 };
        struct hw_summary *s = probe(&f);
        assert_int_equal(f.queue_dumps, 1);
        assert_int_equal(s->xdp[0].rx_queues, sysfs);
        hw_summary_free(s);
        const struct fake broken[] = {
                { .family = 0x21, .devs = two, .n_devs = 2, .queue_error = -EOPNOTSUPP },
                { .family = 0x21, .devs = two, .n_devs = 2, .queue_intr = true },
                { .family = 0x21, .devs = two, .n_devs = 2, .queue_bad_attr = true },
        };
        for (size_t i = 0; i < ELEMENTSOF(broken); i++) {
                f = broken[i];
                s = probe(&f);
                assert_int_equal(s->xdp_status, 0);
                assert_int_equal(f.queue_dumps, 1);
                assert_int_equal(s->n_xdp, 2);
                assert_int_equal(s->xdp[0].rx_queues, sysfs);
                assert_int_equal(s->xdp[1].rx_queues, sysfs);
                hw_summary_free(s);
        }
        /* one that works is asked for each interface */
        f = (struct fake){ .family = 0x21, .devs = two, .n_devs = 2 };
        s = probe(&f);
        assert_int_equal(f.queue_dumps, 2);
        assert_int_equal(s->xdp[0].rx_queues, 3);
        assert_int_equal(s->xdp[1].rx_queues, 3);
        hw_summary_free(s);
}

/* devices without an index or features, or with no XDP feature, are no XDP devices; a
 * malformed attribute is a bad message */
static void test_devices(void **state) {
        static const struct dev devs[] = {
                { .ifindex = 1, .features = 0x23, .no_index = true },
                { .ifindex = 1, .features = 0x23, .no_features = true },
                { .ifindex = 1, .features = 0 },
                { .ifindex = 1, .features = 0x23 },
        };
        static const struct dev bad[] = {
                { .ifindex = 1, .features = 0x23 },
                { .ifindex = 1, .features = 0x23, .bad_attr = true },
        };
        struct fake f = { .family = 0x21, .devs = devs, .n_devs = ELEMENTSOF(devs) };
        (void)state;
        struct hw_summary *s = probe(&f);
        assert_int_equal(s->xdp_status, 0);
        assert_int_equal(s->n_xdp, 1);
        assert_false(s->xdp[0].zero_copy);
        assert_int_equal(hw_copy_queues(s), hw_count_rx_queues("lo", 1));
        hw_summary_free(s);
        f = (struct fake){ .family = 0x21, .devs = bad, .n_devs = ELEMENTSOF(bad) };
        s = probe(&f);
        assert_int_equal(s->xdp_status, -EBADMSG);
        assert_int_equal(s->n_xdp, 0);
        hw_summary_free(s);
}

/* a message of another family in the dump is no device, however it looks */
static void test_foreign_message(void **state) {
        static const struct dev devs[] = {
                { .ifindex = 1, .features = 0x23, .type = 0x30 },
                { .ifindex = 1, .features = 0x2b },
                { .ifindex = 1, .features = 0x23, .type = 0x30 },
        };
        struct fake f = { .family = 0x21, .devs = devs, .n_devs = ELEMENTSOF(devs) };
        (void)state;
        struct hw_summary *s = probe(&f);
        assert_int_equal(s->xdp_status, 0);
        assert_int_equal(s->n_xdp, 1);
        assert_true(s->xdp[0].zero_copy);
        hw_summary_free(s);
}

/* devices that all vanished before their names were read: none, and no list */
static void test_all_gone(void **state) {
        static const struct dev gone[] = {
                { .ifindex = 0x7ffffff0, .features = 0x23 },
                { .ifindex = 0x7ffffff1, .features = 0x2b },
        };
        struct fake f = { .family = 0x21, .devs = gone, .n_devs = ELEMENTSOF(gone) };
        (void)state;
        struct hw_summary *s = probe(&f);
        assert_int_equal(s->xdp_status, 0);
        assert_int_equal(s->n_xdp, 0);
        assert_null(s->xdp);
        hw_summary_free(s);
}

/* with descriptor 0 free the netlink socket may get it: closed all the same, every time (an
 * interrupted dump opens another) */
static void test_fd0(void **state) {
        struct fake f = { .family = 0x21, .devs = lo_and_gone, .n_devs = 2, .interrupted = 1 };
        (void)state;
        fd0_free();
        struct hw_summary *s = probe(&f);
        fd0_restore();
        assert_int_equal(s->xdp_status, 0);
        assert_int_equal(f.dumps, 2);
        assert_int_equal(s->n_xdp, 1);
        hw_summary_free(s);
}

/* more interfaces than HW_MAX_INTERFACES: that many are kept (lo, over and over) */
static void test_many(void **state) {
        size_t n = HW_MAX_INTERFACES + 50;
        struct dev *devs = calloc(n, sizeof *devs);
        (void)state;
        assert_non_null(devs);
        for (size_t i = 0; i < n; i++)
                devs[i] = (struct dev){ .ifindex = 1, .features = 0x2b };
        struct fake f = { .family = 0x21, .devs = devs, .n_devs = n };
        struct hw_summary *s = probe(&f);
        assert_int_equal(s->xdp_status, 0);
        assert_int_equal(s->n_xdp, HW_MAX_INTERFACES);
        hw_summary_free(s);
        /* none of them counted (lo is no physical interface), all shown: one place is kept
         * for a counted one */
        s = NULL;
        f.family_requests = f.dumps = 0;
        fault_netlink(NETLINK_GENERIC, kernel, &f);
        int r = hw_probe(HW_XDP, NULL, &s);
        fault_netlink(-1, NULL, NULL);
        assert_int_equal(r, 0);
        assert_int_equal(s->xdp_status, 0);
        assert_int_equal(s->n_xdp, HW_MAX_INTERFACES - 1);
        assert_false(s->xdp[0].counted);
        hw_summary_free(s);
        free(devs);
}

/* Counted interfaces take up to HW_MAX_INTERFACES places; one that is not counted takes a place
 * only while there is one left after it, or when it is the last and all before it are counted.
 * Needs an interface besides lo (any: the selection excludes it). */
static void test_many_mixed(void **state) {
        struct if_nameindex *ni = if_nameindex();
        char other[IF_NAMESIZE] = "";
        unsigned other_index = 0;
        (void)state;
        assert_non_null(ni);
        for (struct if_nameindex *i = ni; i->if_index; i++)
                if (!streq(i->if_name, "lo")) {
                        snprintf(other, sizeof other, "%s", i->if_name);
                        other_index = i->if_index;
                        break;
                }
        if_freenameindex(ni);
        if (!other_index) {
                print_message("# no interface besides lo here: not checked\n");
                return;
        }
        char *include[] = { (char *)"lo", NULL }, *exclude[] = { other, NULL };
        const struct hw_netsel sel = { .include = include, .exclude = exclude };
        size_t n = HW_MAX_INTERFACES + 1;
        struct dev *devs = calloc(n, sizeof *devs);
        assert_non_null(devs);
        for (size_t i = 0; i < n; i++)
                devs[i] = (struct dev){ .ifindex = 1, .features = 0x2b };
        /* HW_MAX_INTERFACES - 1 counted, then the other: it takes the last place */
        devs[HW_MAX_INTERFACES - 1] = (struct dev){ .ifindex = other_index, .features = 0x23 };
        struct fake f = { .family = 0x21, .devs = devs, .n_devs = HW_MAX_INTERFACES };
        struct hw_summary *s = probe_sel(&f, &sel);
        assert_int_equal(s->xdp_status, 0);
        assert_int_equal(s->n_xdp, HW_MAX_INTERFACES);
        assert_string_equal(s->xdp[HW_MAX_INTERFACES - 1].name, other);
        assert_false(s->xdp[HW_MAX_INTERFACES - 1].counted);
        assert_true(s->xdp[HW_MAX_INTERFACES - 2].counted);
        hw_summary_free(s);
        /* HW_MAX_INTERFACES counted, then the other: no place left */
        devs[HW_MAX_INTERFACES - 1] = (struct dev){ .ifindex = 1, .features = 0x2b };
        devs[HW_MAX_INTERFACES] = (struct dev){ .ifindex = other_index, .features = 0x23 };
        f.n_devs = n;
        s = probe_sel(&f, &sel);
        assert_int_equal(s->xdp_status, 0);
        assert_int_equal(s->n_xdp, HW_MAX_INTERFACES);
        for (size_t i = 0; i < s->n_xdp; i++)
                assert_true(s->xdp[i].counted);
        hw_summary_free(s);
        free(devs);
}

/* a dump of NL_DUMP_MAX_BYTES bytes is read whole; a byte more is too large */
static void test_dump_bound(void **state) {
        (void)state;
        struct fake f = { .family = 0x21, .flood = NL_DUMP_MAX_BYTES };
        struct hw_summary *s = probe(&f);
        assert_int_equal(s->xdp_status, 0);
        assert_int_equal(s->n_xdp, 0);
        hw_summary_free(s);
        f = (struct fake){ .family = 0x21, .flood = NL_DUMP_MAX_BYTES + NLMSG_HDRLEN };
        s = probe(&f);
        assert_int_equal(s->xdp_status, -E2BIG);
        hw_summary_free(s);
}

/* every allocation failing in turn: -ENOMEM, or the whole summary */
static void test_alloc(void **state) {
        (void)state;
        if (!fault_alloc_supported())
                return;   /* a sanitizer build: ASan owns the allocator */
        static const struct dev up_and_gone[] = { { .ifindex = 1, .features = 0x2b, .rx = 2 },
                                                  { .ifindex = 0x7ffffff0, .features = 0x23 } };
        struct fake f = { .family = 0x21, .devs = up_and_gone, .n_devs = 2 };
        unsigned failed = 0, harmless = 0;
        for (unsigned long k = 1;; k++) {
                struct hw_summary *s = NULL;
                f.family_requests = f.dumps = 0;
                fault_netlink(NETLINK_GENERIC, kernel, &f);
                fault_arm("alloc", NULL, k, ENOMEM);
                int r = hw_probe(HW_XDP | HW_MEM, &sel_lo, &s);
                bool hit = fault_injected() > 0;
                fault_disarm();
                fault_netlink(-1, NULL, NULL);
                if (!hit) {
                        assert_int_equal(r, 0);
                        hw_summary_free(s);
                        break;
                }
                if (r == -ENOMEM) {
                        failed++;
                        assert_null(s);
                        continue;
                }
                assert_int_equal(r, 0);
                harmless++;
                assert_int_equal(s->xdp_status, 0);
                assert_int_equal(s->n_xdp, 1);
                assert_int_equal(s->xdp[0].rx_queues, 2);
                assert_int_equal(s->mem_status, 0);
                hw_summary_free(s);
        }
        /* the summary and the interface list fail the probe; the listing of
         * /sys/devices/virtual/net only sends its names to the slower question, with the same
         * answers (checked above on every run that returned 0) */
        assert_true(failed >= 2);
        assert_true(harmless >= 1);
}

UNIT_MAIN(NULL, NULL, cmocka_unit_test(test_probe), cmocka_unit_test(test_family), cmocka_unit_test(test_interrupted),
          cmocka_unit_test(test_queue_dump), cmocka_unit_test(test_queue_fallback),
          cmocka_unit_test(test_devices), cmocka_unit_test(test_many), cmocka_unit_test(test_alloc),
          cmocka_unit_test(test_dump_bound), cmocka_unit_test(test_foreign_message), cmocka_unit_test(test_all_gone),
          cmocka_unit_test(test_fd0), cmocka_unit_test(test_many_mixed))
#else
static void test_none(void **state) {
        (void)state;
        print_message("# built without the AF_XDP probe (--disable-xdp): nothing to test\n");
}
UNIT_MAIN(NULL, NULL, cmocka_unit_test(test_none))
#endif
