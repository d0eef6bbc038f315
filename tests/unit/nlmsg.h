/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Netlink messages built for the unit tests, as the kernel writes them (tests/unit/test-xdpdiag.c,
 * test-netlink.c): a datagram of messages, each a header, a fixed part and attributes.
 */
#include <linux/netlink.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A message builder: nlmsghdr, a fixed part, attributes (nested ones by start/end). */
struct msg {
        uint8_t buf[8192];
        size_t len;       /* of the whole datagram */
        size_t start;     /* of the current message */
};

static inline void msg_begin(struct msg *m, uint16_t type, uint32_t seq, uint32_t pid, const void *fixed, size_t flen) {
        m->start = m->len;
        struct nlmsghdr *h = (void *)(m->buf + m->start);
        memset(h, 0, NLMSG_HDRLEN);
        h->nlmsg_type = type;
        h->nlmsg_flags = NLM_F_MULTI;
        h->nlmsg_seq = seq;
        h->nlmsg_pid = pid;
        m->len += NLMSG_HDRLEN;
        if (flen) {
                memcpy(m->buf + m->len, fixed, flen);
                m->len += NLMSG_ALIGN(flen);
        }
}

static inline size_t attr(struct msg *m, uint16_t type, const void *data, size_t len) {
        size_t at = m->len;
        struct nlattr *a = (void *)(m->buf + at);
        a->nla_len = (uint16_t)(NLA_HDRLEN + len);
        a->nla_type = type;
        if (len)
                memcpy(m->buf + at + NLA_HDRLEN, data, len);
        memset(m->buf + at + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
        m->len += NLA_HDRLEN + NLA_ALIGN(len);
        return at;
}

static inline size_t nest_begin(struct msg *m, uint16_t type) {
        return attr(m, type | NLA_F_NESTED, NULL, 0);
}

static inline void nest_end(struct msg *m, size_t at) {
        ((struct nlattr *)(void *)(m->buf + at))->nla_len = (uint16_t)(m->len - at);
}

static inline void msg_end(struct msg *m) {
        ((struct nlmsghdr *)(void *)(m->buf + m->start))->nlmsg_len = (uint32_t)(m->len - m->start);
}

static inline void msg_done(struct msg *m, uint32_t seq, uint32_t pid) {
        int zero = 0;
        msg_begin(m, NLMSG_DONE, seq, pid, &zero, sizeof zero);
        msg_end(m);
}

static inline void msg_error(struct msg *m, uint32_t seq, uint32_t pid, int error) {
        struct nlmsgerr e = { .error = error };
        msg_begin(m, NLMSG_ERROR, seq, pid, &e, sizeof e);
        msg_end(m);
}

