// A program written for msPTI in CANN: it includes "mspti.h", found through mspti::mspti's
// include/mspti directory.
#include "mspti.h"

int main() { return msptiActivityFlushAll(1) == MSPTI_SUCCESS ? 0 : 1; }
