// Visibility of the C entry points. The library is built with hidden visibility by default;
// every public C function is marked with VNPU_EXPORT so that it is exported and interposable.
#pragma once

#define VNPU_EXPORT __attribute__((visibility("default")))
