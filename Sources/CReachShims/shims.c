// Intentionally empty: every helper is a static inline in the header.
#include "CReachShims.h"
