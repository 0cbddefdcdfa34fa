// Kernel and libc declarations that ReachCore needs, and the few helpers Swift
// cannot import (function-like macros). No logic lives here.
#ifndef C_REACH_SHIMS_H
#define C_REACH_SHIMS_H

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <netinet/icmp6.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_link.h>
#include <linux/if_arp.h>
#include <linux/errqueue.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <time.h>

// pipe2 is declared only under _GNU_SOURCE, which the Glibc module does not set.
int pipe2(int pipefd[_Nonnull 2], int flags);

// CMSG_* are function-like macros: Swift cannot call them.
static inline struct cmsghdr *_Nullable creach_cmsg_firsthdr(struct msghdr *_Nonnull msg) {
    return CMSG_FIRSTHDR(msg);
}
static inline struct cmsghdr *_Nullable creach_cmsg_nxthdr(struct msghdr *_Nonnull msg, struct cmsghdr *_Nonnull cmsg) {
    return CMSG_NXTHDR(msg, cmsg);
}
static inline unsigned char *_Nonnull creach_cmsg_data(struct cmsghdr *_Nonnull cmsg) {
    return CMSG_DATA(cmsg);
}
static inline size_t creach_cmsg_space(size_t length) { return CMSG_SPACE(length); }
static inline size_t creach_cmsg_len(size_t length) { return CMSG_LEN(length); }

#endif
