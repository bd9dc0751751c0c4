/* An unmodified mstx client: it includes only the mstx header and links no profiler.
 * argv[1] = "tool" if a tool is expected to be loaded (range ids non-zero), "none" otherwise.
 * Makes 6 marker records when a tool collects them. */
#include <stdio.h>
#include <string.h>

#include "mstx/ms_tools_ext.h"

int main(int argc, char **argv) {
    int expect_tool = argc > 1 && strcmp(argv[1], "tool") == 0;
    mstxDomainHandle_t domain;
    mstxRangeId range, domain_range;

    mstxMarkA("program_mark", NULL);
    range = mstxRangeStartA("program_range", NULL);
    mstxRangeEnd(range);
    domain = mstxDomainCreateA("program_domain");
    mstxDomainMarkA(domain, "domain_mark", NULL);
    domain_range = mstxDomainRangeStartA(domain, "domain_range", NULL);
    mstxDomainRangeEnd(domain, domain_range);
    mstxDomainDestroy(domain);

    if (expect_tool != (range != 0) || expect_tool != (domain != NULL) || expect_tool != (domain_range != 0)) {
        fprintf(stderr, "mstx_only_program: expected %s, got range %llu domain %p\n",
                expect_tool ? "a tool" : "no tool", (unsigned long long)range, (void *)domain);
        return 1;
    }
    printf("mstx_only_program: %s\n", expect_tool ? "tool loaded" : "no tool, calls were no-ops");
    return 0;
}
