// Declarations only (include/CTestSupport.h): SwiftPM wants a source file in a C target.
#include "CTestSupport.h"
