/*
 * The far end of the smokeping benchmark and tests: answers ICMP echo requests to any of
 * its namespace's addresses after holding each one a fixed time, optionally dropping every
 * Nth request of each destination, and records what it held (this kernel has no netem).
 *
 *   smokeping-responder HOLD_US DROP_EVERY REPORT_FILE
 *
 * The kernel's own echo answers must be off (sysctl net.ipv4.icmp_echo_ignore_all=1, see
 * icmp_echo() in net/ipv4/icmp.c); a raw ICMP socket still gets a copy of each request
 * (raw_local_deliver, net/ipv4/raw.c), and the reply goes out through an IPPROTO_RAW socket
 * (raw(7): IP_HDRINCL implied) with the request's destination as its source, so one
 * process answers for every address a `local` route gives the namespace.
 * The hold is measured from the kernel's receive stamp of the request (SO_TIMESTAMPNS) to
 * just before sendto(2) of the reply, both CLOCK_REALTIME, as reach times its round trips.
 * On SIGTERM or SIGINT it writes one line to REPORT_FILE:
 *   requests=N replies=N dropped=N hold_mean_ns=N hold_max_ns=N
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define QUEUE 262144 /* requests held at once: 10,000 a second for 26 s */
#define PACKET 1500

struct held {
    int64_t due_ns;
    int64_t received_ns;
    int length;
    unsigned char bytes[PACKET];
};

static struct held *queue;
static size_t head, tail;
static volatile sig_atomic_t stopping;
static uint32_t seen[65536]; /* requests per destination, by its low 16 bits */

static void stop(int signal_number) { (void)signal_number; stopping = 1; }

static int64_t realtime_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static uint16_t checksum(const unsigned char *bytes, int length) {
    uint32_t sum = 0;
    for (int i = 0; i + 1 < length; i += 2) sum += (uint32_t)bytes[i] << 8 | bytes[i + 1];
    if (length & 1) sum += (uint32_t)bytes[length - 1] << 8;
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

/* The request in `bytes` (IP header first) turned into its reply, in place. */
static void make_reply(unsigned char *bytes, int length) {
    struct iphdr *ip = (struct iphdr *)bytes;
    int header = ip->ihl * 4;
    uint32_t source = ip->saddr;
    ip->saddr = ip->daddr;
    ip->daddr = source;
    ip->ttl = 64;
    ip->check = 0; /* filled by the kernel for IPPROTO_RAW */
    ip->id = 0;
    unsigned char *icmp = bytes + header;
    icmp[0] = ICMP_ECHOREPLY;
    icmp[2] = icmp[3] = 0;
    uint16_t sum = checksum(icmp, length - header);
    icmp[2] = (unsigned char)(sum >> 8);
    icmp[3] = (unsigned char)sum;
}

/* One request read, queued unless it is a Nth one; false when nothing was waiting. */
static int take(int in, int64_t hold_ns, unsigned drop_every, uint64_t *requests, uint64_t *dropped) {
    char control[256];
    struct held *slot = &queue[tail % QUEUE];
    struct iovec vector = {slot->bytes, PACKET};
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    ssize_t length = recvmsg(in, &message, MSG_DONTWAIT);
    if (length < 0) return 0;
    struct iphdr *ip = (struct iphdr *)slot->bytes;
    if (length < (ssize_t)sizeof *ip || length < ip->ihl * 4 + 8 || slot->bytes[ip->ihl * 4] != ICMP_ECHO) return 1;
    int64_t stamp = realtime_ns();
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPNS) {
            struct timespec kernel;
            memcpy(&kernel, CMSG_DATA(c), sizeof kernel);
            stamp = (int64_t)kernel.tv_sec * 1000000000 + kernel.tv_nsec;
        }
    }
    *requests += 1;
    uint32_t count = seen[ntohl(ip->daddr) & 0xffff]++;
    /* numgen inc mod N 0: the 1st, N+1st... of each destination. */
    if (drop_every && count % drop_every == 0) {
        *dropped += 1;
        return 1;
    }
    if (tail - head >= QUEUE) return 1; /* full: dropped too, and not counted as answered */
    slot->received_ns = stamp;
    slot->due_ns = stamp + hold_ns;
    slot->length = (int)length;
    tail++;
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: smokeping-responder HOLD_US DROP_EVERY REPORT_FILE\n");
        return 64;
    }
    int64_t hold_ns = atoll(argv[1]) * 1000;
    unsigned drop_every = (unsigned)atoi(argv[2]);
    queue = calloc(QUEUE, sizeof *queue);
    int in = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
    int out = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
    int on = 1;
    int buffer = 8 << 20;
    if (!queue || in < 0 || out < 0 || setsockopt(in, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) < 0) {
        perror("smokeping-responder: socket");
        return 1;
    }
    setsockopt(in, SOL_SOCKET, SO_RCVBUFFORCE, &buffer, sizeof buffer);
    setsockopt(out, SOL_SOCKET, SO_SNDBUFFORCE, &buffer, sizeof buffer);
    signal(SIGTERM, stop);
    signal(SIGINT, stop);
    uint64_t requests = 0, replies = 0, dropped = 0;
    int64_t hold_sum = 0, hold_max = 0;
    printf("ready\n");
    fflush(stdout);
    while (!stopping) {
        int64_t now = realtime_ns();
        while (head < tail && queue[head % QUEUE].due_ns <= now) {
            struct held *due = &queue[head % QUEUE];
            make_reply(due->bytes, due->length);
            struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr.s_addr = ((struct iphdr *)due->bytes)->daddr};
            int64_t sent = realtime_ns();
            if (sendto(out, due->bytes, (size_t)due->length, 0, (struct sockaddr *)&to, sizeof to) == due->length) {
                replies++;
                hold_sum += sent - due->received_ns;
                if (sent - due->received_ns > hold_max) hold_max = sent - due->received_ns;
            }
            head++;
            now = realtime_ns();
        }
        int64_t wait_ns = head < tail ? queue[head % QUEUE].due_ns - now : 100000000;
        if (wait_ns < 0) wait_ns = 0;
        struct timespec timeout = {wait_ns / 1000000000, wait_ns % 1000000000};
        struct pollfd wait = {in, POLLIN, 0};
        /* ppoll: a timeout in nanoseconds (hrtimer), where poll's milliseconds would hold
           every reply up to a millisecond too long. */
        if (ppoll(&wait, 1, &timeout, NULL) > 0) {
            while (take(in, hold_ns, drop_every, &requests, &dropped)) {}
        }
    }
    FILE *report = fopen(argv[3], "w");
    if (!report) return 1;
    fprintf(report, "requests=%llu replies=%llu dropped=%llu hold_mean_ns=%lld hold_max_ns=%lld\n",
            (unsigned long long)requests, (unsigned long long)replies, (unsigned long long)dropped,
            (long long)(replies ? hold_sum / (int64_t)replies : 0), (long long)hold_max);
    fclose(report);
    return 0;
}
