// Kernel and libc declarations that ReachSystem needs, and the few helpers Swift
// cannot import (function-like macros). No logic lives here. Only ReachSystem imports
// this module.
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
#include <signal.h>
#include <time.h>
#include <pthread.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_link.h>
#include <linux/if_arp.h>
#include <linux/errqueue.h>
#include <linux/sockios.h>
#include <sys/signalfd.h>
#include <malloc.h>
#include <sys/prctl.h>

// pipe2 is declared only under _GNU_SOURCE, which the Glibc module does not set.
int pipe2(int pipefd[_Nonnull 2], int flags);
// recvmmsg and its struct likewise (glibc's <bits/socket.h> declares them under
// __USE_GNU; the layout is the kernel's, include/linux/socket.h).
struct creach_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};
int recvmmsg(int sockfd, struct creach_mmsghdr *_Nonnull msgvec, unsigned int vlen, int flags, struct timespec *_Nullable timeout);
#define CREACH_MSG_WAITFORONE 0x10000
// ppoll likewise (nanosecond waits for ping intervals).
int ppoll(struct pollfd *_Nullable fds, nfds_t nfds, const struct timespec *_Nullable tmo_p, const sigset_t *_Nullable sigmask);

// prctl is variadic: Swift cannot call it. PR_SET_TIMERSLACK only.
static inline int creach_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0UL, 0UL, 0UL);
}

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

// ICMP sockets (reach ping). Constants whose macros Swift cannot import, as values.
enum {
    // SO_TIMESTAMPNS picks _OLD or _NEW by sizeof(time_t): a macro Swift cannot read.
    creach_so_timestampns = SO_TIMESTAMPNS,
    creach_scm_timestampns = SCM_TIMESTAMPNS,
    // linux/icmp.h ICMP_FILTER (SOL_RAW); that header clashes with <netinet/ip_icmp.h>.
    creach_icmp_filter = 1,
    creach_sol_raw = SOL_RAW,
    creach_ip_recverr = IP_RECVERR,
    creach_ip_recvttl = IP_RECVTTL,
    creach_ip_ttl = IP_TTL,
    creach_ipv6_recverr = IPV6_RECVERR,
    creach_ipv6_recvhoplimit = IPV6_RECVHOPLIMIT,
    creach_ipv6_hoplimit = IPV6_HOPLIMIT,
    creach_ipv6_unicast_hops = IPV6_UNICAST_HOPS,
    creach_icmp6_filter = ICMP6_FILTER,
    creach_so_bindtodevice = SO_BINDTODEVICE,
    creach_msg_errqueue = MSG_ERRQUEUE,
    creach_msg_dontwait = MSG_DONTWAIT,
    creach_so_ee_origin_local = SO_EE_ORIGIN_LOCAL,
    creach_so_ee_origin_icmp = SO_EE_ORIGIN_ICMP,
    creach_so_ee_origin_icmp6 = SO_EE_ORIGIN_ICMP6,
};

#endif
