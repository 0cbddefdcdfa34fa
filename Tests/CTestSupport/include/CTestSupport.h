// What the tests' own harness needs from libc and the kernel headers that Swift's Glibc
// module does not declare. Declarations only; no logic. Not linked into reach.
#ifndef C_TEST_SUPPORT_H
#define C_TEST_SUPPORT_H

#include <linux/sched.h>  // CLONE_NEWNET

// setns(2) is declared only under _GNU_SOURCE, which the Glibc module does not set.
int setns(int fd, int nstype);

#endif
